//! The audio-FFT scope: a spectrum of the RX audio for radios without a hardware scope,
//! sans-IO. Fed 48 kHz mono samples, it emits one averaged spectrum per sweep; a
//! [`Layout`] turns a spectrum into the pixels of a scope frame around the dial.
//!
//! Parameters (docs/ARCHITECTURE.md, "Audio-FFT scope"):
//! * [`FFT_SIZE`] = 2048 samples (42.7 ms at 48 kHz, bins 23.4 Hz apart), Hann window;
//! * one sweep every [`HOP`] = 1600 samples: exactly [`SWEEPS_PER_SECOND`] = 30 per second;
//! * exponential averaging of the power of each bin over sweeps with weight
//!   [`AVERAGE_WEIGHT`] for the newest (time constant about 1.4 sweeps, 48 ms);
//! * dB relative to a full-scale sine (0 dBFS), [`DB_FLOOR`]..[`DB_TOP`] mapped linearly
//!   onto 0..160 and clamped.

use std::sync::Arc;

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

use crate::wire::civ::Mode;

/// Input rate, Hz.
pub const SAMPLE_RATE: u32 = 48_000;
/// FFT length.
pub const FFT_SIZE: usize = 2_048;
/// Samples between sweeps.
pub const HOP: usize = 1_600;
/// Sweeps per second.
pub const SWEEPS_PER_SECOND: u32 = SAMPLE_RATE / HOP as u32;
/// Weight of the newest spectrum in the running average.
pub const AVERAGE_WEIGHT: f32 = 0.5;
/// Level shown as 0.
pub const DB_FLOOR: f32 = -100.0;
/// Level shown as 160.
pub const DB_TOP: f32 = 0.0;
/// Largest pixel value.
pub const PIXEL_MAX: u8 = 160;
/// Pixels per frame.
pub const PIXELS: usize = 475;

/// Bin spacing, Hz.
pub fn bin_hz() -> f32 {
    SAMPLE_RATE as f32 / FFT_SIZE as f32
}

/// See the module docs.
pub struct AudioFft {
    fft: Arc<dyn Fft<f32>>,
    window: Vec<f32>,
    ring: Vec<f32>,
    /// Next write position in `ring`.
    pos: usize,
    /// Samples seen, capped at `FFT_SIZE`.
    filled: usize,
    since_sweep: usize,
    buf: Vec<Complex<f32>>,
    scratch: Vec<Complex<f32>>,
    /// Averaged power per bin (0..=N/2), linear, relative to a full-scale sine.
    avg: Vec<f32>,
    primed: bool,
}

impl std::fmt::Debug for AudioFft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AudioFft({} filled)", self.filled)
    }
}

impl Default for AudioFft {
    fn default() -> Self {
        AudioFft::new()
    }
}

impl AudioFft {
    /// A fresh analyser.
    pub fn new() -> AudioFft {
        let fft = FftPlanner::new().plan_fft_forward(FFT_SIZE);
        let scratch = vec![Complex::default(); fft.get_inplace_scratch_len()];
        let window = (0..FFT_SIZE)
            .map(|i| {
                let x = std::f32::consts::TAU * i as f32 / FFT_SIZE as f32;
                0.5 - 0.5 * x.cos()
            })
            .collect();
        AudioFft {
            fft,
            window,
            ring: vec![0.0; FFT_SIZE],
            pos: 0,
            filled: 0,
            since_sweep: 0,
            buf: vec![Complex::default(); FFT_SIZE],
            scratch,
            avg: vec![0.0; FFT_SIZE / 2 + 1],
            primed: false,
        }
    }

    /// Forgets the audio seen so far (the stream restarted).
    pub fn reset(&mut self) {
        self.ring.fill(0.0);
        self.pos = 0;
        self.filled = 0;
        self.since_sweep = 0;
        self.avg.fill(0.0);
        self.primed = false;
    }

    /// Adds mono samples; every completed sweep appends the averaged spectrum (dBFS per
    /// bin, `FFT_SIZE / 2 + 1` values) to `sweeps`.
    pub fn push(&mut self, samples: &[i16], sweeps: &mut Vec<Vec<f32>>) {
        for &s in samples {
            self.ring[self.pos] = f32::from(s) / 32_768.0;
            self.pos = (self.pos + 1) % FFT_SIZE;
            self.filled = (self.filled + 1).min(FFT_SIZE);
            self.since_sweep += 1;
            if self.since_sweep >= HOP && self.filled == FFT_SIZE {
                self.since_sweep = 0;
                sweeps.push(self.sweep());
            }
        }
    }

    fn sweep(&mut self) -> Vec<f32> {
        for i in 0..FFT_SIZE {
            let x = self.ring[(self.pos + i) % FFT_SIZE];
            self.buf[i] = Complex::new(x * self.window[i], 0.0);
        }
        self.fft
            .process_with_scratch(&mut self.buf, &mut self.scratch);
        // a full-scale sine peaks at |X| = N/4 through a Hann window
        let reference = (FFT_SIZE as f32 / 4.0).powi(2);
        for (k, a) in self.avg.iter_mut().enumerate() {
            let p = self.buf[k].norm_sqr() / reference;
            *a = if self.primed {
                *a + AVERAGE_WEIGHT * (p - *a)
            } else {
                p
            };
        }
        self.primed = true;
        self.avg
            .iter()
            .map(|p| 10.0 * (p.max(1e-20)).log10())
            .collect()
    }
}

/// Which side of the dial the audio shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sideband {
    /// Audio frequency f is the RF dial + f (USB, CW, RTTY-R, PSK and the rest).
    Upper,
    /// Audio frequency f is the RF dial − f (LSB, CW-R, RTTY, PSK-R).
    Lower,
    /// Audio frequency f is both dial ± f (AM, FM, WFM, DV): mirrored, centred.
    Both,
}

impl Sideband {
    /// The sideband of mode `mode`.
    pub fn of_mode(mode: Mode) -> Sideband {
        match mode {
            Mode::Lsb | Mode::CwR | Mode::Rtty | Mode::PskR => Sideband::Lower,
            Mode::Am | Mode::Fm | Mode::Wfm | Mode::Dv => Sideband::Both,
            Mode::Usb | Mode::Cw | Mode::RttyR | Mode::Psk | Mode::Dd => Sideband::Upper,
        }
    }
}

/// Where a spectrum goes in a scope frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Dial frequency, Hz.
    pub dial_hz: u64,
    /// Side of the dial.
    pub sideband: Sideband,
    /// Audio bandwidth shown, Hz (audio 0..bandwidth).
    pub bandwidth_hz: u32,
}

impl Layout {
    /// `(start, end)` of the frame, Hz: dial..dial+B (upper), dial−B..dial (lower),
    /// dial−B..dial+B (both).
    pub fn edges(&self) -> (u64, u64) {
        let (d, b) = (self.dial_hz, u64::from(self.bandwidth_hz));
        match self.sideband {
            Sideband::Upper => (d, d + b),
            Sideband::Lower => (d.saturating_sub(b), d),
            Sideband::Both => (d.saturating_sub(b), d + b),
        }
    }

    /// The audio frequency range `(lo, hi)` of pixel `i` of `n`, Hz.
    fn pixel_audio(&self, i: usize, n: usize) -> (f32, f32) {
        let b = self.bandwidth_hz as f32;
        match self.sideband {
            Sideband::Upper => (i as f32 * b / n as f32, (i + 1) as f32 * b / n as f32),
            Sideband::Lower => {
                let j = n - 1 - i;
                (j as f32 * b / n as f32, (j + 1) as f32 * b / n as f32)
            }
            Sideband::Both => {
                // RF offset −B..B across the frame; audio = |offset|
                let lo = -b + i as f32 * 2.0 * b / n as f32;
                let hi = lo + 2.0 * b / n as f32;
                if lo >= 0.0 {
                    (lo, hi)
                } else if hi <= 0.0 {
                    (-hi, -lo)
                } else {
                    (0.0, hi.max(-lo))
                }
            }
        }
    }

    /// The frame's pixels (0..=160) from a spectrum of [`AudioFft::push`]: each pixel
    /// shows the strongest bin whose centre falls inside it, or, when it is narrower
    /// than a bin, the level interpolated at its centre.
    pub fn render(&self, spectrum_db: &[f32], pixels: usize) -> Vec<u8> {
        if spectrum_db.is_empty() {
            return vec![0; pixels];
        }
        let bin = bin_hz();
        let len = spectrum_db.len();
        (0..pixels)
            .map(|i| {
                let (lo, hi) = self.pixel_audio(i, pixels);
                let first = ((lo / bin).ceil() as usize).min(len);
                let end = ((hi / bin).ceil() as usize).min(len); // exclusive
                let db = if end > first {
                    spectrum_db[first..end]
                        .iter()
                        .copied()
                        .fold(f32::MIN, f32::max)
                } else {
                    let x = (lo + hi) / 2.0 / bin;
                    let k = (x.floor() as usize).min(len - 1);
                    let frac = (x - k as f32).clamp(0.0, 1.0);
                    let a = spectrum_db[k];
                    let b = spectrum_db.get(k + 1).copied().unwrap_or(a);
                    a + (b - a) * frac
                };
                to_pixel(db)
            })
            .collect()
    }
}

/// dBFS to the 0..160 scale.
pub fn to_pixel(db: f32) -> u8 {
    let v = (db - DB_FLOOR) / (DB_TOP - DB_FLOOR) * f32::from(PIXEL_MAX);
    v.round().clamp(0.0, f32::from(PIXEL_MAX)) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(freq: f32, amp: f32, n: usize) -> Vec<i16> {
        (0..n)
            .map(|i| {
                ((i as f32 * freq * std::f32::consts::TAU / 48_000.0).sin() * amp * 32_767.0) as i16
            })
            .collect()
    }

    fn argmax(p: &[u8]) -> usize {
        p.iter()
            .enumerate()
            .max_by_key(|(i, v)| (**v, usize::MAX - i))
            .map(|(i, _)| i)
            .unwrap_or(0)
    }

    #[test]
    fn thirty_sweeps_a_second() {
        let mut f = AudioFft::new();
        let mut sweeps = Vec::new();
        for _ in 0..50 {
            f.push(&[0; 960], &mut sweeps);
        }
        // the first sweep needs a full window (2048 samples), then one per 1600
        assert_eq!(sweeps.len(), 29);
        assert!(sweeps.iter().all(|s| s.len() == FFT_SIZE / 2 + 1));
        assert_eq!(to_pixel(sweeps[0][10]), 0, "silence is the floor");
    }

    #[test]
    fn a_full_scale_tone_reads_zero_dbfs_at_its_bin() {
        let mut f = AudioFft::new();
        let mut sweeps = Vec::new();
        // exactly on bin 64 (1500 Hz)
        f.push(&tone(1_500.0, 1.0, 9_600), &mut sweeps);
        let s = sweeps.last().unwrap();
        assert!((s[64] - 0.0).abs() < 0.2, "{}", s[64]);
        assert!(s[40] < -60.0, "{}", s[40]);
        assert_eq!(to_pixel(s[64]), 160);
        let mut g = AudioFft::new();
        let mut quiet = Vec::new();
        g.push(&tone(1_500.0, 0.01, 9_600), &mut quiet);
        let q = quiet.last().unwrap()[64];
        assert!((q + 40.0).abs() < 0.5, "-40 dBFS: {q}");
        assert_eq!(to_pixel(q), 96);
    }

    #[test]
    fn the_tone_lands_on_its_pixel_in_every_layout() {
        let mut f = AudioFft::new();
        let mut sweeps = Vec::new();
        f.push(&tone(1_000.0, 0.3, 9_600), &mut sweeps);
        let s = sweeps.last().unwrap();
        let dial = 7_100_000;
        let up = Layout {
            dial_hz: dial,
            sideband: Sideband::Upper,
            bandwidth_hz: 6_000,
        };
        assert_eq!(up.edges(), (7_100_000, 7_106_000));
        // pixel of 1000 Hz: 1000 / 6000 × 475 = 79.2
        let p = up.render(s, PIXELS);
        assert_eq!(p.len(), PIXELS);
        assert!((78..=80).contains(&argmax(&p)), "{}", argmax(&p));
        let low = Layout {
            sideband: Sideband::Lower,
            ..up
        };
        assert_eq!(low.edges(), (7_094_000, 7_100_000));
        let p = low.render(s, PIXELS);
        assert!((394..=396).contains(&argmax(&p)), "{}", argmax(&p));
        let both = Layout {
            sideband: Sideband::Both,
            ..up
        };
        assert_eq!(both.edges(), (7_094_000, 7_106_000));
        let p = both.render(s, PIXELS);
        // ± 1000 Hz around the centre pixel 237.5: 237.5 ± 39.6
        let m = argmax(&p);
        assert!((197..=199).contains(&m) || (276..=278).contains(&m), "{m}");
        let mirrored = p[197].max(p[198]).max(p[199]);
        let direct = p[276].max(p[277]).max(p[278]);
        assert!(mirrored.abs_diff(direct) <= 2, "{mirrored} {direct}");
    }

    #[test]
    fn modes_pick_their_side() {
        assert_eq!(Sideband::of_mode(Mode::Usb), Sideband::Upper);
        assert_eq!(Sideband::of_mode(Mode::Cw), Sideband::Upper);
        assert_eq!(Sideband::of_mode(Mode::Lsb), Sideband::Lower);
        assert_eq!(Sideband::of_mode(Mode::Rtty), Sideband::Lower);
        assert_eq!(Sideband::of_mode(Mode::Am), Sideband::Both);
        let l = Layout {
            dial_hz: 1_000,
            sideband: Sideband::Lower,
            bandwidth_hz: 6_000,
        };
        assert_eq!(l.edges(), (0, 1_000), "no underflow");
        assert!(l.render(&[], 10).iter().all(|p| *p == 0));
    }
}
