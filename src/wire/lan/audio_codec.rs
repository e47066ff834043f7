//! LAN audio codecs (spec §2.8, §3.3): decoding the radio's RX audio (µ-law, PCM8,
//! PCM16, mono or stereo) into interleaved `i16` and encoding TX audio, shared by the
//! client and the simulated radio.

use super::codec;

/// Audio block duration, ms.
pub const FRAME_MS: u32 = 20;

/// Decodes one G.711 µ-law byte.
pub fn ulaw_decode(b: u8) -> i16 {
    let u = !b;
    let sign = u & 0x80;
    let exponent = (u >> 4) & 0x07;
    let mantissa = i32::from(u & 0x0F);
    let magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84;
    if sign != 0 {
        -magnitude as i16
    } else {
        magnitude as i16
    }
}

/// Encodes one sample as G.711 µ-law.
pub fn ulaw_encode(sample: i16) -> u8 {
    const BIAS: i32 = 0x84;
    const CLIP: i32 = 32635;
    let mut s = i32::from(sample);
    let sign = if s < 0 {
        s = -s;
        0x80
    } else {
        0
    };
    s = s.min(CLIP) + BIAS;
    let mut exponent = 7u8;
    let mut mask = 0x4000;
    while exponent > 0 && s & mask == 0 {
        exponent -= 1;
        mask >>= 1;
    }
    let mantissa = ((s >> (exponent + 3)) & 0x0F) as u8;
    !(sign | (exponent << 4) | mantissa)
}

/// Decodes `payload` in codec `codec_byte` into interleaved samples appended to `out`.
/// Returns the channel count, or `None` for a codec this server does not decode.
/// A trailing partial sample is ignored.
pub fn decode(codec_byte: u8, payload: &[u8], out: &mut Vec<i16>) -> Option<u8> {
    let channels = codec::channels(codec_byte)?;
    match codec_byte {
        codec::ULAW_MONO | codec::ULAW_STEREO => {
            out.extend(payload.iter().map(|&b| ulaw_decode(b)))
        }
        codec::PCM8_MONO | codec::PCM8_STEREO => {
            out.extend(payload.iter().map(|&b| (i16::from(b) - 128) << 8));
        }
        codec::PCM16_MONO | codec::PCM16_STEREO => {
            out.extend(
                payload
                    .chunks_exact(2)
                    .map(|c| i16::from_le_bytes([c[0], c[1]])),
            );
        }
        _ => return None,
    }
    Some(channels)
}

/// Encodes interleaved `samples` (already in the codec's channel layout) into `out`.
/// Returns false for a codec this server does not encode.
pub fn encode(codec_byte: u8, samples: &[i16], out: &mut Vec<u8>) -> bool {
    match codec_byte {
        codec::ULAW_MONO | codec::ULAW_STEREO => {
            out.extend(samples.iter().map(|&s| ulaw_encode(s)))
        }
        codec::PCM8_MONO | codec::PCM8_STEREO => {
            out.extend(samples.iter().map(|&s| ((s >> 8) + 128) as u8));
        }
        codec::PCM16_MONO | codec::PCM16_STEREO => {
            for s in samples {
                out.extend_from_slice(&s.to_le_bytes());
            }
        }
        _ => return false,
    }
    true
}

/// Bytes of one 20 ms block in `codec_byte` at `sample_rate`, or `None` for unknown codecs.
pub fn block_bytes(codec_byte: u8, sample_rate: u32) -> Option<usize> {
    let per_sample = codec::bytes_per_sample(codec_byte)?;
    let channels = usize::from(codec::channels(codec_byte)?);
    Some(sample_rate as usize * FRAME_MS as usize / 1000 * per_sample * channels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulaw_round_trip_is_close() {
        for s in (-32000i32..32000).step_by(97) {
            let s = s as i16;
            let back = ulaw_decode(ulaw_encode(s));
            let err = (i32::from(back) - i32::from(s)).abs();
            assert!(err <= (i32::from(s).abs() / 16).max(8), "{s} -> {back}");
        }
        assert_eq!(ulaw_decode(0xFF), 0);
        assert_eq!(ulaw_decode(0x00), -32124);
        assert_eq!(ulaw_decode(0x80), 32124);
    }

    #[test]
    fn decode_each_codec() {
        let mut out = Vec::new();
        assert_eq!(
            decode(
                codec::PCM16_STEREO,
                &[0x01, 0x00, 0xFF, 0xFF, 0x7F],
                &mut out
            ),
            Some(2)
        );
        assert_eq!(out, vec![1, -1], "trailing half sample ignored");
        out.clear();
        assert_eq!(decode(codec::PCM8_MONO, &[0, 128, 255], &mut out), Some(1));
        assert_eq!(out, vec![-32768, 0, 32512]);
        out.clear();
        assert_eq!(decode(codec::ULAW_STEREO, &[0xFF, 0xFF], &mut out), Some(2));
        assert_eq!(decode(codec::OPUS_MONO, &[1, 2], &mut out), None);
    }

    #[test]
    fn block_sizes_match_the_spec() {
        assert_eq!(block_bytes(codec::PCM16_MONO, 48_000), Some(1920));
        assert_eq!(block_bytes(codec::PCM16_STEREO, 48_000), Some(3840));
        assert_eq!(block_bytes(codec::ULAW_MONO, 48_000), Some(960));
        assert_eq!(block_bytes(codec::PCM16_MONO, 16_000), Some(640));
        assert_eq!(block_bytes(codec::ULAW_MONO, 8_000), Some(160));
    }
}
