//! Memory channels and the antenna selection through the engine in virtual time: the
//! frames each procedure sends, what it changes in the state, and its faults (a NAK at
//! any step, a radio that does not answer, an answer that does not parse).

use std::time::Duration;

use super::{Fate, Pair, code, ok};
use crate::radio::table::answer::{Answer, Given, MemoryChannel, MemoryEntry, Written};
use crate::radio::table::command::Command;
use crate::wire::civ::{Frame, Mode, Receiver, cmd};

/// `(cmd, data)` of the requests sent after the first `from`.
fn sent_since(p: &Pair, from: usize) -> Vec<(u8, Vec<u8>)> {
    p.sent[from..]
        .iter()
        .map(|f| (f.cmd, f.data.clone()))
        .collect()
}

/// A channel that holds something.
fn held(channel: u16, freq_hz: u64, mode: Mode, name: &str) -> MemoryChannel {
    MemoryChannel {
        channel,
        content: Some(MemoryEntry {
            freq_hz,
            mode: Some(mode),
            name: name.into(),
        }),
    }
}

fn is(f: &Frame, command: u8) -> bool {
    f.cmd == command
}

#[test]
fn a_list_reads_each_channel_and_reports_empty_ones() {
    let mut p = Pair::ready("ic7610");
    let n = p.sent.len();
    let r = ok(p.exec(Command::ListMemories { first: 2, last: 5 }));
    assert_eq!(
        r,
        Answer::Memories(vec![
            held(2, 14_060_000, Mode::Cw, "QRP CW 20"),
            held(3, 10_000_000, Mode::Am, "WWV 10"),
            MemoryChannel {
                channel: 4,
                content: None
            },
            MemoryChannel {
                channel: 5,
                content: None
            },
        ])
    );
    let reads: Vec<_> = sent_since(&p, n);
    assert_eq!(
        reads,
        (2u8..=5)
            .map(|ch| (cmd::EXT, vec![cmd::ext::MEMORY_CONTENT, 0x00, ch]))
            .collect::<Vec<_>>(),
        "one 1A 00 <ch> read per channel"
    );
}

#[test]
fn a_recall_copies_the_channel_into_the_vfo_and_stays_in_vfo_mode() {
    let mut p = Pair::ready("ic7610");
    let width_reads =
        |p: &Pair| p.sent_count(&[cmd::RECEIVER_PREFIX, 0x00, cmd::EXT, cmd::ext::FILTER_WIDTH]);
    let widths = width_reads(&p);
    let n = p.sent.len();
    let r = ok(p.exec(Command::RecallMemory(2)));
    let Answer::Memory(recalled) = r else {
        panic!("{r:?}")
    };
    assert_eq!(recalled.content.map(|c| c.freq_hz), Some(14_060_000));
    let sent = sent_since(&p, n);
    assert_eq!(
        &sent[..4],
        &[
            (cmd::EXT, vec![cmd::ext::MEMORY_CONTENT, 0x00, 0x02]),
            (cmd::MEMORY_SELECT, vec![0x00, 0x02]),
            (cmd::VFO, vec![]),
            (cmd::MEMORY_TO_VFO, vec![]),
        ]
    );
    let c = p.content();
    assert_eq!(c.radio.main.freq_hz, Some(14_060_000), "read back");
    assert_eq!(c.radio.main.mode, Some(crate::wire::civ::Mode::Cw));
    assert!(!p.rig.snapshot().memory.memory_mode, "VFO mode");
    p.run_for(Duration::from_secs(2));
    assert_eq!(
        width_reads(&p),
        widths + 1,
        "MAIN's filter width read again (the mode changed)"
    );
}

#[test]
fn an_empty_channel_is_refused_before_anything_changes() {
    let mut p = Pair::ready("ic7610");
    let freq = p.content().radio.main.freq_hz;
    let n = p.sent.len();
    let e = p.exec(Command::RecallMemory(9)).unwrap_err();
    assert_eq!(e.code.as_str(), "invalid_param");
    assert!(e.message.contains("memory channel 9 is empty"), "{e}");
    assert_eq!(sent_since(&p, n).len(), 1, "only the content read");
    assert_eq!(p.content().radio.main.freq_hz, freq);
}

#[test]
fn a_store_writes_the_vfo_and_answers_the_channel_read_back() {
    let mut p = Pair::ready("ic7610");
    ok(p.exec(Command::SetFreq {
        target: crate::radio::table::command::Target::Receiver(Receiver::Main),
        hz: 21_074_000,
    }));
    let n = p.sent.len();
    let r = ok(p.exec(Command::StoreMemory(42)));
    assert_eq!(r, Answer::Memory(held(42, 21_074_000, Mode::Usb, "")));
    assert_eq!(
        sent_since(&p, n),
        vec![
            (cmd::MEMORY_SELECT, vec![0x00, 0x42]),
            (cmd::VFO, vec![]),
            (cmd::MEMORY_WRITE, vec![]),
            (cmd::EXT, vec![cmd::ext::MEMORY_CONTENT, 0x00, 0x42]),
        ]
    );
    let snap = p.rig.snapshot();
    assert_eq!(snap.memory.channels[&42].freq_hz, 21_074_000);
    assert!(!snap.memory.memory_mode);
}

#[test]
fn a_refused_step_names_itself_and_a_silent_radio_times_out() {
    let mut p = Pair::ready("ic7610");
    p.requests = Box::new(|_, f| {
        if is(f, cmd::MEMORY_WRITE) {
            Fate::Nak
        } else {
            Fate::Deliver
        }
    });
    let e = p.exec(Command::StoreMemory(5)).unwrap_err();
    assert_eq!(e.code.as_str(), "radio_rejected");
    assert_eq!(e.message, "the radio refused the store of memory channel 5");
    assert!(!p.rig.snapshot().memory.channels.contains_key(&5));

    p.requests = Box::new(|_, f| {
        if is(f, cmd::EXT) {
            Fate::Nak
        } else {
            Fate::Deliver
        }
    });
    let r = p.exec(Command::ListMemories { first: 1, last: 2 });
    assert_eq!(code(&r), "radio_rejected");
    assert!(
        r.unwrap_err()
            .message
            .contains("content read of memory channel 1")
    );

    p.requests = Box::new(|_, f| {
        if is(f, cmd::EXT) {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    let selects = p.sent_count(&[cmd::MEMORY_SELECT]);
    let id = p.submit(Command::RecallMemory(1));
    p.run_for(Duration::from_secs(10));
    let r = p.result(id).expect("answered");
    assert_eq!(code(&r), "radio_timeout");
    assert_eq!(
        p.sent_count(&[cmd::MEMORY_SELECT]),
        selects,
        "nothing recalled"
    );
    p.requests = Box::new(|_, _| Fate::Deliver);
    ok(p.exec(Command::RecallMemory(1)));
}

#[test]
fn content_that_does_not_parse_is_an_error_naming_the_channel() {
    let mut p = Pair::ready("ic7610");
    // a radio that answers a short content for channel 1
    p.answers = Box::new(|_, f| {
        if is(f, cmd::EXT) && f.data.starts_with(&[cmd::ext::MEMORY_CONTENT, 0x00, 0x01]) {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    let id = p.submit(Command::ListMemories { first: 1, last: 1 });
    p.run_for(Duration::from_millis(20));
    p.answers = Box::new(|_, _| Fate::Deliver);
    let mut bad = Frame::new(
        0xE0,
        0x98,
        cmd::EXT,
        &[cmd::ext::MEMORY_CONTENT, 0x00, 0x01],
    );
    bad.data.extend([0x00, 0x00, 0x40]);
    p.engine.handle_frame(bad, p.now);
    p.run_for(Duration::from_secs(5));
    let e = p.result(id).expect("answered").unwrap_err();
    assert!(e.message.contains("memory channel 1 does not parse"), "{e}");
}

#[test]
fn the_antenna_goes_to_its_receiver_in_one_frame_and_a_nak_changes_nothing() {
    let mut p = Pair::ready("ic7610");
    let n = p.sent.len();
    let r = ok(p.exec(Command::SetAntenna {
        receiver: Receiver::Sub,
        ant: 2,
        rx_ant: Some(true),
    }));
    assert_eq!(
        r,
        Answer::Written(Written {
            receiver: Some(Receiver::Sub),
            values: vec![("ant", Given::Int(2)), ("rx_ant", Given::Bool(true))],
        })
    );
    assert_eq!(
        sent_since(&p, n),
        vec![(cmd::RECEIVER_PREFIX, vec![0x01, cmd::ANTENNA, 0x01, 0x01])]
    );
    let sub = p.content().radio.sub.unwrap().settings;
    assert_eq!((sub.antenna, sub.rx_antenna), (Some(2), Some(true)));
    p.requests = Box::new(|_, _| Fate::Nak);
    let r = p.exec(Command::SetAntenna {
        receiver: Receiver::Main,
        ant: 2,
        rx_ant: None,
    });
    assert_eq!(code(&r), "radio_rejected");
    assert_eq!(p.content().radio.main.settings.antenna, None);
}
