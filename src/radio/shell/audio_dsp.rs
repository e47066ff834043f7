//! The DSP stage of RX audio (driven by [`super::audio_rx`], on the link's audio
//! thread): turns the radio's decoded blocks into what web clients receive. While
//! somebody needs it (an RX stream has a listener, or the audio-FFT scope a viewer),
//! per radio block:
//!
//! 1. resample to 48 kHz (the detected rate; rebuilt when it changes; nothing to do
//!    when the radio sends 48 kHz),
//! 2. cut into 20 ms frames,
//! 3. per web stream that has listeners — (Opus | PCM16) × (mono | stereo) — convert the
//!    channels (mono of a stereo radio is MAIN, stereo of a mono radio repeats it),
//!    encode **once** (one Opus encoder per stream, created while it has listeners;
//!    coding the band the receivers' modes need, `coded_band`) and publish the frame
//!    to every listener,
//! 4. on profiles whose scope is `audio_fft`, feed MAIN to the [`AudioFft`] and publish
//!    a scope frame per sweep (edges from the dial, the mode and the profile's span).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crossbeam_channel::Sender;
use parking_lot::RwLock;

use crate::dsp::audio_fft::{AudioFft, Layout, PIXELS, Sideband};
use crate::dsp::opus_codec::{CodedBand, OpusEncoder};
use crate::dsp::reframe::Reframer;
use crate::dsp::resample::Resampler;
use crate::dsp::{WEB_FRAME, WEB_RATE};
use crate::hub::Fanout;
use crate::net::waker::WakingSender;
use crate::profile::{Profile, ScopeSourceKind};
use crate::radio::engine::scope::SweepEdges;
use crate::radio::shell::audio_pump::PcmBlock;
use crate::radio::shell::scope_pump::ScopeOut;
use crate::radio::shell::state_store::StateStore;
use crate::wire::civ::{self, Mode};
use crate::wire::web::{AUDIO_HEADER_LEN, AUDIO_RX_FRAME, AudioCodec, AudioFrame, ScopeFrame};

/// One 20 ms frame of a web RX stream, encoded once for all its listeners.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AudioOut {
    /// Codec.
    pub codec: AudioCodec,
    /// 1 or 2.
    pub channels: u8,
    /// One Opus packet or 20 ms of interleaved i16 LE.
    pub payload: Vec<u8>,
    /// When the radio block that completed the frame arrived.
    pub at: Instant,
}

impl AudioOut {
    /// The binary frame (interface.md §2.5) with this client's `sequence`.
    pub fn frame_bytes(&self, sequence: u16) -> Vec<u8> {
        let mut b = Vec::with_capacity(AUDIO_HEADER_LEN + self.payload.len());
        b.extend_from_slice(&self.header(sequence));
        b.extend_from_slice(&self.payload);
        b
    }

    /// The frame's header with this client's `sequence` (the payload follows it).
    pub fn header(&self, sequence: u16) -> [u8; AUDIO_HEADER_LEN] {
        let h = AudioFrame {
            msg_type: AUDIO_RX_FRAME,
            codec: self.codec.byte(),
            sequence,
            sample_rate: WEB_RATE,
            channels: self.channels,
            frame_ms: crate::wire::lan::audio_codec::FRAME_MS as u8,
            payload: Vec::new(),
        }
        .emit();
        let mut out = [0u8; AUDIO_HEADER_LEN];
        out.copy_from_slice(&h[..AUDIO_HEADER_LEN]);
        out
    }
}

/// What the RX audio DSP has done so far (it does nothing while nobody listens or
/// watches).
#[derive(Debug, Default)]
pub struct DspCounters {
    blocks: AtomicU64,
    opus_frames: [AtomicU64; 2],
    pcm_frames: AtomicU64,
    fft_sweeps: AtomicU64,
    encoders: AtomicU64,
    too_early_blocks: AtomicU64,
}

/// A copy of [`DspCounters`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DspStats {
    /// Radio blocks taken in (resampled, cut into frames).
    pub blocks: u64,
    /// Opus frames encoded: mono, stereo.
    pub opus_frames: [u64; 2],
    /// PCM16 frames made (both channel counts).
    pub pcm_frames: u64,
    /// Audio-FFT sweeps computed.
    pub fft_sweeps: u64,
    /// Opus encoders alive now.
    pub encoders: u64,
    /// Radio blocks dropped because they came ahead of real time (a radio sending
    /// faster than its sample rate; `dsp/realtime.rs`).
    pub too_early_blocks: u64,
}

impl DspCounters {
    /// The counters now.
    pub fn stats(&self) -> DspStats {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        DspStats {
            blocks: get(&self.blocks),
            opus_frames: [get(&self.opus_frames[0]), get(&self.opus_frames[1])],
            pcm_frames: get(&self.pcm_frames),
            fft_sweeps: get(&self.fft_sweeps),
            encoders: get(&self.encoders),
            too_early_blocks: get(&self.too_early_blocks),
        }
    }

    fn add(a: &AtomicU64, n: u64) {
        a.fetch_add(n, Ordering::Relaxed);
    }

    /// Adds `n` radio blocks dropped ahead of real time.
    pub(super) fn add_too_early(&self, n: u64) {
        DspCounters::add(&self.too_early_blocks, n);
    }
}

/// The four web RX streams.
pub struct RxStreams {
    fanouts: [Arc<Fanout<AudioOut>>; 4],
}

fn stream_index(codec: AudioCodec, channels: u8) -> Option<usize> {
    let c = match channels {
        1 => 0,
        2 => 1,
        _ => return None,
    };
    Some(c + 2 * usize::from(codec == AudioCodec::Pcm16))
}

const STREAMS: [(AudioCodec, u8); 4] = [
    (AudioCodec::Opus, 1),
    (AudioCodec::Opus, 2),
    (AudioCodec::Pcm16, 1),
    (AudioCodec::Pcm16, 2),
];

impl RxStreams {
    /// Four empty streams; every change of their listener counts is sent on `changed`.
    pub fn new(changed: &Sender<()>) -> RxStreams {
        let fanouts = std::array::from_fn(|_| {
            let f: Arc<Fanout<AudioOut>> = Fanout::new();
            let tx = changed.clone();
            f.on_count_change(move |_| {
                let _ = tx.send(());
            });
            f
        });
        RxStreams { fanouts }
    }

    /// The stream of `codec` with `channels` (1 or 2).
    pub fn get(&self, codec: AudioCodec, channels: u8) -> Option<&Arc<Fanout<AudioOut>>> {
        stream_index(codec, channels).map(|i| &self.fanouts[i])
    }

    pub(super) fn listened(&self) -> bool {
        self.fanouts.iter().any(|f| f.count() > 0)
    }
}

/// The band the Opus streams code for MAIN in mode `main` and SUB (if any) in `sub`:
/// the full band while a receiver is in wide FM or MAIN's mode is not known yet, else
/// the 8 kHz every other mode's audio fits in.
fn coded_band(main: Option<Mode>, sub: Option<Mode>) -> CodedBand {
    match (main, sub) {
        (None, _) | (Some(Mode::Wfm), _) | (_, Some(Mode::Wfm)) => CodedBand::Fullband,
        _ => CodedBand::Wideband,
    }
}

/// Where the DSP's output goes, and what it reads.
pub struct DspOutputs {
    /// The web RX streams.
    pub streams: Arc<RxStreams>,
    /// The scope fan-out (audio-FFT frames go there).
    pub scope: Arc<Fanout<ScopeOut>>,
    /// The current profile.
    pub profile: Arc<RwLock<Arc<Profile>>>,
    /// The state (dial, mode).
    pub store: Arc<StateStore>,
    /// The scope edges of audio-FFT sweeps, to the engine (the state's one writer).
    pub edges: WakingSender<SweepEdges>,
    /// What the DSP does, counted.
    pub counters: Arc<DspCounters>,
}

struct Pipeline {
    rate: u32,
    channels: u8,
    resampler: Resampler,
    reframer: Reframer,
    resampled: Vec<i16>,
}

/// See the module docs.
pub(super) struct Dsp {
    out: DspOutputs,
    pipeline: Option<Pipeline>,
    encoders: [Option<OpusEncoder>; 2],
    /// The audio-FFT analyser, made when the audio-FFT scope first has a viewer (its
    /// plan and tables cost memory a radio with its own scope never needs).
    fft: Option<AudioFft>,
    fft_seq: u16,
    sweeps: Vec<Vec<f32>>,
    last_edges: Option<(u64, u64)>,
    /// MAIN of a stereo frame, or a mono frame on both channels.
    converted: Vec<i16>,
}

impl Dsp {
    /// A DSP with nothing under way.
    pub(super) fn new(out: DspOutputs) -> Dsp {
        Dsp {
            out,
            pipeline: None,
            encoders: [None, None],
            fft: None,
            fft_seq: 0,
            sweeps: Vec::new(),
            last_edges: None,
            converted: Vec::new(),
        }
    }

    /// True while somebody needs the DSP: a web RX stream has a listener, or the
    /// audio-FFT scope a viewer.
    pub(super) fn wanted(&self) -> bool {
        self.out.streams.listened() || self.fft_wanted()
    }

    fn fft_wanted(&self) -> bool {
        self.out.profile.read().scope.source == ScopeSourceKind::AudioFft
            && self.out.scope.count() > 0
    }

    /// Drops the Opus encoders of streams nobody listens to any more.
    pub(super) fn drop_idle_encoders(&mut self) {
        for (i, enc) in self.encoders.iter_mut().enumerate() {
            if self.out.streams.fanouts[i].count() == 0 {
                *enc = None;
            }
        }
        let live = self.encoders.iter().filter(|e| e.is_some()).count() as u64;
        self.out.counters.encoders.store(live, Ordering::Relaxed);
    }

    /// Starts the stream over (after a pause or a format change).
    pub(super) fn restart(&mut self) {
        self.pipeline = None;
        if let Some(fft) = &mut self.fft {
            fft.reset();
        }
        self.last_edges = None;
    }

    /// One decoded radio block.
    pub(super) fn block(&mut self, b: &PcmBlock) {
        let fits = self
            .pipeline
            .as_ref()
            .is_some_and(|p| p.rate == b.sample_rate && p.channels == b.channels);
        if !fits {
            self.restart();
            let Some(resampler) = Resampler::new(b.sample_rate, WEB_RATE, usize::from(b.channels))
            else {
                log::debug!(
                    "audio dsp: cannot resample {} Hz × {}",
                    b.sample_rate,
                    b.channels
                );
                return;
            };
            self.pipeline = Some(Pipeline {
                rate: b.sample_rate,
                channels: b.channels,
                resampler,
                reframer: Reframer::new(WEB_FRAME, usize::from(b.channels)),
                resampled: Vec::new(),
            });
        }
        let Some(mut p) = self.pipeline.take() else {
            return;
        };
        DspCounters::add(&self.out.counters.blocks, 1);
        let channels = p.channels;
        let fft = self.fft_wanted();
        let mut resampled = std::mem::take(&mut p.resampled);
        let at48k: &[i16] = if p.resampler.is_identity() {
            // whole frames only, as the resampler would take them
            let ch = usize::from(channels);
            &b.samples[..b.samples.len() / ch * ch]
        } else {
            resampled.clear();
            p.resampler.process(&b.samples, &mut resampled);
            &resampled
        };
        p.reframer
            .push(at48k, |frame| self.frame(frame, channels, fft, b.at));
        p.resampled = resampled;
        self.pipeline = Some(p);
    }

    /// One 20 ms frame at 48 kHz.
    fn frame(&mut self, frame: &[i16], channels: u8, fft: bool, at: Instant) {
        let mut converted = std::mem::take(&mut self.converted);
        // looked up once a frame, and only while somebody listens to Opus
        let mut band = None;
        for (i, (codec, out_ch)) in STREAMS.into_iter().enumerate() {
            if self.out.streams.fanouts[i].count() == 0 {
                continue;
            }
            let pcm: &[i16] = if out_ch == channels {
                frame
            } else {
                // the other channel count: MAIN of stereo, or mono on both channels
                converted.clear();
                if out_ch == 1 {
                    converted.extend(frame.iter().step_by(2));
                } else {
                    converted.extend(frame.iter().flat_map(|&s| [s, s]));
                }
                &converted
            };
            let counters = &self.out.counters;
            let payload = match codec {
                AudioCodec::Pcm16 => {
                    DspCounters::add(&counters.pcm_frames, 1);
                    let mut bytes = Vec::with_capacity(pcm.len() * 2);
                    for s in pcm {
                        bytes.extend_from_slice(&s.to_le_bytes());
                    }
                    bytes
                }
                AudioCodec::Opus => {
                    let slot = &mut self.encoders[usize::from(out_ch - 1)];
                    if slot.is_none() {
                        match OpusEncoder::new(out_ch) {
                            Ok(e) => {
                                *slot = Some(e);
                                DspCounters::add(&counters.encoders, 1);
                            }
                            Err(e) => {
                                log::error!("audio dsp: no Opus encoder: {e}");
                                continue;
                            }
                        }
                    }
                    let Some(enc) = slot.as_mut() else { continue };
                    let band = *band.get_or_insert_with(|| {
                        let (main, sub) = self.out.store.read(|c| {
                            (c.radio.main.mode, c.radio.sub.as_ref().and_then(|s| s.mode))
                        });
                        coded_band(main, sub)
                    });
                    if let Err(e) = enc.set_band(band) {
                        log::warn!("audio dsp: Opus band not set: {e}");
                    }
                    DspCounters::add(&counters.opus_frames[usize::from(out_ch - 1)], 1);
                    match enc.encode(pcm) {
                        Ok(p) => p,
                        Err(e) => {
                            log::warn!("audio dsp: Opus encoding failed: {e}");
                            continue;
                        }
                    }
                }
            };
            self.out.streams.fanouts[i].publish(AudioOut {
                codec,
                channels: out_ch,
                payload,
                at,
            });
        }
        if fft {
            let main: &[i16] = if channels == 1 {
                frame
            } else {
                converted.clear();
                converted.extend(frame.iter().step_by(usize::from(channels)));
                &converted
            };
            self.sweeps.clear();
            self.fft
                .get_or_insert_with(AudioFft::new)
                .push(main, &mut self.sweeps);
            DspCounters::add(&self.out.counters.fft_sweeps, self.sweeps.len() as u64);
            let sweeps = std::mem::take(&mut self.sweeps);
            for s in &sweeps {
                self.publish_sweep(s, at);
            }
            self.sweeps = sweeps;
        }
        self.converted = converted;
    }

    fn publish_sweep(&mut self, spectrum: &[f32], at: Instant) {
        let span = self.out.profile.read().scope.default_span_hz;
        let (dial, mode) = self
            .out
            .store
            .read(|c| (c.radio.main.freq_hz, c.radio.main.mode));
        // the edges follow the dial and the mode: nothing to show until both are known
        let (Some(dial), Some(mode)) = (dial, mode) else {
            return;
        };
        let layout = Layout {
            dial_hz: dial,
            sideband: Sideband::of_mode(mode),
            bandwidth_hz: span / 2,
        };
        let (start, end) = layout.edges();
        if self.last_edges != Some((start, end)) {
            self.last_edges = Some((start, end));
            let _ = self.out.edges.send(SweepEdges {
                receiver: civ::Receiver::Main,
                mode: 0,
                start_hz: start,
                end_hz: end,
                out_of_range: false,
            });
        }
        let frame = ScopeFrame {
            receiver: 0,
            mode: 0,
            start_freq: start.min(u64::from(u32::MAX)) as u32,
            end_freq: end.min(u64::from(u32::MAX)) as u32,
            sequence: self.fft_seq,
            out_of_range: false,
            pixels: layout.render(spectrum, PIXELS),
        };
        self.fft_seq = self.fft_seq.wrapping_add(1);
        let bytes = frame.emit();
        self.out.scope.publish(ScopeOut { frame, bytes, at });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_indexes_and_frame_bytes() {
        assert_eq!(stream_index(AudioCodec::Opus, 1), Some(0));
        assert_eq!(stream_index(AudioCodec::Pcm16, 2), Some(3));
        assert_eq!(stream_index(AudioCodec::Opus, 3), None);
        for (i, (c, ch)) in STREAMS.into_iter().enumerate() {
            assert_eq!(stream_index(c, ch), Some(i));
        }
        let out = AudioOut {
            codec: AudioCodec::Pcm16,
            channels: 1,
            payload: vec![1, 2, 3, 4],
            at: Instant::now(),
        };
        assert_eq!(
            out.frame_bytes(0x1234),
            vec![0x10, 0x02, 0x34, 0x12, 0xE0, 0x01, 1, 20, 1, 2, 3, 4]
        );
    }

    #[test]
    fn opus_codes_eight_khz_except_for_wide_fm_or_an_unknown_mode() {
        use CodedBand::*;
        assert_eq!(coded_band(Some(Mode::Usb), None), Wideband);
        assert_eq!(coded_band(Some(Mode::Am), Some(Mode::Fm)), Wideband);
        assert_eq!(coded_band(Some(Mode::Wfm), None), Fullband);
        assert_eq!(coded_band(Some(Mode::Usb), Some(Mode::Wfm)), Fullband);
        assert_eq!(coded_band(None, Some(Mode::Usb)), Fullband);
    }
}
