//! The engine and the link in virtual time: reconnects, power off/on, probes, status.

use std::time::Duration;

use super::{Fate, Pair, code, ok};
use crate::lan::link::{LinkEvent, LinkState};
use crate::radio::command::{Command, Target};
use crate::radio::state::RadioStatus;
use crate::radio::table::settings::SettingId;
use crate::sim::PanelAction;
use crate::wire::civ::cmd;

#[test]
fn the_state_is_read_again_after_a_reconnect() {
    let mut p = Pair::ready("ic7610");
    let reads = p.sent_count(&[cmd::SEL_FREQ]);
    p.link(LinkState::Reconnecting {
        attempt: 1,
        retry_in: Duration::from_secs(1),
    });
    assert!(!p.content().connection.radio_ready);
    assert_eq!(p.content().detail.status, RadioStatus::Reconnecting);
    p.panel(PanelAction::SetFreq {
        receiver: 0,
        hz: 14_150_000,
    });
    p.link(LinkState::Ready);
    p.run_for(Duration::from_secs(30));
    assert!(p.content().connection.radio_ready);
    assert_eq!(p.content().radio.main.freq_hz, Some(14_150_000));
    assert!(p.sent_count(&[cmd::SEL_FREQ]) > reads);
}

#[test]
fn power_off_and_on() {
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Power(false)));
    assert!(!p.rig.powered());
    let c = p.content();
    assert_eq!(
        (c.detail.status, c.connection.radio_ready),
        (RadioStatus::PoweredOff, false)
    );
    // regression: power off when already off answered 409 radio_rejected
    assert_eq!(ok(p.exec(Command::Power(false)))["state"], "off");
    let r = p.exec(Command::write(SettingId::Power, 0, 10));
    assert_eq!(code(&r), "radio_unavailable");
    ok(p.exec(Command::Power(true)));
    p.run_for(Duration::from_secs(30));
    let c = p.content();
    assert!(c.connection.radio_ready, "{:?}", c.detail);
    assert_eq!(c.detail.status, RadioStatus::Connected);
}

#[test]
fn a_radio_switched_off_at_its_front_panel_is_probed_and_found_again() {
    let mut p = Pair::ready("ic7610");
    p.panel(PanelAction::PowerOff);
    // a radio in standby sends no CI-V: the link's data watchdog reports it
    p.engine.handle_link(LinkEvent::CivRecovering, p.now);
    p.run_for(Duration::from_secs(5));
    assert_eq!(p.content().detail.status, RadioStatus::PoweredOff);
    let probes = p.sent_count(&[cmd::POWER]);
    p.run_for(Duration::from_secs(10));
    assert!(p.sent_count(&[cmd::POWER]) > probes, "probed while off");
    p.panel(PanelAction::PowerOn);
    p.engine.handle_link(LinkEvent::CivRecovered, p.now);
    p.run_for(Duration::from_secs(30));
    assert!(
        p.content().connection.radio_ready,
        "{:?}",
        p.content().detail
    );
}

#[test]
fn a_stale_problem_message_goes_when_the_link_is_back() {
    let mut p = Pair::ready("ic7610");
    p.engine.handle_link(
        LinkEvent::Failed {
            message: "the radio did not answer".into(),
            permanent: false,
        },
        p.now,
    );
    p.link(LinkState::Reconnecting {
        attempt: 1,
        retry_in: Duration::from_secs(1),
    });
    assert!(p.content().detail.message.is_some());
    p.link(LinkState::Ready);
    p.run_for(Duration::from_secs(30));
    assert_eq!(p.content().detail.status, RadioStatus::Connected);
    assert_eq!(p.content().detail.message, None);
}

#[test]
fn commands_queued_when_the_link_drops_are_answered() {
    let mut p = Pair::ready("ic7610");
    let a = p.submit(Command::SetFreq {
        target: Target::Receiver(0),
        hz: 14_100_000,
    });
    p.link(LinkState::Reconnecting {
        attempt: 1,
        retry_in: Duration::from_secs(1),
    });
    p.run_for(Duration::from_millis(10));
    assert_eq!(p.result(a).map(|r| code(&r)), Some("radio_unavailable"));
}

#[test]
fn a_radio_in_standby_is_shown_off_and_can_be_switched_on() {
    // regression: a radio already in standby when rigweb connected could never be
    // switched on (the link waited for CI-V data, the power command for the link)
    let mut p = Pair::new("ic9700", super::cfg());
    p.panel(PanelAction::PowerOff);
    p.engine.handle_link(LinkEvent::Standby, p.now);
    p.link(LinkState::Ready);
    p.run_for(Duration::from_secs(5));
    let c = p.content();
    assert_eq!(c.detail.status, RadioStatus::PoweredOff);
    assert_eq!(c.radio.power_on, Some(false));
    assert!(
        c.detail
            .message
            .as_deref()
            .unwrap_or("")
            .contains("standby")
    );
    assert_eq!(c.radio.main.freq_hz, None, "nothing made up");
    assert_eq!(
        p.sent_count(&[cmd::SEL_FREQ]),
        0,
        "no fetch of a silent radio"
    );
    let r = p.exec(Command::Power(true));
    assert_eq!(code(&r), "ok", "{r:?}");
    assert!(p.rig.powered());
    let on = p
        .sent
        .iter()
        .find(|f| f.cmd == cmd::POWER && f.data == [0x01])
        .unwrap();
    assert_eq!(on.emit()[..2], [0xFE, 0xFE], "no FE padding over LAN");
    assert_eq!(on.emit().iter().take_while(|b| **b == 0xFE).count(), 2);
    p.engine.handle_link(LinkEvent::CivRecovered, p.now);
    p.run_for(Duration::from_secs(30));
    let c = p.content();
    assert!(c.connection.radio_ready, "{:?}", c.detail);
    assert!(c.radio.main.freq_hz.is_some());
}

#[test]
fn a_booting_radio_that_refuses_power_on_at_first_is_asked_again() {
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Power(false)));
    let mut refused = 0;
    p.requests = Box::new(move |_, f| {
        if f.cmd == cmd::POWER && f.data == [0x01] && refused < 2 {
            refused += 1;
            super::Fate::Nak
        } else {
            super::Fate::Deliver
        }
    });
    assert_eq!(code(&p.exec(Command::Power(true))), "ok");
    assert!(p.rig.powered());
    assert_eq!(p.sent_count(&[cmd::POWER, 0x01]), 3);
}

#[test]
fn scope_output_asked_for_while_the_link_is_down_is_sent_once_it_is_up() {
    // regression: a page that reconnected before the radio did opened the scope channel,
    // the pump's "output on" was refused (link down), and no sweep ever came
    let mut p = Pair::new("ic7610", super::cfg());
    let id = p.submit(Command::ScopeOutput(true));
    p.run_for(Duration::from_millis(10));
    assert_eq!(
        code(&p.result(id).expect("answered at once")),
        "radio_unavailable"
    );
    p.link(LinkState::Ready);
    p.run_for(Duration::from_secs(30));
    assert!(p.content().connection.radio_ready);
    assert_eq!(p.sent_count(&[cmd::SCOPE, cmd::scope::OUTPUT, 0x01]), 1);
    assert!(p.content().radio.scope.streaming);
}

#[test]
fn values_the_radio_does_not_answer_are_unknown_not_invented() {
    // review: when `25 01`/`26 01` timed out, SUB showed made-up values
    let mut p = Pair::ready("ic7610");
    assert!(p.content().radio.sub.unwrap().freq_hz.is_some());
    p.requests = Box::new(|_, f| {
        if (f.cmd == cmd::SEL_FREQ || f.cmd == cmd::SEL_MODE) && f.data == [0x01] {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    p.link(LinkState::Reconnecting {
        attempt: 1,
        retry_in: Duration::from_secs(1),
    });
    p.link(LinkState::Ready);
    p.run_for(Duration::from_secs(30));
    let c = p.content();
    assert!(
        c.connection.radio_ready,
        "the rest was read: {:?}",
        c.detail
    );
    let sub = c.radio.sub.unwrap();
    assert_eq!((sub.freq_hz, sub.mode.as_deref()), (None, None), "{sub:?}");
    assert!(sub.af_gain.is_some(), "what was answered is shown");
    assert!(c.radio.main.freq_hz.is_some());
}
