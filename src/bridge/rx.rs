//! The RX thread: the radio's audio as the RX audio DSP makes it for web clients (48 kHz
//! mono PCM16, 20 ms frames, one subscription of `Radio::rx_audio`) into the playback
//! device. A frame that finds the device's queue full, or the thread behind, is dropped
//! and counted (`rx_drops`): the added latency stays bounded, it never grows.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use super::Shared;
use super::alsa::Pcm;
use super::pacing::{RATE, queue_has_room};
use crate::hub::Subscriber;
use crate::radio::audio_dsp::AudioOut;

/// Frames the thread may fall behind by before frames are dropped (one second).
pub const BACKLOG: usize = 50;

/// Hands frames to the RX thread, counting those it has no room for.
pub struct Feed {
    /// To the thread.
    pub tx: Sender<Arc<AudioOut>>,
    /// Where drops are counted.
    pub shared: Arc<Shared>,
}

impl Subscriber<AudioOut> for Feed {
    fn offer(&self, item: &Arc<AudioOut>) {
        if self.tx.try_send(item.clone()).is_err() {
            self.shared.rx_drops.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Runs until `shared.stop` or a device error (then the bridge is `failed`).
pub fn run(mut pcm: Pcm, frames: Receiver<Arc<AudioOut>>, shared: Arc<Shared>) {
    let mut samples: Vec<i16> = Vec::with_capacity(super::pacing::FRAME);
    while !shared.stopping() {
        let frame = match frames.recv_timeout(Duration::from_millis(100)) {
            Ok(f) => f,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        samples.clear();
        samples.extend(
            frame
                .payload
                .chunks_exact(2)
                .map(|b| i16::from_le_bytes([b[0], b[1]])),
        );
        let queued = pcm.delay();
        if !queue_has_room(queued, samples.len()) {
            shared.rx_drops.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        match pcm.write(&samples) {
            Ok(n) if n == samples.len() => {
                shared.rx_frames.fetch_add(1, Ordering::Relaxed);
                let ahead = queued.unwrap_or(0).max(0) as u64 * 1_000_000 / u64::from(RATE);
                let added = Instant::now().saturating_duration_since(frame.at)
                    + Duration::from_micros(ahead);
                shared.latency.lock().add(added);
            }
            Ok(_) => {
                shared.rx_drops.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                shared.fail(format!("RX audio: {e}"));
                break;
            }
        }
    }
}
