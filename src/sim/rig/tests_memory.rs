//! Memory channels over CI-V byte for byte (`08`, `09`, `0A`, `1A 00`, a bare `07`), and
//! the switches only some models answer (DIGI-SEL, IP+, APF, ∆TX).

use crate::sim::testutil::{ack, fb, nak, read, rig};
use crate::wire::civ::cmd::{self, ext, function, rit};
use crate::wire::civ::memory;

const CONTENT: u8 = ext::MEMORY_CONTENT;

#[test]
fn channels_read_write_and_clear_byte_for_byte() {
    let mut r = rig("ic7610");
    let ch1 = read(&mut r, cmd::EXT, &[CONTENT, 0x00, 0x01]);
    assert_eq!(&ch1[..3], &[CONTENT, 0x00, 0x01]);
    assert_eq!(ch1.len(), 3 + memory::CONTENT_LEN);
    assert_eq!(&ch1[4..9], &fb(7_074_000), "RX frequency");
    assert_eq!(
        (ch1[9], ch1[10], ch1[11]),
        (0x01, 0x01, 0x10),
        "USB FIL1 D1"
    );
    assert_eq!(&ch1[3 + 29..], b"FT8 40M   ");
    assert_eq!(
        read(&mut r, cmd::EXT, &[CONTENT, 0x00, 0x50]),
        vec![CONTENT, 0x00, 0x50, memory::EMPTY],
        "an empty channel is FF"
    );
    // write channel 50 with channel 1's content, read it back, clear it
    let mut write = vec![CONTENT, 0x00, 0x50];
    write.extend(&ch1[3..]);
    ack(&mut r, cmd::EXT, &write);
    assert_eq!(
        read(&mut r, cmd::EXT, &[CONTENT, 0x00, 0x50])[3..],
        ch1[3..]
    );
    ack(&mut r, cmd::EXT, &[CONTENT, 0x00, 0x50, memory::EMPTY]);
    assert_eq!(
        read(&mut r, cmd::EXT, &[CONTENT, 0x00, 0x50]),
        vec![CONTENT, 0x00, 0x50, memory::EMPTY]
    );
    // channels outside 1..99, bad BCD, short or untunable content
    for ch in [[0x00, 0x00], [0x01, 0x00], [0x00, 0x0A]] {
        nak(&mut r, cmd::EXT, &[CONTENT, ch[0], ch[1]]);
    }
    nak(&mut r, cmd::EXT, &[CONTENT, 0x00]);
    nak(&mut r, cmd::EXT, &write[..write.len() - 1]);
    let mut far = write.clone();
    far[4..9].copy_from_slice(&fb(145_000_000));
    nak(&mut r, cmd::EXT, &far);
}

#[test]
fn select_write_and_memory_to_vfo_follow_the_memory_mode() {
    let mut r = rig("ic7610");
    ack(&mut r, cmd::SET_FREQ, &fb(14_250_000));
    ack(&mut r, cmd::MEMORY_SELECT, &[0x00, 0x07]);
    assert!(
        r.snapshot().memory.memory_mode,
        "08 <ch> enters memory mode"
    );
    nak(&mut r, cmd::MEMORY_WRITE, &[]);
    ack(&mut r, cmd::VFO, &[]);
    assert!(!r.snapshot().memory.memory_mode, "07: VFO mode");
    ack(&mut r, cmd::MEMORY_WRITE, &[]);
    assert_eq!(r.snapshot().memory.channels[&7].freq_hz, 14_250_000);
    // memory to VFO: channel 3 (WWV, AM) into the VFO
    ack(&mut r, cmd::MEMORY_SELECT, &[0x00, 0x03]);
    ack(&mut r, cmd::MEMORY_TO_VFO, &[]);
    let snap = r.snapshot();
    assert!(!snap.memory.memory_mode);
    let v = snap.receivers[0].vfo[usize::from(snap.receivers[0].active_vfo)];
    assert_eq!((v.freq_hz, v.mode), (10_000_000, 0x02));
    ack(&mut r, cmd::MEMORY_SELECT, &[0x00, 0x60]);
    nak(&mut r, cmd::MEMORY_TO_VFO, &[]);
    nak(&mut r, cmd::MEMORY_SELECT, &[0x01, 0x00]);
    ack(&mut r, cmd::MEMORY_SELECT, &[]);
    assert!(r.snapshot().memory.memory_mode, "a bare 08");
}

#[test]
fn models_without_memory_or_a_switch_refuse_it() {
    let mut r = rig("ic705");
    nak(&mut r, cmd::EXT, &[CONTENT, 0x00, 0x01]);
    nak(&mut r, cmd::MEMORY_SELECT, &[0x00, 0x01]);
    nak(&mut r, cmd::MEMORY_WRITE, &[]);
    nak(&mut r, cmd::MEMORY_TO_VFO, &[]);
    nak(&mut r, cmd::FUNCTION, &[function::DIGI_SEL]);
    nak(&mut r, cmd::FUNCTION, &[function::IP_PLUS, 0x01]);
    ack(&mut r, cmd::FUNCTION, &[function::APF, 0x01]);
    ack(&mut r, cmd::RIT, &[rit::DELTA_TX, 0x01]);
    let mut r = rig("ic7100");
    nak(&mut r, cmd::FUNCTION, &[function::APF]);
    nak(&mut r, cmd::RIT, &[rit::DELTA_TX]);
    ack(&mut r, cmd::RIT, &[rit::ON, 0x01]);
    ack(&mut r, cmd::FUNCTION, &[function::VOX, 0x01]);
}
