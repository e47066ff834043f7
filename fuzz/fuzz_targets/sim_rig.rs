//! `sim_rig`: the simulated radio's CI-V model `SimRig::handle` / `poll` for an embedded
//! profile chosen by the first byte, with frames addressed to the radio, to 0x00 or
//! elsewhere (commands from the handled set or raw, command-29 wrapped or not, data raw,
//! BCD-shaped or a frequency), time moving (mostly forward, sometimes back), plus
//! `render_audio` with arbitrary small buffers, channel counts and sample rates and
//! `accept_tx_audio` with arbitrary samples.
//!
//! Checks: frames not addressed to the radio (or from it, or ACK/NAK) get no reply;
//! otherwise at most one reply, addressed to the request's `from`, from the radio's
//! address; ACK/NAK replies carry no data; a command-29 data reply names the receiver
//! asked; every frame out of `handle` and `poll` is well formed (no `FD` inside, fits
//! `MAX_FRAME_LEN`, survives emit/parse unless addressed to `FE`); every scope sweep
//! from `poll` is accepted by the client's `ScopeAssembler` as a whole sweep with the
//! profile's pixel count (none when out of range), amplitudes within `amp_max` and
//! `start <= end`; every frame out of the radio applies to a client state without
//! breaking its invariants; `poll` returns sweeps (at most one per receiver) and
//! transceive broadcasts to 0x00, and afterwards `next_due()` is later than `now`;
//! `render_audio` never panics and gives silence for 0 channels, a zero sample rate or a
//! radio in standby.
#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use rigweb::profile::{Profile, ScopeSourceKind};
use rigweb::radio::apply::apply_frame;
use rigweb::radio::scope::ScopeAssembler;
use rigweb::radio::service::initial_content;
use rigweb::radio::state::StateContent;
use rigweb::sim::{SimRig, SimRigConfig};
use rigweb::wire::civ::{ACK, CMD_RECEIVER_PREFIX, Frame, NAK, cmd};
use rigweb_fuzz::common::{Bytes, bcd1, check_civ_frame, freq_bcd, profiles};

const CMDS: [u8; 24] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0F, 0x10, 0x11, 0x14, 0x15, 0x16, 0x18, 0x19,
    0x1A, 0x1B, 0x1C, 0x21, 0x25, 0x26, 0x27, 0x29,
];
const RATES: [u32; 8] = [0, 1, 8_000, 16_000, 24_000, 48_000, 96_000, 44_100];

fn request(b: &mut Bytes, p: &Profile) -> Frame {
    let flags = b.u8();
    let to = match flags & 3 {
        0 | 1 => p.radio.civ_addr,
        2 => 0x00,
        _ => b.u8(),
    };
    let from = if flags & 4 != 0 { b.u8() } else { 0xE0 };
    let cmd = if flags & 8 != 0 {
        b.u8()
    } else {
        b.pick(&CMDS)
    };
    let mut data = Vec::new();
    if cmd == CMD_RECEIVER_PREFIX && flags & 0x80 == 0 {
        // 29 <rx> <cmd> ...
        data.push(b.u8() & 1);
        data.push(b.pick(&CMDS));
    }
    match flags >> 4 & 7 {
        0 | 1 => data.extend_from_slice(b.chunk(24)),
        2 | 3 => {
            data.push(b.u8());
            let n = usize::from(b.u8() % 6);
            let v: Vec<u8> = (0..n).map(|_| bcd1(b.u8())).collect();
            data.extend(v);
        }
        4 => {
            data.push(b.u8() & 1);
            data.extend_from_slice(&freq_bcd(b.u64()));
        }
        5 => data.extend_from_slice(&freq_bcd(b.u64())),
        _ => {
            // a sub-command and a receiver byte, then BCD
            data.push(b.u8());
            data.push(b.u8() & 1);
            let n = usize::from(b.u8() % 11);
            let v: Vec<u8> = (0..n).map(|_| bcd1(b.u8())).collect();
            data.extend(v);
        }
    }
    // what `split_frames` can yield: no FD anywhere, no FE padding as the destination
    data.retain(|&x| x != 0xFD);
    let to = if to >= 0xFD { 0x00 } else { to };
    let from = if from == 0xFD { 0xFC } else { from };
    let cmd = if cmd == 0xFD { 0xFC } else { cmd };
    Frame::new(to, from, cmd, &data)
}

/// A frame from the radio must apply to a client's state without breaking it.
fn apply(c: &mut StateContent, p: &Profile, f: &Frame) {
    apply_frame(c, p, f);
    for r in std::iter::once(&c.radio.main).chain(c.radio.sub.as_ref()) {
        assert!(
            r.mode.as_ref().is_none_or(|m| p.modes.list.contains(m)),
            "client state mode {:?}",
            r.mode
        );
        assert!(r.filter.is_none_or(|f| (1..=3).contains(&f)));
    }
}

fn check_poll(
    frames: &[Frame],
    p: &Profile,
    asm: &mut ScopeAssembler,
    state: &mut StateContent,
    at: Instant,
) {
    for f in frames {
        check_civ_frame("poll", f);
        assert_eq!(
            f.from, p.radio.civ_addr,
            "unsolicited frame not from the radio"
        );
        if f.cmd == cmd::SCOPE && f.data.first() == Some(&cmd::scope::WAVE) {
            assert_eq!(
                p.scope.source,
                ScopeSourceKind::Hardware,
                "sweep from a radio without a hardware scope"
            );
            let s = match asm.push(f, at) {
                Ok(Some(s)) => s,
                other => panic!("the simulator's sweep is not a whole sweep: {other:?}"),
            };
            if s.out_of_range {
                assert!(s.pixels.is_empty());
            } else {
                assert_eq!(s.pixels.len(), usize::from(p.scope.pixels), "sweep width");
                assert!(
                    s.pixels.iter().all(|&x| x <= p.scope.amp_max),
                    "sweep amplitude above amp_max"
                );
            }
            assert!(s.start_hz <= s.end_hz, "sweep edges reversed: {s:?}");
        }
        apply(state, p, f);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    let all = profiles();
    let p = all[usize::from(b.u8()) % all.len()].clone();
    let mut rig = SimRig::new(
        p.clone(),
        SimRigConfig {
            seed: u64::from(b.u8()),
            ..SimRigConfig::default()
        },
    );
    let addr = p.radio.civ_addr;
    let mut now = Duration::ZERO;
    let t0 = Instant::now();
    let mut asm = ScopeAssembler::default();
    let mut state = initial_content(&p);
    let mut ops = 0;
    while !b.is_empty() && ops < 256 {
        ops += 1;
        let op = b.u8();
        match op % 8 {
            0 | 1 => {
                match op >> 3 & 3 {
                    0 | 1 => now += Duration::from_millis(u64::from(b.u16() % 2048)),
                    2 => now += Duration::from_secs(u64::from(b.u8())),
                    _ => now = now.saturating_sub(Duration::from_millis(u64::from(b.u16()))),
                }
                let frames = rig.poll(now);
                // sweeps, at most one per receiver, and the transceive broadcasts (to
                // 0x00) that `handle` queued: `00`/`01`, a tune ending, `18 00`
                let is_sweep =
                    |f: &Frame| f.cmd == cmd::SCOPE && f.data.first() == Some(&cmd::scope::WAVE);
                let sweeps = frames.iter().filter(|f| is_sweep(f)).count();
                assert!(sweeps <= 2, "{sweeps} sweeps from one poll");
                assert!(
                    frames.iter().all(|f| is_sweep(f) || f.to == 0x00),
                    "poll returned something else than a sweep or a broadcast"
                );
                check_poll(&frames, &p, &mut asm, &mut state, t0 + now);
                if let Some(due) = rig.next_due() {
                    assert!(due > now, "next_due {due:?} not after poll({now:?})");
                }
            }
            2 => {
                let n = usize::from(b.u16() % 4096);
                let channels = if op & 0x80 != 0 { b.u8() } else { b.u8() % 4 };
                let rate = if op & 0x40 != 0 {
                    b.u32()
                } else {
                    b.pick(&RATES)
                };
                let mut buf = vec![0x5555i16; n];
                rig.render_audio(&mut buf, channels, rate);
                if channels == 0 || rate == 0 || !rig.powered() {
                    assert!(buf.iter().all(|&x| x == 0), "no audio expected");
                }
            }
            3 => {
                let n = usize::from(b.u16() % 4096);
                let fill = b.u16() as i16;
                let samples: Vec<i16> = (0..n).map(|i| fill.wrapping_mul(i as i16)).collect();
                rig.accept_tx_audio(&samples);
            }
            _ => {
                let f = request(&mut b, &p);
                let replies = rig.handle(&f, now);
                let addressed = (f.to == addr || f.to == 0x00)
                    && f.from != addr
                    && f.cmd != ACK
                    && f.cmd != NAK;
                if !addressed {
                    assert!(replies.is_empty(), "answered a frame not for the radio");
                }
                assert!(replies.len() <= 1, "{} replies", replies.len());
                for r in &replies {
                    check_civ_frame("reply", r);
                    assert_eq!(r.to, f.from, "reply not addressed to the requester");
                    assert_eq!(r.from, addr, "reply not from the radio");
                    if r.cmd == ACK || r.cmd == NAK {
                        assert!(r.data.is_empty(), "ACK/NAK with data");
                    }
                    if f.cmd == CMD_RECEIVER_PREFIX && r.cmd == CMD_RECEIVER_PREFIX {
                        assert_eq!(r.data.first(), f.data.first(), "command-29 reply receiver");
                    }
                    apply(&mut state, &p, r);
                }
            }
        }
    }
});
