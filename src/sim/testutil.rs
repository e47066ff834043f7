//! Helpers shared by the simulator's tests.

use crate::sim::band::{Band, SignalKind};

/// Power of frequency `freq_hz` in `x` (Goertzel), normalised by the length.
pub fn goertzel(x: &[f32], freq_hz: f32, sample_rate: u32) -> f32 {
    let w = std::f32::consts::TAU * freq_hz / sample_rate as f32;
    let c = 2.0 * w.cos();
    let (mut s1, mut s2) = (0.0f32, 0.0f32);
    for &v in x {
        let s0 = v + c * s1 - s2;
        s2 = s1;
        s1 = s0;
    }
    let p = s1 * s1 + s2 * s2 - c * s1 * s2;
    p / (x.len().max(1) as f32).powi(2)
}

/// A beacon that keeps its carrier up for the whole of `t0..t0 + dur` inside
/// `lo..hi`: `(frequency, t0)`.
pub fn steady_beacon(band: &Band, lo: u64, hi: u64, dur: f64) -> (f64, f64) {
    for step in 0..120 {
        let t0 = f64::from(step) * 0.5;
        let first: Vec<_> = band
            .signals_near(lo, hi, t0)
            .filter(|s| s.kind == SignalKind::Beacon)
            .collect();
        for cand in first {
            let steady = (0..=20).all(|i| {
                let t = t0 + dur * f64::from(i) / 20.0;
                band.signals_near(lo, hi, t).any(|s| s.id == cand.id)
            });
            if steady {
                return (cand.freq_hz, t0);
            }
        }
    }
    panic!("no steady beacon in {lo}..{hi}");
}
