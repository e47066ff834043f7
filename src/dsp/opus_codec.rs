//! Opus at 48 kHz with 20 ms frames: the RX encoder one per stream (shared by every
//! listener of that stream) and the TX decoder of a transmitting client.

use opus::{Application, Bitrate, Channels};

/// Opus sample rate.
pub const SAMPLE_RATE: u32 = 48_000;
/// Samples per channel in one 20 ms frame.
pub const FRAME_SAMPLES: usize = 960;
/// Largest packet this server writes.
const MAX_PACKET: usize = 1_500;
/// Largest decoded duration accepted (Opus allows 120 ms).
const MAX_DECODED: usize = 5_760;
/// Encoder bit rate per channel.
pub const BITRATE_PER_CHANNEL: i32 = 32_000;
/// Encoder complexity (0..10): 5 keeps a Raspberry Pi well under its budget.
pub const COMPLEXITY: i32 = 5;

/// How wide an audio band the encoder codes. A receiver's audio is narrower than 8 kHz
/// in every mode but wide FM (SSB and CW a few kHz, AM and FM up to 7.5 kHz behind their
/// widest filters): coding only that band gives it all the bits and costs less (a tenth
/// to a fifth less time per frame here, `benches/streams.rs --only "opus cost"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodedBand {
    /// Up to 8 kHz (Opus wideband).
    Wideband,
    /// Up to 20 kHz (Opus fullband): wide FM broadcast, or a mode not known yet.
    Fullband,
}

impl CodedBand {
    fn opus(self) -> opus::Bandwidth {
        match self {
            CodedBand::Wideband => opus::Bandwidth::Wideband,
            CodedBand::Fullband => opus::Bandwidth::Fullband,
        }
    }
}

/// Why Opus failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpusError(pub String);

impl std::fmt::Display for OpusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpusError {}

fn err(e: opus::Error) -> OpusError {
    OpusError(e.to_string())
}

fn channels_of(n: u8) -> Result<Channels, OpusError> {
    match n {
        1 => Ok(Channels::Mono),
        2 => Ok(Channels::Stereo),
        _ => Err(OpusError(format!("{n} channels; Opus here takes 1 or 2"))),
    }
}

/// Encodes 20 ms frames of 48 kHz interleaved `i16`.
pub struct OpusEncoder {
    enc: opus::Encoder,
    channels: u8,
    band: CodedBand,
    buf: Vec<u8>,
}

impl std::fmt::Debug for OpusEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OpusEncoder({} ch)", self.channels)
    }
}

impl OpusEncoder {
    /// An encoder for `channels` (1 or 2): audio application, VBR, 32 kbit/s per
    /// channel, complexity [`COMPLEXITY`], the full band.
    pub fn new(channels: u8) -> Result<OpusEncoder, OpusError> {
        OpusEncoder::with_complexity(channels, COMPLEXITY)
    }

    /// [`OpusEncoder::new`] at another complexity (0..10; for measurements).
    pub fn with_complexity(channels: u8, complexity: i32) -> Result<OpusEncoder, OpusError> {
        let mut enc = opus::Encoder::new(SAMPLE_RATE, channels_of(channels)?, Application::Audio)
            .map_err(err)?;
        enc.set_bitrate(Bitrate::Bits(BITRATE_PER_CHANNEL * i32::from(channels)))
            .map_err(err)?;
        enc.set_complexity(complexity).map_err(err)?;
        Ok(OpusEncoder {
            enc,
            channels,
            band: CodedBand::Fullband,
            buf: vec![0; MAX_PACKET],
        })
    }

    /// Channels.
    pub fn channels(&self) -> u8 {
        self.channels
    }

    /// Codes `band` from the next frame on (nothing to do when it already does).
    pub fn set_band(&mut self, band: CodedBand) -> Result<(), OpusError> {
        if band != self.band {
            self.enc.set_max_bandwidth(band.opus()).map_err(err)?;
            self.band = band;
        }
        Ok(())
    }

    /// Encodes one 20 ms frame (`960 × channels` samples) into one packet.
    pub fn encode(&mut self, frame: &[i16]) -> Result<Vec<u8>, OpusError> {
        let want = FRAME_SAMPLES * usize::from(self.channels);
        if frame.len() != want {
            return Err(OpusError(format!(
                "a frame has {want} samples, not {}",
                frame.len()
            )));
        }
        let n = self.enc.encode(frame, &mut self.buf).map_err(err)?;
        Ok(self.buf[..n].to_vec())
    }
}

/// Decodes mono Opus packets to 48 kHz `i16`.
pub struct OpusDecoder {
    dec: opus::Decoder,
    buf: Vec<i16>,
}

impl std::fmt::Debug for OpusDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OpusDecoder")
    }
}

impl OpusDecoder {
    /// A mono decoder.
    pub fn new() -> Result<OpusDecoder, OpusError> {
        Ok(OpusDecoder {
            dec: opus::Decoder::new(SAMPLE_RATE, Channels::Mono).map_err(err)?,
            buf: vec![0; MAX_DECODED],
        })
    }

    /// Decodes one packet (at most 120 ms; stereo packets are mixed down to mono).
    pub fn decode(&mut self, packet: &[u8]) -> Result<&[i16], OpusError> {
        if packet.is_empty() {
            return Err(OpusError("an empty Opus packet".into()));
        }
        let n = self.dec.decode(packet, &mut self.buf, false).map_err(err)?;
        Ok(&self.buf[..n])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tone_survives_encode_and_decode() {
        let mut e = OpusEncoder::new(1).unwrap();
        let mut d = OpusDecoder::new().unwrap();
        let mut out = Vec::new();
        for f in 0..50 {
            let frame: Vec<i16> = (0..960)
                .map(|i| {
                    let t = (f * 960 + i) as f32 / 48_000.0;
                    ((t * 1_000.0 * std::f32::consts::TAU).sin() * 10_000.0) as i16
                })
                .collect();
            let pkt = e.encode(&frame).unwrap();
            assert!(!pkt.is_empty() && pkt.len() < 400, "{}", pkt.len());
            out.extend_from_slice(d.decode(&pkt).unwrap());
        }
        assert_eq!(out.len(), 48_000);
        // power at 1 kHz dominates power at 1.5 kHz
        let p = |freq: f32| {
            let (mut re, mut im) = (0.0f32, 0.0f32);
            for (i, &s) in out[9_600..].iter().enumerate() {
                let ph = std::f32::consts::TAU * freq * i as f32 / 48_000.0;
                re += f32::from(s) * ph.cos();
                im += f32::from(s) * ph.sin();
            }
            re * re + im * im
        };
        assert!(p(1_000.0) > 1_000.0 * p(1_500.0));
    }

    #[test]
    fn the_coded_band_follows_the_setting() {
        let mut e = OpusEncoder::new(2).unwrap();
        // a 1 kHz and a 12 kHz tone, on both channels
        let frame = |f: usize| -> Vec<i16> {
            (0..960)
                .flat_map(|i| {
                    let t = (f * 960 + i) as f32 / 48_000.0;
                    let v = (t * 1_000.0 * std::f32::consts::TAU).sin() * 6_000.0
                        + (t * 12_000.0 * std::f32::consts::TAU).sin() * 6_000.0;
                    [v as i16, v as i16]
                })
                .collect()
        };
        let band_of = |e: &mut OpusEncoder, f: usize| {
            opus::packet::get_bandwidth(&e.encode(&frame(f)).unwrap()).unwrap()
        };
        assert_eq!(band_of(&mut e, 0), opus::Bandwidth::Fullband);
        e.set_band(CodedBand::Wideband).unwrap();
        // the encoder narrows within a few frames (it may step down through SWB)
        let narrowed = (1..10).map(|f| band_of(&mut e, f)).last().unwrap();
        assert_eq!(narrowed, opus::Bandwidth::Wideband);
        e.set_band(CodedBand::Fullband).unwrap();
        let widened = (10..20).map(|f| band_of(&mut e, f)).last().unwrap();
        assert_eq!(widened, opus::Bandwidth::Fullband);
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut e = OpusEncoder::new(2).unwrap();
        assert!(e.encode(&[0; 960]).is_err(), "stereo needs 1920 samples");
        assert!(OpusEncoder::new(3).is_err());
        let mut d = OpusDecoder::new().unwrap();
        assert!(d.decode(&[]).is_err());
        // a TOC byte promising more than the packet holds
        assert!(d.decode(&[0xFF, 0xFF, 0xFF]).is_err());
    }
}
