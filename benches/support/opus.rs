//! Opus for the stream benchmark: encode cost per 20 ms frame at a few complexities and
//! a quality figure (SNR of a speech-like signal through encoder and decoder).

use std::time::Instant;

use rigweb::dsp::opus_codec::{CodedBand, OpusDecoder, OpusEncoder};

use super::support::ms;
/// A speech-like test signal at 48 kHz: a voiced source (pitch gliding 100..180 Hz)
/// through three formants, four syllables a second, with noise bursts (fricatives).
fn speechlike(seconds: f32) -> Vec<i16> {
    let n = (seconds * 48_000.0) as usize;
    let mut seed = 7u32;
    let mut phase = 0.0f32;
    let formants = [(700.0f32, 1.0f32), (1_220.0, 0.5), (2_600.0, 0.25)];
    (0..n)
        .map(|i| {
            let t = i as f32 / 48_000.0;
            let f0 = 140.0 + 40.0 * (t * 0.7 * std::f32::consts::TAU).sin();
            phase = (phase + f0 / 48_000.0).fract();
            let mut v = 0.0;
            for k in 1..=(4_000.0 / f0) as usize {
                let h = k as f32 * f0;
                let gain: f32 = formants
                    .iter()
                    .map(|(f, g)| g / (1.0 + ((h - f) / 120.0).powi(2)))
                    .sum();
                v += gain / k as f32 * (phase * k as f32 * std::f32::consts::TAU).sin();
            }
            let syllable = (t * 4.0 * std::f32::consts::TAU).sin().max(0.0);
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let noise = ((seed >> 16) as f32 / 32_768.0 - 1.0) * 0.15;
            let fricative = if (t * 4.0).fract() > 0.8 { noise } else { 0.0 };
            ((v * syllable + fricative) * 9_000.0).clamp(-32_000.0, 32_000.0) as i16
        })
        .collect()
}

/// Signal-to-noise ratio of `out` against `reference` at the best lag (the codec's
/// delay), dB.
fn snr_db(reference: &[i16], out: &[i16]) -> f64 {
    (0..1_000)
        .map(|lag| {
            let (mut sig, mut err) = (0.0f64, 0.0f64);
            for (r, o) in reference.iter().zip(out.iter().skip(lag)).skip(4_800) {
                let (r, o) = (f64::from(*r), f64::from(*o));
                sig += r * r;
                err += (r - o) * (r - o);
            }
            10.0 * (sig / err.max(1.0)).log10()
        })
        .fold(f64::MIN, f64::max)
}

pub fn opus_cost() {
    println!(
        "== Opus encode cost per 20 ms frame (48 kHz; the server uses complexity {}, wideband but in WFM) and quality (SNR of a speech-like signal with white-noise fricatives, mono: wideband drops those above 8 kHz) ==",
        rigweb::dsp::opus_codec::COMPLEXITY
    );
    let speech = speechlike(4.0);
    let full = CodedBand::Fullband;
    let runs = [
        (3, full),
        (4, full),
        (5, full),
        (5, CodedBand::Wideband),
        (8, full),
    ];
    for (complexity, band) in runs {
        for channels in [1u8, 2] {
            let mut enc = OpusEncoder::with_complexity(channels, complexity).unwrap();
            enc.set_band(band).unwrap();
            let frames: Vec<Vec<i16>> = speech
                .chunks_exact(960)
                .map(|f| {
                    f.iter()
                        .flat_map(|s| std::iter::repeat_n(*s, usize::from(channels)))
                        .collect()
                })
                .collect();
            let n = 1_000;
            let mut bytes = 0;
            let t = Instant::now();
            for i in 0..n {
                bytes += enc.encode(&frames[i % frames.len()]).unwrap().len();
            }
            let per = t.elapsed() / n as u32;
            let quality = if channels == 1 {
                let mut enc = OpusEncoder::with_complexity(1, complexity).unwrap();
                enc.set_band(band).unwrap();
                let mut dec = OpusDecoder::new().unwrap();
                let mut out = Vec::new();
                for f in &frames {
                    out.extend_from_slice(dec.decode(&enc.encode(f).unwrap()).unwrap());
                }
                format!(", SNR {:.1} dB", snr_db(&speech, &out))
            } else {
                String::new()
            };
            println!(
                "complexity {complexity} {band:?} {}: {:>8} per frame ({:.2} % of one core per stream), {} bytes per frame{quality}",
                if channels == 1 { "mono  " } else { "stereo" },
                ms(per),
                per.as_secs_f64() / 0.020 * 100.0,
                bytes / n
            );
        }
    }
}
