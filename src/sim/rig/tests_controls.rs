//! The operating controls over CI-V: read, set, per receiver (command 29), NAK for what
//! is out of range or not on the model.

use std::time::Duration;

use crate::sim::audio_synth::mode;
use crate::sim::testutil::{ack, ask_at, nak, read, rig};
use crate::wire::civ::cmd::{self, antenna, ext, function, level, rit, tx, vfo};
use crate::wire::civ::{BROADCAST, Frame, bcd_byte, from_bcd_byte};

fn secs(t: f64) -> Duration {
    Duration::from_secs_f64(t)
}

#[test]
fn levels_and_functions_read_set_and_nak() {
    let mut r = rig("ic7610");
    for sub in [
        level::AF,
        level::RF_GAIN,
        level::SQUELCH,
        level::NR,
        level::PBT_INNER,
        level::PBT_OUTER,
        level::CW_PITCH,
        level::RF_POWER,
        level::MIC_GAIN,
        level::KEY_SPEED,
        level::NOTCH,
        level::COMP,
        level::BREAK_IN_DELAY,
        level::NB,
        level::DIGI_SEL_SHIFT,
        level::DRIVE,
        level::MONITOR,
        level::VOX,
        level::ANTI_VOX,
    ] {
        assert_eq!(read(&mut r, cmd::LEVEL, &[sub]).len(), 3, "14 {sub:02X}");
        ack(&mut r, cmd::LEVEL, &[sub, 0x02, 0x00]);
        assert_eq!(read(&mut r, cmd::LEVEL, &[sub]), vec![sub, 0x02, 0x00]);
        ack(&mut r, cmd::LEVEL, &[sub, 0x00, 0x00]);
        ack(&mut r, cmd::LEVEL, &[sub, 0x02, 0x55]);
        nak(&mut r, cmd::LEVEL, &[sub, 0x02, 0x56]);
        nak(&mut r, cmd::LEVEL, &[sub, 0x09, 0x99]);
    }
    assert_eq!(r.snapshot().rf_power(), 255);
    for sub in [
        function::AGC,
        function::NB,
        function::NR,
        function::AUTO_NOTCH,
        function::REPEATER_TONE,
        function::TSQL,
        function::COMP,
        function::MONITOR,
        function::VOX,
        function::BREAK_IN,
        function::MANUAL_NOTCH,
        function::DIGI_SEL,
        function::TWIN_PEAK,
        function::DIAL_LOCK,
        function::DSP_FILTER_TYPE,
        function::SSB_TX_BANDWIDTH,
        function::IP_PLUS,
    ] {
        ack(&mut r, cmd::FUNCTION, &[sub, 0x01]);
        assert_eq!(
            read(&mut r, cmd::FUNCTION, &[sub]),
            vec![sub, 0x01],
            "16 {sub:02X}"
        );
    }
    // AGC 1 fast, 2 mid, 3 slow; on/off switches only 0 and 1
    for agc in 1..=3 {
        ack(&mut r, cmd::FUNCTION, &[function::AGC, agc]);
        assert_eq!(
            read(&mut r, cmd::FUNCTION, &[function::AGC]),
            vec![function::AGC, agc]
        );
    }
    nak(&mut r, cmd::FUNCTION, &[function::AGC, 0x00]);
    nak(&mut r, cmd::FUNCTION, &[function::AGC, 0x04]);
    for sub in [
        function::NB,
        function::NR,
        function::AUTO_NOTCH,
        function::COMP,
    ] {
        nak(&mut r, cmd::FUNCTION, &[sub, 0x02]);
        nak(&mut r, cmd::FUNCTION, &[sub, 0x00, 0x00]);
    }
    nak(&mut r, cmd::FUNCTION, &[0x99]);
    // per receiver through command 29; the transceiver-wide ones are not routed
    ack(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[1, cmd::LEVEL, level::AF, 0x00, 0x42],
    );
    assert_eq!(
        read(&mut r, cmd::RECEIVER_PREFIX, &[1, cmd::LEVEL, level::AF]),
        vec![1, cmd::LEVEL, level::AF, 0x00, 0x42]
    );
    assert_eq!(
        read(&mut r, cmd::LEVEL, &[level::AF]),
        vec![level::AF, 0x02, 0x55]
    );
    ack(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[1, cmd::FUNCTION, function::NB, 0x00],
    );
    assert_eq!(
        read(
            &mut r,
            cmd::RECEIVER_PREFIX,
            &[1, cmd::FUNCTION, function::NB]
        ),
        vec![1, cmd::FUNCTION, function::NB, 0x00]
    );
    assert_eq!(r.snapshot().rx_function(1, function::NB), 0);
    assert_eq!(r.snapshot().rx_function(0, function::NB), 1);
    nak(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[1, cmd::LEVEL, level::MIC_GAIN],
    );
    nak(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[1, cmd::FUNCTION, function::COMP],
    );
    // the IC-7610 profile does not route AGC (16 12) through command 29 (rigweb sets it
    // on the selected receiver), but the radio takes it wrapped too (issue 15.9: it was
    // NAKed; tests_freq::ic7610_agc_is_per_receiver_under_cmd29)
    ack(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[1, cmd::FUNCTION, function::AGC, 0x02],
    );
    assert_eq!(r.snapshot().rx_function(1, function::AGC), 2);
    ack(&mut r, cmd::VFO, &[vfo::SELECT_SUB]);
    ack(&mut r, cmd::FUNCTION, &[function::AGC, 0x01]);
    assert_eq!(r.snapshot().rx_function(1, function::AGC), 1);
    assert_eq!(r.snapshot().rx_function(0, function::AGC), 3);
    ack(&mut r, cmd::VFO, &[vfo::SELECT_MAIN]);
    // the key speed maps to 6..48 WPM
    ack(&mut r, cmd::LEVEL, &[level::KEY_SPEED, 0x00, 0x00]);
    assert_eq!(r.snapshot().cw_wpm(), 6);
    ack(&mut r, cmd::LEVEL, &[level::KEY_SPEED, 0x02, 0x55]);
    assert_eq!(r.snapshot().cw_wpm(), 48);
    ack(&mut r, cmd::LEVEL, &[level::KEY_SPEED, 0x00, 0x85]);
    assert_eq!(r.snapshot().cw_wpm(), 20, "round(85 / 6.071 + 6)");
}

#[test]
fn filter_width_follows_the_segment_table_per_mode() {
    let mut r = rig("ic7610");
    // USB FIL1 default 3000 Hz = index 34
    assert_eq!(
        read(&mut r, cmd::EXT, &[ext::FILTER_WIDTH]),
        vec![ext::FILTER_WIDTH, 0x34]
    );
    for (m, top) in [
        (mode::USB, 0x40u8),
        (mode::LSB, 0x40),
        (mode::CW, 0x40),
        (mode::PSK, 0x40),
        (mode::RTTY, 0x31),
        (mode::AM, 0x49),
    ] {
        ack(&mut r, cmd::SET_MODE, &[m, 0x01]);
        ack(&mut r, cmd::EXT, &[ext::FILTER_WIDTH, 0x00]);
        ack(&mut r, cmd::EXT, &[ext::FILTER_WIDTH, top]);
        assert_eq!(
            read(&mut r, cmd::EXT, &[ext::FILTER_WIDTH]),
            vec![ext::FILTER_WIDTH, top]
        );
        let next = bcd_byte(from_bcd_byte(top).unwrap() + 1).unwrap();
        nak(&mut r, cmd::EXT, &[ext::FILTER_WIDTH, next]);
    }
    nak(&mut r, cmd::EXT, &[ext::FILTER_WIDTH, 0x4A]);
    nak(&mut r, cmd::EXT, &[ext::FILTER_WIDTH, 0x21, 0x00]);
    // widths are kept per mode and filter
    ack(&mut r, cmd::SET_MODE, &[mode::CW, 0x02]);
    assert_eq!(
        read(&mut r, cmd::EXT, &[ext::FILTER_WIDTH]),
        vec![ext::FILTER_WIDTH, 0x09]
    );
    ack(&mut r, cmd::EXT, &[ext::FILTER_WIDTH, 0x05]);
    ack(&mut r, cmd::SET_MODE, &[mode::CW, 0x01]);
    assert_eq!(
        read(&mut r, cmd::EXT, &[ext::FILTER_WIDTH]),
        vec![ext::FILTER_WIDTH, 0x40]
    );
    ack(&mut r, cmd::SET_MODE, &[mode::CW, 0x02]);
    assert_eq!(
        read(&mut r, cmd::EXT, &[ext::FILTER_WIDTH]),
        vec![ext::FILTER_WIDTH, 0x05]
    );
    // FM has fixed filters
    ack(&mut r, cmd::SET_MODE, &[mode::FM, 0x01]);
    nak(&mut r, cmd::EXT, &[ext::FILTER_WIDTH]);
    nak(&mut r, cmd::EXT, &[ext::FILTER_WIDTH, 0x10]);
    // SUB through command 29
    assert_eq!(
        read(
            &mut r,
            cmd::RECEIVER_PREFIX,
            &[1, cmd::EXT, ext::FILTER_WIDTH]
        ),
        vec![1, cmd::EXT, ext::FILTER_WIDTH, 0x34]
    );
}

#[test]
fn data_mode_split_dual_watch_and_af_mute() {
    let mut r = rig("ic7610");
    ack(&mut r, cmd::EXT, &[ext::DATA_MODE, 0x01, 0x02]);
    assert_eq!(
        read(&mut r, cmd::EXT, &[ext::DATA_MODE]),
        vec![ext::DATA_MODE, 0x01, 0x02]
    );
    ack(&mut r, cmd::EXT, &[ext::DATA_MODE, 0x03]);
    assert_eq!(
        read(&mut r, cmd::EXT, &[ext::DATA_MODE]),
        vec![ext::DATA_MODE, 0x03, 0x02]
    );
    // DATA off with a filter byte 00 (wfview): accepted, the filter stays
    ack(&mut r, cmd::EXT, &[ext::DATA_MODE, 0x00, 0x00]);
    assert_eq!(
        read(&mut r, cmd::EXT, &[ext::DATA_MODE]),
        vec![ext::DATA_MODE, 0x00, 0x02]
    );
    nak(&mut r, cmd::EXT, &[ext::DATA_MODE, 0x01, 0x00]);
    nak(&mut r, cmd::EXT, &[ext::DATA_MODE, 0x04]);
    nak(&mut r, cmd::EXT, &[ext::DATA_MODE, 0x01, 0x04]);
    ack(&mut r, cmd::SET_MODE, &[mode::CW, 0x01]);
    nak(&mut r, cmd::EXT, &[ext::DATA_MODE, 0x01]);
    ack(&mut r, cmd::EXT, &[ext::DATA_MODE, 0x00, 0x00]);
    let mut r705 = rig("ic705");
    ack(&mut r705, cmd::EXT, &[ext::DATA_MODE, 0x01, 0x01]);
    nak(&mut r705, cmd::EXT, &[ext::DATA_MODE, 0x02, 0x01]);
    // split
    assert_eq!(read(&mut r, cmd::SPLIT, &[]), vec![0x00]);
    ack(&mut r, cmd::SPLIT, &[0x01]);
    assert_eq!(read(&mut r, cmd::SPLIT, &[]), vec![0x01]);
    nak(&mut r, cmd::SPLIT, &[0x02]);
    // dual watch: two-receiver radios only
    assert_eq!(
        read(&mut r, cmd::VFO, &[vfo::DUAL_WATCH]),
        vec![vfo::DUAL_WATCH, 0x00]
    );
    ack(&mut r, cmd::VFO, &[vfo::DUAL_WATCH_ON]);
    assert_eq!(
        read(&mut r, cmd::VFO, &[vfo::DUAL_WATCH]),
        vec![vfo::DUAL_WATCH, 0x01]
    );
    ack(&mut r, cmd::VFO, &[vfo::DUAL_WATCH_OFF]);
    nak(&mut r705, cmd::VFO, &[vfo::DUAL_WATCH_ON]);
    nak(&mut r705, cmd::VFO, &[vfo::DUAL_WATCH]);
    // AF mute per receiver
    ack(
        &mut r,
        cmd::RECEIVER_PREFIX,
        &[1, cmd::EXT, ext::AF_MUTE, 0x01],
    );
    assert_eq!(
        read(&mut r, cmd::RECEIVER_PREFIX, &[1, cmd::EXT, ext::AF_MUTE]),
        vec![1, cmd::EXT, ext::AF_MUTE, 0x01]
    );
    assert_eq!(
        read(&mut r, cmd::EXT, &[ext::AF_MUTE]),
        vec![ext::AF_MUTE, 0x00]
    );
    nak(&mut r, cmd::EXT, &[ext::AF_MUTE, 0x02]);
    ack(&mut r, cmd::EXT, &[ext::AGC_TIME, 0x13]);
    nak(&mut r, cmd::EXT, &[ext::AGC_TIME, 0x14]);
}

#[test]
fn rit_tuner_tones_and_tx_switches() {
    let mut r = rig("ic7610");
    // RIT −123 Hz, +9999 Hz
    ack(&mut r, cmd::RIT, &[rit::OFFSET, 0x23, 0x01, 0x01]);
    assert_eq!(
        read(&mut r, cmd::RIT, &[rit::OFFSET]),
        vec![rit::OFFSET, 0x23, 0x01, 0x01]
    );
    assert_eq!(r.snapshot().rit_hz, -123);
    ack(&mut r, cmd::RIT, &[rit::OFFSET, 0x99, 0x99, 0x00]);
    assert_eq!(r.snapshot().rit_hz, 9_999);
    nak(&mut r, cmd::RIT, &[rit::OFFSET, 0x23, 0x01, 0x02]);
    nak(&mut r, cmd::RIT, &[rit::OFFSET, 0x2A, 0x01, 0x00]);
    nak(&mut r, cmd::RIT, &[rit::OFFSET, 0x23, 0x01]);
    ack(&mut r, cmd::RIT, &[rit::ON, 0x01]);
    assert_eq!(read(&mut r, cmd::RIT, &[rit::ON]), vec![rit::ON, 0x01]);
    ack(&mut r, cmd::RIT, &[rit::DELTA_TX, 0x01]);
    assert_eq!(
        read(&mut r, cmd::RIT, &[rit::DELTA_TX]),
        vec![rit::DELTA_TX, 0x01]
    );
    nak(&mut r, cmd::RIT, &[rit::ON, 0x02]);
    // tones
    assert_eq!(
        read(&mut r, cmd::TONE, &[0x00]),
        vec![0x00, 0x00, 0x88, 0x05]
    );
    ack(&mut r, cmd::TONE, &[0x01, 0x01, 0x00, 0x00]);
    assert_eq!(
        read(&mut r, cmd::TONE, &[0x01]),
        vec![0x01, 0x01, 0x00, 0x00]
    );
    nak(&mut r, cmd::TONE, &[0x00, 0x00, 0x50, 0x00]);
    nak(&mut r, cmd::TONE, &[0x02]);
    // tuner: tuning for two seconds, then on, and says so
    ack(&mut r, cmd::TX, &[tx::TUNER, 0x02]);
    assert_eq!(read(&mut r, cmd::TX, &[tx::TUNER]), vec![tx::TUNER, 0x02]);
    assert_eq!(r.next_due(), Some(secs(3.0)));
    assert_eq!(
        r.poll(secs(3.0)),
        vec![Frame::new(BROADCAST, 0x98, cmd::TX, &[tx::TUNER, 0x01])]
    );
    let rep = ask_at(&mut r, 3.5, cmd::TX, &[tx::TUNER]);
    assert_eq!(rep[0].data, vec![tx::TUNER, 0x01]);
    ack(&mut r, cmd::TX, &[tx::TUNER, 0x00]);
    nak(&mut r, cmd::TX, &[tx::TUNER, 0x03]);
    ack(&mut r, cmd::TX, &[tx::TX_MONITOR, 0x01]);
    assert_eq!(
        read(&mut r, cmd::TX, &[tx::TX_MONITOR]),
        vec![tx::TX_MONITOR, 0x01]
    );
    ack(&mut r, cmd::TX, &[tx::XFC, 0x01]);
    assert_eq!(read(&mut r, cmd::TX, &[tx::XFC]), vec![tx::XFC, 0x01]);
    let mut r = rig("ic705");
    nak(&mut r, cmd::TX, &[tx::TUNER]); // no internal tuner
    nak(&mut r, cmd::TX, &[tx::TUNER, 0x02]);
}

#[test]
fn antenna_selection_never_toggles() {
    let mut r = rig("ic7610");
    for _ in 0..3 {
        assert_eq!(read(&mut r, cmd::ANTENNA, &[]), vec![antenna::ANT1, 0x00]);
    }
    ack(&mut r, cmd::ANTENNA, &[antenna::ANT1, 0x01]);
    assert_eq!(read(&mut r, cmd::ANTENNA, &[]), vec![antenna::ANT1, 0x01]);
    // the antenna alone keeps the RX antenna; repeating it changes nothing
    for _ in 0..3 {
        ack(&mut r, cmd::ANTENNA, &[antenna::ANT2]);
        assert_eq!(read(&mut r, cmd::ANTENNA, &[]), vec![antenna::ANT2, 0x01]);
    }
    nak(&mut r, cmd::ANTENNA, &[0x02]);
    nak(&mut r, cmd::ANTENNA, &[antenna::ANT1, 0x02]);
    nak(&mut r, cmd::ANTENNA, &[antenna::ANT1, 0x00, 0x00]);
    // per receiver
    assert_eq!(
        read(&mut r, cmd::RECEIVER_PREFIX, &[1, cmd::ANTENNA]),
        vec![1, cmd::ANTENNA, antenna::ANT1, 0x00]
    );
    for id in ["ic705", "ic9700", "ic7100"] {
        let mut r = rig(id);
        nak(&mut r, cmd::ANTENNA, &[]);
        nak(&mut r, cmd::ANTENNA, &[antenna::ANT1]);
    }
}
