//! The RX audio pump: takes the radio's audio packets (in the negotiated LAN codec),
//! drops late or duplicate packets by their inner sequence number, detects the sample
//! rate the radio really sends from the packets' sizes and cadence
//! ([`RateDetector`]), decodes them to interleaved `i16` and hands the PCM to every
//! subscriber. The radio's audio stream is opened only while somebody listens.

use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Receiver;

use crate::dsp::rate_detect::RateDetector;
use crate::hub::Fanout;
use crate::lan::audio_client::AudioBlock;
use crate::lan::link::RadioLink;
use crate::wire::lan::audio_codec as audio;
use crate::wire::lan::{MAX_AUDIO_PAYLOAD, codec};

/// Decoded RX audio: the packets of one hand-over from the link thread (usually one
/// radio block of 20 ms).
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

/// The detector for `codec_byte` at the requested `rate`.
fn detector_for(codec_byte: u8, rate: u32) -> RateDetector {
    let per_frame = codec::bytes_per_sample(codec_byte).unwrap_or(2)
        * usize::from(codec::channels(codec_byte).unwrap_or(1));
    RateDetector::new(rate, per_frame, MAX_AUDIO_PAYLOAD)
}

/// What the pump keeps between batches.
struct Pump {
    sample_rate: u32,
    last: Option<u16>,
    late: u64,
    codec_now: u8,
    detector: RateDetector,
}

impl Pump {
    /// One batch of packets (those the link thread took in one wake-up, usually one
    /// radio block): late and duplicate packets are dropped, every packet feeds the rate
    /// detector, and the decoded samples of the batch go out as one block (one wake-up
    /// of the consumers instead of one per packet; a new block only where the rate or
    /// the codec changes inside the batch).
    /// `codec` is the link's RX codec now.
    fn batch(&mut self, codec: u8, batch: Vec<AudioBlock>, out: &mut Vec<PcmBlock>) {
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
                self.codec_now = codec;
                self.detector = detector_for(codec, self.sample_rate);
            }
            if let Some(rate) = self.detector.push(b.payload.len(), b.at)
                && rate != self.sample_rate
            {
                log::warn!(
                    "audio: the radio sends {rate} Hz although {} Hz was asked for; resampling",
                    self.sample_rate
                );
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
}

/// Runs the pump until `blocks` closes.
pub fn run(
    blocks: Receiver<Vec<AudioBlock>>,
    link: Arc<RadioLink>,
    sample_rate: u32,
    fanout: Arc<Fanout<PcmBlock>>,
    count_changed: Receiver<usize>,
) {
    let codec_now = link.status().rx_codec;
    let mut pump = Pump {
        detector: detector_for(codec_now, sample_rate),
        sample_rate,
        last: None,
        late: 0,
        codec_now,
    };
    let mut out = Vec::new();
    loop {
        crossbeam_channel::select! {
            recv(blocks) -> b => match b {
                Ok(batch) => {
                    pump.batch(link.status().rx_codec, batch, &mut out);
                    for block in out.drain(..) {
                        fanout.publish(block);
                    }
                }
                Err(_) => return,
            },
            recv(count_changed) -> n => match n {
                Ok(n) => {
                    let n = count_changed.try_iter().last().unwrap_or(n);
                    link.set_audio(n > 0);
                    if n == 0 {
                        pump.last = None;
                        pump.detector.reset();
                    }
                }
                Err(_) => return,
            },
        }
    }
}

/// Forwards subscriber counts of `fanout` to a channel the pump listens on.
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
        let mut p = Pump {
            sample_rate: 48_000,
            last: None,
            late: 0,
            codec_now: PCM16_STEREO,
            detector: detector_for(PCM16_STEREO, 48_000),
        };
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
}
