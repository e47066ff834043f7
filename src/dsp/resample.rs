//! A streaming rational resampler (polyphase windowed-sinc FIR) for interleaved `i16`
//! audio: the radio's 8/12/16/24 kHz to the web's 48 kHz and back.
//!
//! The ratio `out/in` is reduced to `L/M`. The prototype low-pass runs at `L·in` with
//! `TAPS_PER_SIDE · max(L, M)` taps per side (zero crossings), a Kaiser window
//! (β = [`KAISER_BETA`], about 80 dB stop band) and its cut-off at [`CUTOFF`] of the
//! lower Nyquist frequency, so nothing above the lower rate's Nyquist frequency folds
//! back. Equal rates pass through untouched.

/// Zero crossings of the sinc on each side, per unit of `max(L, M)`.
const TAPS_PER_SIDE: usize = 16;
/// Kaiser window β.
pub const KAISER_BETA: f64 = 8.0;
/// Cut-off as a fraction of the lower of the two Nyquist frequencies.
pub const CUTOFF: f64 = 0.9;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Modified Bessel function of the first kind, order 0 (series).
fn bessel_i0(x: f64) -> f64 {
    let mut sum = 1.0;
    let mut term = 1.0;
    let q = x * x / 4.0;
    for k in 1..64 {
        term *= q / (k as f64 * k as f64);
        sum += term;
        if term < sum * 1e-14 {
            break;
        }
    }
    sum
}

/// See the module docs.
#[derive(Debug, Clone)]
pub struct Resampler {
    /// Up-sampling factor (`to / gcd`).
    l: usize,
    /// Down-sampling factor (`from / gcd`).
    m: usize,
    channels: usize,
    /// Taps per polyphase branch.
    taps: usize,
    /// Coefficients by phase: `coeffs[p * taps + k]` multiplies `x[i - k]`.
    coeffs: Vec<f32>,
    /// Per channel: the last `taps - 1` inputs then the new ones.
    history: Vec<Vec<f32>>,
    /// Absolute input index of `history[c][0]`.
    base: i64,
    /// Next output index.
    next_out: u64,
    /// Inputs seen so far.
    inputs: u64,
}

impl Resampler {
    /// A resampler from `from` Hz to `to` Hz for `channels` interleaved channels.
    /// Returns `None` for a zero rate or channel count.
    pub fn new(from: u32, to: u32, channels: usize) -> Option<Resampler> {
        if from == 0 || to == 0 || channels == 0 {
            return None;
        }
        let g = gcd(u64::from(from), u64::from(to));
        let l = (u64::from(to) / g) as usize;
        let m = (u64::from(from) / g) as usize;
        if l > 1000 || m > 1000 {
            return None;
        }
        let wide = l.max(m);
        let half = TAPS_PER_SIDE * wide; // prototype half length, in upsampled samples
        let len = 2 * half + 1;
        let taps = len.div_ceil(l);
        // cut-off in cycles per upsampled sample
        let fc = CUTOFF * 0.5 / wide as f64;
        let i0b = bessel_i0(KAISER_BETA);
        let mut proto = vec![0.0f64; taps * l];
        for (n, c) in proto.iter_mut().enumerate().take(len) {
            let t = n as f64 - half as f64;
            let sinc = if t == 0.0 {
                2.0 * fc
            } else {
                (2.0 * std::f64::consts::PI * fc * t).sin() / (std::f64::consts::PI * t)
            };
            let r = t / half as f64;
            let w = bessel_i0(KAISER_BETA * (1.0 - r * r).max(0.0).sqrt()) / i0b;
            *c = sinc * w * l as f64;
        }
        let mut coeffs = vec![0.0f32; taps * l];
        for p in 0..l {
            for k in 0..taps {
                coeffs[p * taps + k] = proto[p + k * l] as f32;
            }
        }
        Some(Resampler {
            l,
            m,
            channels,
            taps,
            coeffs,
            history: vec![vec![0.0; taps - 1]; channels],
            base: -(taps as i64 - 1),
            next_out: 0,
            inputs: 0,
        })
    }

    /// Channels.
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// True when input and output rates are equal (samples pass through).
    pub fn is_identity(&self) -> bool {
        self.l == 1 && self.m == 1
    }

    /// Delay of the filter, in output samples.
    pub fn delay(&self) -> f64 {
        (self.taps * self.l) as f64 / 2.0 / self.m as f64
    }

    /// Resamples interleaved `input` (a trailing partial frame is ignored) and appends
    /// the interleaved output to `out`.
    pub fn process(&mut self, input: &[i16], out: &mut Vec<i16>) {
        let ch = self.channels;
        if self.is_identity() {
            out.extend_from_slice(&input[..input.len() / ch * ch]);
            return;
        }
        let frames = input.len() / ch;
        for (c, h) in self.history.iter_mut().enumerate() {
            h.extend(
                input
                    .iter()
                    .skip(c)
                    .step_by(ch)
                    .take(frames)
                    .map(|&s| f32::from(s)),
            );
        }
        self.inputs += frames as u64;
        let (l, m, taps) = (self.l as u64, self.m as u64, self.taps);
        loop {
            let u = self.next_out * m;
            let i = (u / l) as i64; // newest input used
            if i >= self.inputs as i64 {
                break;
            }
            let p = (u % l) as usize;
            let phase = &self.coeffs[p * taps..(p + 1) * taps];
            let at = (i - self.base) as usize; // index of x[i] in the history
            for h in &self.history {
                let mut acc = 0.0f32;
                for (k, c) in phase.iter().enumerate() {
                    acc += c * h[at - k];
                }
                out.push(acc.round().clamp(-32_768.0, 32_767.0) as i16);
            }
            self.next_out += 1;
        }
        // keep the last `taps - 1` inputs (and any not yet reached)
        let needed_from = ((self.next_out * m / l) as i64 - taps as i64 + 1).max(self.base);
        let drop = (needed_from - self.base) as usize;
        if drop > 0 {
            for h in &mut self.history {
                h.drain(..drop.min(h.len()));
            }
            self.base += drop as i64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::TAU;

    fn tone(freq: f64, rate: u32, n: usize, amp: f64) -> Vec<i16> {
        (0..n)
            .map(|i| (amp * (TAU * freq * i as f64 / f64::from(rate)).sin()) as i16)
            .collect()
    }

    /// Amplitude of `freq` in `x` (single-bin DFT).
    fn amplitude(x: &[i16], freq: f64, rate: u32) -> f64 {
        let (mut re, mut im) = (0.0, 0.0);
        for (i, &s) in x.iter().enumerate() {
            let ph = TAU * freq * i as f64 / f64::from(rate);
            re += f64::from(s) * ph.cos();
            im += f64::from(s) * ph.sin();
        }
        2.0 * (re * re + im * im).sqrt() / x.len() as f64
    }

    fn run(r: &mut Resampler, x: &[i16], piece: usize) -> Vec<i16> {
        let mut out = Vec::new();
        for c in x.chunks(piece) {
            r.process(c, &mut out);
        }
        out
    }

    #[test]
    fn upsampling_keeps_a_tone_and_the_length() {
        for from in [8_000u32, 12_000, 16_000, 24_000] {
            let mut r = Resampler::new(from, 48_000, 1).unwrap();
            let x = tone(1_000.0, from, from as usize, 10_000.0);
            let y = run(&mut r, &x, 317);
            let ratio = 48_000 / from as usize;
            assert_eq!(y.len(), x.len() * ratio, "from {from}");
            let steady = &y[2_000..y.len() - 2_000];
            let a = amplitude(steady, 1_000.0, 48_000);
            assert!((a - 10_000.0).abs() < 150.0, "from {from}: {a}");
            // images of the tone (from ± 1 kHz) are gone
            let img = amplitude(steady, f64::from(from) - 1_000.0, 48_000);
            assert!(img < 10.0, "from {from}: image {img}");
        }
    }

    #[test]
    fn downsampling_removes_what_would_alias() {
        let mut r = Resampler::new(48_000, 16_000, 1).unwrap();
        // 1 kHz passes; 12 kHz (above the new 8 kHz Nyquist) would fold to 4 kHz
        let a = tone(1_000.0, 48_000, 48_000, 8_000.0);
        let b = tone(12_000.0, 48_000, 48_000, 8_000.0);
        let x: Vec<i16> = a.iter().zip(&b).map(|(p, q)| p + q).collect();
        let y = run(&mut r, &x, 960);
        assert_eq!(y.len(), 16_000);
        let steady = &y[1_000..15_000];
        assert!((amplitude(steady, 1_000.0, 16_000) - 8_000.0).abs() < 150.0);
        assert!(amplitude(steady, 4_000.0, 16_000) < 8.0, "aliased 12 kHz");
    }

    #[test]
    fn stereo_channels_stay_apart_and_identity_passes_through() {
        let mut r = Resampler::new(16_000, 48_000, 2).unwrap();
        let l = tone(500.0, 16_000, 8_000, 9_000.0);
        let x: Vec<i16> = l.iter().flat_map(|&s| [s, 0]).collect();
        let y = run(&mut r, &x, 640);
        assert_eq!(y.len(), 2 * 24_000);
        let right: Vec<i16> = y.iter().skip(1).step_by(2).copied().collect();
        assert!(right.iter().all(|s| s.abs() <= 1));
        let mut id = Resampler::new(48_000, 48_000, 2).unwrap();
        assert!(id.is_identity());
        let mut out = Vec::new();
        id.process(&[1, 2, 3, 4, 5], &mut out);
        assert_eq!(out, vec![1, 2, 3, 4]);
    }

    #[test]
    fn bad_rates_are_refused() {
        assert!(Resampler::new(0, 48_000, 1).is_none());
        assert!(Resampler::new(48_000, 48_000, 0).is_none());
        assert!(Resampler::new(48_001, 47_999, 1).is_none());
    }
}
