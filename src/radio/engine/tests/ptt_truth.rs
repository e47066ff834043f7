//! The radio's PTT is the truth (issue 15.2), in virtual time against the simulator's
//! rig: replies that lie (the radio acts, then answers NAK), refusals that are true, lost
//! answers — after each failed PTT or power-off command PTT is read back and acted on.

use std::time::Duration;

use super::{Fate, Pair, code, ok};
use crate::radio::table::answer::Answer;
use crate::radio::table::command::Command;
use crate::wire::civ::{Frame, cmd};

fn is_key(f: &Frame) -> bool {
    f.cmd == cmd::TX && f.data == [cmd::tx::PTT, 0x01]
}

fn is_unkey(f: &Frame) -> bool {
    f.cmd == cmd::TX && f.data == [cmd::tx::PTT, 0x00]
}

fn is_ptt_read(f: &Frame) -> bool {
    f.cmd == cmd::TX && f.data == [cmd::tx::PTT]
}

/// Requests matching `which` get `fate`, the others are delivered.
fn rule(p: &mut Pair, which: fn(&Frame) -> bool, fate: Fate) {
    p.requests = Box::new(move |_, f| if which(f) { fate } else { Fate::Deliver });
}

#[test]
fn a_key_answered_nak_that_keyed_is_read_back_and_owned() {
    // regression (issue 15.2): under `rigweb sim --nak` a key answered NAK left the
    // transmitter keyed while the state said `ptt: false`: no transmit timeout, no release
    let mut p = Pair::ready("ic7610");
    rule(&mut p, is_key, Fate::Lie);
    let before = p.sent_count(&[cmd::TX, cmd::tx::PTT]);
    let r = ok(p.exec(Command::Ptt(true)));
    assert!(
        matches!(&r, Answer::Ptt { on: true, read_back: Some(note) } if note.contains("NAK")),
        "{r:?}"
    );
    assert!(p.rig.ptt(), "the radio keyed");
    assert_eq!(
        p.content().radio.ptt,
        Some(true),
        "the state says what the radio says"
    );
    assert_eq!(
        p.sent_count(&[cmd::TX, cmd::tx::PTT]) - before,
        2,
        "key, then one read"
    );
    assert!(p.engine.tx_audio_open(), "a transmission like any other");
    // the transmit timeout (10 s in the tests) runs
    p.run_for(Duration::from_secs(9));
    assert!(p.rig.ptt());
    p.run_for(Duration::from_secs(2));
    assert!(!p.rig.ptt(), "released by the transmit timeout");
    assert!(p.events.names().contains(&"tx_timeout"));
    assert_eq!(p.content().radio.ptt, Some(false));
}

#[test]
fn ptt_is_unknown_until_the_radio_has_been_read_back() {
    let mut p = Pair::ready("ic7610");
    p.requests = Box::new(|_, f| {
        if is_key(f) {
            Fate::Lie
        } else if is_ptt_read(f) {
            Fate::Delay(Duration::from_millis(500))
        } else {
            Fate::Deliver
        }
    });
    let id = p.submit(Command::Ptt(true));
    p.run_for(Duration::from_millis(100));
    assert!(p.result(id).is_none());
    assert_eq!(p.content().radio.ptt, None, "null while unknown, not false");
    assert!(p.rig.ptt());
    p.run_for(Duration::from_secs(1));
    assert_eq!(p.result(id).map(|r| code(&r)), Some("ok"));
    assert_eq!(p.content().radio.ptt, Some(true));
}

#[test]
fn a_refused_key_that_did_not_key_fails_and_the_unkey_after_it_stops_at_once() {
    // regression (issue 15.9, a mock radio that NAKs `1C 00 01` and does not key):
    // `ptt false` then retried the unkey every 5 s for ever, with an ERROR line each time,
    // although the radio never transmitted
    let mut p = Pair::ready("ic7610");
    p.requests = Box::new(|_, f| {
        if is_key(f) || is_unkey(f) {
            Fate::Nak
        } else {
            Fate::Deliver
        }
    });
    let r = p.exec(Command::Ptt(true));
    assert_eq!(code(&r), "radio_rejected", "{r:?}");
    assert!(!p.rig.ptt());
    assert_eq!(p.content().radio.ptt, Some(false), "read back: not keyed");
    let r = ok(p.exec(Command::Ptt(false)));
    assert!(
        matches!(
            &r,
            Answer::Ptt {
                on: false,
                read_back: Some(_)
            }
        ),
        "{r:?}"
    );
    p.run_for(Duration::from_secs(60));
    assert_eq!(
        p.sent_count(&[cmd::TX, cmd::tx::PTT, 0x00]),
        1,
        "no retries"
    );
    assert_eq!(p.engine.stats().release_failures, 0);
    assert!(!p.events.names().contains(&"unkey_failed"));
    assert!(p.engine.is_settled(), "no release outstanding");
    assert_eq!(p.content().detail.message, None);
}

#[test]
fn an_unkey_answered_nak_that_unkeyed_is_confirmed_by_the_read_back() {
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Ptt(true)));
    rule(&mut p, is_unkey, Fate::Lie);
    let r = ok(p.exec(Command::Ptt(false)));
    assert!(
        matches!(
            &r,
            Answer::Ptt {
                on: false,
                read_back: Some(_)
            }
        ),
        "{r:?}"
    );
    assert!(!p.rig.ptt());
    assert_eq!(p.content().radio.ptt, Some(false));
    p.run_for(Duration::from_secs(20));
    assert_eq!(
        p.sent_count(&[cmd::TX, cmd::tx::PTT, 0x00]),
        1,
        "no release"
    );
}

#[test]
fn an_unkey_refused_while_still_keyed_hands_over_to_the_release() {
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Ptt(true)));
    let mut refused = 0;
    p.requests = Box::new(move |_, f| {
        if is_unkey(f) && refused < 2 {
            refused += 1;
            Fate::Nak
        } else {
            Fate::Deliver
        }
    });
    let r = p.exec(Command::Ptt(false));
    assert_eq!(code(&r), "radio_rejected", "the client learns it failed");
    assert_eq!(p.content().radio.ptt, Some(true), "read back: still keyed");
    p.run_for(Duration::from_secs(5));
    assert!(!p.rig.ptt(), "the release unkeyed it");
    assert_eq!(p.content().radio.ptt, Some(false));
    assert_eq!(p.engine.stats().release_failures, 1);
}

#[test]
fn the_release_ends_when_the_radio_reads_back_unkeyed() {
    // every unkey acted on and answered NAK: one attempt and one read, not a retry loop
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::Ptt(true)));
    rule(&mut p, is_unkey, Fate::Lie);
    let r = p.exec(Command::Release);
    assert!(matches!(ok(r), Answer::Ptt { on: false, .. }));
    assert!(!p.rig.ptt());
    assert_eq!(p.content().radio.ptt, Some(false));
    p.run_for(Duration::from_secs(30));
    assert_eq!(p.sent_count(&[cmd::TX, cmd::tx::PTT, 0x00]), 1);
    assert_eq!(p.engine.stats().release_failures, 0);
    assert!(!p.events.names().contains(&"unkey_failed"));
}

#[test]
fn read_backs_that_are_refused_are_asked_again_then_ptt_is_in_doubt() {
    let mut p = Pair::ready("ic7610");
    // key acted on and answered NAK; the first two reads refused
    let mut reads = 0;
    p.requests = Box::new(move |_, f| {
        if is_key(f) {
            Fate::Lie
        } else if is_ptt_read(f) && reads < 2 {
            reads += 1;
            Fate::Nak
        } else {
            Fate::Deliver
        }
    });
    assert!(matches!(
        ok(p.exec(Command::Ptt(true))),
        Answer::Ptt {
            on: true,
            read_back: Some(_)
        }
    ));
    assert_eq!(p.content().radio.ptt, Some(true));
    ok(p.exec(Command::Ptt(false)));
    // now nothing can be read back: in doubt, released
    p.requests = Box::new(|_, f| {
        if is_key(f) {
            Fate::Lie
        } else if is_ptt_read(f) {
            Fate::Nak
        } else {
            Fate::Deliver
        }
    });
    let r = p.exec(Command::Ptt(true));
    assert_eq!(code(&r), "radio_rejected");
    let last_key = p.sent.iter().rposition(is_key).unwrap();
    let reads = p.sent[last_key..].iter().filter(|f| is_ptt_read(f)).count();
    assert_eq!(reads, 3, "asked three times");
    assert_eq!(p.content().radio.ptt, None, "in doubt");
    p.run_for(Duration::from_secs(2));
    assert!(!p.rig.ptt(), "PTT in doubt is released");
}

#[test]
fn power_off_right_after_a_key_that_lied_unkeys_first() {
    // issue 15.2: a power-off overlapping an in-flight key sends the unkey first
    let mut p = Pair::ready("ic7610");
    rule(&mut p, is_key, Fate::Lie);
    let key = p.offer(Command::Ptt(true));
    let off = p.offer(Command::Power(false));
    let before = p.sent.len();
    p.run_for(Duration::from_secs(2));
    assert_eq!(p.result(key).map(|r| code(&r)), Some("ok"));
    assert_eq!(p.result(off).map(|r| code(&r)), Some("ok"));
    let wire: Vec<Vec<u8>> = p.sent[before..]
        .iter()
        .map(|f| [&[f.cmd][..], &f.data].concat())
        .collect();
    assert_eq!(
        wire,
        [
            vec![cmd::TX, cmd::tx::PTT, 0x01],
            vec![cmd::TX, cmd::tx::PTT],
            vec![cmd::TX, cmd::tx::PTT, 0x00],
            vec![cmd::POWER, 0x00],
        ],
        "key, read back keyed, unkey, then off"
    );
    assert_eq!(p.content().radio.ptt, Some(false));
    assert!(!p.rig.powered());
}

#[test]
fn a_power_off_answered_nak_is_read_back() {
    let mut p = Pair::ready("ic7610");
    // acted on, answered NAK: the radio is in standby and says nothing any more
    rule(
        &mut p,
        |f| f.cmd == cmd::POWER && f.data == [0x00],
        Fate::Lie,
    );
    let r = p.exec(Command::Power(false));
    assert_eq!(code(&r), "radio_rejected", "not confirmed: {r:?}");
    assert!(!p.rig.powered());
    assert_eq!(p.content().radio.power_on, None, "unknown, not made up");
    // the power-on still works
    p.requests = Box::new(|_, _| Fate::Deliver);
    ok(p.exec(Command::Power(true)));
    assert!(p.rig.powered());
}

#[test]
fn a_read_back_that_gets_no_answer_is_not_repeated_ptt_is_in_doubt() {
    // a radio that does not answer now will hardly do so in a moment: the release (an
    // unkey) must not wait for more reads
    let mut p = Pair::ready("ic7610");
    let before = p.sent.len();
    p.answers = Box::new(|_, f| {
        if f.cmd == cmd::TX || f.cmd == crate::wire::civ::ACK {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    let r = p.exec(Command::Ptt(true));
    assert_eq!(code(&r), "radio_timeout");
    let reads = p.sent[before..].iter().filter(|f| is_ptt_read(f)).count();
    assert_eq!(reads, 1, "one read, unanswered");
    assert_eq!(p.content().radio.ptt, None, "in doubt");
    p.answers = Box::new(|_, _| Fate::Deliver);
    p.run_for(Duration::from_secs(5));
    assert!(!p.rig.ptt(), "released");
    assert_eq!(p.content().radio.ptt, Some(false));
}
