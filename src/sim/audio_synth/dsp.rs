//! Cheap DSP for the audio synth: a sine table read with 32-bit phase accumulators, a
//! band-pass biquad that turns white noise into band-limited noise of about unit RMS,
//! and a linear ramp that changes a gain over one control tick without clicks.

use std::sync::OnceLock;

/// log2 of the sine table length.
const TABLE_BITS: u32 = 12;
/// Sine table length.
const TABLE_LEN: usize = 1 << TABLE_BITS;

/// The sine table: one period in `TABLE_LEN` steps.
pub fn sine_table() -> &'static [f32] {
    static TABLE: OnceLock<Vec<f32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..TABLE_LEN)
            .map(|i| (i as f64 / TABLE_LEN as f64 * std::f64::consts::TAU).sin() as f32)
            .collect()
    })
}

/// `sin` of a 32-bit phase (a full turn is 2^32), read from `table`.
#[inline]
pub fn sin_at(table: &[f32], phase: u32) -> f32 {
    let i = (phase >> (32 - TABLE_BITS)) as usize & (TABLE_LEN - 1);
    table.get(i).copied().unwrap_or(0.0)
}

/// Phase increment per sample of a tone of `freq_hz` (negative frequencies wrap).
pub fn phase_step(freq_hz: f32, sample_rate: u32) -> u32 {
    if sample_rate == 0 || !freq_hz.is_finite() {
        return 0;
    }
    let cycles = (f64::from(freq_hz) / f64::from(sample_rate)).rem_euclid(1.0);
    (cycles * 4_294_967_296.0) as u64 as u32
}

/// A band-pass biquad (RBJ, constant peak gain) with output scaled so white noise in
/// `[-1, 1)` comes out with an RMS of about 1.
#[derive(Debug, Clone, PartialEq)]
pub struct BandPass {
    b0: f32,
    a1: f32,
    a2: f32,
    z1: f32,
    z2: f32,
    norm: f32,
    center: f32,
    width: f32,
    rate: u32,
}

impl BandPass {
    /// A filter centred on `center_hz`, `width_hz` wide, at `sample_rate`.
    pub fn new(center_hz: f32, width_hz: f32, sample_rate: u32) -> BandPass {
        let mut bp = BandPass {
            b0: 0.0,
            a1: 0.0,
            a2: 0.0,
            z1: 0.0,
            z2: 0.0,
            norm: 0.0,
            center: -1.0,
            width: -1.0,
            rate: 0,
        };
        bp.tune(center_hz, width_hz, sample_rate);
        bp
    }

    /// Retunes the filter (keeps its state; cheap when nothing changed).
    pub fn tune(&mut self, center_hz: f32, width_hz: f32, sample_rate: u32) {
        if (center_hz - self.center).abs() < 0.5
            && (width_hz - self.width).abs() < 0.5
            && sample_rate == self.rate
        {
            return;
        }
        self.center = center_hz;
        self.width = width_hz;
        self.rate = sample_rate;
        let fs = sample_rate.max(1) as f32;
        let f0 = center_hz.max(20.0).min(0.45 * fs);
        let bw = width_hz.max(10.0).min(0.9 * fs);
        let q = (f0 / bw).max(0.3);
        let w0 = std::f32::consts::TAU * f0 / fs;
        let alpha = w0.sin() / (2.0 * q);
        let a0 = 1.0 + alpha;
        self.b0 = alpha / a0;
        self.a1 = -2.0 * w0.cos() / a0;
        self.a2 = (1.0 - alpha) / a0;
        // white noise of power 1/3 through a band of ~bw·π/2 out of fs/2
        let frac = (bw * std::f32::consts::FRAC_PI_2 / (fs / 2.0)).clamp(1e-4, 1.0);
        self.norm = (3.0 / frac).sqrt();
    }

    /// Filters one sample.
    #[inline]
    pub fn process(&mut self, x: f32) -> f32 {
        // transposed direct form II; b1 = 0, b2 = -b0
        let y = self.b0 * x + self.z1;
        self.z1 = -self.a1 * y + self.z2;
        self.z2 = -self.b0 * x - self.a2 * y;
        y * self.norm
    }
}

/// A gain that moves linearly to its target over one control tick.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Ramp {
    /// Current value.
    pub value: f32,
    step: f32,
    target: f32,
}

impl Ramp {
    /// Sets a new target reached after `samples` steps.
    pub fn set(&mut self, target: f32, samples: usize) {
        self.target = target;
        self.step = (target - self.value) / samples.max(1) as f32;
    }

    /// Advances one sample and returns the value.
    #[inline]
    pub fn step(&mut self) -> f32 {
        let v = self.value + self.step;
        self.value = if (self.step > 0.0 && v > self.target) || (self.step < 0.0 && v < self.target)
        {
            self.target
        } else {
            v
        };
        self.value
    }

    /// The target.
    pub fn target(&self) -> f32 {
        self.target
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::Rng;

    #[test]
    fn sine_table_and_phase_step() {
        let t = sine_table();
        assert_eq!(t.len(), TABLE_LEN);
        assert!((sin_at(t, 1 << 30) - 1.0).abs() < 1e-3); // quarter turn
        assert!(sin_at(t, 0).abs() < 1e-6);
        assert_eq!(phase_step(12_000.0, 48_000), 1 << 30);
        assert_eq!(phase_step(1.0, 0), 0);
        assert_eq!(phase_step(-12_000.0, 48_000), 3 << 30);
    }

    #[test]
    fn band_pass_noise_is_about_unit_rms_and_retunes() {
        let mut bp = BandPass::new(1_500.0, 2_400.0, 48_000);
        let mut rng = Rng::new(1);
        let mut sum = 0.0f64;
        let n = 48_000;
        for _ in 0..n {
            let y = bp.process(rng.bipolar());
            sum += f64::from(y * y);
        }
        let rms = (sum / f64::from(n)).sqrt();
        assert!((0.5..2.0).contains(&rms), "rms {rms}");
        let before = bp.clone();
        bp.tune(1_500.2, 2_400.0, 48_000);
        assert_eq!(bp, before, "tiny changes do not retune");
        bp.tune(700.0, 500.0, 8_000);
        assert_ne!(bp, before);
    }

    #[test]
    fn ramp_reaches_target_without_overshoot() {
        let mut r = Ramp::default();
        r.set(1.0, 4);
        let v: Vec<f32> = (0..6).map(|_| r.step()).collect();
        assert_eq!(v[3], 1.0);
        assert_eq!(v[5], 1.0);
        assert!(v[0] > 0.0 && v[0] < 1.0);
        r.set(0.0, 0);
        assert_eq!(r.step(), 0.0);
        assert_eq!(r.target(), 0.0);
    }
}
