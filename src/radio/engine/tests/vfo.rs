//! A/B radios and the unselected VFO (issue 15 item 4): a command naming a VFO selects
//! it first while the selection is unknown; the other VFO is read and set with `25`/`26`
//! where the radio has them (IC-705) and by selecting it for the duration where it has
//! not (IC-7100); MAIN/SUB radios read what a command needs with `26` first.

use super::{Pair, ok};
use crate::radio::state::{Selected, VfoState};
use crate::radio::table::answer::Answer;
use crate::radio::table::command::{Command, Target};
use crate::sim::rig::VfoState as RigVfo;
use crate::wire::civ::{self, Mode, Receiver, cmd};

fn rig_vfo(p: &Pair, v: usize) -> RigVfo {
    p.rig.snapshot().receivers[0].vfo[v]
}

fn rig_selected(p: &Pair) -> u8 {
    p.rig.snapshot().receivers[0].active_vfo
}

/// What the rig's VFO `v` is, as the state shows a VFO.
fn as_state(x: RigVfo) -> VfoState {
    VfoState {
        freq_hz: Some(x.freq_hz),
        mode: Mode::from_code(x.mode),
        filter: Some(x.filter),
        data_mode: Some(x.data),
    }
}

fn vfo(p: &Pair, v: u8) -> VfoState {
    let c = p.content();
    let x = if v == 0 {
        c.radio.main.vfo_a
    } else {
        c.radio.main.vfo_b
    };
    x.expect("an A/B radio has both VFOs")
}

fn set_mode(v: u8, mode: &str) -> Command {
    Command::SetMode {
        target: Target::Vfo(v),
        mode: Mode::from_name(mode).expect("a mode"),
        filter: None,
    }
}

/// `07`, `25`, `26` requests sent from request `from` on.
fn vfo_requests(p: &Pair, from: usize) -> Vec<(u8, Vec<u8>)> {
    p.sent[from..]
        .iter()
        .filter(|f| [cmd::VFO, cmd::SEL_FREQ, cmd::SEL_MODE].contains(&f.cmd))
        .map(|f| (f.cmd, f.data.clone()))
        .collect()
}

#[test]
fn a_named_vfo_is_selected_first_on_every_ab_radio() {
    // issue 15: set_mode / set_filter / set_data_mode with vfo A or B failed with
    // "the selected VFO is not known yet" until a set_freq named a VFO
    for model in ["ic705", "ic7100"] {
        let cases = [
            set_mode(1, "CW"),
            Command::SetFilter {
                target: Target::Vfo(0),
                filter: 2,
            },
            Command::SetDataMode {
                target: Target::Vfo(1),
                data: 1,
            },
        ];
        for (i, command) in cases.into_iter().enumerate() {
            let mut p = Pair::ready(model);
            assert_eq!(
                p.content().radio.active,
                None,
                "{model}: unknown after connect"
            );
            let v = command.named_vfo().unwrap();
            let r = p.exec(command.clone());
            assert!(r.is_ok(), "{model} case {i}: {r:?}");
            assert_eq!(
                rig_selected(&p),
                v,
                "{model} case {i}: selected on the radio"
            );
            let want = if v == 0 { Selected::A } else { Selected::B };
            assert_eq!(p.content().radio.active, Some(want), "{model} case {i}");
            let rig = rig_vfo(&p, usize::from(v));
            match command {
                Command::SetMode { .. } => assert_eq!(rig.mode, Mode::Cw.code()),
                Command::SetFilter { .. } => assert_eq!(rig.filter, 2),
                _ => assert_eq!(rig.data, 1, "{model}: USB-D1"),
            }
            assert_eq!(
                vfo(&p, v),
                as_state(rig),
                "{model} case {i}: the state agrees"
            );
            let c = p.content();
            assert_eq!(c.radio.main.freq_hz, Some(rig.freq_hz), "the dial shows it");
            // with 25/26 the other VFO is read without switching; without, it is unknown
            let other = vfo(&p, 1 - v);
            if model == "ic705" {
                assert_eq!(other, as_state(rig_vfo(&p, usize::from(1 - v))), "{model}");
            } else {
                assert_eq!(other.freq_hz, None, "{model}: not read by switching");
            }
        }
    }
}

#[test]
fn the_other_vfo_is_set_without_switching_where_the_radio_has_25_26() {
    // issue 15: after set_freq on B, set_mode on A failed with "the filter is not known
    // yet"
    let mut p = Pair::ready("ic705");
    ok(p.exec(Command::SetFreq {
        target: Target::Vfo(1),
        hz: 14_250_000,
    }));
    assert_eq!(rig_selected(&p), 1);
    let from = p.sent.len();
    let r = ok(p.exec(set_mode(0, "LSB")));
    assert!(
        matches!(r, Answer::ModeSet { target, .. } if target.label() == "A"),
        "{r:?}"
    );
    assert_eq!(rig_vfo(&p, 0).mode, Mode::Lsb.code());
    assert_eq!(rig_selected(&p), 1, "B stays selected");
    assert_eq!(
        vfo_requests(&p, from),
        vec![(cmd::SEL_MODE, vec![0x01, 0x00, 0x00, rig_vfo(&p, 0).filter])],
        "26 01 only: no switching"
    );
    // DATA mode of A, its own (B's stays)
    let b_data = rig_vfo(&p, 1).data;
    ok(p.exec(Command::SetDataMode {
        target: Target::Vfo(0),
        data: 1,
    }));
    assert_eq!((rig_vfo(&p, 0).data, rig_vfo(&p, 1).data), (1, b_data));
    assert_eq!(vfo(&p, 0), as_state(rig_vfo(&p, 0)));
    assert_eq!(vfo(&p, 1), as_state(rig_vfo(&p, 1)));
    ok(p.exec(Command::SetFreq {
        target: Target::Vfo(0),
        hz: 7_050_000,
    }));
    assert_eq!(rig_vfo(&p, 0).freq_hz, 7_050_000);
    assert_eq!(
        p.content().radio.main.freq_hz,
        Some(14_250_000),
        "B on the dial"
    );
    // a swap: both read again
    ok(p.exec(Command::VfoSwap));
    assert_eq!(vfo(&p, 0), as_state(rig_vfo(&p, 0)));
    assert_eq!(vfo(&p, 1), as_state(rig_vfo(&p, 1)));
    assert_eq!(p.content().radio.main.freq_hz, Some(rig_vfo(&p, 1).freq_hz));
    assert_eq!(p.sent_count(&[cmd::VFO, 0x00]), 0, "A never selected");
}

#[test]
fn without_25_26_the_other_vfo_is_reached_by_selecting_it() {
    let mut p = Pair::ready("ic7100");
    let after_fetch = p.sent.len();
    let naks = p.engine.stats().naks;
    ok(p.exec(Command::SetFreq {
        target: Target::Vfo(1),
        hz: 14_250_000,
    }));
    let r = ok(p.exec(set_mode(0, "LSB")));
    assert!(
        matches!(r, Answer::ModeSet { target, mode: Mode::Lsb, .. } if target.label() == "A"),
        "{r:?}"
    );
    assert_eq!(rig_vfo(&p, 0).mode, Mode::Lsb.code());
    assert_eq!(rig_selected(&p), 1, "B selected again");
    ok(p.exec(Command::SetDataMode {
        target: Target::Vfo(0),
        data: 1,
    }));
    assert_eq!(rig_vfo(&p, 0).data, 1);
    ok(p.exec(Command::SetFreq {
        target: Target::Vfo(0),
        hz: 7_050_000,
    }));
    assert_eq!(rig_vfo(&p, 0).freq_hz, 7_050_000);
    assert_eq!(rig_selected(&p), 1);
    let c = p.content();
    assert_eq!(c.radio.active, Some(Selected::B));
    assert_eq!(c.radio.main.freq_hz, Some(14_250_000), "B on the dial");
    assert_eq!(vfo(&p, 0).freq_hz, Some(7_050_000));
    assert_eq!(vfo(&p, 0).mode.map(Mode::name), Some("LSB"));
    assert_eq!(vfo(&p, 1), as_state(rig_vfo(&p, 1)));
    // the swap is followed in the state
    ok(p.exec(Command::VfoSwap));
    assert_eq!(
        vfo(&p, 1).freq_hz,
        Some(7_050_000),
        "A's old frequency is on B"
    );
    assert_eq!(p.content().radio.main.freq_hz, Some(rig_vfo(&p, 1).freq_hz));
    let sel_cmds = p.sent[after_fetch..]
        .iter()
        .filter(|f| f.cmd == cmd::SEL_FREQ || f.cmd == cmd::SEL_MODE)
        .count();
    assert_eq!(sel_cmds, 0, "no 25/26 to a radio that lacks them");
    assert_eq!(p.engine.stats().naks, naks, "nothing refused");
}

#[test]
fn a_mode_change_reads_an_unknown_filter_first() {
    for model in ["ic7610", "ic9700"] {
        let mut p = Pair::ready(model);
        p.engine.state.modify(|c| {
            let sub = c.radio.sub.as_mut().unwrap();
            (sub.filter, sub.data_mode) = (None, None);
        });
        let from = p.sent.len();
        ok(p.exec(Command::SetDataMode {
            target: Target::Receiver(Receiver::Sub),
            data: 1,
        }));
        let snap = p.rig.snapshot();
        let sub = snap.receivers[1].vfo[usize::from(snap.receivers[1].active_vfo)];
        assert_eq!(sub.data, 1, "{model}");
        assert_eq!(
            vfo_requests(&p, from).first(),
            Some(&(cmd::SEL_MODE, vec![0x01])),
            "{model}: 26 01 read first"
        );
        assert_eq!(p.content().radio.sub.unwrap().filter, Some(sub.filter));
    }
}

fn split(p: &mut Pair, on: bool) {
    use crate::radio::table::settings::SettingId;
    ok(p.exec(Command::write(
        SettingId::Split,
        Receiver::Main,
        i64::from(on),
    )));
}

#[test]
fn send_cw_in_split_checks_the_tx_vfo() {
    // issue 15 item 9: send_cw checked the selected receiver's mode while in split the
    // radio keys the other VFO
    for model in ["ic705", "ic7100"] {
        let mut p = Pair::ready(model);
        ok(p.exec(set_mode(0, "USB")));
        ok(p.exec(set_mode(1, "CW")));
        split(&mut p, true);
        // RX (A) in USB, TX (B) in CW: allowed, and the radio keys
        let r = p.exec(Command::SendCw("TEST".into()));
        assert_eq!(ok(r), Answer::CwSent { chars: 4 }, "{model}");
        assert!(p.rig.snapshot().cw.is_some(), "{model}: sending");
        p.run_for(std::time::Duration::from_secs(5));
        // the reverse: refused, and the message names the TX VFO's mode
        ok(p.exec(set_mode(0, "CW")));
        ok(p.exec(set_mode(1, "USB")));
        let e = p.exec(Command::SendCw("TEST".into())).unwrap_err();
        assert_eq!(e.code.as_str(), "invalid_param", "{model}: {e}");
        assert!(
            e.message.contains("the TX VFO (B, split) is in USB"),
            "{model}: {e}"
        );
        // without split the selected VFO decides
        split(&mut p, false);
        assert!(p.exec(Command::SendCw("TEST".into())).is_ok(), "{model}");
    }
}

#[test]
fn send_cw_in_split_reads_the_tx_vfo_of_a_radio_whose_selection_is_unknown() {
    let mut p = Pair::ready("ic705");
    // the operator set up the radio: VFO B in CW, A (selected) in USB, split on
    let a = Mode::Usb.code();
    let b = Mode::Cw.code();
    p.rig.handle(
        &civ::Frame::new(0xA4, 0xE0, cmd::SET_MODE, &[a, 0x01]),
        std::time::Duration::ZERO,
    );
    p.rig.handle(
        &civ::Frame::new(0xA4, 0xE0, cmd::SEL_MODE, &[0x01, b, 0x00, 0x01]),
        std::time::Duration::ZERO,
    );
    split(&mut p, true);
    assert_eq!(p.content().radio.active, None);
    assert!(
        p.exec(Command::SendCw("CQ".into())).is_ok(),
        "TX VFO read: CW"
    );
    p.run_for(std::time::Duration::from_secs(5));
    p.rig.handle(
        &civ::Frame::new(0xA4, 0xE0, cmd::SEL_MODE, &[0x01, a, 0x00, 0x01]),
        std::time::Duration::ZERO,
    );
    let e = p.exec(Command::SendCw("CQ".into())).unwrap_err();
    assert!(e.message.contains("split) is in USB"), "{e}");
}

#[test]
fn send_cw_in_split_on_a_main_sub_radio_checks_the_tx_receiver() {
    let mut p = Pair::ready("ic7610");
    let mode = |rx, m: &str| Command::SetMode {
        target: Target::Receiver(rx),
        mode: Mode::from_name(m).expect("a mode"),
        filter: None,
    };
    ok(p.exec(mode(Receiver::Main, "USB")));
    ok(p.exec(mode(Receiver::Sub, "CW")));
    split(&mut p, true);
    assert!(p.exec(Command::SendCw("TEST".into())).is_ok());
    p.run_for(std::time::Duration::from_secs(5));
    ok(p.exec(mode(Receiver::Main, "CW")));
    ok(p.exec(mode(Receiver::Sub, "LSB")));
    let e = p.exec(Command::SendCw("TEST".into())).unwrap_err();
    assert!(
        e.message.contains("the TX receiver (SUB, split) is in LSB"),
        "{e}"
    );
}
