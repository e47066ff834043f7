//! RX audio from the radio to the web streams. [`RxAudio`] is the link's audio sink: on
//! the link's audio thread, one radio block at a time (no hand-over to another thread,
//! no wake-up per block), the [`Pump`] orders, rate-detects, holds to real time and
//! decodes it; while somebody needs it the [`Dsp`] makes the web streams of it
//! (resampling, 20 ms frames, Opus / PCM16 once per stream, the audio-FFT scope); then
//! the decoded block is published to the PCM fan-out ([`super::service::Radio::audio`]).
//!
//! The `audio-control` thread ([`run`]) follows the listeners: while the DSP is needed
//! it holds a subscription of the PCM fan-out, it drops the Opus encoders of streams
//! nobody listens to, and the fan-out's subscriber count opens and closes the radio's
//! audio stream (a stream that closed starts afresh).

use std::sync::{Arc, OnceLock, Weak};

use crossbeam_channel::Receiver;
use parking_lot::Mutex;

use super::audio_dsp::{Dsp, DspCounters, DspOutputs};
use super::audio_pump::{PcmBlock, Pump};
use crate::hub::{Discard, Fanout, Subscription};
use crate::lan::audio_client::AudioBlock;
use crate::lan::link::{RadioLink, Sink};

/// What the audio thread works on, under one lock (the control thread takes it only
/// when listeners come and go).
struct Work {
    pump: Pump,
    dsp: Dsp,
    /// The DSP has listeners (or audio-FFT viewers).
    needed: bool,
    decoded: Vec<PcmBlock>,
}

/// See the module docs.
pub struct RxAudio {
    /// The link (its RX codec), once started.
    link: OnceLock<Weak<RadioLink>>,
    pcm: Arc<Fanout<PcmBlock>>,
    counters: Arc<DspCounters>,
    work: Mutex<Work>,
}

impl RxAudio {
    /// RX audio in the codec byte `codec` (the one asked for; a change is followed)
    /// requested at `requested_rate` Hz, published decoded to `pcm` and through the DSP
    /// to `out`.
    pub fn new(
        codec: u8,
        requested_rate: u32,
        pcm: Arc<Fanout<PcmBlock>>,
        out: DspOutputs,
    ) -> Arc<RxAudio> {
        let counters = out.counters.clone();
        Arc::new(RxAudio {
            link: OnceLock::new(),
            pcm,
            counters,
            work: Mutex::new(Work {
                pump: Pump::new(codec, requested_rate),
                dsp: Dsp::new(out),
                needed: false,
                decoded: Vec::new(),
            }),
        })
    }

    /// The link whose RX codec applies (the sink exists before the link).
    pub fn attach(&self, link: &Arc<RadioLink>) {
        let _ = self.link.set(Arc::downgrade(link));
    }
}

impl Sink<Vec<AudioBlock>> for RxAudio {
    /// One radio block's packets.
    fn deliver(&self, batch: Vec<AudioBlock>) {
        let Some(link) = self.link.get().and_then(Weak::upgrade) else {
            return;
        };
        let codec = link.status().rx_codec;
        let blocks = {
            let mut w = self.work.lock();
            let Work {
                pump,
                dsp,
                needed,
                decoded,
            } = &mut *w;
            let dropped = pump.too_early_blocks();
            pump.batch(codec, batch, decoded);
            self.counters
                .add_too_early(pump.too_early_blocks() - dropped);
            if *needed {
                for block in decoded.iter() {
                    dsp.block(block);
                }
            }
            std::mem::take(decoded)
        };
        for block in blocks {
            self.pcm.publish(block);
        }
    }
}

/// Runs the `audio-control` thread until `stop` closes. `pcm_count` carries the PCM
/// fan-out's subscriber counts ([`super::audio_pump::count_channel`]), `changed` the
/// listener changes of the web streams and the scope.
pub fn run(
    rx: Arc<RxAudio>,
    link: Arc<RadioLink>,
    pcm_count: Receiver<usize>,
    changed: Receiver<()>,
    stop: Receiver<()>,
) {
    // while the DSP has work, it holds the radio's audio stream open like any subscriber
    let mut need: Option<Subscription<PcmBlock>> = None;
    loop {
        {
            let mut w = rx.work.lock();
            let wanted = w.dsp.wanted();
            if wanted != need.is_some() {
                need = wanted.then(|| rx.pcm.subscribe_with(Arc::new(Discard)));
                w.needed = wanted;
                w.dsp.restart();
            }
            w.dsp.drop_idle_encoders();
        }
        crossbeam_channel::select! {
            recv(pcm_count) -> n => {
                let Ok(n) = n else { return };
                let n = pcm_count.try_iter().last().unwrap_or(n);
                link.set_audio(n > 0);
                if n == 0 {
                    rx.work.lock().pump.reset();
                }
            }
            recv(changed) -> c => {
                if c.is_err() {
                    return;
                }
                while changed.try_recv().is_ok() {}
            }
            recv(stop) -> _ => return,
        }
    }
}
