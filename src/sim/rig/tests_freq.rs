//! Frequency, mode, VFO, validation, addressing and command-29 tests for every profile.

use std::time::Duration;

use crate::profile::Feature;
use crate::sim::audio_synth::mode;
use crate::sim::rig::SimRig;
use crate::sim::rng::Rng;
use crate::sim::testutil::{ALL, ack, fb, nak, one, read, rig};
use crate::wire::civ::cmd::{self, ext, function, level, meter, power, scope, sel, vfo};
use crate::wire::civ::{ACK, BROADCAST, Frame, NAK, bcd_to_freq};

fn freq_of(data: &[u8]) -> u64 {
    bcd_to_freq(data).expect("bcd freq")
}

/// The profiles with `25`/`26` (selected / unselected frequency and mode).
fn with_25_26() -> Vec<&'static str> {
    ALL.iter()
        .copied()
        .filter(|id| rig(id).profile().has_feature(Feature::UnselectedVfo))
        .collect()
}

#[test]
fn a_radio_without_25_26_refuses_them_and_switches_vfos_with_07() {
    // issue 15: the IC-7100 has no 25/26 (its CI-V reference lists neither); the
    // simulator answered them as an IC-705 does
    assert!(!with_25_26().contains(&"ic7100"));
    assert!(with_25_26().contains(&"ic705"));
    let mut r = rig("ic7100");
    for c in [cmd::SEL_FREQ, cmd::SEL_MODE] {
        nak(&mut r, c, &[sel::SELECTED]);
        nak(&mut r, c, &[sel::UNSELECTED]);
    }
    let mut d = vec![sel::UNSELECTED];
    d.extend_from_slice(&fb(7_100_000));
    nak(&mut r, cmd::SEL_FREQ, &d);
    nak(
        &mut r,
        cmd::SEL_MODE,
        &[sel::UNSELECTED, mode::LSB, 0x00, 0x01],
    );
    // the classic commands on whichever VFO is selected
    let a = freq_of(&read(&mut r, cmd::READ_FREQ, &[]));
    ack(&mut r, cmd::VFO, &[vfo::SELECT_B]);
    let b = freq_of(&read(&mut r, cmd::READ_FREQ, &[]));
    assert_ne!(a, b, "the two VFOs start apart");
    ack(&mut r, cmd::SET_MODE, &[mode::CW, 0x02]);
    ack(&mut r, cmd::VFO, &[vfo::SELECT_A]);
    assert_eq!(freq_of(&read(&mut r, cmd::READ_FREQ, &[])), a);
    assert_ne!(read(&mut r, cmd::READ_MODE, &[]), vec![mode::CW, 0x02]);
    ack(&mut r, cmd::VFO, &[vfo::SWAP]);
    assert_eq!(freq_of(&read(&mut r, cmd::READ_FREQ, &[])), b, "swapped");
    assert_eq!(read(&mut r, cmd::READ_MODE, &[]), vec![mode::CW, 0x02]);
}

#[test]
fn read_and_set_frequency_selected_and_unselected_where_the_radio_has_25_26() {
    for id in with_25_26() {
        let mut r = rig(id);
        let sel = freq_of(&read(&mut r, cmd::READ_FREQ, &[]));
        let s25 = read(&mut r, cmd::SEL_FREQ, &[sel::SELECTED]);
        assert_eq!(s25[0], sel::SELECTED, "{id}");
        assert_eq!(freq_of(&s25[1..]), sel, "{id}: 25 00 is the selected");
        let unsel = freq_of(&read(&mut r, cmd::SEL_FREQ, &[sel::UNSELECTED])[1..]);
        assert_ne!(sel, unsel, "{id}: the two slots start apart");
        // set the selected with 05, the unselected with 25 01
        let band = r
            .profile()
            .band_for_freq(sel)
            .expect("start in a band")
            .clone();
        let new_sel = band.start_hz + 1_230;
        ack(&mut r, cmd::SET_FREQ, &fb(new_sel));
        assert_eq!(freq_of(&read(&mut r, cmd::READ_FREQ, &[])), new_sel, "{id}");
        let new_unsel = unsel + 5_000;
        let mut d = vec![sel::UNSELECTED];
        d.extend_from_slice(&fb(new_unsel));
        ack(&mut r, cmd::SEL_FREQ, &d);
        assert_eq!(
            freq_of(&read(&mut r, cmd::READ_FREQ, &[])),
            new_sel,
            "{id}: 25 01 left 03 alone"
        );
        assert_eq!(
            freq_of(&read(&mut r, cmd::SEL_FREQ, &[sel::UNSELECTED])[1..]),
            new_unsel,
            "{id}"
        );
        let mut d = vec![sel::SELECTED];
        d.extend_from_slice(&fb(new_sel + 10));
        ack(&mut r, cmd::SEL_FREQ, &d);
        assert_eq!(
            freq_of(&read(&mut r, cmd::READ_FREQ, &[])),
            new_sel + 10,
            "{id}"
        );
    }
}

#[test]
fn selecting_sub_or_vfo_b_moves_selected_and_unselected() {
    for id in with_25_26() {
        let mut r = rig(id);
        let a = freq_of(&read(&mut r, cmd::SEL_FREQ, &[sel::SELECTED])[1..]);
        let b = freq_of(&read(&mut r, cmd::SEL_FREQ, &[sel::UNSELECTED])[1..]);
        let dual = r.profile().is_dual();
        // 07 D1 on MAIN/SUB radios, 07 01 on A/B radios
        let select_other: &[u8] = if dual {
            &[vfo::SELECT_SUB]
        } else {
            &[vfo::SELECT_B]
        };
        ack(&mut r, cmd::VFO, select_other);
        assert_eq!(
            freq_of(&read(&mut r, cmd::READ_FREQ, &[])),
            b,
            "{id}: 03 follows the selection"
        );
        assert_eq!(
            freq_of(&read(&mut r, cmd::SEL_FREQ, &[sel::SELECTED])[1..]),
            b,
            "{id}"
        );
        assert_eq!(
            freq_of(&read(&mut r, cmd::SEL_FREQ, &[sel::UNSELECTED])[1..]),
            a,
            "{id}"
        );
        // 05 now tunes the other slot
        let moved = b + 1_000;
        ack(&mut r, cmd::SET_FREQ, &fb(moved));
        assert_eq!(
            freq_of(&read(&mut r, cmd::SEL_FREQ, &[sel::UNSELECTED])[1..]),
            a,
            "{id}"
        );
        if dual {
            assert_eq!(
                read(&mut r, cmd::VFO, &[vfo::SELECTED]),
                vec![vfo::SELECTED, 0x01],
                "{id}"
            );
            let snap = r.snapshot();
            assert_eq!(snap.selected_rx, 1);
            assert_eq!(snap.receivers[1].vfo[0].freq_hz, moved);
            ack(&mut r, cmd::VFO, &[vfo::SELECT_MAIN]);
            assert_eq!(
                read(&mut r, cmd::VFO, &[vfo::SELECTED]),
                vec![vfo::SELECTED, 0x00]
            );
        } else {
            nak(&mut r, cmd::VFO, &[vfo::SELECT_SUB]);
            nak(&mut r, cmd::VFO, &[vfo::SELECTED]);
            assert_eq!(r.snapshot().receivers[0].vfo[1].freq_hz, moved);
            ack(&mut r, cmd::VFO, &[vfo::SELECT_A]);
        }
        assert_eq!(
            freq_of(&read(&mut r, cmd::READ_FREQ, &[])),
            a,
            "{id}: back to the first"
        );
    }
}

#[test]
fn swap_and_equalize_use_the_profile_bytes() {
    for id in with_25_26() {
        let mut r = rig(id);
        let a = freq_of(&read(&mut r, cmd::SEL_FREQ, &[sel::SELECTED])[1..]);
        let b = freq_of(&read(&mut r, cmd::SEL_FREQ, &[sel::UNSELECTED])[1..]);
        ack(&mut r, cmd::VFO, &[vfo::SWAP]);
        assert_eq!(
            freq_of(&read(&mut r, cmd::SEL_FREQ, &[sel::SELECTED])[1..]),
            b,
            "{id}: swapped"
        );
        assert_eq!(
            freq_of(&read(&mut r, cmd::SEL_FREQ, &[sel::UNSELECTED])[1..]),
            a,
            "{id}"
        );
        let eq = r.profile().vfo.equalize.clone();
        ack(&mut r, cmd::VFO, &eq);
        assert_eq!(
            freq_of(&read(&mut r, cmd::SEL_FREQ, &[sel::UNSELECTED])[1..]),
            b,
            "{id}: equalized"
        );
        if r.profile().is_dual() {
            // dual watch
            ack(&mut r, cmd::VFO, &[vfo::DUAL_WATCH_ON]);
            assert_eq!(
                read(&mut r, cmd::VFO, &[vfo::DUAL_WATCH]),
                vec![vfo::DUAL_WATCH, 0x01]
            );
        } else {
            nak(&mut r, cmd::VFO, &[vfo::EQUALIZE_MAIN_SUB]);
            nak(&mut r, cmd::VFO, &[vfo::DUAL_WATCH_ON]);
        }
    }
}

#[test]
fn mode_and_filter_sets_and_reads() {
    for id in with_25_26() {
        let mut r = rig(id);
        ack(&mut r, cmd::SET_MODE, &[mode::CW, 0x02]); // CW FIL2
        assert_eq!(
            read(&mut r, cmd::READ_MODE, &[]),
            vec![mode::CW, 0x02],
            "{id}"
        );
        assert_eq!(
            read(&mut r, cmd::SEL_MODE, &[sel::SELECTED]),
            vec![sel::SELECTED, mode::CW, 0x00, 0x02],
            "{id}"
        );
        ack(&mut r, cmd::SET_MODE, &[mode::USB]); // USB, filter kept
        assert_eq!(
            read(&mut r, cmd::READ_MODE, &[]),
            vec![mode::USB, 0x02],
            "{id}"
        );
        // 26 01 sets the unselected: LSB, DATA off, FIL3
        ack(
            &mut r,
            cmd::SEL_MODE,
            &[sel::UNSELECTED, mode::LSB, 0x00, 0x03],
        );
        assert_eq!(
            read(&mut r, cmd::SEL_MODE, &[sel::UNSELECTED]),
            vec![sel::UNSELECTED, mode::LSB, 0x00, 0x03],
            "{id}"
        );
        assert_eq!(
            read(&mut r, cmd::READ_MODE, &[]),
            vec![mode::USB, 0x02],
            "{id}: selected untouched"
        );
        // USB-D1 via 26 00
        ack(
            &mut r,
            cmd::SEL_MODE,
            &[sel::SELECTED, mode::USB, 0x01, 0x01],
        );
        assert_eq!(
            read(&mut r, cmd::EXT, &[ext::DATA_MODE]),
            vec![ext::DATA_MODE, 0x01, 0x01],
            "{id}"
        );
        nak(&mut r, cmd::SET_MODE, &[mode::USB, 0x04]); // no FIL4
        nak(&mut r, cmd::SET_MODE, &[]);
        nak(&mut r, cmd::SEL_MODE, &[0x02]);
        nak(
            &mut r,
            cmd::SEL_MODE,
            &[sel::SELECTED, mode::CW, 0x01, 0x01],
        ); // CW has no DATA mode
    }
}

#[test]
fn validation_naks_per_model() {
    let mut r705 = rig("ic705");
    nak(&mut r705, cmd::SET_MODE, &[mode::PSK, 0x01]); // PSK
    ack(&mut r705, cmd::SET_MODE, &[mode::DV]); // DV
    nak(&mut r705, cmd::ATTENUATOR, &[0x10]); // 10 dB: not an IC-705 step
    ack(&mut r705, cmd::ATTENUATOR, &[0x20]);
    nak(&mut r705, cmd::EXT, &[ext::DATA_MODE, 0x02]); // only D1
    let mut r7610 = rig("ic7610");
    nak(&mut r7610, cmd::SET_MODE, &[mode::DV]); // DV
    ack(&mut r7610, cmd::SET_MODE, &[mode::PSK, 0x01]); // PSK
    nak(&mut r7610, cmd::SET_FREQ, &fb(100_000_000)); // outside 30 kHz-60 MHz
    nak(&mut r7610, cmd::SET_FREQ, &fb(29_000)); // below
    nak(&mut r7610, cmd::SET_FREQ, &[0x0A, 0x00, 0x10, 0x14, 0x00]); // nibble > 9
    nak(&mut r7610, cmd::SET_FREQ, &[0x00, 0x00, 0x10, 0x14]); // 4 bytes
    nak(&mut r7610, cmd::ATTENUATOR, &[0x10]); // 10 dB not in the 3 dB steps
    ack(&mut r7610, cmd::ATTENUATOR, &[0x45]);
    nak(&mut r7610, cmd::ATTENUATOR, &[0x4A]);
    nak(&mut r7610, cmd::FUNCTION, &[function::PREAMP, 0x03]); // preamp 3
    nak(&mut r7610, cmd::LEVEL, &[level::AF, 0x02, 0x56]); // 256
    nak(&mut r7610, cmd::LEVEL, &[level::AF, 0x01]); // 1 byte
    nak(&mut r7610, cmd::LEVEL, &[level::AF, 0x0A, 0x00]); // nibble
    nak(&mut r7610, 0x99, &[]); // unknown
    nak(&mut r7610, cmd::LEVEL, &[0x42]); // unknown level
    let mut r9700 = rig("ic9700");
    nak(&mut r9700, cmd::SET_FREQ, &fb(14_074_000));
    ack(&mut r9700, cmd::SET_FREQ, &fb(432_100_000));
    nak(&mut r9700, cmd::ATTENUATOR, &[0x20]);
    ack(&mut r9700, cmd::ATTENUATOR, &[0x10]);
    ack(&mut r9700, cmd::SET_MODE, &[mode::DD]); // DD
    let mut r7100 = rig("ic7100");
    nak(&mut r7100, cmd::SET_FREQ, &fb(100_000_000)); // gap between 54 and 118 MHz
    ack(&mut r7100, cmd::ATTENUATOR, &[0x12]);
}

#[test]
fn addressing_rules() {
    let mut r = rig("ic7610");
    let now = Duration::from_secs(1);
    // another radio's address: silence
    assert!(
        r.handle(&Frame::new(0x94, 0xE0, cmd::READ_FREQ, &[]), now)
            .is_empty()
    );
    // broadcast address: answered to the sender
    let rep = r.handle(&Frame::new(0x00, 0xE0, cmd::ID, &[cmd::ID_READ]), now);
    assert_eq!(
        rep,
        vec![Frame::new(0xE0, 0x98, cmd::ID, &[cmd::ID_READ, 0x98])]
    );
    // wfview's controller address
    let rep = r.handle(&Frame::new(0x98, 0xE1, cmd::READ_FREQ, &[]), now);
    assert_eq!(rep.len(), 1);
    assert_eq!(
        (rep[0].to, rep[0].from, rep[0].cmd),
        (0xE1, 0x98, cmd::READ_FREQ)
    );
    // incoming ACK/NAK and echoes: ignored
    assert!(r.handle(&Frame::new(0x98, 0xE0, ACK, &[]), now).is_empty());
    assert!(r.handle(&Frame::new(0x98, 0xE0, NAK, &[]), now).is_empty());
    assert!(
        r.handle(&Frame::new(0x98, 0x98, cmd::READ_FREQ, &[]), now)
            .is_empty()
    );
    assert!(
        r.handle(
            &Frame::new(0x00, 0x98, cmd::FREQ_NO_REPLY, &fb(7_000_000)),
            now
        )
        .is_empty()
    );
    assert_eq!(r.snapshot().receivers[0].vfo[0].freq_hz, 14_200_000);
}

#[test]
fn set_frequency_and_mode_without_reply_are_applied_and_broadcast() {
    let mut r = rig("ic7610");
    let t = Duration::from_secs(1);
    let from_controller = |c: u8, d: &[u8]| Frame::new(0x98, 0xE0, c, d);
    let f = from_controller(cmd::FREQ_NO_REPLY, &fb(7_074_000));
    assert!(r.handle(&f, t).is_empty(), "00 is never answered");
    assert_eq!(r.snapshot().receivers[0].vfo[0].freq_hz, 7_074_000);
    assert_eq!(r.next_due(), Some(t));
    let bcast = |c: u8, d: &[u8]| Frame::new(BROADCAST, 0x98, c, d);
    assert_eq!(r.poll(t), vec![bcast(cmd::FREQ_NO_REPLY, &fb(7_074_000))]);
    let f = from_controller(cmd::MODE_NO_REPLY, &[mode::CW, 0x02]);
    assert!(r.handle(&f, t).is_empty());
    assert_eq!(read(&mut r, cmd::READ_MODE, &[]), vec![mode::CW, 0x02]);
    assert_eq!(
        r.poll(t),
        vec![bcast(cmd::MODE_NO_REPLY, &[mode::CW, 0x02])]
    );
    // without a filter byte the filter stays
    let f = from_controller(cmd::MODE_NO_REPLY, &[mode::USB]);
    assert!(r.handle(&f, t).is_empty());
    assert_eq!(
        r.poll(t),
        vec![bcast(cmd::MODE_NO_REPLY, &[mode::USB, 0x02])]
    );
    // refused values: no reply, no change, no broadcast
    let bad = [
        from_controller(cmd::FREQ_NO_REPLY, &fb(100_000_000)),
        from_controller(cmd::FREQ_NO_REPLY, &[0x00, 0x40]),
        from_controller(cmd::MODE_NO_REPLY, &[mode::DV]),
        from_controller(cmd::MODE_NO_REPLY, &[mode::USB, 0x04]),
        from_controller(cmd::MODE_NO_REPLY, &[]),
    ];
    let before = r.snapshot();
    for f in bad {
        assert!(r.handle(&f, t).is_empty(), "{f:?}");
        assert!(r.poll(t).is_empty(), "{f:?}");
    }
    assert_eq!(r.snapshot(), before);
    // they act on the selected receiver
    ack(&mut r, cmd::VFO, &[vfo::SELECT_SUB]);
    let f = from_controller(cmd::FREQ_NO_REPLY, &fb(3_573_000));
    assert!(r.handle(&f, t).is_empty());
    assert_eq!(r.snapshot().receivers[1].vfo[0].freq_hz, 3_573_000);
    assert_eq!(r.snapshot().receivers[0].vfo[0].freq_hz, 7_074_000);
    assert_eq!(r.poll(t).len(), 1);
    // with transceive off they are applied, not broadcast
    ack(&mut r, cmd::EXT, &[ext::MENU, 0x01, 0x12, 0x00]);
    let f = from_controller(cmd::FREQ_NO_REPLY, &fb(3_574_000));
    assert!(r.handle(&f, t).is_empty());
    assert_eq!(r.snapshot().receivers[1].vfo[0].freq_hz, 3_574_000);
    assert!(r.poll(t).is_empty());
    // every model
    for id in ["ic705", "ic9700", "ic7100"] {
        let mut r = rig(id);
        let addr = r.civ_addr();
        let hz = if id == "ic9700" {
            435_000_000
        } else {
            50_313_000
        };
        let f = Frame::new(addr, 0xE0, cmd::FREQ_NO_REPLY, &fb(hz));
        assert!(r.handle(&f, t).is_empty());
        assert_eq!(freq_of(&read(&mut r, cmd::READ_FREQ, &[])), hz, "{id}");
        assert_eq!(r.poll(t).len(), 1, "{id}");
    }
}

#[test]
fn cmd29_wrapped_reads_on_ic7610_and_nak_on_others() {
    let mut r = rig("ic7610");
    assert_eq!(
        read(&mut r, cmd::RECEIVER_PREFIX, &[1, cmd::ATTENUATOR]),
        vec![1, cmd::ATTENUATOR, 0x00]
    );
    ack(&mut r, cmd::RECEIVER_PREFIX, &[1, cmd::ATTENUATOR, 0x06]); // set: plain FB
    assert_eq!(
        read(&mut r, cmd::RECEIVER_PREFIX, &[1, cmd::ATTENUATOR]),
        vec![1, cmd::ATTENUATOR, 0x06]
    );
    assert_eq!(
        read(&mut r, cmd::RECEIVER_PREFIX, &[0, cmd::ATTENUATOR]),
        vec![0, cmd::ATTENUATOR, 0x00]
    );
    assert_eq!(
        read(&mut r, cmd::ATTENUATOR, &[]),
        vec![0x00],
        "plain = selected (MAIN)"
    );
    ack(&mut r, cmd::VFO, &[vfo::SELECT_SUB]);
    assert_eq!(
        read(&mut r, cmd::ATTENUATOR, &[]),
        vec![0x06],
        "plain = selected (SUB)"
    );
    // levels, preamp and the S-meter through cmd29
    ack(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[0, cmd::LEVEL, level::AF, 0x02, 0x00],
    );
    assert_eq!(
        read(&mut r, cmd::RECEIVER_PREFIX, &[0, cmd::LEVEL, level::AF]),
        vec![0, cmd::LEVEL, level::AF, 0x02, 0x00]
    );
    assert_eq!(
        read(&mut r, cmd::LEVEL, &[level::AF]),
        vec![level::AF, 0x01, 0x28],
        "SUB AF untouched"
    );
    let pre = read(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[1, cmd::FUNCTION, function::PREAMP],
    );
    assert_eq!(pre, vec![1, cmd::FUNCTION, function::PREAMP, 0x00]);
    let s = read(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[1, cmd::METER, meter::S_METER],
    );
    assert_eq!(&s[..3], &[1, cmd::METER, meter::S_METER]);
    assert_eq!(s.len(), 5);
    // not routed / bad receiver / truncated
    nak(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[0, cmd::SET_FREQ, 0x00, 0x00, 0x10, 0x14, 0x00],
    );
    nak(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[0, cmd::LEVEL, level::RF_POWER],
    );
    nak(&mut r, cmd::RECEIVER_PREFIX, &[2, cmd::ATTENUATOR]);
    nak(&mut r, cmd::RECEIVER_PREFIX, &[0x00]);
    for id in ["ic9700", "ic705", "ic7100"] {
        let mut r = rig(id);
        nak(&mut r, cmd::RECEIVER_PREFIX, &[0, cmd::ATTENUATOR]);
        nak(&mut r, cmd::RECEIVER_PREFIX, &[1, cmd::ATTENUATOR]);
    }
}

#[test]
fn band_edge_split_and_tuning_step() {
    let mut r = rig("ic705");
    let e = read(&mut r, cmd::BAND_EDGE, &[]);
    assert_eq!(e.len(), 11);
    assert_eq!(e[5], 0x2D);
    assert_eq!(freq_of(&e[..5]), 30_000);
    assert_eq!(read(&mut r, cmd::SPLIT, &[]), vec![0x00]);
    ack(&mut r, cmd::SPLIT, &[0x01]);
    assert_eq!(read(&mut r, cmd::SPLIT, &[]), vec![0x01]);
    nak(&mut r, cmd::SPLIT, &[0x02]);
    ack(&mut r, cmd::TUNING_STEP, &[0x13]);
    assert_eq!(read(&mut r, cmd::TUNING_STEP, &[]), vec![0x13]);
    nak(&mut r, cmd::TUNING_STEP, &[0x14]);
}

#[test]
fn never_panics_and_always_answers_the_sender() {
    let mut rng = Rng::new(2024);
    for id in ALL {
        let mut r = rig(id);
        let addr = r.civ_addr();
        for i in 0..3_000u32 {
            let command = match rng.below(4) {
                0 => rng.next_u64() as u8,
                _ => [
                    cmd::FREQ_NO_REPLY,
                    cmd::MODE_NO_REPLY,
                    cmd::READ_FREQ,
                    cmd::SET_FREQ,
                    cmd::SET_MODE,
                    cmd::VFO,
                    cmd::ATTENUATOR,
                    cmd::ANTENNA,
                    cmd::LEVEL,
                    cmd::METER,
                    cmd::FUNCTION,
                    cmd::SEND_CW,
                    cmd::POWER,
                    cmd::EXT,
                    cmd::TX,
                    cmd::RIT,
                    cmd::SEL_FREQ,
                    cmd::SEL_MODE,
                    cmd::SCOPE,
                    cmd::RECEIVER_PREFIX,
                ][rng.below(20) as usize],
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
            for f in r.handle(&Frame::new(addr, from, command, &data), t) {
                assert_eq!((f.to, f.from), (from, addr));
            }
            // out of poll: sweeps and broadcasts only; then nothing is overdue
            for f in r.poll(t) {
                let sweep = f.cmd == cmd::SCOPE && f.data.first() == Some(&scope::WAVE);
                assert!(sweep || f.to == BROADCAST, "{id}: {f:?}");
                assert_eq!(f.from, addr);
            }
            assert!(r.next_due().is_none_or(|d| d > t), "{id}: overdue");
            if !r.powered() {
                r.handle(&Frame::new(addr, 0xE0, cmd::POWER, &[power::ON]), t);
            }
        }
        let _ = one(&mut r, cmd::READ_FREQ, &[]);
    }
}

#[test]
fn ic7610_agc_is_per_receiver_under_cmd29() {
    // issue 15.9: `29 <rx> 16 12` was NAKed (the profile's cmd29 routes lacked it)
    let mut r = rig("ic7610");
    let agc =
        |r: &mut SimRig, rx: u8| read(r, cmd::RECEIVER_PREFIX, &[rx, cmd::FUNCTION, function::AGC]);
    assert_eq!(agc(&mut r, 0), vec![0, cmd::FUNCTION, function::AGC, 0x02]);
    ack(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[1, cmd::FUNCTION, function::AGC, 0x03],
    );
    assert_eq!(agc(&mut r, 1), vec![1, cmd::FUNCTION, function::AGC, 0x03]);
    assert_eq!(
        agc(&mut r, 0),
        vec![0, cmd::FUNCTION, function::AGC, 0x02],
        "MAIN's own"
    );
    assert_eq!(
        read(&mut r, cmd::FUNCTION, &[function::AGC]),
        vec![function::AGC, 0x02]
    );
    // out of range is still refused
    nak(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[1, cmd::FUNCTION, function::AGC, 0x04],
    );
}
