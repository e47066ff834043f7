//! TX audio on its way to the radio: whether the engine lets it flow ([`TxAudio`]), and
//! the cutting into 20 ms blocks of the radio's TX codec (the LAN session then splits
//! blocks at 1364 bytes). The codecs themselves are in `wire::lan::audio_codec`; the
//! gate that the senders hold is the shell's (`radio/shell/tx_audio_gate.rs`).

use crate::wire::lan::audio_codec::{FRAME_MS, encode};

/// Whether TX audio may reach the radio, as the engine decides it: stopped the moment
/// anything asks for the transmitter to go off (`ptt false`, a release for any reason
/// — an owner gone, the transmit timeout, PTT in doubt, shutdown —, power off,
/// disconnect), before the radio confirms; let through again only when the engine sees
/// the transmitter keyed with no release outstanding. Each decision is handed to the
/// shell ([`TxAudio::take`]), which applies it to the senders' gate before it sends
/// anything the engine produced in the same turn.
#[derive(Debug, Default)]
pub struct TxAudio {
    open: bool,
    decided: Option<bool>,
}

impl TxAudio {
    /// Stop TX audio.
    pub fn close(&mut self) {
        self.set(false);
    }

    /// Let TX audio through (the transmitter was keyed, no unkey on its way).
    pub fn open(&mut self) {
        self.set(true);
    }

    fn set(&mut self, open: bool) {
        self.open = open;
        self.decided = Some(open);
    }

    /// True unless an unkey was asked for since the transmitter was last keyed.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// The last decision not handed out yet (each one is handed out, even when it
    /// repeats the one before: the shell's gate may have been closed meanwhile).
    pub fn take(&mut self) -> Option<bool> {
        self.decided.take()
    }
}

/// Cuts a stream of mono TX samples into exact 20 ms blocks of codec bytes.
#[derive(Debug)]
pub struct TxFramer {
    codec_byte: u8,
    samples_per_block: usize,
    pending: Vec<i16>,
}

impl TxFramer {
    /// A framer for `codec_byte` (mono) at `sample_rate`. A rate too low for one sample
    /// per 20 ms gives 1-sample blocks (a block is never empty, so `push` always ends).
    pub fn new(codec_byte: u8, sample_rate: u32) -> TxFramer {
        let per_block = u64::from(sample_rate) * u64::from(FRAME_MS) / 1000;
        TxFramer {
            codec_byte,
            samples_per_block: usize::try_from(per_block).unwrap_or(usize::MAX).max(1),
            pending: Vec::new(),
        }
    }

    /// Adds samples; returns every complete 20 ms block as encoded bytes.
    pub fn push(&mut self, samples: &[i16]) -> Vec<Vec<u8>> {
        self.pending.extend_from_slice(samples);
        let mut blocks = Vec::new();
        while self.pending.len() >= self.samples_per_block {
            let rest = self.pending.split_off(self.samples_per_block);
            let block = std::mem::replace(&mut self.pending, rest);
            let mut bytes = Vec::with_capacity(block.len() * 2);
            encode(self.codec_byte, &block, &mut bytes);
            blocks.push(bytes);
        }
        blocks
    }

    /// Samples waiting for a complete block.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::lan::codec;

    #[test]
    fn every_decision_is_handed_out_once() {
        let mut t = TxAudio::default();
        assert!(!t.is_open(), "closed until the transmitter is keyed");
        assert_eq!(t.take(), None);
        t.open();
        assert!(t.is_open());
        assert_eq!((t.take(), t.take()), (Some(true), None));
        t.close();
        t.open();
        assert_eq!(t.take(), Some(true), "the last decision of a turn");
        t.open();
        assert_eq!(t.take(), Some(true), "a repeated one too");
    }

    #[test]
    fn framer_emits_exact_20ms_blocks() {
        let mut f = TxFramer::new(codec::PCM16_MONO, 48_000);
        assert!(f.push(&[0; 500]).is_empty());
        let blocks = f.push(&[1; 1500]);
        assert_eq!(blocks.len(), 2);
        assert!(blocks.iter().all(|b| b.len() == 1920));
        assert_eq!(f.pending(), 80);
    }

    #[test]
    fn framer_with_a_degenerate_rate_terminates() {
        // fuzz (audio_codec): rate 2 gave 0-sample blocks and `push` looped forever,
        // even on no samples; rates above 214 MHz overflowed `rate * 20` (u32)
        let mut f = TxFramer::new(codec::PCM8_MONO, 2);
        assert!(f.push(&[]).is_empty());
        let blocks = f.push(&[0, 1, 2]);
        assert_eq!((blocks.len(), f.pending()), (3, 0));
        assert!(blocks.iter().all(|b| b.len() == 1));
        let mut f = TxFramer::new(codec::PCM16_MONO, u32::MAX);
        assert!(f.push(&[0; 100]).is_empty());
        assert_eq!(f.pending(), 100);
    }
}
