//! The TX thread: audio from the capture device to the radio, in 20 ms frames, only
//! while the radio transmits with no unkey asked for — through the radio's TX audio gate
//! (`Radio::tx_audio_open`, `Radio::send_tx_audio`), the one the web's TX audio goes
//! through. The bridge never keys: whoever keyed (a rigctld client, a web client) owns
//! the transmission. Frames of digital silence (an idle sound card) are not sent, so an
//! idle bridge never mixes into a web client's TX audio.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::Shared;
use super::alsa::Pcm;
use super::pacing::{FRAME, RATE, RealTime};
use crate::dsp::resample::Resampler;
use crate::radio::service::Radio;

/// Told when the bridge's audio starts reaching the radio (once per transmission): the
/// app switches the radio's MOD input to LAN there, as for web TX audio.
pub type TxStarted = Arc<dyn Fn() + Send + Sync>;

/// Runs until `shared.stop` or a device error (then the bridge is `failed`).
pub fn run(mut pcm: Pcm, radio: Arc<Radio>, started: TxStarted, shared: Arc<Shared>) {
    let mut resampler = Resampler::new(RATE, radio.tx_sample_rate(), 1);
    let mut clock = RealTime::default();
    let mut buf = vec![0i16; FRAME];
    let mut pending: Vec<i16> = Vec::with_capacity(FRAME * 2);
    let mut out: Vec<i16> = Vec::with_capacity(FRAME);
    let mut sending = false;
    while !shared.stopping() {
        if let Some(wait) = clock.wait(Instant::now()) {
            std::thread::sleep(wait.min(Duration::from_millis(100)));
            continue;
        }
        let read = pcm
            .wait(Duration::from_millis(100))
            .and_then(|ready| if ready { pcm.read(&mut buf) } else { Ok(0) });
        let n = match read {
            Ok(n) => n,
            Err(e) => {
                shared.fail(format!("TX audio: {e}"));
                break;
            }
        };
        clock.took(n);
        pending.extend_from_slice(&buf[..n]);
        while pending.len() >= FRAME {
            let frame: Vec<i16> = pending.drain(..FRAME).collect();
            if !radio.tx_audio_open() {
                sending = false;
                continue;
            }
            if frame.iter().all(|&s| s == 0) {
                continue;
            }
            if !sending {
                radio.start_tx_audio();
                started();
                sending = true;
            }
            out.clear();
            match resampler.as_mut() {
                Some(r) => r.process(&frame, &mut out),
                None => out.extend_from_slice(&frame),
            }
            match radio.send_tx_audio(&out) {
                Ok(_) => {
                    shared.tx_frames.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => {
                    // the gate closed since it was looked at: an unkey is on its way
                    log::debug!("bridge TX audio not sent: {e}");
                    sending = false;
                }
            }
        }
    }
}
