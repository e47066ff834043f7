//! `/api/v1/audio` and the audio-FFT scope over loopback against the built-in simulator:
//! Opus and PCM16 RX carry the simulator's carrier at its audio frequency (also when the
//! radio sends 16 kHz after being asked for 48 kHz), RX audio sent three times faster
//! than real time reaches the client at real time, TX audio is refused without PTT and
//! reaches the radio (MOD input switched to LAN and restored) with it, and the IC-7100's
//! audio-FFT scope shows the carrier at its pixel.

#[macro_use]
mod common;

use std::time::{Duration, Instant};

use common::audio::*;
use common::wait_for;
use common::web::*;
use rigweb::app::Tuning;
use rigweb::dsp::opus_codec::{OpusDecoder, OpusEncoder};
use rigweb::wire::web::{AudioFrame, ScopeFrame};
use serde_json::json;
/// The simulator's 10 MHz time-signal carrier, always on.
const CARRIER: u64 = 10_000_000;

/// Tunes MAIN 1 kHz below the carrier in USB: the carrier sounds at 1 kHz.
fn tune_to_carrier(ctl: &mut Ws) {
    assert_eq!(
        ctl.cmd("f", "set_freq", json!({"freq": CARRIER - 1_000}))["ok"],
        true
    );
    assert_eq!(ctl.cmd("m", "set_mode", json!({"mode": "USB"}))["ok"], true);
}

both_ways!(opus_and_pcm16_rx_carry_the_carrier_at_its_audio_frequency);
fn opus_and_pcm16_rx_carry_the_carrier_at_its_audio_frequency() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    let mut ctl = Ws::control(a);
    tune_to_carrier(&mut ctl);
    let mut opus = Ws::connect(a, "/api/v1/audio", &[]).unwrap();
    let mut pcm = Ws::connect(a, "/api/v1/audio", &[]).unwrap();
    assert_eq!(
        audio_start(
            &mut opus,
            json!({"type": "audio_start", "direction": "rx", "channels": 1, "id": "o"})
        ),
        json!({"type": "audio_started", "direction": "rx", "codec": "opus", "sample_rate": 48000,
               "channels": 1, "frame_ms": 20, "id": "o"})
    );
    let started = audio_start(
        &mut pcm,
        json!({"type": "audio_start", "direction": "rx", "codec": "pcm16"}),
    );
    assert_eq!(started["channels"], 2, "what the IC-7610 sends: {started}");
    // let the audio stream open and the AGC settle
    opus.binaries_for(Duration::from_millis(1_000));
    pcm.binaries_for(Duration::from_millis(10));
    let dur = Duration::from_secs(2);
    let (of, pf) = std::thread::scope(|sc| {
        let h = sc.spawn(|| pcm.binaries_for(dur));
        (opus.binaries_for(dur), h.join().unwrap())
    });
    for (frames, name) in [(&of, "opus"), (&pf, "pcm16")] {
        let fps = frames.len() as f64 / dur.as_secs_f64();
        assert!(
            (40.0..=60.0).contains(&fps),
            "{name}: {fps} frames/s, expected 50 ± 20 %"
        );
        let seqs: Vec<u16> = frames
            .iter()
            .map(|f| u16::from_le_bytes([f[2], f[3]]))
            .collect();
        assert!(
            seqs.windows(2).all(|w| w[1] == w[0].wrapping_add(1)),
            "{name}: {seqs:?}"
        );
    }
    let mut dec = OpusDecoder::new().unwrap();
    let mut mono = Vec::new();
    for f in &of {
        let af = AudioFrame::parse(f).unwrap();
        assert_eq!(af.emit(), *f, "byte-exact");
        assert_eq!(&f[..2], &[0x10, 0x01]);
        assert_eq!(&f[4..8], &[0xE0, 0x01, 1, 20]);
        mono.extend_from_slice(dec.decode(&af.payload).unwrap());
    }
    let hz = peak_hz(&mono);
    assert!((hz - 1_000.0).abs() < 30.0, "Opus: the carrier at {hz} Hz");
    let mut left = Vec::new();
    for f in &pf {
        assert_eq!(f.len(), 8 + 960 * 2 * 2, "20 ms of 48 kHz stereo");
        assert_eq!(&f[..2], &[0x10, 0x02]);
        assert_eq!(&f[4..8], &[0xE0, 0x01, 2, 20]);
        left.extend(
            f[8..]
                .chunks_exact(4)
                .map(|c| i16::from_le_bytes([c[0], c[1]])),
        );
    }
    let hz = peak_hz(&left);
    assert!(
        (hz - 1_000.0).abs() < 30.0,
        "PCM16 MAIN: the carrier at {hz} Hz"
    );
    // stop: no more frames
    opus.send(&json!({"type": "audio_stop", "direction": "rx"}));
    let stopped = opus.until(T, |v| v["type"] == "audio_stopped").unwrap();
    assert_eq!(stopped["direction"], "rx");
    opus.binaries_for(Duration::from_millis(200));
    assert!(opus.binaries_for(Duration::from_millis(400)).is_empty());
    srv.shutdown();
}

#[test]
fn the_opus_stream_codes_the_band_the_mode_needs() {
    // every mode's audio fits in 8 kHz but wide FM's: Opus codes only that much (all
    // its bits for it, and less work), and the full band in WFM
    let srv = start_server(serve_config("ic705", None), Tuning::default());
    let a = srv.addr();
    let mut ctl = Ws::control(a);
    let mut opus = Ws::connect(a, "/api/v1/audio", &[]).unwrap();
    assert_eq!(
        audio_start(
            &mut opus,
            json!({"type": "audio_start", "direction": "rx", "codec": "opus", "channels": 1})
        )["type"],
        "audio_started"
    );
    let bands = |opus: &mut Ws| -> Vec<opus::Bandwidth> {
        let frames = opus.binaries_for(Duration::from_millis(800));
        assert!(frames.len() > 20, "{} frames", frames.len());
        frames[frames.len() - 10..]
            .iter()
            .map(|f| opus::packet::get_bandwidth(&f[8..]).unwrap())
            .collect()
    };
    for (freq, mode, band) in [
        (14_200_000u64, "USB", opus::Bandwidth::Wideband),
        (100_000_000, "WFM", opus::Bandwidth::Fullband),
        (145_500_000, "FM", opus::Bandwidth::Wideband),
    ] {
        assert_eq!(ctl.cmd("f", "set_freq", json!({"freq": freq}))["ok"], true);
        assert_eq!(ctl.cmd("m", "set_mode", json!({"mode": mode}))["ok"], true);
        // frames on their way when the mode changed go first
        opus.binaries_for(Duration::from_millis(300));
        let got = bands(&mut opus);
        assert!(got.iter().all(|b| *b == band), "{mode}: {got:?}");
    }
    srv.shutdown();
}

both_ways!(sixteen_khz_from_the_radio_is_detected_and_resampled);
fn sixteen_khz_from_the_radio_is_detected_and_resampled() {
    let tuning = Tuning {
        sim: Some(|c| c.audio_rate = Some(16_000)),
        ..Tuning::default()
    };
    let srv = start_server(serve_config("ic7610", None), tuning);
    let a = srv.addr();
    let mut ctl = Ws::control(a);
    tune_to_carrier(&mut ctl);
    let mut w = Ws::connect(a, "/api/v1/audio", &[]).unwrap();
    audio_start(
        &mut w,
        json!({"type": "audio_start", "direction": "rx", "codec": "pcm16", "channels": 1}),
    );
    w.binaries_for(Duration::from_millis(1_200));
    let dur = Duration::from_secs(2);
    let frames = w.binaries_for(dur);
    let fps = frames.len() as f64 / dur.as_secs_f64();
    assert!((40.0..=60.0).contains(&fps), "{fps} frames/s");
    let mut mono = Vec::new();
    for f in &frames {
        assert_eq!(f.len(), 8 + 1_920, "20 ms of 48 kHz mono");
        assert_eq!(u16::from_le_bytes([f[4], f[5]]), 480);
        mono.extend(
            f[8..]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]])),
        );
    }
    let hz = peak_hz(&mono);
    assert!(
        (hz - 1_000.0).abs() < 30.0,
        "the carrier at {hz} Hz (3 kHz would be the chipmunk)"
    );
    srv.shutdown();
}

both_ways!(audio_three_times_faster_than_real_time_is_held_to_real_time);
fn audio_three_times_faster_than_real_time_is_held_to_real_time() {
    // a faulty sound card behind a radio server: 150 blocks of 20 ms a second
    let tuning = Tuning {
        sim: Some(|c| c.audio_speed = 3),
        ..Tuning::default()
    };
    let srv = start_server(serve_config("ic7610", None), tuning);
    let a = srv.addr();
    let mut ctl = Ws::control(a);
    tune_to_carrier(&mut ctl);
    let mut w = Ws::connect(a, "/api/v1/audio", &[]).unwrap();
    audio_start(
        &mut w,
        json!({"type": "audio_start", "direction": "rx", "codec": "pcm16", "channels": 1}),
    );
    w.binaries_for(Duration::from_millis(1_000));
    let packets = || srv.sim.as_ref().unwrap().stats().audio_packets_out;
    let (p0, t0) = (packets(), Instant::now());
    let frames = w.binaries_for(Duration::from_secs(3));
    let secs = t0.elapsed().as_secs_f64();
    // 48 kHz stereo PCM16: three packets a block (a starved simulator sends fewer)
    let sent = (packets() - p0) as f64 / 3.0;
    let fps = frames.len() as f64 / secs;
    assert!(
        sent / secs > 100.0 && fps <= 60.0,
        "{fps} frames/s of the {} blocks/s the radio sent: real time is 50",
        sent / secs
    );
    let real_time = sent.min(50.0 * secs);
    assert!(
        frames.len() as f64 >= 0.8 * real_time,
        "{} frames passed of {real_time} that real time allows",
        frames.len()
    );
    let seqs: Vec<u16> = frames
        .iter()
        .map(|f| u16::from_le_bytes([f[2], f[3]]))
        .collect();
    assert!(seqs.windows(2).all(|x| x[1] == x[0].wrapping_add(1)));
    let dropped = srv.app.radio.dsp_stats().too_early_blocks;
    assert!(
        dropped > 150,
        "blocks ahead of real time are counted: {dropped}"
    );
    // whole 20 ms blocks are dropped: what passes is still the carrier at its pitch
    let mut mono = Vec::new();
    for f in &frames {
        mono.extend(
            f[8..]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]])),
        );
    }
    let hz = peak_hz(&mono);
    assert!((hz - 1_000.0).abs() < 30.0, "the carrier at {hz} Hz");
    srv.shutdown();
}

both_ways!(tx_audio_needs_the_ptt_owner_and_reaches_the_radio);
fn tx_audio_needs_the_ptt_owner_and_reaches_the_radio() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    let sim = srv.sim.as_ref().unwrap();
    let mut owner = Ws::control(a);
    let session = owner.next(T).unwrap()["session"]
        .as_str()
        .unwrap()
        .to_string();
    let mut other = Ws::control(a);
    assert_eq!(
        owner.cmd("f", "set_freq", json!({"freq": 14_100_000}))["ok"],
        true
    );
    let mut x = Ws::connect(a, "/api/v1/audio", &[]).unwrap();
    // bad sessions
    let e = audio_start(
        &mut x,
        json!({"type": "audio_start", "direction": "tx", "codec": "pcm16"}),
    );
    assert_eq!(e["error"], "invalid_param", "{e}");
    let e = audio_start(
        &mut x,
        json!({"type": "audio_start", "direction": "tx", "codec": "pcm16", "session": "0".repeat(32)}),
    );
    assert_eq!(e["error"], "forbidden", "{e}");
    // frames before audio_start tx are refused
    x.send_binary(tone_frame(0, 0).0);
    assert_eq!(
        errors(&mut x, "invalid_param", Duration::from_millis(300)),
        1
    );
    let ok = audio_start(
        &mut x,
        json!({"type": "audio_start", "direction": "tx", "codec": "pcm16", "sample_rate": 48000, "session": session}),
    );
    assert_eq!(ok["type"], "audio_started", "{ok}");
    // no PTT: dropped, one error for many frames
    for i in 0..10 {
        x.send_binary(tone_frame(i, 0).0);
    }
    assert_eq!(
        errors(&mut x, "ptt_required", Duration::from_millis(400)),
        1
    );
    let s = sim.snapshot().unwrap();
    assert_eq!(
        (s.tx_audio_samples, s.tx_audio_muted, s.tx_audio_dropped),
        (0, 0, 0),
        "refused frames never reach the radio"
    );
    assert_eq!(s.menu.get(&(0x00, 0x91)), None, "MOD input untouched");
    // the owner keys: one second of tone reaches the radio, the MOD input goes to LAN
    assert_eq!(owner.cmd("k", "ptt", json!({"state": true}))["ok"], true);
    let t0 = Instant::now();
    for i in 0..50u16 {
        x.send_binary(tone_frame(i, usize::from(i) * 960).0);
        let due = t0 + Duration::from_millis(20 * u64::from(i + 1));
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
    }
    assert!(
        wait_for(Duration::from_secs(3), || sim
            .snapshot()
            .unwrap()
            .tx_audio_samples
            >= 38_400),
        "{:?}",
        sim.snapshot()
            .map(|s| (s.tx_audio_samples, s.tx_audio_muted))
    );
    let s = sim.snapshot().unwrap();
    assert_eq!(
        s.menu.get(&(0x00, 0x91)),
        Some(&vec![0x05]),
        "DATA OFF MOD = LAN"
    );
    assert!(
        s.tx_audio_muted < 48_000 / 2,
        "most of it transmitted: {}",
        s.tx_audio_muted
    );
    let tail = &s.tx_audio_tail;
    assert!(tail.len() >= 4_800, "{}", tail.len());
    let hz = peak_hz(tail);
    assert!(
        (hz - 1_000.0).abs() < 30.0,
        "the radio got the tone: {hz} Hz"
    );
    assert_eq!(errors(&mut x, "ptt_required", Duration::from_millis(50)), 0);
    // another client unkeys: frames stop at once, one error, the MOD input is restored
    assert_eq!(other.cmd("u", "ptt", json!({"state": false}))["ok"], true);
    let sent = sim.snapshot().unwrap().tx_audio_samples;
    for i in 0..10 {
        x.send_binary(tone_frame(100 + i, 0).0);
    }
    assert_eq!(
        errors(&mut x, "ptt_required", Duration::from_millis(400)),
        1
    );
    assert!(
        wait_for(T, || sim.snapshot().unwrap().menu.get(&(0x00, 0x91))
            == Some(&vec![0x00])),
        "MOD input restored: {:?}",
        sim.snapshot().unwrap().menu
    );
    let s = sim.snapshot().unwrap();
    assert_eq!(s.tx_audio_samples, sent, "nothing after the unkey");
    assert_eq!(s.tx_audio_dropped, 0, "nor anything while unkeyed");
    // Opus TX from the same client after keying again; then the owner vanishes
    assert_eq!(owner.cmd("k2", "ptt", json!({"state": true}))["ok"], true);
    let ok = audio_start(
        &mut x,
        json!({"type": "audio_start", "direction": "tx", "codec": "opus", "session": session}),
    );
    assert_eq!(ok["codec"], "opus");
    let mut enc = OpusEncoder::new(1).unwrap();
    let before = sim.snapshot().unwrap().tx_audio_samples;
    for i in 0..25u16 {
        let (_, pcm) = tone_frame(i, usize::from(i) * 960);
        let f = AudioFrame {
            msg_type: 0x11,
            codec: 0x01,
            sequence: i,
            sample_rate: 48_000,
            channels: 1,
            frame_ms: 20,
            payload: enc.encode(&pcm).unwrap(),
        };
        x.send_binary(f.emit());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        wait_for(Duration::from_secs(3), || sim
            .snapshot()
            .unwrap()
            .tx_audio_samples
            >= before + 19_200),
        "Opus TX reached the radio"
    );
    drop(owner);
    assert!(
        wait_for(T, || !sim.snapshot().unwrap().ptt),
        "owner gone: unkeyed"
    );
    let after = sim.snapshot().unwrap().tx_audio_samples;
    let (_, pcm) = tone_frame(0, 0);
    let f = AudioFrame {
        msg_type: 0x11,
        codec: 0x01,
        sequence: 99,
        sample_rate: 48_000,
        channels: 1,
        frame_ms: 20,
        payload: enc.encode(&pcm).unwrap(),
    };
    x.send_binary(f.emit());
    assert_eq!(
        errors(&mut x, "ptt_required", Duration::from_millis(400)),
        1
    );
    let s = sim.snapshot().unwrap();
    assert_eq!(s.tx_audio_samples, after);
    assert_eq!(s.tx_audio_dropped, 0, "nothing reached the unkeyed radio");
    srv.shutdown();
}

both_ways!(the_audio_fft_scope_shows_the_carrier_at_its_pixel);
fn the_audio_fft_scope_shows_the_carrier_at_its_pixel() {
    let srv = start_server(serve_config("ic7100", None), Tuning::default());
    let a = srv.addr();
    let caps = get(a, "/api/v1/capabilities").json();
    assert_eq!(caps["scopeSource"], "audio_fft", "{caps}");
    let mut ctl = Ws::control(a);
    tune_to_carrier(&mut ctl);
    let mut w = Ws::connect(a, "/api/v1/scope", &[]).unwrap();
    w.binaries_for(Duration::from_millis(1_200));
    let dur = Duration::from_secs(2);
    let frames = w.binaries_for(dur);
    let fps = frames.len() as f64 / dur.as_secs_f64();
    assert!(
        (24.0..=36.0).contains(&fps),
        "{fps} sweeps/s, expected 30 ± 20 %"
    );
    let last = ScopeFrame::parse(frames.last().unwrap()).unwrap();
    assert_eq!(last.emit(), *frames.last().unwrap());
    assert_eq!((last.receiver, last.mode), (0, 0));
    assert_eq!(
        (last.start_freq, last.end_freq),
        (9_999_000, 10_005_000),
        "USB: dial .. dial + 6 kHz"
    );
    assert_eq!(last.pixels.len(), 475);
    assert!(last.pixels.iter().all(|p| *p <= 160));
    // 1 kHz of 6 kHz over 475 pixels: pixel 79
    let peak = last
        .pixels
        .iter()
        .enumerate()
        .max_by_key(|(i, p)| (**p, usize::MAX - i))
        .unwrap()
        .0;
    assert!((77..=81).contains(&peak), "the carrier at pixel {peak}");
    // the control socket streams the same frames
    ctl.send(&json!({"type": "subscribe", "streams": ["scope"], "scope_fps": 30}));
    let got = ctl.binaries_for(Duration::from_millis(800));
    assert!(
        got.iter().any(|f| f[0] == 0x01 && f.len() == 16 + 475),
        "{}",
        got.len()
    );
    // the state shows the edges
    let state = get(a, "/api/v1/state").json();
    assert_eq!(
        state["scope"]["startFreq"]
            .as_u64()
            .or(state["scope"]["start_freq"].as_u64()),
        Some(9_999_000),
        "{}",
        state["scope"]
    );
    srv.shutdown();
}
