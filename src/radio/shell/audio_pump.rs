//! The first stage of RX audio (run by [`super::audio_rx::RxAudio`] on the link's audio
//! thread): takes the radio's audio packets (in the negotiated LAN codec), drops late or
//! duplicate packets by their inner sequence number, detects the sample rate the radio
//! really sends from the packets' sizes and cadence ([`RateDetector`]), holds the audio
//! to real time ([`RealTimeGate`]: while it arrives faster than that, the blocks ahead of
//! it by more than the gate's allowance are dropped, counted and logged once per
//! stream) and decodes the rest to interleaved `i16`.

use std::time::Instant;

use crossbeam_channel::Receiver;

use crate::dsp::rate_detect::RateDetector;
use crate::dsp::realtime::{ALLOWANCE, RealTimeGate, Verdict};
use crate::hub::Fanout;
use crate::lan::audio_client::AudioBlock;
use crate::wire::lan::audio_codec as audio;
use crate::wire::lan::{MAX_AUDIO_PAYLOAD, codec};

/// Decoded RX audio: the packets of one hand-over from the link thread (one radio block
/// of 20 ms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcmBlock {
    /// Interleaved samples.
    pub samples: Vec<i16>,
    /// 1 or 2 (L = MAIN, R = SUB).
    pub channels: u8,
    /// Sample rate, Hz: the detected one (the requested one until detection decides).
    pub sample_rate: u32,
    /// Inner sequence number of its last packet.
    pub seq: u16,
    /// When the datagram that delivered its last packet arrived at the LAN socket.
    pub at: Instant,
}

/// Bytes per sample frame of `codec_byte` (sample size × channels).
fn bytes_per_frame(codec_byte: u8) -> usize {
    codec::bytes_per_sample(codec_byte).unwrap_or(2)
        * usize::from(codec::channels(codec_byte).unwrap_or(1))
}

/// Packet order, rate detection, real time and decoding of the radio's RX audio.
pub struct Pump {
    requested_rate: u32,
    last: Option<u16>,
    late: u64,
    codec_now: u8,
    detector: RateDetector,
    gate: RealTimeGate,
    told_too_fast: bool,
}

impl Pump {
    /// A pump for audio in `codec_byte` requested at `requested_rate` Hz.
    pub fn new(codec_byte: u8, requested_rate: u32) -> Pump {
        let per_frame = bytes_per_frame(codec_byte);
        Pump {
            requested_rate,
            last: None,
            late: 0,
            codec_now: codec_byte,
            detector: RateDetector::new(requested_rate, per_frame, MAX_AUDIO_PAYLOAD),
            gate: RealTimeGate::new(per_frame, MAX_AUDIO_PAYLOAD),
            told_too_fast: false,
        }
    }

    /// Forgets the stream (it closed; the next one starts afresh).
    pub fn reset(&mut self) {
        self.last = None;
        self.detector.reset();
        self.gate.reset();
        self.told_too_fast = false;
    }

    /// Radio blocks dropped so far because they came ahead of real time.
    pub fn too_early_blocks(&self) -> u64 {
        self.gate.dropped_blocks()
    }

    /// One batch of packets (one hand-over of the link thread, one radio block): late
    /// and duplicate packets are dropped, every packet feeds the rate detector, blocks
    /// ahead of real time are dropped, and the decoded samples of the batch go out as
    /// one block (a new block only where the rate or the codec changes inside the
    /// batch). `codec` is the link's RX codec now.
    pub fn batch(&mut self, codec: u8, batch: Vec<AudioBlock>, out: &mut Vec<PcmBlock>) {
        for b in batch {
            if let Some(prev) = self.last {
                let d = b.send_seq.wrapping_sub(prev);
                if d == 0 || d >= 0x8000 {
                    self.late += 1;
                    log::trace!(
                        "audio: late block {} after {prev} ({} so far)",
                        b.send_seq,
                        self.late
                    );
                    continue;
                }
            }
            self.last = Some(b.send_seq);
            if codec != self.codec_now {
                *self = Pump {
                    last: self.last,
                    late: self.late,
                    ..Pump::new(codec, self.requested_rate)
                };
            }
            if let Some(rate) = self.detector.push(b.payload.len(), b.at)
                && rate != self.requested_rate
            {
                log::warn!(
                    "audio: the radio sends {rate} Hz although {} Hz was asked for; resampling",
                    self.requested_rate
                );
            }
            let (rate, cadence) = (self.detector.settled(), self.detector.cadence_hz());
            match self.gate.admit(b.payload.len(), b.at, rate, cadence) {
                Verdict::Pass => {}
                Verdict::DropBlock => {
                    self.too_fast();
                    continue;
                }
                Verdict::Drop => continue,
            }
            let Some(channels) = codec::channels(codec) else {
                log::debug!("audio: codec {codec:#04x} cannot be decoded");
                continue;
            };
            let sample_rate = self.detector.rate();
            let same = out
                .last()
                .is_some_and(|o| o.sample_rate == sample_rate && o.channels == channels);
            if !same {
                out.push(PcmBlock {
                    samples: Vec::with_capacity(b.payload.len() * 3),
                    channels,
                    sample_rate,
                    seq: b.send_seq,
                    at: b.at,
                });
            }
            let Some(o) = out.last_mut() else { continue };
            if audio::decode(codec, &b.payload, &mut o.samples).is_none() {
                log::debug!("audio: codec {codec:#04x} cannot be decoded");
                continue;
            }
            o.seq = b.send_seq;
            o.at = b.at;
        }
        out.retain(|o| !o.samples.is_empty());
    }

    /// Says once per stream that the radio sends faster than real time.
    fn too_fast(&mut self) {
        if std::mem::replace(&mut self.told_too_fast, true) {
            return;
        }
        let rate = self.detector.rate();
        let speed = self
            .detector
            .cadence_hz()
            .map(|hz| format!(" (about {:.1}× real time)", hz / f64::from(rate)))
            .unwrap_or_default();
        log::warn!(
            "audio: the radio sends {rate} Hz audio faster than real time{speed}; \
             dropping the blocks more than {} ms ahead of it",
            ALLOWANCE.as_millis()
        );
    }
}

/// Forwards subscriber counts of `fanout` to a channel the `audio-control` thread
/// listens on.
pub fn count_channel(fanout: &Fanout<PcmBlock>) -> Receiver<usize> {
    let (tx, rx) = crossbeam_channel::unbounded();
    fanout.on_count_change(move |n| {
        let _ = tx.send(n);
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::lan::codec::PCM16_STEREO;

    fn packet(seq: u16, samples: &[i16], at: Instant) -> AudioBlock {
        AudioBlock {
            send_seq: seq,
            payload: samples.iter().flat_map(|s| s.to_le_bytes()).collect(),
            at,
        }
    }

    #[test]
    fn a_batch_of_packets_is_one_block_without_the_late_ones() {
        let t = Instant::now();
        let mut p = Pump::new(PCM16_STEREO, 48_000);
        let later = t + std::time::Duration::from_micros(50);
        let batch = vec![
            packet(10, &[1, 2, 3, 4], t),
            packet(10, &[9, 9], t),
            packet(11, &[5, 6], later),
            packet(9, &[9, 9], later),
        ];
        let mut out = Vec::new();
        p.batch(PCM16_STEREO, batch, &mut out);
        assert_eq!(out.len(), 1, "one hand-over, one block");
        let b = &out[0];
        assert_eq!(
            b.samples,
            vec![1, 2, 3, 4, 5, 6],
            "duplicate and late dropped"
        );
        assert_eq!(
            (b.channels, b.sample_rate, b.seq, b.at),
            (2, 48_000, 11, later)
        );
        out.clear();
        p.batch(PCM16_STEREO, vec![packet(11, &[7, 7], later)], &mut out);
        assert!(out.is_empty(), "nothing new: no block");
    }

    #[test]
    fn audio_three_times_faster_than_real_time_comes_out_at_real_time() {
        let t0 = Instant::now();
        let mut p = Pump::new(PCM16_STEREO, 48_000);
        let block: Vec<i16> = vec![5; 960 * 2];
        let mut frames = 0;
        let mut seq = 0u16;
        // 10 s of virtual time, 150 blocks of 20 ms a second, each in three packets
        for b in 0..1_500u64 {
            let at = t0 + std::time::Duration::from_micros(b * 20_000 / 3);
            let batch = [&block[..682], &block[682..1_364], &block[1_364..]]
                .iter()
                .map(|part| {
                    seq = seq.wrapping_add(1);
                    packet(seq, part, at)
                })
                .collect();
            let mut out = Vec::new();
            p.batch(PCM16_STEREO, batch, &mut out);
            frames += out.iter().map(|o| o.samples.len() / 2).sum::<usize>();
            assert!(out.iter().all(|o| o.sample_rate == 48_000));
        }
        // 400 ms to measure the cadence, then 9.6 s held to real time
        let seconds = frames as f64 / 48_000.0;
        assert!((10.7..11.0).contains(&seconds), "{seconds} s of audio");
        assert!((950..=960).contains(&p.too_early_blocks()));
        p.reset();
        let mut out = Vec::new();
        p.batch(PCM16_STEREO, vec![packet(1, &block[..682], t0)], &mut out);
        assert_eq!(out.len(), 1, "a new stream starts afresh");
    }
}
