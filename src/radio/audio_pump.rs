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

/// Decoded RX audio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcmBlock {
    /// Interleaved samples.
    pub samples: Vec<i16>,
    /// 1 or 2 (L = MAIN, R = SUB).
    pub channels: u8,
    /// Sample rate, Hz: the detected one (the requested one until detection decides).
    pub sample_rate: u32,
    /// Inner sequence number of the radio's packet.
    pub seq: u16,
    /// When it arrived.
    pub at: Instant,
}

/// The detector for `codec_byte` at the requested `rate`.
fn detector_for(codec_byte: u8, rate: u32) -> RateDetector {
    let per_frame = codec::bytes_per_sample(codec_byte).unwrap_or(2)
        * usize::from(codec::channels(codec_byte).unwrap_or(1));
    RateDetector::new(rate, per_frame, MAX_AUDIO_PAYLOAD)
}

/// Runs the pump until `blocks` closes.
pub fn run(
    blocks: Receiver<AudioBlock>,
    link: Arc<RadioLink>,
    sample_rate: u32,
    fanout: Arc<Fanout<PcmBlock>>,
    count_changed: Receiver<usize>,
) {
    let mut last: Option<u16> = None;
    let mut late = 0u64;
    let mut codec_now = link.status().rx_codec;
    let mut detector = detector_for(codec_now, sample_rate);
    loop {
        crossbeam_channel::select! {
            recv(blocks) -> b => match b {
                Ok(b) => {
                    let at = Instant::now();
                    if let Some(prev) = last {
                        let d = b.send_seq.wrapping_sub(prev);
                        if d == 0 || d >= 0x8000 {
                            late += 1;
                            log::trace!("audio: late block {} after {prev} ({late} so far)", b.send_seq);
                            continue;
                        }
                    }
                    last = Some(b.send_seq);
                    let codec = link.status().rx_codec;
                    if codec != codec_now {
                        codec_now = codec;
                        detector = detector_for(codec, sample_rate);
                    }
                    if let Some(rate) = detector.push(b.payload.len(), at)
                        && rate != sample_rate
                    {
                        log::warn!(
                            "audio: the radio sends {rate} Hz although {sample_rate} Hz was asked for; resampling"
                        );
                    }
                    let mut samples = Vec::with_capacity(b.payload.len());
                    let Some(channels) = audio::decode(codec, &b.payload, &mut samples) else {
                        log::debug!("audio: codec {codec:#04x} cannot be decoded");
                        continue;
                    };
                    let sample_rate = detector.rate();
                    fanout.publish(PcmBlock { samples, channels, sample_rate, seq: b.send_seq, at });
                }
                Err(_) => return,
            },
            recv(count_changed) -> n => match n {
                Ok(n) => {
                    let n = count_changed.try_iter().last().unwrap_or(n);
                    link.set_audio(n > 0);
                    if n == 0 {
                        last = None;
                        detector.reset();
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
