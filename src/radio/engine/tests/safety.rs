//! Transmitter safety in virtual time: the transmit timeout, the release that retries
//! until the radio confirms, PTT in doubt, and PTT while the link is down.

use std::time::Duration;

use super::{Fate, Pair, code, ok};
use crate::lan::session::link_state::LinkState;
use crate::radio::table::answer::Answer;
use crate::radio::table::command::Command;
use crate::wire::civ::Receiver;
use crate::wire::civ::cmd;

fn is_unkey(f: &crate::wire::civ::Frame) -> bool {
    f.cmd == cmd::TX && f.data == [cmd::tx::PTT, 0x00]
}

#[test]
fn the_transmit_timeout_unkeys() {
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Ptt(true)));
    assert!(p.rig.ptt());
    p.run_for(Duration::from_secs(9));
    assert!(p.rig.ptt(), "not before the timeout (10 s)");
    p.run_for(Duration::from_secs(2));
    assert!(!p.rig.ptt(), "released by the timeout");
    assert_eq!(p.content().radio.ptt, Some(false));
    let names = p.events.names();
    assert!(names.contains(&"tx_timeout"), "{names:?}");
}

#[test]
fn a_failed_release_is_retried_until_the_radio_confirms() {
    // regression: with the unkey NAKed, the transmit timer was already cleared and the
    // transmitter stayed keyed for good (21 minutes with --tx-timeout 10, `--nak 0.4`)
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Ptt(true)));
    let mut refused = 0;
    p.requests = Box::new(move |_, f| {
        if is_unkey(f) && refused < 6 {
            refused += 1;
            Fate::Nak
        } else {
            Fate::Deliver
        }
    });
    p.run_for(Duration::from_secs(10));
    assert!(p.rig.ptt(), "refused so far");
    p.run_for(Duration::from_secs(15));
    assert!(!p.rig.ptt(), "released in the end");
    assert_eq!(p.content().radio.ptt, Some(false));
    assert_eq!(p.sent_count(&[cmd::TX, cmd::tx::PTT, 0x00]), 7);
    let names = p.events.names();
    assert_eq!(
        names.iter().filter(|n| **n == "unkey_failed").count(),
        6,
        "{names:?}"
    );
    assert!(
        p.content().detail.message.is_none(),
        "the problem message is gone once released"
    );
}

#[test]
fn the_owner_leaving_releases_even_when_answers_are_lost() {
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Ptt(true)));
    let mut lost = 0;
    p.requests = Box::new(move |_, f| {
        if is_unkey(f) && lost < 3 {
            lost += 1;
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    let r = p.exec(Command::Release);
    assert_eq!(code(&r), "ok", "answered when confirmed");
    assert!(!p.rig.ptt());
    assert_eq!(p.engine.stats().release_failures, 3);
}

#[test]
fn a_failed_unkey_by_a_client_hands_over_to_the_release() {
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Ptt(true)));
    let mut lost = 0;
    p.requests = Box::new(move |_, f| {
        if is_unkey(f) && lost < 2 {
            lost += 1;
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    let r = p.exec(Command::Ptt(false));
    assert_eq!(code(&r), "radio_timeout", "the client learns it failed");
    p.run_for(Duration::from_secs(3));
    assert!(!p.rig.ptt(), "and the release unkeys all the same");
    assert_eq!(p.content().radio.ptt, Some(false));
    assert_eq!(
        p.engine.stats().release_failures,
        0,
        "the release's own unkey went through"
    );
}

#[test]
fn keying_while_a_release_is_outstanding_is_refused() {
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Ptt(true)));
    p.requests = Box::new(move |_, f| {
        if is_unkey(f) {
            Fate::Nak
        } else {
            Fate::Deliver
        }
    });
    let id = p.submit(Command::Release);
    p.run_for(Duration::from_secs(2));
    assert!(p.result(id).is_none(), "not confirmed yet");
    let r = p.exec(Command::Ptt(true));
    assert_eq!(code(&r), "ptt_busy");
    p.requests = Box::new(|_, _| Fate::Deliver);
    p.run_for(Duration::from_secs(6));
    assert_eq!(p.result(id).map(|r| code(&r)), Some("ok"));
}

#[test]
fn lost_answers_to_a_key_are_read_back() {
    // regression: both attempts of `ptt true` timed out while the radio did key, PTT
    // showed off and the transmit timeout was never armed
    let mut p = Pair::ready("ic7610");
    p.answers = Box::new(|_, f| {
        if f.cmd == crate::wire::civ::ACK {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    let r = p.exec(Command::Ptt(true));
    assert_eq!(code(&r), "ok", "{r:?}");
    assert!(p.rig.ptt());
    assert_eq!(p.content().radio.ptt, Some(true));
    p.answers = Box::new(|_, _| Fate::Deliver);
    p.run_for(Duration::from_secs(11));
    assert!(!p.rig.ptt(), "the transmit timeout was armed");
}

#[test]
fn ptt_in_doubt_is_released() {
    let mut p = Pair::ready("ic7610");
    // the radio keys but nothing it says comes back for a while
    let mut silent = true;
    p.answers = Box::new(move |_, f| {
        if silent && (f.cmd == cmd::TX || f.cmd == crate::wire::civ::ACK) {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    let r = p.exec(Command::Ptt(true));
    assert_eq!(code(&r), "radio_timeout");
    assert_eq!(p.content().radio.ptt, None, "unknown, not made up");
    silent = false;
    let _ = silent;
    p.answers = Box::new(|_, _| Fate::Deliver);
    p.run_for(Duration::from_secs(10));
    assert!(!p.rig.ptt(), "released");
    assert_eq!(p.content().radio.ptt, Some(false));
}

#[test]
fn ptt_is_unknown_while_the_link_is_down_and_released_first_after_it() {
    // regression: the state flipped to `ptt: false` although nothing reached the radio
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Ptt(true)));
    p.link(LinkState::Reconnecting {
        attempt: 1,
        retry_in: Duration::from_secs(1),
    });
    assert_eq!(p.content().radio.ptt, None);
    assert!(p.rig.ptt(), "still keyed: nobody could tell it");
    let r = p.exec(Command::write(
        crate::radio::table::settings::SettingId::Power,
        Receiver::Main,
        3,
    ));
    assert_eq!(code(&r), "radio_unavailable");
    let before = p.sent.len();
    p.link(LinkState::Ready);
    p.run_for(Duration::from_secs(30));
    assert!(!p.rig.ptt());
    assert_eq!(p.content().radio.ptt, Some(false));
    let first_unkey = p.sent[before..]
        .iter()
        .position(is_unkey)
        .expect("an unkey");
    assert_eq!(
        first_unkey, 0,
        "the unkey is the first request after the reconnect, before the state fetch"
    );
}

#[test]
fn a_release_waiting_for_the_wire_does_not_spin() {
    // review: a release due while the late-answer window held the wire back made
    // poll_timeout() return a time already past, and the executor spun for seconds
    // (the harness now fails on any poll_timeout() that is not after now)
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Ptt(true)));
    let mut lost = false;
    p.answers = Box::new(move |_, f| {
        if f.cmd == crate::wire::civ::ACK && !lost {
            lost = true;
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    // answered on its retry: the first attempt's answer is expected for a while
    ok(p.exec(Command::write(
        crate::radio::table::settings::SettingId::Power,
        Receiver::Main,
        50,
    )));
    let id = p.submit(Command::Release);
    p.run_for(Duration::from_secs(6));
    assert_eq!(p.result(id).map(|r| code(&r)), Some("ok"));
    assert!(!p.rig.ptt());
}

#[test]
fn a_release_ends_when_the_radio_is_switched_off() {
    // review: an outstanding release kept failing (and `ptt true` kept answering
    // ptt_busy) after the radio reported itself off, until power came back
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Ptt(true)));
    p.requests = Box::new(|_, f| {
        if is_unkey(f) {
            Fate::Nak
        } else {
            Fate::Deliver
        }
    });
    let id = p.submit(Command::Release);
    p.run_for(Duration::from_secs(2));
    assert!(p.result(id).is_none());
    p.panel(crate::sim::PanelAction::PowerOff);
    p.run_for(Duration::from_secs(1));
    assert_eq!(p.result(id).map(|r| code(&r)), Some("ok"), "off: unkeyed");
    let failures = p.engine.stats().release_failures;
    p.run_for(Duration::from_secs(20));
    assert_eq!(
        p.engine.stats().release_failures,
        failures,
        "no more attempts"
    );
    assert!(p.content().detail.message.is_none() || p.content().radio.power_on == Some(false));
    assert_eq!(p.content().radio.ptt, Some(false));
}

#[test]
fn unkeying_a_radio_that_is_off_is_a_success() {
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Power(false)));
    assert!(matches!(
        ok(p.exec(Command::Ptt(false))),
        Answer::Ptt { on: false, .. }
    ));
    assert_eq!(code(&p.exec(Command::Ptt(true))), "radio_unavailable");
}

#[test]
fn tx_audio_stops_when_a_release_starts_not_when_it_is_confirmed() {
    // review: the transmit timeout unkeyed without stopping web TX audio, which kept
    // flowing until the radio confirmed
    let mut p = Pair::ready("ic7610");
    assert!(!p.engine.tx_audio_open(), "closed before any transmission");
    ok(p.exec(Command::Ptt(true)));
    assert!(p.engine.tx_audio_open(), "open once keyed");
    // the unkey's answers are lost for a while: the radio stays keyed meanwhile
    let mut lost = 0;
    p.requests = Box::new(move |_, f| {
        if is_unkey(f) && lost < 2 {
            lost += 1;
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    p.run_for(Duration::from_millis(9_900));
    assert!(p.engine.tx_audio_open());
    p.run_for(Duration::from_millis(200));
    assert!(p.rig.ptt() || p.content().radio.ptt == Some(true));
    assert!(
        !p.engine.tx_audio_open(),
        "closed the moment the transmit timeout fired"
    );
    p.run_for(Duration::from_secs(10));
    assert!(!p.rig.ptt());
    assert!(!p.engine.tx_audio_open());
    // a new transmission opens it again; a client's `ptt false` closes it as it is taken
    ok(p.exec(Command::Ptt(true)));
    assert!(p.engine.tx_audio_open());
    p.submit(Command::Ptt(false));
    assert!(
        !p.engine.tx_audio_open(),
        "closed before the unkey is on the wire"
    );
    p.run_for(Duration::from_secs(1));
    ok(p.exec(Command::Ptt(true)));
    p.submit(Command::Power(false));
    assert!(!p.engine.tx_audio_open(), "power off closes it too");
}
