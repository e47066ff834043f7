//! Power, standby and booting tests.

use std::time::Duration;

use crate::sim::rig::{PanelAction, SimRig, SimRigConfig};
use crate::sim::testutil::{ALL, ack, ask_at, fb, profile, read, rig};
use crate::wire::civ::cmd::{self, power, tx};
use crate::wire::civ::{BROADCAST, Frame};

fn secs(t: f64) -> Duration {
    Duration::from_secs_f64(t)
}

/// Every kind of request a controller sends, none of which a radio in standby answers.
fn requests(addr: u8) -> Vec<Frame> {
    [
        (cmd::READ_FREQ, vec![]),
        (cmd::POWER, vec![]),
        (cmd::POWER, vec![power::OFF]),
        (cmd::ID, vec![cmd::ID_READ]),
        (cmd::SET_FREQ, fb(7_074_000).to_vec()),
        (cmd::TX, vec![tx::PTT, 0x01]),
        (cmd::RECEIVER_PREFIX, vec![0x00, cmd::ATTENUATOR]),
        (cmd::SEND_CW, b"CQ".to_vec()),
        (0x99, vec![]),
    ]
    .into_iter()
    .map(|(c, d)| Frame::new(addr, 0xE0, c, &d))
    .collect()
}

#[test]
fn standby_sends_no_civ_but_hears_power_on() {
    for id in ALL {
        let mut r = rig(id);
        let addr = r.civ_addr();
        let before = r.snapshot();
        ack(&mut r, cmd::POWER, &[power::OFF]);
        assert!(!r.powered());
        // its last word: 18 00 to everyone (transceive on)
        assert_eq!(
            r.poll(secs(1.0)),
            vec![Frame::new(BROADCAST, addr, cmd::POWER, &[power::OFF])],
            "{id}"
        );
        for f in requests(addr) {
            assert!(r.handle(&f, secs(2.0)).is_empty(), "{id}: {f:?} answered");
        }
        let to_all = Frame::new(BROADCAST, 0xE0, cmd::ID, &[cmd::ID_READ]);
        assert!(r.handle(&to_all, secs(2.0)).is_empty());
        let mut pcm = vec![7i16; 960];
        r.render_audio(&mut pcm, 2, 48_000);
        assert!(pcm.iter().all(|s| *s == 0), "{id}: silent in standby");
        let tune = PanelAction::SetFreq {
            receiver: 0,
            hz: 7_074_000,
        };
        assert!(r.panel(tune, secs(2.0)).is_empty());
        assert!(r.poll(secs(3.0)).is_empty());
        assert_eq!(r.next_due(), None);
        // 18 01 without any FE padding (LAN): on at once
        let on = ask_at(&mut r, 4.0, cmd::POWER, &[power::ON]);
        assert!(on.len() == 1 && on[0].is_ack(), "{id}: {on:?}");
        assert!(r.powered());
        assert_eq!(r.snapshot(), before, "{id}: power on restores the state");
        assert_eq!(read(&mut r, cmd::POWER, &[]), vec![power::ON]);
        ack(&mut r, cmd::POWER, &[power::ON]);
    }
}

#[test]
fn standby_unkeys_and_silences_without_transceive() {
    let cfg = SimRigConfig {
        transceive: false,
        ..SimRigConfig::default()
    };
    let mut r = SimRig::new(profile("ic7610"), cfg);
    ack(&mut r, cmd::TX, &[tx::PTT, 0x01]);
    r.panel(PanelAction::PowerOff, secs(1.0));
    assert!(!r.ptt());
    assert!(r.poll(secs(1.0)).is_empty(), "no 18 00 with transceive off");
    // the front panel can switch it on again
    r.panel(PanelAction::PowerOn, secs(2.0));
    assert!(r.powered());
    assert!(!r.ptt(), "comes back unkeyed");
}

#[test]
fn a_radio_can_start_in_standby() {
    for id in ALL {
        let cfg = SimRigConfig {
            start_in_standby: true,
            ..SimRigConfig::default()
        };
        let mut r = SimRig::new(profile(id), cfg);
        assert!(!r.powered(), "{id}");
        let addr = r.civ_addr();
        for f in requests(addr) {
            assert!(r.handle(&f, secs(1.0)).is_empty(), "{id}: {f:?}");
        }
        assert!(r.poll(secs(1.0)).is_empty());
        assert_eq!(r.next_due(), None);
        let on = ask_at(&mut r, 2.0, cmd::POWER, &[power::ON]);
        assert!(on[0].is_ack());
        assert!(r.powered());
        assert_eq!(
            read(&mut r, cmd::ID, &[cmd::ID_READ]),
            vec![cmd::ID_READ, addr]
        );
    }
}

#[test]
fn a_booting_radio_naks_power_on_until_it_is_up() {
    let cfg = SimRigConfig {
        start_in_standby: true,
        boot_time: Duration::from_secs(3),
        ..SimRigConfig::default()
    };
    let mut r = SimRig::new(profile("ic9700"), cfg);
    let addr = r.civ_addr();
    let on_at = |r: &mut SimRig, t: f64| ask_at(r, t, cmd::POWER, &[power::ON]);
    // the first 18 01 starts booting and is refused, like the ones while it boots
    assert!(on_at(&mut r, 1.0)[0].is_nak());
    assert!(r.booting() && !r.powered());
    assert_eq!(r.next_due(), Some(secs(4.0)), "wakes up when booted");
    assert!(on_at(&mut r, 2.5)[0].is_nak());
    assert!(
        r.handle(&Frame::new(addr, 0xE0, cmd::READ_FREQ, &[]), secs(3.0))
            .is_empty(),
        "still no CI-V while booting"
    );
    // booted: on by itself at t = 4 s (boot time from the first 18 01)
    assert!(r.poll(secs(4.0)).is_empty());
    assert!(r.powered() && !r.booting());
    assert!(on_at(&mut r, 4.5)[0].is_ack());
    assert_eq!(read(&mut r, cmd::POWER, &[]), vec![power::ON]);
    // the power key boots it too; 18 00 while booting stops the boot
    ack(&mut r, cmd::POWER, &[power::OFF]);
    assert_eq!(r.poll(secs(5.0)).len(), 1, "the 18 00 broadcast");
    r.panel(PanelAction::PowerOn, secs(10.0));
    assert!(r.booting());
    r.panel(PanelAction::PowerOff, secs(11.0));
    assert!(!r.booting());
    assert!(r.poll(secs(20.0)).is_empty());
    assert!(!r.powered(), "a boot cut short does not come up");
    r.panel(PanelAction::PowerOn, secs(21.0));
    r.poll(secs(24.0));
    assert!(r.powered());
}
