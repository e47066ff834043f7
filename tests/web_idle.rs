//! Nothing is computed while nobody watches or listens: the audio-FFT scope (IC-7100)
//! runs only while a scope client watches, an Opus encoder only while its stream has a
//! listener, and the radio's audio stream is asked for only while somebody needs audio
//! (a listener, the audio-FFT scope, TX audio), never for a hardware scope.

mod common;

use std::time::Duration;

use common::audio::*;
use common::wait_for;
use common::web::*;
use rigweb::app::{Running, Tuning};
use rigweb::radio::audio_dsp::DspStats;
use serde_json::json;

fn dsp(srv: &Running) -> DspStats {
    srv.app.radio.dsp_stats()
}

/// RX audio packets the simulator sent.
fn audio_out(srv: &Running) -> u64 {
    srv.sim.as_ref().unwrap().stats().audio_packets_out
}

/// What changes over `d`: (DSP counters before, after; audio packets sent meanwhile).
fn over(srv: &Running, d: Duration) -> (DspStats, DspStats, u64) {
    let (s0, a0) = (dsp(srv), audio_out(srv));
    std::thread::sleep(d);
    (s0, dsp(srv), audio_out(srv) - a0)
}

/// Waits for whatever was in flight when the last client left to settle.
fn settle() {
    std::thread::sleep(Duration::from_millis(500));
}

#[test]
fn the_audio_fft_scope_and_opus_run_only_while_somebody_watches_or_listens() {
    let srv = start_server(serve_config("ic7100", None), Tuning::default());
    let a = srv.addr();
    let second = Duration::from_secs(1);
    // nobody: no audio asked from the radio, nothing computed
    let (s0, s1, packets) = over(&srv, second);
    assert_eq!(packets, 0, "the radio's audio stream is not open");
    assert_eq!((s0, s1), (DspStats::default(), DspStats::default()));
    // a scope viewer: the audio stream opens and sweeps are computed, no Opus
    let mut scope = Ws::connect(a, "/api/v1/scope", &[]).unwrap();
    assert!(wait_for(T, || dsp(&srv).fft_sweeps > 10));
    let (s0, s1, packets) = over(&srv, second);
    assert!(
        packets > 20,
        "audio flows for the audio-FFT scope: {packets}"
    );
    assert!(s1.fft_sweeps - s0.fft_sweeps >= 20, "{s0:?} {s1:?}");
    assert_eq!((s1.opus_frames, s1.pcm_frames, s1.encoders), ([0, 0], 0, 0));
    assert!(!scope.binaries_for(Duration::from_millis(200)).is_empty());
    drop(scope);
    settle();
    let (s0, s1, packets) = over(&srv, second);
    assert_eq!(
        s1.fft_sweeps, s0.fft_sweeps,
        "no sweeps once the viewer left"
    );
    assert_eq!(s1.blocks, s0.blocks);
    assert_eq!(packets, 0, "the audio stream is closed again");
    // an Opus listener: its encoder runs, the FFT does not
    let mut opus = Ws::connect(a, "/api/v1/audio", &[]).unwrap();
    audio_start(
        &mut opus,
        json!({"type": "audio_start", "direction": "rx", "codec": "opus", "channels": 1}),
    );
    assert!(wait_for(T, || dsp(&srv).opus_frames[0] > 10));
    let (s0, s1, _) = over(&srv, second);
    assert!(s1.opus_frames[0] - s0.opus_frames[0] >= 40, "{s0:?} {s1:?}");
    assert_eq!(s1.opus_frames[1], 0, "no stereo encoder");
    assert_eq!(s1.encoders, 1);
    assert_eq!(s1.fft_sweeps, s0.fft_sweeps, "no sweeps without a viewer");
    // a PCM16 listener instead: no Opus
    let mut pcm = Ws::connect(a, "/api/v1/audio", &[]).unwrap();
    audio_start(
        &mut pcm,
        json!({"type": "audio_start", "direction": "rx", "codec": "pcm16", "channels": 1}),
    );
    drop(opus);
    settle();
    let (s0, s1, packets) = over(&srv, second);
    assert!(packets > 20);
    assert!(s1.pcm_frames - s0.pcm_frames >= 40, "{s0:?} {s1:?}");
    assert_eq!(s1.opus_frames, s0.opus_frames, "no Opus without a listener");
    assert_eq!(s1.encoders, 0, "its encoder is gone");
    drop(pcm);
    settle();
    let (s0, s1, packets) = over(&srv, second);
    assert_eq!((s0, packets), (s1, 0), "nobody again: nothing");
    srv.shutdown();
}

#[test]
fn a_hardware_scope_does_not_open_the_audio_stream() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let mut scope = Ws::connect(srv.addr(), "/api/v1/scope", &[]).unwrap();
    assert!(!scope.binaries_for(Duration::from_millis(800)).is_empty());
    let (s0, s1, packets) = over(&srv, Duration::from_secs(1));
    assert_eq!(packets, 0, "no audio for a hardware scope");
    assert_eq!((s0, s1), (DspStats::default(), DspStats::default()));
    srv.shutdown();
}
