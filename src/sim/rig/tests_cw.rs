//! Sending CW (`17`): what is accepted, the keying at the set speed, and how it shows on
//! the PTT read, the meters, the scope and in the audio; releasing a remote controller's
//! transmission.

use std::time::Duration;

use crate::sim::audio_synth::mode;
use crate::sim::rig::{PanelAction, SimRig};
use crate::sim::testutil::{ack, ask_at, fb, goertzel, read, rig};
use crate::wire::civ::bcd_to_level;
use crate::wire::civ::cmd::{self, level, meter, power, scope, sel, tx};

fn secs(t: f64) -> Duration {
    Duration::from_secs_f64(t)
}

/// An IC-7610 in CW at 20 WPM (dot 60 ms) with a CW pitch of 600 Hz.
fn cw_rig() -> SimRig {
    let mut r = rig("ic7610");
    ack(&mut r, cmd::SET_MODE, &[mode::CW, 0x01]);
    ack(&mut r, cmd::LEVEL, &[level::KEY_SPEED, 0x00, 0x85]);
    ack(&mut r, cmd::LEVEL, &[level::CW_PITCH, 0x01, 0x28]);
    r
}

/// `17 <text>` at `t` seconds: true if acknowledged.
fn send_at(r: &mut SimRig, t: f64, text: &[u8]) -> bool {
    let rep = ask_at(r, t, cmd::SEND_CW, text);
    assert_eq!(rep.len(), 1, "{rep:?}");
    rep[0].is_ack()
}

/// The TX status (`1C 00`) at `t` seconds.
fn keyed_at(r: &mut SimRig, t: f64) -> bool {
    let rep = ask_at(r, t, cmd::TX, &[tx::PTT]);
    rep[0].data == [tx::PTT, 0x01]
}

/// The Po meter at `t` seconds.
fn po_at(r: &mut SimRig, t: f64) -> u16 {
    let rep = ask_at(r, t, cmd::METER, &[meter::PO]);
    bcd_to_level(&rep[0].data[1..]).expect("meter")
}

#[test]
fn cw_is_sent_only_in_cw_where_the_radio_can_transmit() {
    let mut r = cw_rig();
    assert!(send_at(&mut r, 1.0, b"de dl1abc/P ?.,-=+@:0123456789"));
    let mut r = cw_rig();
    assert!(!send_at(&mut r, 1.0, &[b'E'; 31]), "at most 30 characters");
    assert!(!send_at(&mut r, 1.0, b""));
    assert!(!send_at(&mut r, 1.0, b"CQ#"), "no Morse for #");
    assert!(!send_at(&mut r, 1.0, &[b'E', cmd::CW_STOP]));
    assert!(!r.ptt(), "nothing keyed by refused messages");
    assert!(send_at(&mut r, 1.0, b"cq"), "lower case is sent too");
    ack(&mut r, cmd::SEND_CW, &[cmd::CW_STOP]);
    ack(&mut r, cmd::SET_MODE, &[mode::CW_R, 0x01]);
    assert!(send_at(&mut r, 2.0, b"R"));
    ack(&mut r, cmd::SEND_CW, &[cmd::CW_STOP]);
    for m in [mode::USB, mode::LSB, mode::AM, mode::FM, mode::RTTY] {
        ack(&mut r, cmd::SET_MODE, &[m, 0x01]);
        assert!(!send_at(&mut r, 3.0, b"CQ"), "mode {m:02X}");
    }
    // outside the bands (WWV) nothing transmits
    let mut r = cw_rig();
    ack(&mut r, cmd::SET_FREQ, &fb(10_000_000));
    assert!(!send_at(&mut r, 1.0, b"CQ"));
    // split: the TX receiver's mode decides
    let mut r = cw_rig();
    ack(
        &mut r,
        cmd::SEL_MODE,
        &[sel::UNSELECTED, mode::USB, 0x00, 0x01],
    );
    ack(&mut r, cmd::SPLIT, &[0x01]);
    assert!(!send_at(&mut r, 1.0, b"CQ"));
    // every model with CW
    for id in ["ic705", "ic9700", "ic7100"] {
        let mut r = rig(id);
        ack(&mut r, cmd::SET_MODE, &[mode::CW, 0x01]);
        assert!(send_at(&mut r, 1.0, b"TEST"), "{id}");
        assert!(r.ptt(), "{id}");
    }
}

#[test]
fn the_transmitter_is_keyed_for_the_message_at_the_set_speed() {
    let mut r = cw_rig();
    // "PARIS" at 20 WPM: 43 dots of 60 ms = 2.58 s
    assert!(send_at(&mut r, 10.0, b"PARIS"));
    let job = r.snapshot().cw.expect("sending");
    assert_eq!(job.text, "PARIS");
    assert_eq!(job.end(), secs(10.0) + Duration::from_millis(60) * 43);
    assert_eq!(r.next_due(), Some(job.end()));
    // the key: P = .--. starts with a dot (0..60 ms), then a gap, then a dash
    assert!(job.key_down(secs(10.03)));
    assert!(!job.key_down(secs(10.09)));
    assert!(job.key_down(secs(10.15)));
    // Po follows the key (CW: the full carrier while the key is down)
    assert!(keyed_at(&mut r, 10.01));
    assert!(po_at(&mut r, 10.03) > 100);
    assert_eq!(po_at(&mut r, 10.09), 0);
    // the S-meter is off while transmitting, key down or up
    let s = ask_at(&mut r, 10.09, cmd::METER, &[meter::S_METER]);
    assert_eq!(bcd_to_level(&s[0].data[1..]).unwrap(), 0);
    assert!(keyed_at(&mut r, 12.5));
    // done: unkeyed by itself
    assert!(!keyed_at(&mut r, 12.6));
    assert!(r.snapshot().cw.is_none());
    assert!(!r.ptt());
    // a faster key speed sends faster: 48 WPM, dot 25 ms
    ack(&mut r, cmd::LEVEL, &[level::KEY_SPEED, 0x02, 0x55]);
    assert!(send_at(&mut r, 20.0, b"PARIS"));
    assert_eq!(
        r.snapshot().cw.unwrap().end(),
        secs(20.0) + Duration::from_micros(25_000) * 43
    );
}

#[test]
fn messages_queue_and_stop() {
    let mut r = cw_rig();
    assert!(send_at(&mut r, 1.0, b"E"));
    assert!(send_at(&mut r, 1.0, b"E"));
    let job = r.snapshot().cw.unwrap();
    assert_eq!(job.text, "EE");
    // E (1 dot), 3 dots between the messages, E
    assert_eq!(job.end(), secs(1.0) + Duration::from_millis(60) * 5);
    // one transmission holds at most 120 characters
    for _ in 0..3 {
        assert!(send_at(&mut r, 1.0, &[b'T'; 30]));
    }
    assert!(!send_at(&mut r, 1.0, &[b'T'; 30]), "the buffer is full");
    // 17 FF stops at once
    ack(&mut r, cmd::SEND_CW, &[cmd::CW_STOP]);
    assert!(!r.ptt());
    assert!(!keyed_at(&mut r, 1.1));
    ack(&mut r, cmd::SEND_CW, &[cmd::CW_STOP]);
    // unkeying the PTT stops CW too
    assert!(send_at(&mut r, 2.0, b"TEST"));
    ack(&mut r, cmd::TX, &[tx::PTT, 0x00]);
    assert!(r.snapshot().cw.is_none());
    // so does standby
    assert!(send_at(&mut r, 3.0, b"TEST"));
    ack(&mut r, cmd::POWER, &[power::OFF]);
    assert!(r.snapshot().cw.is_none() && !r.ptt());
}

#[test]
fn the_scope_shows_the_carrier_while_the_key_is_down() {
    let mut r = cw_rig();
    ack(
        &mut r,
        cmd::SCOPE,
        &[scope::SPAN, 0x00, 0x00, 0x25, 0x00, 0x00, 0x00],
    );
    ack(&mut r, cmd::SCOPE, &[scope::OUTPUT, 0x01]);
    let centre = |r: &mut SimRig, t: f64| -> u8 {
        // a sweep shows the band at its own time: drop the one overdue
        r.poll(secs(t - 0.05));
        let s = r.poll(secs(t));
        let px = &s.last().expect("a sweep").data[16..];
        // the dial is in the middle of a centre-mode sweep
        *px[px.len() / 2 - 3..px.len() / 2 + 3].iter().max().unwrap()
    };
    let quiet = centre(&mut r, 1.0);
    assert!(send_at(&mut r, 5.0, b"T"), "one dash: 180 ms");
    let keyed = centre(&mut r, 5.1);
    assert!(keyed > quiet + 30, "carrier {keyed} vs band {quiet}");
    let after = centre(&mut r, 6.0);
    assert!(after < keyed, "gone after the message: {after}");
}

#[test]
fn the_audio_carries_the_sidetone_while_the_key_is_down() {
    let mut r = cw_rig();
    let mut pcm = vec![0i16; 4_800];
    r.render_audio(&mut pcm, 1, 48_000); // audio clock at 0.1 s
    assert!(send_at(&mut r, 1.0, b"T"));
    // 180 ms of key down from the audio time of the command, then silence (muted)
    let mut pcm = vec![0i16; 48_000 / 2];
    r.render_audio(&mut pcm, 1, 48_000);
    let x: Vec<f32> = pcm.iter().map(|s| f32::from(*s) / 32_768.0).collect();
    let on = goertzel(&x[960..8_160], 600.0, 48_000);
    let off_pitch = goertzel(&x[960..8_160], 900.0, 48_000);
    assert!(
        on > 100.0 * off_pitch,
        "sidetone at the CW pitch: {on} vs {off_pitch}"
    );
    assert!(x[10_000..].iter().all(|v| v.abs() < 1e-3), "key up: silent");
    // a louder AF gain, a louder sidetone
    assert!(send_at(&mut r, 2.0, b"T"));
    ack(&mut r, cmd::LEVEL, &[level::AF, 0x02, 0x55]);
    let mut loud = vec![0i16; 4_800];
    r.render_audio(&mut loud, 1, 48_000);
    let peak = |p: &[i16]| p.iter().map(|s| s.unsigned_abs()).max().unwrap_or(0);
    // (after the first 10 ms: the receiver audio fades out over the first 2 ms)
    assert!(peak(&loud[480..]) > 2 * peak(&pcm[480..4_800]));
}

#[test]
fn a_remote_transmission_is_released_and_a_local_one_is_not() {
    let mut r = cw_rig();
    ack(&mut r, cmd::TX, &[tx::PTT, 0x01]);
    assert!(r.release_remote_tx(secs(2.0)));
    assert!(!r.ptt());
    assert!(!r.release_remote_tx(secs(2.0)), "nothing left to release");
    assert!(send_at(&mut r, 3.0, b"CQ CQ"));
    assert!(r.release_remote_tx(secs(3.1)));
    assert!(!r.ptt() && r.snapshot().cw.is_none());
    // keyed on the front panel: the operator at the radio keeps it
    r.panel(PanelAction::Ptt(true), secs(4.0));
    assert!(!r.release_remote_tx(secs(4.5)));
    assert!(r.ptt());
    r.panel(PanelAction::Ptt(false), secs(5.0));
    assert!(!r.ptt());
    // a PTT keyed on the panel stays the operator's when the controller keys as well
    r.panel(PanelAction::Ptt(true), secs(6.0));
    ack(&mut r, cmd::TX, &[tx::PTT, 0x01]);
    assert!(!r.release_remote_tx(secs(6.5)));
    assert_eq!(read(&mut r, cmd::TX, &[tx::PTT]), vec![tx::PTT, 0x01]);
}
