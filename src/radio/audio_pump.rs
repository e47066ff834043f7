//! The RX audio pump: takes the radio's audio blocks (in the negotiated LAN codec),
//! drops late or duplicate blocks by their inner sequence number, decodes them to
//! interleaved `i16` and hands the PCM to every subscriber. The radio's audio stream is
//! opened only while somebody listens.

use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Receiver;

use super::audio;
use crate::hub::Fanout;
use crate::lan::audio_client::AudioBlock;
use crate::lan::link::RadioLink;

/// Decoded RX audio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcmBlock {
    /// Interleaved samples.
    pub samples: Vec<i16>,
    /// 1 or 2 (L = MAIN, R = SUB).
    pub channels: u8,
    /// Sample rate, Hz.
    pub sample_rate: u32,
    /// Inner sequence number of the radio's packet.
    pub seq: u16,
    /// When it arrived.
    pub at: Instant,
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
    loop {
        crossbeam_channel::select! {
            recv(blocks) -> b => match b {
                Ok(b) => {
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
                    let mut samples = Vec::with_capacity(b.payload.len());
                    let Some(channels) = audio::decode(codec, &b.payload, &mut samples) else {
                        log::debug!("audio: codec {codec:#04x} cannot be decoded");
                        continue;
                    };
                    fanout.publish(PcmBlock { samples, channels, sample_rate, seq: b.send_seq, at: Instant::now() });
                }
                Err(_) => return,
            },
            recv(count_changed) -> n => match n {
                Ok(n) => {
                    let n = count_changed.try_iter().last().unwrap_or(n);
                    link.set_audio(n > 0);
                    if n == 0 {
                        last = None;
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
