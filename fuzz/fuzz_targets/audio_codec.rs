//! `audio_codec`: the LAN audio codecs `radio::engine::tx_audio::decode` / `encode` (the radio's
//! RX audio, TX audio from the browser, the simulator's TX input) for every codec byte
//! 0..=255 (the first input byte) on the rest of the input, plus `block_bytes` and the
//! `dsp::reframe::Reframer` for the codec and a sample rate taken from the input.
//!
//! Checks: `decode` returns `None` exactly for the bytes it does not decode (unknown
//! codecs and Opus) and then appends nothing; otherwise it returns the codec's channel
//! count and appends one sample per byte (µ-law, PCM8) or per whole byte pair (PCM16,
//! a trailing odd byte ignored) after what `out` already held; `encode` succeeds exactly
//! for the PCM/µ-law codecs and writes `bytes_per_sample` bytes per sample; PCM16
//! round-trips both ways exactly, PCM8 keeps the high byte, µ-law decode∘encode is the
//! identity on decoded values and stays within the G.711 step; `block_bytes` is the
//! 20 ms block size; the `Reframer` emits only whole frames and keeps the rest.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::dsp::reframe::Reframer;
use rigweb::wire::lan::audio_codec::{
    FRAME_MS, block_bytes, decode, encode, ulaw_decode, ulaw_encode,
};
use rigweb::wire::lan::codec;

fuzz_target!(|data: &[u8]| {
    let Some((&c, payload)) = data.split_first() else {
        return;
    };
    let channels = codec::channels(c);
    let bps = codec::bytes_per_sample(c);

    // decode appends after what is there
    let mut out = vec![7i16, -7];
    let r = decode(c, payload, &mut out);
    match bps {
        None => {
            assert_eq!(r, None, "decoded codec {c:#04x}");
            assert_eq!(out, [7, -7], "a failed decode appended samples");
        }
        Some(n) => {
            assert_eq!(r, channels, "decode channel count for {c:#04x}");
            assert_eq!(
                out.len() - 2,
                payload.len() / n,
                "samples decoded from {} bytes",
                payload.len()
            );
            assert_eq!(&out[..2], &[7, -7], "decode overwrote the buffer");
        }
    }
    let decoded = out[2..].to_vec();

    // encode: samples from the payload (LE pairs)
    let samples: Vec<i16> = payload
        .chunks_exact(2)
        .map(|p| i16::from_le_bytes([p[0], p[1]]))
        .collect();
    let mut enc = vec![0xAA];
    let ok = encode(c, &samples, &mut enc);
    assert_eq!(ok, bps.is_some(), "encode support for {c:#04x}");
    if !ok {
        assert_eq!(enc, [0xAA], "a failed encode wrote bytes");
        return;
    }
    let n = bps.expect("checked");
    assert_eq!(enc.len() - 1, samples.len() * n, "bytes encoded");
    let enc = &enc[1..];

    let mut back = Vec::new();
    decode(c, enc, &mut back);
    assert_eq!(back.len(), samples.len());
    match c {
        codec::PCM16_MONO | codec::PCM16_STEREO => {
            assert_eq!(back, samples, "PCM16 encode/decode");
            let mut again = Vec::new();
            encode(c, &decoded, &mut again);
            assert_eq!(
                again,
                payload[..payload.len() / 2 * 2],
                "PCM16 decode/encode"
            );
        }
        codec::PCM8_MONO | codec::PCM8_STEREO => {
            for (s, b) in samples.iter().zip(&back) {
                assert_eq!(*b, (s >> 8) << 8, "PCM8 keeps the high byte of {s}");
            }
            let mut again = Vec::new();
            encode(c, &decoded, &mut again);
            assert_eq!(again, payload, "PCM8 decode/encode");
        }
        _ => {
            for (s, b) in samples.iter().zip(&back) {
                let err = (i32::from(*b) - i32::from(*s)).abs();
                // G.711: the step is 1/16 of the magnitude's segment; clipping at 32635
                let bound = (i32::from(*s).abs() / 16).max(8) + 640;
                assert!(err <= bound, "µ-law {s} -> {b}");
            }
            for &x in &decoded {
                assert_eq!(ulaw_decode(ulaw_encode(x)), x, "µ-law not stable on {x}");
            }
        }
    }

    // 20 ms blocks at a rate from the input (first four payload bytes, LE)
    let mut r = [0u8; 4];
    for (d, s) in r.iter_mut().zip(payload) {
        *d = *s;
    }
    let rate = u32::from_le_bytes(r);
    let per_block = rate as usize * FRAME_MS as usize / 1000;
    let ch = usize::from(channels.expect("known codec"));
    assert_eq!(
        block_bytes(c, rate),
        Some(per_block * n * ch),
        "block_bytes"
    );
    // the re-framer cuts whatever block sizes arrive into whole frames of that size
    // (a rate too low for one sample per 20 ms gives 1-sample frames) and keeps the rest
    let spb = per_block.clamp(1, 1 << 16);
    let frame_len = spb * ch;
    let mut f = Reframer::new(spb, ch);
    let split = usize::from(payload.first().copied().unwrap_or(0)).min(samples.len());
    let mut frames = 0usize;
    for part in [&samples[..split], &samples[split..]] {
        f.push(part, |frame| {
            assert_eq!(frame.len(), frame_len, "Reframer frame size");
            frames += 1;
        });
    }
    assert_eq!(frames, samples.len() / frame_len, "Reframer frame count");
    assert_eq!(f.pending(), samples.len() % frame_len, "Reframer pending");
});
