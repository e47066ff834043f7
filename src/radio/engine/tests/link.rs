//! The engine and the link in virtual time: reconnects, power off/on, probes, status.

use std::time::Duration;

use super::{Fate, Pair, code, ok};
use crate::lan::session::link_state::{LinkEvent, LinkState};
use crate::radio::state::RadioStatus;
use crate::radio::table::answer::Answer;
use crate::radio::table::command::{Command, Target};
use crate::radio::table::settings::SettingId;
use crate::sim::PanelAction;
use crate::wire::civ::Mode;
use crate::wire::civ::Receiver;
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
    assert_eq!(
        ok(p.exec(Command::Power(false))),
        Answer::Power {
            on: false,
            read_back: None
        }
    );
    let r = p.exec(Command::write(SettingId::Power, Receiver::Main, 10));
    assert_eq!(code(&r), "radio_unavailable");
    ok(p.exec(Command::Power(true)));
    p.run_for(Duration::from_secs(30));
    let c = p.content();
    assert!(c.connection.radio_ready, "{:?}", c.detail);
    assert_eq!(c.detail.status, RadioStatus::Connected);
}

#[test]
fn a_radio_switched_off_at_its_front_panel_is_in_standby_and_found_again() {
    let mut p = Pair::ready("ic7610");
    p.watch_civ();
    let reads = p.sent.len();
    // with transceive on its last words are `18 00`; then its CI-V goes silent
    p.panel(PanelAction::PowerOff);
    p.run_for(Duration::from_secs(60));
    let c = p.content();
    assert_eq!(c.detail.status, RadioStatus::PoweredOff);
    assert!(
        c.detail
            .message
            .as_deref()
            .unwrap_or("")
            .contains("standby"),
        "{:?}",
        c.detail
    );
    assert_eq!(p.sent.len(), reads, "a radio in standby is not probed");
    p.panel(PanelAction::PowerOn);
    p.run_for(Duration::from_secs(30));
    assert!(
        p.content().connection.radio_ready,
        "its data brings the state fetch: {:?}",
        p.content().detail
    );
}

#[test]
fn a_radio_switched_on_again_at_once_is_found_by_one_more_ask() {
    // it said `18 00` and was switched on again before its CI-V went silent: nothing
    // tells the engine, so it asks once more after the link would have found it silent
    let mut p = Pair::ready("ic7610");
    p.watch_civ();
    let probes = p.sent_count(&[cmd::POWER]);
    p.panel(PanelAction::PowerOff);
    p.run_for(Duration::from_millis(100));
    assert_eq!(p.content().radio.power_on, Some(false));
    p.panel(PanelAction::PowerOn);
    p.run_for(Duration::from_secs(3));
    assert_eq!(
        p.sent_count(&[cmd::POWER]),
        probes,
        "not before the link could tell"
    );
    let end = p.now + Duration::from_secs(30);
    p.run_until(end, |p| p.content().connection.radio_ready);
    assert!(
        p.content().connection.radio_ready,
        "{:?}",
        p.content().detail
    );
    assert_eq!(
        p.sent_count(&[cmd::POWER]),
        probes + 2,
        "one ask, and the fetch's read"
    );
}

/// Drops the `18 00` a radio broadcasts when switched off (a radio with transceive off
/// goes silent without a word).
fn no_power_report(p: &mut Pair) {
    p.answers = Box::new(|_, f| {
        if f.cmd == cmd::POWER && f.to == crate::wire::civ::BROADCAST {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
}

#[test]
fn a_radio_gone_silent_without_a_word_is_probed_and_can_be_switched_on() {
    // regression (issue 15.1): the probe of a silent radio timed out, waited for its late
    // answer and was due again at once, so the engine was never idle and the executor
    // never handed it the power-on (504 after 60 s, WebSocket commands unanswered)
    let mut p = Pair::ready("ic7610");
    p.watch_civ();
    no_power_report(&mut p);
    p.panel(PanelAction::PowerOff);
    p.run_for(Duration::from_secs(20));
    let c = p.content();
    assert_eq!(
        c.detail.status,
        RadioStatus::NotResponding,
        "{:?}",
        c.detail
    );
    assert_eq!(c.radio.power_on, None, "not known to be off, nor on");
    let probes = p.sent_count(&[cmd::POWER]);
    assert!(probes >= 3, "probed: {probes}");
    // commands that would only time out are refused at once
    let t = p.now;
    let r = p.exec_offered(Command::SetFreq {
        target: Target::Receiver(Receiver::Main),
        hz: 14_100_000,
    });
    assert_eq!(code(&r), "radio_unavailable", "{r:?}");
    assert!(p.now - t < Duration::from_secs(4), "{:?}", p.now - t);
    let t = p.now;
    let r = p.exec_offered(Command::Power(true));
    assert_eq!(code(&r), "ok", "{r:?}");
    assert!(
        p.now - t < Duration::from_secs(5),
        "handed over between two probes: {:?}",
        p.now - t
    );
    assert!(p.rig.powered());
    p.run_for(Duration::from_secs(30));
    assert!(
        p.content().connection.radio_ready,
        "{:?}",
        p.content().detail
    );
}

#[test]
fn power_on_works_at_any_time_after_power_off() {
    // regression (issue 15.1): after "recovering" (2.5 s of CI-V silence after the
    // power-off) the probe kept the engine busy for good and the power-on never ran
    for wait_s in [1, 3, 10, 60] {
        let mut p = Pair::ready("ic7610");
        p.watch_civ();
        assert!(matches!(
            ok(p.exec_offered(Command::Power(false))),
            Answer::Power { on: false, .. }
        ));
        p.run_for(Duration::from_secs(wait_s));
        let c = p.content();
        assert_eq!(c.detail.status, RadioStatus::PoweredOff, "{wait_s} s");
        assert_eq!(c.radio.ptt, Some(false), "{wait_s} s");
        // what needs the radio on is refused at once, not after a timeout
        let t = p.now;
        let r = p.exec_offered(Command::write(SettingId::Power, Receiver::Main, 10));
        assert_eq!(code(&r), "radio_unavailable", "{wait_s} s: {r:?}");
        assert_eq!(p.now, t, "{wait_s} s: refused without a request");
        let t = p.now;
        let r = p.exec_offered(Command::Power(true));
        assert_eq!(code(&r), "ok", "{wait_s} s: {r:?}");
        assert!(
            p.now - t < Duration::from_millis(100),
            "{wait_s} s: one round trip, nothing in the way: {:?}",
            p.now - t
        );
        assert!(p.rig.powered(), "{wait_s} s");
        let end = p.now + Duration::from_secs(30);
        p.run_until(end, |p| p.content().connection.radio_ready);
        let c = p.content();
        assert!(c.connection.radio_ready, "{wait_s} s: {:?}", c.detail);
        assert_eq!(c.radio.power_on, Some(true));
        assert_eq!(c.detail.status, RadioStatus::Connected);
        // and the radio works
        ok(p.exec_offered(Command::SetFreq {
            target: Target::Receiver(Receiver::Main),
            hz: 7_050_000,
        }));
    }
}

#[test]
fn a_radio_in_standby_after_power_off_is_not_probed() {
    let mut p = Pair::ready("ic9700");
    p.watch_civ();
    ok(p.exec_offered(Command::Power(false)));
    let sent = p.sent.len();
    p.run_for(Duration::from_secs(120));
    assert_eq!(p.sent.len(), sent, "nothing sent to a radio in standby");
    let c = p.content();
    assert_eq!(
        (c.detail.status, c.radio.power_on, c.radio.ptt),
        (RadioStatus::PoweredOff, Some(false), Some(false))
    );
    assert!(
        c.detail
            .message
            .as_deref()
            .unwrap_or("")
            .contains("standby"),
        "{:?}",
        c.detail
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
        target: Target::Receiver(Receiver::Main),
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
    assert_eq!(
        (sub.freq_hz, sub.mode.map(Mode::name)),
        (None, None),
        "{sub:?}"
    );
    assert!(sub.settings.af_gain.is_some(), "what was answered is shown");
    assert!(c.radio.main.freq_hz.is_some());
}
