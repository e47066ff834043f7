//! Frequency, mode, VFO, validation, addressing and command-29 tests for every profile.

use std::time::Duration;

use crate::sim::rng::Rng;
use crate::sim::testutil::{ALL, ack, fb, nak, one, read, rig};
use crate::wire::civ::{Frame, bcd_to_freq};

fn freq_of(data: &[u8]) -> u64 {
    bcd_to_freq(data).expect("bcd freq")
}

#[test]
fn read_and_set_frequency_selected_and_unselected_on_every_profile() {
    for id in ALL {
        let mut r = rig(id);
        let sel = freq_of(&read(&mut r, 0x03, &[]));
        let s25 = read(&mut r, 0x25, &[0x00]);
        assert_eq!(s25[0], 0x00, "{id}");
        assert_eq!(freq_of(&s25[1..]), sel, "{id}: 25 00 is the selected");
        let unsel = freq_of(&read(&mut r, 0x25, &[0x01])[1..]);
        assert_ne!(sel, unsel, "{id}: the two slots start apart");
        // set the selected with 05, the unselected with 25 01
        let band = r
            .profile()
            .band_for_freq(sel)
            .expect("start in a band")
            .clone();
        let new_sel = band.start_hz + 1_230;
        ack(&mut r, 0x05, &fb(new_sel));
        assert_eq!(freq_of(&read(&mut r, 0x03, &[])), new_sel, "{id}");
        let new_unsel = unsel + 5_000;
        let mut d = vec![0x01];
        d.extend_from_slice(&fb(new_unsel));
        ack(&mut r, 0x25, &d);
        assert_eq!(
            freq_of(&read(&mut r, 0x03, &[])),
            new_sel,
            "{id}: 25 01 left 03 alone"
        );
        assert_eq!(
            freq_of(&read(&mut r, 0x25, &[0x01])[1..]),
            new_unsel,
            "{id}"
        );
        let mut d = vec![0x00];
        d.extend_from_slice(&fb(new_sel + 10));
        ack(&mut r, 0x25, &d);
        assert_eq!(freq_of(&read(&mut r, 0x03, &[])), new_sel + 10, "{id}");
    }
}

#[test]
fn selecting_sub_or_vfo_b_moves_selected_and_unselected() {
    for id in ALL {
        let mut r = rig(id);
        let a = freq_of(&read(&mut r, 0x25, &[0x00])[1..]);
        let b = freq_of(&read(&mut r, 0x25, &[0x01])[1..]);
        let dual = r.profile().is_dual();
        // 07 D1 on MAIN/SUB radios, 07 01 on A/B radios
        let select_other: &[u8] = if dual { &[0xD1] } else { &[0x01] };
        ack(&mut r, 0x07, select_other);
        assert_eq!(
            freq_of(&read(&mut r, 0x03, &[])),
            b,
            "{id}: 03 follows the selection"
        );
        assert_eq!(freq_of(&read(&mut r, 0x25, &[0x00])[1..]), b, "{id}");
        assert_eq!(freq_of(&read(&mut r, 0x25, &[0x01])[1..]), a, "{id}");
        // 05 now tunes the other slot
        let moved = b + 1_000;
        ack(&mut r, 0x05, &fb(moved));
        assert_eq!(freq_of(&read(&mut r, 0x25, &[0x01])[1..]), a, "{id}");
        if dual {
            assert_eq!(read(&mut r, 0x07, &[0xD2]), vec![0xD2, 0x01], "{id}");
            let snap = r.snapshot();
            assert_eq!(snap.selected_rx, 1);
            assert_eq!(snap.receivers[1].vfo[0].freq_hz, moved);
            ack(&mut r, 0x07, &[0xD0]);
            assert_eq!(read(&mut r, 0x07, &[0xD2]), vec![0xD2, 0x00]);
        } else {
            nak(&mut r, 0x07, &[0xD1]);
            nak(&mut r, 0x07, &[0xD2]);
            assert_eq!(r.snapshot().receivers[0].vfo[1].freq_hz, moved);
            ack(&mut r, 0x07, &[0x00]);
        }
        assert_eq!(
            freq_of(&read(&mut r, 0x03, &[])),
            a,
            "{id}: back to the first"
        );
    }
}

#[test]
fn swap_and_equalize_use_the_profile_bytes() {
    for id in ALL {
        let mut r = rig(id);
        let a = freq_of(&read(&mut r, 0x25, &[0x00])[1..]);
        let b = freq_of(&read(&mut r, 0x25, &[0x01])[1..]);
        ack(&mut r, 0x07, &[0xB0]);
        assert_eq!(
            freq_of(&read(&mut r, 0x25, &[0x00])[1..]),
            b,
            "{id}: swapped"
        );
        assert_eq!(freq_of(&read(&mut r, 0x25, &[0x01])[1..]), a, "{id}");
        let eq = r.profile().vfo.equalize.clone();
        ack(&mut r, 0x07, &eq);
        assert_eq!(
            freq_of(&read(&mut r, 0x25, &[0x01])[1..]),
            b,
            "{id}: equalized"
        );
        if r.profile().is_dual() {
            // dual watch
            ack(&mut r, 0x07, &[0xC1]);
            assert_eq!(read(&mut r, 0x07, &[0xC2]), vec![0xC2, 0x01]);
        } else {
            nak(&mut r, 0x07, &[0xB1]);
            nak(&mut r, 0x07, &[0xC1]);
        }
    }
}

#[test]
fn mode_and_filter_sets_and_reads() {
    for id in ALL {
        let mut r = rig(id);
        ack(&mut r, 0x06, &[0x03, 0x02]); // CW FIL2
        assert_eq!(read(&mut r, 0x04, &[]), vec![0x03, 0x02], "{id}");
        assert_eq!(
            read(&mut r, 0x26, &[0x00]),
            vec![0x00, 0x03, 0x00, 0x02],
            "{id}"
        );
        ack(&mut r, 0x06, &[0x01]); // USB, filter kept
        assert_eq!(read(&mut r, 0x04, &[]), vec![0x01, 0x02], "{id}");
        // 26 01 sets the unselected: LSB, DATA off, FIL3
        ack(&mut r, 0x26, &[0x01, 0x00, 0x00, 0x03]);
        assert_eq!(
            read(&mut r, 0x26, &[0x01]),
            vec![0x01, 0x00, 0x00, 0x03],
            "{id}"
        );
        assert_eq!(
            read(&mut r, 0x04, &[]),
            vec![0x01, 0x02],
            "{id}: selected untouched"
        );
        // USB-D1 via 26 00
        ack(&mut r, 0x26, &[0x00, 0x01, 0x01, 0x01]);
        assert_eq!(read(&mut r, 0x1A, &[0x06]), vec![0x06, 0x01, 0x01], "{id}");
        nak(&mut r, 0x06, &[0x01, 0x04]); // no FIL4
        nak(&mut r, 0x06, &[]);
        nak(&mut r, 0x26, &[0x02]);
        nak(&mut r, 0x26, &[0x00, 0x03, 0x01, 0x01]); // CW has no DATA mode
    }
}

#[test]
fn validation_naks_per_model() {
    let mut r705 = rig("ic705");
    nak(&mut r705, 0x06, &[0x12, 0x01]); // PSK
    ack(&mut r705, 0x06, &[0x17]); // DV
    nak(&mut r705, 0x11, &[0x10]); // 10 dB: not an IC-705 step
    ack(&mut r705, 0x11, &[0x20]);
    nak(&mut r705, 0x1A, &[0x06, 0x02]); // only D1
    let mut r7610 = rig("ic7610");
    nak(&mut r7610, 0x06, &[0x17]); // DV
    ack(&mut r7610, 0x06, &[0x12, 0x01]); // PSK
    nak(&mut r7610, 0x05, &fb(100_000_000)); // outside 30 kHz-60 MHz
    nak(&mut r7610, 0x05, &fb(29_000)); // below
    nak(&mut r7610, 0x05, &[0x0A, 0x00, 0x10, 0x14, 0x00]); // nibble > 9
    nak(&mut r7610, 0x05, &[0x00, 0x00, 0x10, 0x14]); // 4 bytes
    nak(&mut r7610, 0x11, &[0x10]); // 10 dB not in the 3 dB steps
    ack(&mut r7610, 0x11, &[0x45]);
    nak(&mut r7610, 0x11, &[0x4A]);
    nak(&mut r7610, 0x16, &[0x02, 0x03]); // preamp 3
    nak(&mut r7610, 0x14, &[0x01, 0x02, 0x56]); // 256
    nak(&mut r7610, 0x14, &[0x01, 0x01]); // 1 byte
    nak(&mut r7610, 0x14, &[0x01, 0x0A, 0x00]); // nibble
    nak(&mut r7610, 0x99, &[]); // unknown
    nak(&mut r7610, 0x14, &[0x42]); // unknown level
    let mut r9700 = rig("ic9700");
    nak(&mut r9700, 0x05, &fb(14_074_000));
    ack(&mut r9700, 0x05, &fb(432_100_000));
    nak(&mut r9700, 0x11, &[0x20]);
    ack(&mut r9700, 0x11, &[0x10]);
    ack(&mut r9700, 0x06, &[0x22]); // DD
    let mut r7100 = rig("ic7100");
    nak(&mut r7100, 0x05, &fb(100_000_000)); // gap between 54 and 118 MHz
    ack(&mut r7100, 0x11, &[0x12]);
}

#[test]
fn addressing_rules() {
    let mut r = rig("ic7610");
    let now = Duration::from_secs(1);
    // another radio's address: silence
    assert!(r.handle(&Frame::new(0x94, 0xE0, 0x03, &[]), now).is_empty());
    // broadcast address: answered to the sender
    let rep = r.handle(&Frame::new(0x00, 0xE0, 0x19, &[0x00]), now);
    assert_eq!(rep, vec![Frame::new(0xE0, 0x98, 0x19, &[0x00, 0x98])]);
    // wfview's controller address
    let rep = r.handle(&Frame::new(0x98, 0xE1, 0x03, &[]), now);
    assert_eq!(rep.len(), 1);
    assert_eq!((rep[0].to, rep[0].from, rep[0].cmd), (0xE1, 0x98, 0x03));
    // incoming ACK/NAK, echoes and transceive frames: ignored
    assert!(r.handle(&Frame::new(0x98, 0xE0, 0xFB, &[]), now).is_empty());
    assert!(r.handle(&Frame::new(0x98, 0xE0, 0xFA, &[]), now).is_empty());
    assert!(r.handle(&Frame::new(0x98, 0x98, 0x03, &[]), now).is_empty());
    assert!(
        r.handle(&Frame::new(0x98, 0xE0, 0x00, &fb(7_000_000)), now)
            .is_empty()
    );
    assert_eq!(r.snapshot().receivers[0].vfo[0].freq_hz, 14_200_000);
}

#[test]
fn cmd29_wrapped_reads_on_ic7610_and_nak_on_others() {
    let mut r = rig("ic7610");
    assert_eq!(read(&mut r, 0x29, &[0x01, 0x11]), vec![0x01, 0x11, 0x00]);
    ack(&mut r, 0x29, &[0x01, 0x11, 0x06]); // set: plain FB
    assert_eq!(read(&mut r, 0x29, &[0x01, 0x11]), vec![0x01, 0x11, 0x06]);
    assert_eq!(read(&mut r, 0x29, &[0x00, 0x11]), vec![0x00, 0x11, 0x00]);
    assert_eq!(
        read(&mut r, 0x11, &[]),
        vec![0x00],
        "plain = selected (MAIN)"
    );
    ack(&mut r, 0x07, &[0xD1]);
    assert_eq!(
        read(&mut r, 0x11, &[]),
        vec![0x06],
        "plain = selected (SUB)"
    );
    // levels, preamp and the S-meter through cmd29
    ack(&mut r, 0x29, &[0x00, 0x14, 0x01, 0x02, 0x00]);
    assert_eq!(
        read(&mut r, 0x29, &[0x00, 0x14, 0x01]),
        vec![0x00, 0x14, 0x01, 0x02, 0x00]
    );
    assert_eq!(
        read(&mut r, 0x14, &[0x01]),
        vec![0x01, 0x01, 0x28],
        "SUB AF untouched"
    );
    let pre = read(&mut r, 0x29, &[0x01, 0x16, 0x02]);
    assert_eq!(pre, vec![0x01, 0x16, 0x02, 0x00]);
    let s = read(&mut r, 0x29, &[0x01, 0x15, 0x02]);
    assert_eq!(&s[..3], &[0x01, 0x15, 0x02]);
    assert_eq!(s.len(), 5);
    // not routed / bad receiver / truncated
    nak(&mut r, 0x29, &[0x00, 0x05, 0x00, 0x00, 0x10, 0x14, 0x00]);
    nak(&mut r, 0x29, &[0x00, 0x14, 0x0A]);
    nak(&mut r, 0x29, &[0x02, 0x11]);
    nak(&mut r, 0x29, &[0x00]);
    for id in ["ic9700", "ic705", "ic7100"] {
        let mut r = rig(id);
        nak(&mut r, 0x29, &[0x00, 0x11]);
        nak(&mut r, 0x29, &[0x01, 0x11]);
    }
}

#[test]
fn band_edge_split_and_tuning_step() {
    let mut r = rig("ic705");
    let e = read(&mut r, 0x02, &[]);
    assert_eq!(e.len(), 11);
    assert_eq!(e[5], 0x2D);
    assert_eq!(freq_of(&e[..5]), 30_000);
    assert_eq!(read(&mut r, 0x0F, &[]), vec![0x00]);
    ack(&mut r, 0x0F, &[0x01]);
    assert_eq!(read(&mut r, 0x0F, &[]), vec![0x01]);
    nak(&mut r, 0x0F, &[0x02]);
    ack(&mut r, 0x10, &[0x13]);
    assert_eq!(read(&mut r, 0x10, &[]), vec![0x13]);
    nak(&mut r, 0x10, &[0x14]);
}

#[test]
fn never_panics_and_always_answers_the_sender() {
    let mut rng = Rng::new(2024);
    for id in ALL {
        let mut r = rig(id);
        let addr = r.civ_addr();
        for i in 0..3_000u32 {
            let cmd = match rng.below(4) {
                0 => rng.next_u64() as u8,
                _ => [
                    0x03, 0x05, 0x06, 0x07, 0x11, 0x14, 0x15, 0x16, 0x18, 0x1A, 0x1C, 0x21, 0x25,
                    0x26, 0x27, 0x29,
                ][rng.below(16) as usize],
            };
            let len = rng.below(14) as usize;
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.below(2) == 0 {
                        rng.below(4) as u8
                    } else {
                        rng.next_u64() as u8 % 0xFD
                    }
                })
                .collect();
            let from = if rng.below(2) == 0 { 0xE0 } else { 0xE1 };
            let t = Duration::from_millis(u64::from(i) * 7);
            for f in r.handle(&Frame::new(addr, from, cmd, &data), t) {
                assert_eq!((f.to, f.from), (from, addr));
            }
            let _ = r.poll(t);
            if !r.powered() {
                r.handle(&Frame::new(addr, 0xE0, 0x18, &[0x01]), t);
            }
        }
        let _ = one(&mut r, 0x03, &[]);
    }
}
