//! TX audio over `/api/v1/audio` against the built-in simulator: it stops reaching the
//! radio the moment PTT drops, whatever drops it (the transmit timeout, power off, a
//! disconnect), not when the radio confirms; headers that do not match `audio_start`
//! are refused; PCM16 at 16 kHz and Opus arrive at the radio's rate with their tone.
//!
//! The PTT-drop tests delay every datagram by 100 ms each way, so that the radio
//! confirms an unkey 200 ms after it was asked for: TX audio sent meanwhile would reach
//! the unkeyed radio (the simulator's `tx_audio_dropped`).

mod common;

use std::time::{Duration, Instant};

use common::audio::*;
use common::wait_for;
use common::web::*;
use rigweb::app::{Running, Tuning};
use rigweb::sim::faults::FaultConfig;
use serde_json::json;

/// One 20 ms block of TX audio at the IC-7610's 48 kHz: what may already be on its way
/// on the audio socket when the unkey goes out on the CI-V socket (two sockets, two
/// threads: their order on the wire is not fixed).
const ONE_BLOCK: u64 = 960;

/// A control client owning a confirmed PTT and an audio client with PCM16 TX started
/// for it.
struct Keyed {
    owner: Ws,
    session: String,
    audio: Ws,
}

fn keyed(srv: &Running) -> Keyed {
    let a = srv.addr();
    let mut owner = Ws::control(a);
    let session = owner.next(T).unwrap()["session"]
        .as_str()
        .unwrap()
        .to_string();
    owner.subscribe(&["events"]);
    assert_eq!(owner.cmd("k", "ptt", json!({"state": true}))["ok"], true);
    let mut audio = Ws::connect(a, "/api/v1/audio", &[]).unwrap();
    let ok = audio_start(
        &mut audio,
        json!({"type": "audio_start", "direction": "tx", "codec": "pcm16", "session": session}),
    );
    assert_eq!(ok["type"], "audio_started", "{ok}");
    // TX audio needs the radio's audio stream, which audio_start opens
    let sim = srv.sim.as_ref().unwrap();
    let p0 = sim.stats().audio_packets_out;
    assert!(wait_for(T, || sim.stats().audio_packets_out > p0 + 10));
    Keyed {
        owner,
        session,
        audio,
    }
}

/// Sends 20 ms frames of a 1 kHz tone in real time for `dur`.
fn stream(audio: &mut Ws, dur: Duration, seq: &mut u16) {
    let t0 = Instant::now();
    let mut i = 0u32;
    while t0.elapsed() < dur {
        audio.send_binary(tone_frame(*seq, usize::from(*seq) * 960).0);
        *seq = seq.wrapping_add(1);
        i += 1;
        let due = t0 + Duration::from_millis(20) * i;
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
    }
}

fn delay_everything(srv: &Running) {
    srv.sim.as_ref().unwrap().set_faults(FaultConfig {
        delay: Duration::from_millis(100),
        ..FaultConfig::default()
    });
}

/// Streams for `before`, then runs `cause` on another thread while streaming goes on
/// for `after`; checks that TX audio reached the radio before and not after, and that
/// the sender was told `ptt_required`.
fn tx_audio_stops(srv: &Running, k: &mut Keyed, cause: impl FnOnce() + Send, after: Duration) {
    let sim = srv.sim.as_ref().unwrap();
    let mut seq = 0;
    stream(&mut k.audio, Duration::from_millis(600), &mut seq);
    // (muted: the MOD input may still be on its way to LAN)
    let reached = || {
        let s = sim.snapshot().unwrap();
        s.tx_audio_samples + s.tx_audio_muted
    };
    assert!(
        wait_for(Duration::from_secs(2), || reached() >= 9_600),
        "TX audio reaches the radio while keyed: {}",
        reached()
    );
    std::thread::scope(|sc| {
        sc.spawn(cause);
        stream(&mut k.audio, after, &mut seq);
    });
    assert!(wait_for(T, || !sim.snapshot().unwrap().ptt), "unkeyed");
    std::thread::sleep(Duration::from_millis(400)); // what was on its way has arrived
    let s = sim.snapshot().unwrap();
    assert!(
        s.tx_audio_dropped <= ONE_BLOCK,
        "{} samples of TX audio reached the radio after the unkey was asked for",
        s.tx_audio_dropped
    );
    assert!(
        errors(&mut k.audio, "ptt_required", Duration::from_millis(300)) >= 1,
        "the sender is told"
    );
}

#[test]
fn the_tx_timeout_stops_tx_audio() {
    let mut cfg = serve_config("ic7610", None);
    cfg.tx_timeout = Duration::from_secs(1);
    let srv = start_server(cfg, Tuning::default());
    let mut k = keyed(&srv);
    delay_everything(&srv);
    // keyed ~0.2 s ago (the answer's delay); the timeout fires during the second stretch
    tx_audio_stops(&srv, &mut k, || {}, Duration::from_millis(1_500));
    let ev = k
        .owner
        .until(T, |v| v["type"] == "event" && v["name"] == "tx_timeout");
    assert!(ev.is_some(), "the tx_timeout event");
    srv.shutdown();
}

#[test]
fn power_off_stops_tx_audio() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    let mut k = keyed(&srv);
    delay_everything(&srv);
    let off = || {
        std::thread::sleep(Duration::from_millis(100));
        let r = post_json(a, "/api/v1/radio/power", &json!({"state": "off"}));
        assert_eq!(r.status, 200, "{:?}", String::from_utf8_lossy(&r.body));
    };
    tx_audio_stops(&srv, &mut k, off, Duration::from_millis(1_200));
    assert!(!srv.sim.as_ref().unwrap().snapshot().unwrap().powered);
    srv.shutdown();
}

#[test]
fn a_disconnect_stops_tx_audio() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    let mut k = keyed(&srv);
    delay_everything(&srv);
    let disconnect = || {
        std::thread::sleep(Duration::from_millis(100));
        let r = post_json(a, "/api/v1/radio/disconnect", &json!({}));
        assert_eq!(r.status, 200, "{:?}", String::from_utf8_lossy(&r.body));
    };
    tx_audio_stops(&srv, &mut k, disconnect, Duration::from_millis(1_200));
    srv.shutdown();
}

/// Sends `frames` 20 ms frames in real time, `make(i)` building the i-th.
fn paced(audio: &mut Ws, frames: u16, mut make: impl FnMut(u16) -> Vec<u8>) {
    let t0 = Instant::now();
    for i in 0..frames {
        audio.send_binary(make(i));
        let due = t0 + Duration::from_millis(20) * u32::from(i + 1);
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
    }
}

/// Waits until the radio has transmitted `n` more samples than `from`; returns the
/// snapshot.
fn transmitted(srv: &Running, from: u64, n: u64) -> rigweb::sim::RigSnapshot {
    let sim = srv.sim.as_ref().unwrap();
    let s = || sim.snapshot().unwrap();
    assert!(
        wait_for(Duration::from_secs(3), || s().tx_audio_samples >= from + n),
        "{} of {n} samples transmitted ({} muted)",
        s().tx_audio_samples - from,
        s().tx_audio_muted
    );
    s()
}

#[test]
fn pcm16_at_16_khz_and_opus_reach_the_radio_at_its_rate() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let mut k = keyed(&srv);
    let ok = audio_start(
        &mut k.audio,
        json!({"type": "audio_start", "direction": "tx", "codec": "pcm16", "sample_rate": 16000,
               "session": k.session}),
    );
    assert_eq!(
        (ok["codec"].as_str(), ok["sample_rate"].as_u64()),
        (Some("pcm16"), Some(16_000))
    );
    let sim = srv.sim.as_ref().unwrap();
    let before = sim.snapshot().unwrap().tx_audio_samples;
    // one second of a 1 kHz tone at 16 kHz: 50 frames of 320 samples
    paced(&mut k.audio, 50, |i| {
        let pcm = tone(1_000.0, 16_000, usize::from(i) * 320, 320);
        tx_frame(0x02, i, 16_000, le_bytes(&pcm))
    });
    // resampled to the radio's 48 kHz: three times the samples (less the resampler's
    // delay and the MOD input's switch)
    let s = transmitted(&srv, before, 40_000);
    let hz = peak_hz(&s.tx_audio_tail);
    assert!(
        (hz - 1_000.0).abs() < 30.0,
        "PCM16 16 kHz: the radio got {hz} Hz"
    );
    let got = s.tx_audio_samples + s.tx_audio_muted - before;
    assert!(got <= 48_000, "never more than sent: {got}");
    // Opus: one second of 1.5 kHz
    let ok = audio_start(
        &mut k.audio,
        json!({"type": "audio_start", "direction": "tx", "codec": "opus", "session": k.session}),
    );
    assert_eq!(ok["codec"], "opus", "{ok}");
    let before = s.tx_audio_samples;
    let mut enc = rigweb::dsp::opus_codec::OpusEncoder::new(1).unwrap();
    paced(&mut k.audio, 50, |i| {
        let pcm = tone(1_500.0, 48_000, usize::from(i) * 960, 960);
        tx_frame(0x01, i, 48_000, enc.encode(&pcm).unwrap())
    });
    let s = transmitted(&srv, before, 45_000);
    let hz = peak_hz(&s.tx_audio_tail);
    assert!((hz - 1_500.0).abs() < 30.0, "Opus: the radio got {hz} Hz");
    assert!(s.tx_audio_samples - before <= 48_000 + ONE_BLOCK);
    assert_eq!(s.tx_audio_dropped, 0);
    srv.shutdown();
}

#[test]
fn tx_frames_whose_header_does_not_match_are_refused() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let mut k = keyed(&srv);
    let sim = srv.sim.as_ref().unwrap();
    let before = sim.snapshot().unwrap();
    let (good, _) = tone_frame(0, 0);
    let mut ms10 = good.clone();
    ms10[7] = 10; // frame_ms 10 with 20 ms of samples
    let mut half = good.clone();
    half.truncate(8 + 960); // 10 ms of samples in a 20 ms frame
    let mut rate = good.clone();
    rate[4..6].copy_from_slice(&160u16.to_le_bytes()); // 16 kHz, not as started
    for (name, bad) in [("frame_ms", ms10), ("duration", half), ("rate", rate)] {
        k.audio.send_binary(bad);
        let e = k
            .audio
            .until(T, |v| v["type"] == "error")
            .unwrap_or_else(|| panic!("{name}: an error"));
        assert_eq!(e["error"], "invalid_param", "{name}: {e}");
    }
    std::thread::sleep(Duration::from_millis(300));
    let s = sim.snapshot().unwrap();
    assert_eq!(
        (s.tx_audio_samples + s.tx_audio_muted, s.tx_audio_dropped),
        (before.tx_audio_samples + before.tx_audio_muted, 0),
        "nothing reached the radio"
    );
    srv.shutdown();
}

/// The IC-7610's MOD input of DATA OFF (`1A 05 00 91`) in the simulator.
fn mod_input(srv: &Running) -> Option<Vec<u8>> {
    let s = srv.sim.as_ref().unwrap().snapshot().unwrap();
    s.menu.get(&(0x00, 0x91)).cloned()
}

#[test]
fn lan_is_selected_when_the_owner_starts_tx_audio_and_restored_when_ptt_drops() {
    // review: LAN was selected only after the first accepted frame, so the first round
    // trip of audio was muted
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let mut k = keyed(&srv);
    assert!(
        wait_for(Duration::from_secs(3), || mod_input(&srv)
            == Some(vec![0x05])),
        "LAN before any frame: {:?}",
        mod_input(&srv)
    );
    let sim = srv.sim.as_ref().unwrap();
    paced(&mut k.audio, 50, |i| tone_frame(i, usize::from(i) * 960).0);
    let s = transmitted(&srv, 0, 48_000);
    assert_eq!(
        (s.tx_audio_muted, s.tx_audio_dropped),
        (0, 0),
        "nothing muted"
    );
    assert_eq!(k.owner.cmd("u", "ptt", json!({"state": false}))["ok"], true);
    assert!(
        wait_for(T, || mod_input(&srv) == Some(vec![0x00])),
        "the operator's MOD input back: {:?}",
        mod_input(&srv)
    );
    assert!(!sim.snapshot().unwrap().ptt);
    srv.shutdown();
}

#[test]
fn the_mod_input_is_restored_after_a_link_loss() {
    let tuning = quick_reconnect();
    let srv = start_server(serve_config("ic7610", None), tuning);
    let k = keyed(&srv);
    assert!(wait_for(Duration::from_secs(3), || mod_input(&srv)
        == Some(vec![0x05])));
    let sim = srv.sim.as_ref().unwrap();
    sim.silence(Duration::from_secs(3));
    let ready = || srv.app.radio.store().read(|c| c.connection.radio_ready);
    assert!(wait_for(Duration::from_secs(5), || !ready()), "link lost");
    assert_eq!(
        mod_input(&srv),
        Some(vec![0x05]),
        "nothing to do while it is down"
    );
    assert!(wait_for(Duration::from_secs(15), ready), "reconnected");
    assert!(
        wait_for(T, || mod_input(&srv) == Some(vec![0x00])),
        "the operator's MOD input back after the reconnect: {:?}",
        mod_input(&srv)
    );
    assert!(!sim.snapshot().unwrap().ptt, "unkeyed");
    drop(k);
    srv.shutdown();
}

#[test]
fn two_audio_sockets_of_the_owner_share_one_real_time_budget() {
    // issue 15.6: the real-time cap was per socket, so two audio sockets started with
    // the owner's session delivered twice real time to the radio
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let mut k = keyed(&srv);
    let mut second = Ws::connect(srv.addr(), "/api/v1/audio", &[]).unwrap();
    let ok = audio_start(
        &mut second,
        json!({"type": "audio_start", "direction": "tx", "codec": "pcm16", "session": k.session}),
    );
    assert_eq!(ok["type"], "audio_started", "{ok}");
    let sim = srv.sim.as_ref().unwrap();
    let reached = || {
        let s = sim.snapshot().unwrap();
        s.tx_audio_samples + s.tx_audio_muted
    };
    let before = reached();
    // both sockets send 2 s of audio in real time: 4 s of audio in about 2 s
    let t0 = Instant::now();
    for i in 0..100u16 {
        for ws in [&mut k.audio, &mut second] {
            ws.send_binary(tone_frame(i, usize::from(i) * 960).0);
        }
        let due = t0 + Duration::from_millis(20) * u32::from(i + 1);
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
    }
    let span = t0.elapsed();
    std::thread::sleep(Duration::from_millis(400)); // what was on its way has arrived
    let got = reached() - before;
    // real time (the span the frames took, however loaded the machine) plus the 500 ms
    // burst and what may be in flight, across both sockets
    let cap = (span + rigweb::web::ws::tx_gate::BURST).as_secs_f64() * 48_000.0;
    eprintln!("{got} samples reached the radio in {span:?} (cap {cap:.0})");
    assert!(
        got as f64 <= cap + 2.0 * ONE_BLOCK as f64,
        "{got} samples in {span:?}: more than real time plus the burst"
    );
    assert!(
        got >= 48_000 * 3 / 2,
        "the owner's audio reaches the radio: {got}"
    );
    srv.shutdown();
}
