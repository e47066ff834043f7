//! Transceive broadcasts of front-panel changes: the shape of each control's broadcast,
//! command 29 or selected-only, the menu item and the configuration that switch them off.

use std::time::Duration;

use crate::sim::audio_synth::mode;
use crate::sim::rig::{Knob, PanelAction, ScopeSetting, SimRig, SimRigConfig, Switch, TunerState};
use crate::sim::testutil::{ack, fb, nak, profile, read, rig};
use crate::wire::civ::cmd::{self, ext, function, level, rit, scope, tx, vfo};
use crate::wire::civ::{BROADCAST, Frame, Receiver, level_to_bcd};

fn secs(t: f64) -> Duration {
    Duration::from_secs_f64(t)
}

/// A level as its two BCD bytes.
fn lv(v: u16) -> [u8; 2] {
    level_to_bcd(v).expect("level")
}

/// What the panel action `a` broadcasts on a fresh radio `id` at t = 1 s.
fn broadcast_of(id: &str, a: PanelAction) -> Vec<Frame> {
    rig(id).panel(a, secs(1.0))
}

#[test]
fn every_panel_control_is_broadcast_in_the_shape_of_its_read() {
    let b = |c: u8, d: &[u8]| Frame::new(BROADCAST, 0x98, c, d);
    let rx = |r: u8, c: u8, d: &[u8]| b(c, d).wrap_receiver(Receiver::from_code(r).unwrap());
    let knob = |receiver, knob, value| PanelAction::Level {
        receiver,
        knob,
        value,
    };
    let switch = |receiver, switch, value| PanelAction::Function {
        receiver,
        switch,
        value,
    };
    let scope_set = |receiver, setting| PanelAction::Scope { receiver, setting };
    let cases = [
        (
            knob(0, Knob::Af, 200),
            rx(0, cmd::LEVEL, &[&[level::AF][..], &lv(200)].concat()),
        ),
        (
            knob(1, Knob::Af, 10),
            rx(1, cmd::LEVEL, &[&[level::AF][..], &lv(10)].concat()),
        ),
        (
            knob(0, Knob::RfGain, 100),
            rx(0, cmd::LEVEL, &[&[level::RF_GAIN][..], &lv(100)].concat()),
        ),
        (
            knob(1, Knob::Squelch, 90),
            rx(1, cmd::LEVEL, &[&[level::SQUELCH][..], &lv(90)].concat()),
        ),
        (
            knob(0, Knob::NrLevel, 7),
            rx(0, cmd::LEVEL, &[&[level::NR][..], &lv(7)].concat()),
        ),
        (
            knob(0, Knob::NbLevel, 255),
            rx(0, cmd::LEVEL, &[&[level::NB][..], &lv(255)].concat()),
        ),
        (
            knob(1, Knob::RfPower, 30),
            b(cmd::LEVEL, &[&[level::RF_POWER][..], &lv(30)].concat()),
        ),
        (
            knob(0, Knob::MicGain, 0),
            b(cmd::LEVEL, &[&[level::MIC_GAIN][..], &lv(0)].concat()),
        ),
        (
            knob(0, Knob::KeySpeed, 85),
            b(cmd::LEVEL, &[&[level::KEY_SPEED][..], &lv(85)].concat()),
        ),
        (
            knob(0, Knob::CompLevel, 64),
            b(cmd::LEVEL, &[&[level::COMP][..], &lv(64)].concat()),
        ),
        // AGC is not routed through command 29 by the IC-7610 profile: plain, selected only
        (
            switch(0, Switch::Agc, 1),
            b(cmd::FUNCTION, &[function::AGC, 0x01]),
        ),
        (
            switch(0, Switch::Nb, 1),
            rx(0, cmd::FUNCTION, &[function::NB, 0x01]),
        ),
        (
            switch(1, Switch::Nr, 1),
            rx(1, cmd::FUNCTION, &[function::NR, 0x01]),
        ),
        (
            switch(0, Switch::AutoNotch, 1),
            rx(0, cmd::FUNCTION, &[function::AUTO_NOTCH, 0x01]),
        ),
        (
            switch(0, Switch::Comp, 1),
            b(cmd::FUNCTION, &[function::COMP, 0x01]),
        ),
        (
            PanelAction::Attenuator {
                receiver: 1,
                db: 12,
            },
            rx(1, cmd::ATTENUATOR, &[0x12]),
        ),
        (
            PanelAction::Preamp {
                receiver: 0,
                value: 2,
            },
            rx(0, cmd::FUNCTION, &[function::PREAMP, 0x02]),
        ),
        (
            PanelAction::FilterWidth {
                receiver: 0,
                hz: 1_800,
            },
            rx(0, cmd::EXT, &[ext::FILTER_WIDTH, 0x22]),
        ),
        (
            PanelAction::FilterWidth {
                receiver: 1,
                hz: 2_390,
            },
            rx(1, cmd::EXT, &[ext::FILTER_WIDTH, 0x28]),
        ),
        (
            PanelAction::DataMode {
                receiver: 0,
                data: 2,
            },
            b(cmd::EXT, &[ext::DATA_MODE, 0x02, 0x01]),
        ),
        (PanelAction::Split(true), b(cmd::SPLIT, &[0x01])),
        (
            PanelAction::DualWatch(true),
            b(cmd::VFO, &[vfo::DUAL_WATCH, 0x01]),
        ),
        (PanelAction::RitOn(true), b(cmd::RIT, &[rit::ON, 0x01])),
        (
            PanelAction::RitOffset(-123),
            b(cmd::RIT, &[rit::OFFSET, 0x23, 0x01, 0x01]),
        ),
        (
            PanelAction::Tuner(TunerState::On),
            b(cmd::TX, &[tx::TUNER, 0x01]),
        ),
        (
            PanelAction::Tuner(TunerState::Tune),
            b(cmd::TX, &[tx::TUNER, 0x02]),
        ),
        (
            scope_set(0, ScopeSetting::Mode(1)),
            b(cmd::SCOPE, &[scope::MODE, 0x00, 0x01]),
        ),
        (
            scope_set(1, ScopeSetting::HalfSpanHz(5_000)),
            b(cmd::SCOPE, &[&[scope::SPAN, 0x01][..], &fb(5_000)].concat()),
        ),
        (
            scope_set(0, ScopeSetting::RefTenthsDb(-55)),
            b(cmd::SCOPE, &[scope::REF_LEVEL, 0x00, 0x05, 0x50, 0x01]),
        ),
        (
            scope_set(0, ScopeSetting::Speed(2)),
            b(cmd::SCOPE, &[scope::SPEED, 0x00, 0x02]),
        ),
        (
            scope_set(1, ScopeSetting::Hold(true)),
            b(cmd::SCOPE, &[scope::HOLD, 0x01, 0x01]),
        ),
    ];
    for (action, frame) in cases {
        assert_eq!(broadcast_of("ic7610", action), vec![frame], "{action:?}");
    }
    let sub_agc = switch(1, Switch::Agc, 3);
    assert!(broadcast_of("ic7610", sub_agc).is_empty());
}

#[test]
fn panel_controls_change_the_state_and_refused_values_change_nothing() {
    let mut r = rig("ic7610");
    let t = secs(1.0);
    let af = |v| PanelAction::Level {
        receiver: 1,
        knob: Knob::Af,
        value: v,
    };
    assert_eq!(r.panel(af(77), t).len(), 1);
    assert_eq!(r.snapshot().rx_level(1, level::AF), 77);
    assert!(r.panel(af(77), t).is_empty(), "no change, no broadcast");
    let before = r.snapshot();
    let refused = [
        af(256),
        PanelAction::Function {
            receiver: 0,
            switch: Switch::Agc,
            value: 0,
        },
        PanelAction::Attenuator {
            receiver: 0,
            db: 10,
        },
        PanelAction::DataMode {
            receiver: 0,
            data: 4,
        },
        PanelAction::Level {
            receiver: 2,
            knob: Knob::Af,
            value: 1,
        },
        PanelAction::RitOffset(10_000),
        PanelAction::Scope {
            receiver: 0,
            setting: ScopeSetting::HalfSpanHz(7_000),
        },
        PanelAction::Scope {
            receiver: 0,
            setting: ScopeSetting::RefTenthsDb(-53),
        },
    ];
    for a in refused {
        assert!(r.panel(a, t).is_empty(), "{a:?}");
    }
    assert_eq!(r.snapshot(), before);
    // FM has no filter-width control
    r.panel(
        PanelAction::SetMode {
            receiver: 0,
            mode: mode::FM,
            filter: 1,
        },
        t,
    );
    let width = PanelAction::FilterWidth {
        receiver: 0,
        hz: 2_000,
    };
    assert!(r.panel(width, t).is_empty());
    // a tune from the panel ends with a broadcast from poll
    r.panel(PanelAction::Tuner(TunerState::Tune), t);
    assert_eq!(
        r.poll(secs(3.0)),
        vec![Frame::new(BROADCAST, 0x98, cmd::TX, &[tx::TUNER, 0x01])]
    );
    // with transceive off: applied, not broadcast
    ack(&mut r, cmd::EXT, &[ext::MENU, 0x01, 0x12, 0x00]);
    assert!(r.panel(af(1), t).is_empty());
    assert_eq!(r.snapshot().rx_level(1, level::AF), 1);
    // what a model lacks is ignored
    let mut r = rig("ic705");
    assert!(r.panel(PanelAction::DualWatch(true), t).is_empty());
    assert!(r.panel(PanelAction::Tuner(TunerState::Tune), t).is_empty());
    assert!(r.panel(af(10), t).is_empty(), "no SUB receiver");
    let mut r = rig("ic7100");
    let scope_mode = PanelAction::Scope {
        receiver: 0,
        setting: ScopeSetting::Mode(1),
    };
    assert!(r.panel(scope_mode, t).is_empty(), "no hardware scope");
}

#[test]
fn without_command_29_only_the_selected_receiver_is_reported() {
    // IC-9700: plain frames, so a change of the unselected receiver is not broadcast
    let mut r = rig("ic9700");
    let t = secs(1.0);
    let af = |receiver, v| PanelAction::Level {
        receiver,
        knob: Knob::Af,
        value: v,
    };
    let main = Frame::new(
        BROADCAST,
        0xA2,
        cmd::LEVEL,
        &[&[level::AF][..], &lv(9)].concat(),
    );
    assert_eq!(r.panel(af(0, 9), t), vec![main]);
    assert!(r.panel(af(1, 33), t).is_empty());
    assert_eq!(
        r.snapshot().rx_level(1, level::AF),
        33,
        "applied all the same"
    );
    ack(&mut r, cmd::VFO, &[vfo::SELECT_SUB]);
    assert_eq!(
        read(&mut r, cmd::LEVEL, &[level::AF]),
        vec![level::AF, 0x00, 0x33]
    );
    assert_eq!(r.panel(af(1, 34), t).len(), 1);
    // A/B radios: one receiver
    let mut r = rig("ic7100");
    let agc = PanelAction::Function {
        receiver: 0,
        switch: Switch::Agc,
        value: 3,
    };
    assert_eq!(
        r.panel(agc, t),
        vec![Frame::new(
            BROADCAST,
            0x88,
            cmd::FUNCTION,
            &[function::AGC, 0x03]
        )]
    );
    // nothing while transceive is configured off
    let cfg = SimRigConfig {
        transceive: false,
        ..SimRigConfig::default()
    };
    let mut r = SimRig::new(profile("ic7610"), cfg);
    assert!(r.panel(PanelAction::Split(true), t).is_empty());
    assert!(r.snapshot().split);
}

#[test]
fn transceive_broadcasts_follow_the_menu_item() {
    let mut r = rig("ic7610");
    let t = Duration::from_secs(1);
    let out = r.panel(
        PanelAction::SetFreq {
            receiver: 0,
            hz: 14_074_000,
        },
        t,
    );
    assert_eq!(
        out,
        vec![Frame::new(
            BROADCAST,
            0x98,
            cmd::FREQ_NO_REPLY,
            &fb(14_074_000)
        )]
    );
    let out = r.panel(
        PanelAction::SetMode {
            receiver: 0,
            mode: mode::CW,
            filter: 2,
        },
        t,
    );
    assert_eq!(
        out,
        vec![Frame::new(
            BROADCAST,
            0x98,
            cmd::MODE_NO_REPLY,
            &[mode::CW, 0x02]
        )]
    );
    // the unselected receiver changes silently
    assert!(
        r.panel(
            PanelAction::SetFreq {
                receiver: 1,
                hz: 7_010_000
            },
            t
        )
        .is_empty()
    );
    assert_eq!(r.snapshot().receivers[1].vfo[0].freq_hz, 7_010_000);
    // selecting SUB announces its frequency and mode
    let out = r.panel(PanelAction::SelectReceiver(1), t);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].data, fb(7_010_000).to_vec());
    // transceive off via 1A 05 01 12 00
    assert_eq!(
        read(&mut r, cmd::EXT, &[ext::MENU, 0x01, 0x12]),
        vec![ext::MENU, 0x01, 0x12, 0x01]
    );
    ack(&mut r, cmd::EXT, &[ext::MENU, 0x01, 0x12, 0x00]);
    assert_eq!(
        read(&mut r, cmd::EXT, &[ext::MENU, 0x01, 0x12]),
        vec![ext::MENU, 0x01, 0x12, 0x00]
    );
    assert!(
        r.panel(
            PanelAction::SetFreq {
                receiver: 1,
                hz: 7_020_000
            },
            t
        )
        .is_empty()
    );
    nak(&mut r, cmd::EXT, &[ext::MENU, 0x01, 0x12, 0x02]);
    // IC-9700: its own item; queued broadcasts come out of poll
    let mut r = rig("ic9700");
    r.queue_panel(
        PanelAction::SetFreq {
            receiver: 0,
            hz: 145_000_000,
        },
        t,
    );
    assert_eq!(r.next_due(), Some(t));
    assert_eq!(
        r.poll(t),
        vec![Frame::new(
            BROADCAST,
            0xA2,
            cmd::FREQ_NO_REPLY,
            &fb(145_000_000)
        )]
    );
    ack(&mut r, cmd::EXT, &[ext::MENU, 0x01, 0x27, 0x00]);
    assert!(
        r.panel(
            PanelAction::SetFreq {
                receiver: 0,
                hz: 145_100_000
            },
            t
        )
        .is_empty()
    );
    // configured off
    let cfg = SimRigConfig {
        transceive: false,
        ..SimRigConfig::default()
    };
    let mut r = SimRig::new(profile("ic705"), cfg);
    assert!(
        r.panel(
            PanelAction::SetFreq {
                receiver: 0,
                hz: 14_100_000
            },
            t
        )
        .is_empty()
    );
    // A/B radio: VFO B is not selected
    let mut r = rig("ic7100");
    assert!(
        r.panel(
            PanelAction::SetFreq {
                receiver: 1,
                hz: 7_050_000
            },
            t
        )
        .is_empty()
    );
    assert_eq!(
        r.panel(
            PanelAction::SetFreq {
                receiver: 0,
                hz: 14_050_000
            },
            t
        )
        .len(),
        1
    );
}
