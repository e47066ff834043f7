//! `apply_frame`: `radio::apply::apply_frame` (frames from the radio applied to the
//! state) for every embedded profile, many frames in a row on one state built with
//! `service::initial_content`. Frames come from the input: to/from/cmd/data, with the
//! command byte drawn from the handled set or raw, and data either raw or a command
//! prefix followed by (optionally BCD-valid) bytes.
//!
//! Checks after every frame: no panic; every mode name (MAIN, SUB, VFO A/B) is one of
//! the profile's modes; filters stay 1..=3 and DATA mode 0..=3; `active` stays MAIN/SUB
//! on MAIN/SUB radios (SUB only with a sub receiver) and A/B on A/B radios; the shape of
//! the state (sub receiver, VFOs) never changes; every frequency written (receivers,
//! VFOs, scope span) is the value of a valid 5-byte BCD field of the frame; scope
//! receiver/mode stay 0..=1 / 0..=3; attenuator and preamp hold BCD values 0..=99;
//! `apply_frame` returning false leaves the state untouched. The final state
//! serialises to JSON.
#![no_main]

use std::time::SystemTime;

use libfuzzer_sys::fuzz_target;
use rigweb::profile::{Profile, VfoScheme};
use rigweb::radio::apply::apply_frame;
use rigweb::radio::service::initial_content;
use rigweb::radio::state::{RadioState, Selected, StateContent};
use rigweb::wire::civ::{Frame, Mode};
use rigweb_fuzz::common::{Bytes, bcd_freq_candidates, bcd1, freq_bcd, profiles};

const CMDS: [u8; 15] = [
    0x00, 0x01, 0x03, 0x04, 0x25, 0x26, 0x07, 0x0F, 0x11, 0x16, 0x14, 0x1C, 0x18, 0x29, 0x27,
];

/// Every frequency field of the state.
fn freqs(s: &RadioState) -> Vec<Option<u64>> {
    let mut v = vec![s.main.freq_hz, s.scope.settings.span_hz];
    for r in std::iter::once(&s.main).chain(s.sub.as_ref()) {
        v.push(r.freq_hz);
        v.push(r.vfo_a.as_ref().and_then(|x| x.freq_hz));
        v.push(r.vfo_b.as_ref().and_then(|x| x.freq_hz));
    }
    v
}

fn check_mode(modes: &[Mode], m: &Option<Mode>) {
    if let Some(m) = m {
        assert!(modes.contains(m), "mode {m:?} not in the profile");
    }
}

fn check_filter(f: Option<u8>) {
    if let Some(f) = f {
        assert!((1..=3).contains(&f), "filter {f}");
    }
}

fn check_state(p: &Profile, before: &StateContent, c: &StateContent, f: &Frame) {
    let s = &c.radio;
    let modes = &p.modes.list;
    for r in std::iter::once(&s.main).chain(s.sub.as_ref()) {
        check_mode(modes, &r.mode);
        check_filter(r.filter);
        assert!(
            r.data_mode.is_none_or(|d| d <= 3),
            "data mode {:?}",
            r.data_mode
        );
        assert!(
            r.settings.att.is_none_or(|a| a <= 99) && r.settings.preamp.is_none_or(|a| a <= 99),
            "att/preamp not a BCD value"
        );
        for v in r.vfo_a.iter().chain(r.vfo_b.iter()) {
            check_mode(modes, &v.mode);
            check_filter(v.filter);
        }
    }
    match (p.vfo.scheme, s.active) {
        (_, None) => {}
        (VfoScheme::Ab, Some(a)) => {
            assert!(a == Selected::A || a == Selected::B, "active {a:?}")
        }
        (VfoScheme::MainSub, Some(a)) => assert!(
            a == Selected::Main || (a == Selected::Sub && s.sub.is_some()),
            "active {a:?}"
        ),
    }
    let b = &before.radio;
    assert_eq!(
        s.sub.is_some(),
        b.sub.is_some(),
        "sub receiver appeared/vanished"
    );
    assert_eq!(s.main.vfo_a.is_some(), b.main.vfo_a.is_some());
    assert_eq!(s.main.vfo_b.is_some(), b.main.vfo_b.is_some());
    // (the scope's receiver is a Receiver: MAIN or SUB by its type)
    assert!(
        s.scope.settings.mode.is_none_or(|m| m <= 3),
        "scope settings"
    );
    let cands = bcd_freq_candidates(&f.data);
    let old = freqs(b);
    for (i, hz) in freqs(s).into_iter().enumerate() {
        if let Some(hz) = hz
            && Some(hz) != old[i]
        {
            assert!(
                cands.contains(&hz),
                "frequency {hz} written that no BCD field of {f:02X?} holds"
            );
        }
    }
    assert_eq!(
        (&c.connection, &c.ws_clients, &c.detail),
        (&before.connection, &before.ws_clients, &before.detail),
        "a radio frame changed connection/client/detail fields"
    );
}

fn frame(b: &mut Bytes, p: &Profile) -> Frame {
    let flags = b.u8();
    let to = if flags & 1 != 0 { b.u8() } else { 0xE0 };
    let from = if flags & 2 != 0 {
        b.u8()
    } else {
        p.radio.civ_addr
    };
    let cmd = if flags & 4 != 0 {
        b.u8()
    } else {
        b.pick(&CMDS)
    };
    let mut data: Vec<u8> = Vec::new();
    if flags & 8 != 0 {
        // a prefix the command expects
        let sel = b.u8();
        match cmd {
            0x25 | 0x26 => data.push(sel & 1),
            0x07 => data.extend_from_slice(&[[0xD2, 0xC2][usize::from(sel & 1)], (sel >> 1) & 1]),
            0x16 => data.push(0x02),
            0x14 => data.push(0x0A),
            0x1C => data.push(0x00),
            0x27 => data.extend_from_slice(&[0x12 + (sel & 3), (sel >> 2) & 1]),
            0x29 => {
                data.push(sel & 1);
                if sel & 2 != 0 {
                    data.extend_from_slice(&[0x16, 0x02]);
                } else {
                    data.push(0x11);
                }
            }
            _ => {}
        }
    }
    match flags >> 4 & 3 {
        0 => data.extend_from_slice(b.chunk(16)),
        1 => {
            let n = usize::from(b.u8() % 8);
            let v: Vec<u8> = (0..n).map(|_| bcd1(b.u8())).collect();
            data.extend(v);
        }
        2 => data.extend_from_slice(&freq_bcd(b.u64())),
        _ => {
            // a mode byte (codes 00..17), a DATA byte and a filter byte
            data.extend_from_slice(&[b.u8() % 0x18, bcd1(b.u8() % 4), bcd1(b.u8() % 5)]);
        }
    }
    data.retain(|&x| x != 0xFD);
    Frame::new(to, from, cmd, &data)
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    let all = profiles();
    let sel = b.u8();
    // one profile (bit 7 clear) or every profile in turn on the same script
    let chosen: Vec<_> = if sel & 0x80 == 0 {
        vec![all[usize::from(sel) % all.len()].clone()]
    } else {
        all.to_vec()
    };
    let script = b.take(usize::MAX);
    for p in chosen {
        let mut b = Bytes::new(script);
        let mut c = initial_content(&p);
        check_state(&p, &c, &c, &Frame::new(0, 0, 0, &[]));
        let mut n = 0;
        while !b.is_empty() && n < 256 {
            n += 1;
            let f = frame(&mut b, &p);
            let before = c.clone();
            let changed = apply_frame(&mut c, &p, &f);
            if !changed {
                assert_eq!(c, before, "apply_frame returned false but changed {f:02X?}");
            }
            check_state(&p, &before, &c, &f);
        }
        let json = c.to_json(7, SystemTime::UNIX_EPOCH);
        assert!(json.contains_key("main") && json.contains_key("revision"));
    }
});
