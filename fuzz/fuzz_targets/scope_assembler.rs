//! `scope_assembler`: `ScopeAssembler::push` fed a script of `27 00` frames (one LAN
//! sweep or a USB header + pixel frames, shaped from the input or raw bytes) with time
//! advancing by input-chosen steps, plus `to_web_scale` on every assembled sweep.
//!
//! Checks: a sweep has `receiver <= 1`, `mode <= 3`, at most `MAX_PIXELS` pixels and
//! none when `out_of_range`; center mode (0) gives `start <= end` around the centre, the
//! other modes pass the two edges through as sent (reversed edges included); its pixels
//! are exactly the bodies of the accepted frames since its header frame, received within
//! 5 s of it; `Ok(None)` only for `seq < seqmax`; `errors()` counts the `Err`s;
//! `to_web_scale` keeps the length, never exceeds 160, maps 0 to 0 and `amp_max` to 160,
//! and is monotonic.
#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use rigweb::radio::scope::{MAX_PIXELS, ScopeAssembler, ScopeSweep, to_web_scale};
use rigweb::wire::civ::{Frame, bcd_to_freq, from_bcd_byte};
use rigweb_fuzz::common::{Bytes, bcd1, freq_bcd};

/// What the harness knows of one receiver's sweep in progress.
#[derive(Default, Clone)]
struct Track {
    /// Pixels accepted since the last accepted header frame.
    pixels: Vec<u8>,
    /// When that header frame was pushed.
    started: Option<Instant>,
}

fn check_web_scale(pixels: &[u8], amp_max: u8) {
    let w = to_web_scale(pixels, amp_max);
    assert_eq!(w.len(), pixels.len(), "to_web_scale changed the length");
    for (&p, &v) in pixels.iter().zip(&w) {
        assert!(v <= 160, "to_web_scale({p}, {amp_max}) = {v} > 160");
        if p == 0 {
            assert_eq!(v, 0, "to_web_scale(0, {amp_max}) != 0");
        }
        if amp_max != 0 && p >= amp_max {
            assert_eq!(v, 160, "to_web_scale({p}, {amp_max}) is not full scale");
        }
    }
    // monotonic in the pixel value
    let all: Vec<u8> = (0..=255).collect();
    let s = to_web_scale(&all, amp_max);
    assert!(
        s.windows(2).all(|x| x[0] <= x[1]),
        "to_web_scale not monotonic for amp_max {amp_max}"
    );
}

fn check_sweep(s: &ScopeSweep, amp_max: u8) {
    // (the receiver is a Receiver: MAIN or SUB by its type)
    assert!(s.mode <= 3, "sweep mode {}", s.mode);
    assert!(
        s.pixels.len() <= MAX_PIXELS,
        "sweep of {} pixels",
        s.pixels.len()
    );
    if s.out_of_range {
        assert!(s.pixels.is_empty(), "out-of-range sweep with pixels");
    }
    if s.mode == 0 {
        assert!(s.start_hz <= s.end_hz, "center-mode sweep with start > end");
    }
    check_web_scale(&s.pixels, amp_max);
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    let amp_max = b.u8();
    let mut asm = ScopeAssembler::default();
    let t0 = Instant::now();
    let mut now = t0;
    let mut errors = 0u64;
    let mut track = [Track::default(), Track::default()];
    let mut frames = 0;
    while !b.is_empty() && frames < 96 {
        let op = b.u8();
        match op % 8 {
            // time steps: milliseconds, or whole seconds around the 5 s limit
            0 => now += Duration::from_millis(u64::from(b.u16())),
            1 => now += Duration::from_secs(u64::from(b.u8() % 8)),
            _ => {}
        }
        if op % 8 < 2 {
            continue;
        }
        frames += 1;
        // Build the frame data.
        let mut d: Vec<u8> = match op % 8 {
            // raw data bytes, first byte forced to 00 unless bit 7
            2 => {
                let mut d = b.chunk(255).to_vec();
                if op & 0x80 == 0 {
                    if d.is_empty() {
                        d.push(0);
                    }
                    d[0] = 0x00;
                }
                d
            }
            // header frame, shaped
            3..=5 => {
                let flags = b.u8();
                let rx = if flags & 0x80 != 0 { b.u8() } else { flags & 1 };
                let seq_max = if flags & 0x40 != 0 {
                    b.u8()
                } else {
                    bcd1(1 + b.u8() % 15)
                };
                let seq = if flags & 0x20 != 0 { b.u8() } else { 0x01 };
                let mode = if flags & 0x10 != 0 {
                    b.u8()
                } else {
                    b.u8() % 4
                };
                let mut d = vec![0x00, rx, seq, seq_max, mode];
                if flags & 0x08 != 0 {
                    d.extend_from_slice(b.take(10));
                } else {
                    d.extend_from_slice(&freq_bcd(b.u64()));
                    d.extend_from_slice(&freq_bcd(u64::from(b.u32())));
                }
                let oor = if flags & 0x04 != 0 {
                    b.u8()
                } else {
                    b.u8() & 1
                };
                d.push(oor);
                // pixels: a raw tail, or a run of a given length (around MAX_PIXELS)
                if flags & 0x02 != 0 {
                    let n = usize::from(b.u16()) % (MAX_PIXELS + 64);
                    let fill = b.u8();
                    d.extend((0..n).map(|i| fill.wrapping_add(i as u8)));
                } else {
                    d.extend_from_slice(b.chunk(255));
                }
                d
            }
            // pixel (continuation) frame, shaped
            _ => {
                let flags = b.u8();
                let rx = flags & 1;
                let seq = if flags & 0x40 != 0 {
                    b.u8()
                } else {
                    bcd1(2 + b.u8() % 14)
                };
                let seq_max = if flags & 0x20 != 0 {
                    b.u8()
                } else {
                    bcd1(1 + b.u8() % 15)
                };
                let mut d = vec![0x00, rx, seq, seq_max];
                if flags & 0x02 != 0 {
                    let n = usize::from(b.u16()) % (MAX_PIXELS + 64);
                    let fill = b.u8();
                    d.extend((0..n).map(|i| fill.wrapping_add(i as u8)));
                } else {
                    d.extend_from_slice(b.chunk(255));
                }
                d
            }
        };
        if op & 0x40 != 0 && op % 8 != 2 && !d.is_empty() {
            // an occasional corrupt first byte
            d[0] = b.u8();
        }
        let cmd = if op & 0x20 != 0 && op & 0x10 != 0 {
            b.u8()
        } else {
            0x27
        };
        let frame = Frame::new(0xE0, 0x98, cmd, &d);
        let r = asm.push(&frame, now);

        // What the frame says, decoded independently.
        let wave = cmd == 0x27 && d.first() == Some(&0x00) && d.len() >= 4;
        let rx = d.get(1).copied().unwrap_or(0);
        let seqs = (
            from_bcd_byte(d.get(2).copied().unwrap_or(0xFF)),
            from_bcd_byte(d.get(3).copied().unwrap_or(0xFF)),
        );
        match &r {
            Err(_) => errors += 1,
            Ok(res) => {
                assert!(wave && rx <= 1, "accepted a frame that is not a wave frame");
                let (Ok(seq), Ok(seq_max)) = seqs else {
                    panic!("accepted a frame with non-BCD seq / seqmax");
                };
                assert!(
                    seq >= 1 && seq <= seq_max,
                    "accepted seq {seq} / seqmax {seq_max}"
                );
                let t = &mut track[usize::from(rx)];
                if seq == 1 {
                    // header: mode, edges, flag as sent
                    let mode = d[4];
                    let f1 = bcd_to_freq(&d[5..10]).expect("accepted header with bad f1");
                    let f2 = bcd_to_freq(&d[10..15]).expect("accepted header with bad f2");
                    let oor = d[15];
                    assert!(mode <= 3 && oor <= 1);
                    t.pixels = if oor == 1 {
                        Vec::new()
                    } else {
                        d[16..].to_vec()
                    };
                    t.started = Some(now);
                    if let Some(s) = res {
                        assert_eq!((s.mode, s.out_of_range), (mode, oor == 1));
                        if mode == 0 {
                            assert_eq!(
                                (s.start_hz, s.end_hz),
                                (f1.saturating_sub(f2), f1 + f2),
                                "center mode edges"
                            );
                        } else {
                            assert_eq!((s.start_hz, s.end_hz), (f1, f2), "edges passed through");
                        }
                    }
                } else {
                    t.pixels.extend_from_slice(&d[4..]);
                    let started = t.started.expect("pixel frame accepted without a header");
                    assert!(
                        now.saturating_duration_since(started) <= Duration::from_secs(5),
                        "pixel frame accepted {:?} after its header",
                        now - started
                    );
                }
                match res {
                    None => assert!(seq < seq_max, "Ok(None) for the last frame"),
                    Some(s) => {
                        assert!(
                            seq == seq_max || s.out_of_range,
                            "sweep returned before its last frame"
                        );
                        assert_eq!(s.receiver.code(), rx);
                        assert_eq!(
                            s.pixels, t.pixels,
                            "sweep pixels are not the bodies of its frames"
                        );
                        check_sweep(s, amp_max);
                        t.started = None;
                        t.pixels.clear();
                    }
                }
            }
        }
        assert_eq!(asm.errors(), errors, "errors() does not count the Errs");
    }
    check_web_scale(data, amp_max);
});
