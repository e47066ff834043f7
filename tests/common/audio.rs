//! Audio helpers for the web tests: tones, TX frames, the strongest frequency of a
//! block, `audio_start` and counting error messages.

#![allow(dead_code)]

use std::time::Duration;

use rigweb::dsp::audio_fft::{AudioFft, bin_hz};
use rigweb::wire::web::AudioFrame;
use serde_json::Value;

use super::web::Ws;

/// Time to wait for an answer.
pub const T: Duration = Duration::from_secs(10);

/// `count` samples of a `hz` tone at `rate`, starting at sample `n`.
pub fn tone(hz: f32, rate: u32, n: usize, count: usize) -> Vec<i16> {
    (n..n + count)
        .map(|i| ((i as f32 * std::f32::consts::TAU * hz / rate as f32).sin() * 8_000.0) as i16)
        .collect()
}

/// A TX frame (`0x11`) of `codec` (0x01 Opus, 0x02 PCM16) at `rate` carrying `payload`.
pub fn tx_frame(codec: u8, seq: u16, rate: u32, payload: Vec<u8>) -> Vec<u8> {
    AudioFrame {
        msg_type: 0x11,
        codec,
        sequence: seq,
        sample_rate: rate,
        channels: 1,
        frame_ms: 20,
        payload,
    }
    .emit()
}

/// PCM16 LE bytes of `samples`.
pub fn le_bytes(samples: &[i16]) -> Vec<u8> {
    samples.iter().flat_map(|s| s.to_le_bytes()).collect()
}

/// One PCM16 TX frame (20 ms at 48 kHz) of a 1 kHz tone, starting at sample `n`.
pub fn tone_frame(seq: u16, n: usize) -> (Vec<u8>, Vec<i16>) {
    let samples = tone(1_000.0, 48_000, n, 960);
    (tx_frame(0x02, seq, 48_000, le_bytes(&samples)), samples)
}

/// The strongest audio frequency of 48 kHz mono `samples` (above 100 Hz), Hz.
pub fn peak_hz(samples: &[i16]) -> f32 {
    let mut fft = AudioFft::new();
    let mut sweeps = Vec::new();
    fft.push(samples, &mut sweeps);
    let s = sweeps.last().expect("a sweep");
    let first = (100.0 / bin_hz()) as usize;
    let k = (first..s.len())
        .max_by(|a, b| s[*a].total_cmp(&s[*b]))
        .unwrap();
    k as f32 * bin_hz()
}

/// Sends `audio_start` and returns `audio_started` or the error.
pub fn audio_start(w: &mut Ws, msg: Value) -> Value {
    w.send(&msg);
    w.until(T, |v| v["type"] == "audio_started" || v["type"] == "error")
        .expect("an answer to audio_start")
}

/// Error messages with `error` = `code` that arrive within `dur`.
pub fn errors(w: &mut Ws, code: &str, dur: Duration) -> usize {
    w.binaries_for(dur);
    let mut n = 0;
    while w
        .until(Duration::from_millis(10), |v| {
            v["type"] == "error" && v["error"] == code
        })
        .is_some()
    {
        n += 1;
    }
    n
}
