//! Scope pixels from the band model: for a window `lo..hi` each signal spreads its power
//! over the pixels it covers (narrow carriers widened to the resolution bandwidth, with
//! skirts), the noise floor gets a random texture, and the sum is mapped on a log scale
//! into `0..=amp_max`. Deterministic per (band seed, time, texture seed).
//!
//! Display scale: −150 dBm (per pixel bin, after the front end) is amplitude 0, and the
//! scale spans 110 dB up to `amp_max`; the scope reference level shifts it.

use crate::sim::band::{Band, SignalKind, SignalSample};
use crate::sim::frontend::{Frontend, dbm, mw};
use crate::sim::rng::Rng;

/// Power at amplitude 0, dBm per pixel bin.
pub const BOTTOM_DBM: f32 = -150.0;
/// Dynamic range from amplitude 0 to `amp_max`, dB.
pub const RANGE_DB: f32 = 110.0;

/// What one sweep shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepRequest {
    /// Lower edge, Hz.
    pub lo_hz: u64,
    /// Upper edge, Hz.
    pub hi_hz: u64,
    /// Number of pixels.
    pub pixels: usize,
    /// Largest amplitude.
    pub amp_max: u8,
    /// Time of the sweep, seconds since the simulation started.
    pub t: f64,
    /// ATT / preamp of the receiver shown.
    pub frontend: Frontend,
    /// Scope reference level, dB (−30..+10; positive shows signals higher).
    pub ref_db: f32,
    /// Seed of the noise texture of this sweep.
    pub texture_seed: u64,
}

/// Renders sweeps; keeps its scratch buffer between calls.
#[derive(Debug, Clone, Default)]
pub struct Spectrum {
    power: Vec<f32>,
}

/// A block of power `mw` between `lo` and `hi` Hz.
struct Block {
    lo: f64,
    hi: f64,
    mw: f32,
}

/// The spectral blocks a signal occupies, at front-end level `p` mW.
fn blocks(s: &SignalSample, p: f32, out: &mut Vec<Block>) {
    let f = s.freq_hz;
    let narrow = |mw: f32| Block {
        lo: f - 2.0,
        hi: f + 2.0,
        mw,
    };
    match s.kind {
        SignalKind::Cw | SignalKind::Beacon | SignalKind::Ft8 => out.push(narrow(p)),
        SignalKind::Usb | SignalKind::Lsb => {
            let total: f32 = s.shape.iter().sum::<f32>().max(1e-6);
            let edges = [300.0, 900.0, 1_800.0, 2_700.0];
            for (i, w) in s.shape.iter().enumerate() {
                let (a, b) = (edges[i], edges[i + 1]);
                let (lo, hi) = if s.kind == SignalKind::Usb {
                    (f + a, f + b)
                } else {
                    (f - b, f - a)
                };
                out.push(Block {
                    lo,
                    hi,
                    mw: p * w / total,
                });
            }
        }
        SignalKind::Am => {
            out.push(narrow(p * 0.7));
            let side = p * 0.15 * s.voice;
            out.push(Block {
                lo: f - 4_500.0,
                hi: f - 200.0,
                mw: side,
            });
            out.push(Block {
                lo: f + 200.0,
                hi: f + 4_500.0,
                mw: side,
            });
        }
        SignalKind::Fm => {
            let dev = 0.7 * s.voice;
            out.push(narrow(p * (1.0 - dev)));
            out.push(Block {
                lo: f - 3_500.0,
                hi: f + 3_500.0,
                mw: p * dev,
            });
        }
        SignalKind::Wfm => {
            // a broad hump with the carrier showing through in quiet passages
            let carrier = 0.15 * (1.0 - 0.5 * s.voice);
            out.push(narrow(p * carrier));
            out.push(Block {
                lo: f - 75_000.0,
                hi: f + 75_000.0,
                mw: p * 0.55,
            });
            out.push(Block {
                lo: f - 15_000.0,
                hi: f + 15_000.0,
                mw: p * (0.3 - carrier),
            });
        }
    }
}

impl Spectrum {
    /// A renderer.
    pub fn new() -> Spectrum {
        Spectrum::default()
    }

    /// Appends `req.pixels` amplitudes for the window to `out`. `extra` signals (for
    /// example the radio's own transmission) are drawn on top of the band's.
    pub fn render(
        &mut self,
        band: &Band,
        req: &SweepRequest,
        extra: &[SignalSample],
        out: &mut Vec<u8>,
    ) {
        let n = req.pixels;
        if n == 0 {
            return;
        }
        if req.hi_hz <= req.lo_hz {
            out.extend(std::iter::repeat_n(0u8, n));
            return;
        }
        self.power.clear();
        self.power.resize(n, 0.0);
        let lo = req.lo_hz as f64;
        let hz_px = (req.hi_hz - req.lo_hz) as f64 / n as f64;
        let min_w = (1.5 * hz_px).max(60.0);
        let mut parts = Vec::with_capacity(8);
        let fe = req.frontend;
        let signals = band.signals_near(req.lo_hz, req.hi_hz, req.t);
        for s in signals.chain(extra.iter().copied()) {
            parts.clear();
            blocks(&s, mw(fe.signal(s.level_dbm)), &mut parts);
            for b in &parts {
                spread(&mut self.power, lo, hz_px, min_w, b);
            }
        }
        // noise per pixel bin, interpolated between the two edges
        let bin = (hz_px as f32).max(50.0);
        let n_lo = mw(fe.noise(Band::noise_floor(req.lo_hz), bin));
        let n_hi = mw(fe.noise(Band::noise_floor(req.hi_hz), bin));
        // wider bins show a higher floor, but only half as much as the power law says
        let comp = -5.0 * (bin / 100.0).log10();
        let scale = f32::from(req.amp_max) / RANGE_DB;
        let mut rng = Rng::new(req.texture_seed);
        let amp_max = f32::from(req.amp_max);
        for (i, p) in self.power.iter().enumerate() {
            let x = i as f32 / n as f32;
            let texture = 0.25 + 0.75 * (rng.next_f32() + rng.next_f32());
            let noise = (n_lo + (n_hi - n_lo) * x) * texture;
            let level = dbm(noise + p) + comp + req.ref_db;
            let amp = ((level - BOTTOM_DBM) * scale).round().clamp(0.0, amp_max);
            out.push(amp as u8);
        }
    }
}

/// Adds a block's power to the pixels it covers, with a little leakage into neighbours.
fn spread(power: &mut [f32], lo: f64, hz_px: f64, min_w: f64, b: &Block) {
    let n = power.len() as i64;
    let (mut a, mut z) = (b.lo, b.hi);
    if z - a < min_w {
        let c = (a + z) / 2.0;
        a = c - min_w / 2.0;
        z = c + min_w / 2.0;
    }
    let x0 = ((a - lo) / hz_px).floor();
    let x1 = ((z - lo) / hz_px).floor();
    if x1 < -4.0 || x0 > (n + 4) as f64 {
        return;
    }
    let (i0, i1) = (x0 as i64, x1 as i64);
    let count = (i1 - i0 + 1).max(1);
    let per = b.mw / count as f32;
    let mut add = |i: i64, v: f32| {
        if let Some(p) = usize::try_from(i).ok().and_then(|i| power.get_mut(i)) {
            *p += v;
        }
    };
    for i in i0.max(0)..=i1.min(n - 1) {
        add(i, per);
    }
    for (d, k) in [(1, 0.08f32), (2, 0.015), (3, 0.004)] {
        add(i0 - d, per * k);
        add(i1 + d, per * k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(lo: u64, hi: u64, pixels: usize, t: f64) -> SweepRequest {
        SweepRequest {
            lo_hz: lo,
            hi_hz: hi,
            pixels,
            amp_max: 160,
            t,
            frontend: Frontend::OFF,
            ref_db: 0.0,
            texture_seed: 77,
        }
    }

    #[test]
    fn pixels_count_range_and_determinism() {
        let band = Band::new(1);
        let mut sp = Spectrum::new();
        let mut a = Vec::new();
        let mut b = Vec::new();
        let r = req(14_175_000, 14_225_000, 475, 12.0);
        sp.render(&band, &r, &[], &mut a);
        Spectrum::new().render(&band, &r, &[], &mut b);
        assert_eq!(a.len(), 475);
        assert_eq!(a, b);
        assert!(a.iter().all(|&p| p <= 160));
        let mut c = Vec::new();
        sp.render(&band, &req(14_175_000, 14_225_000, 475, 12.5), &[], &mut c);
        assert_ne!(a, c, "a later sweep differs");
    }

    #[test]
    fn a_strong_extra_carrier_makes_a_peak_where_it_is() {
        let band = Band::new(2);
        let mut sp = Spectrum::new();
        let carrier = SignalSample {
            id: u32::MAX,
            kind: SignalKind::Cw,
            freq_hz: 2_100_012_500.0,
            level_dbm: -60.0,
            voice: 1.0,
            pitch_hz: 0.0,
            shape: [1.0; 3],
        };
        let mut px = Vec::new();
        sp.render(
            &band,
            &req(2_100_000_000, 2_100_050_000, 689, 1.0),
            &[carrier],
            &mut px,
        );
        let (imax, &max) = px.iter().enumerate().max_by_key(|(_, p)| **p).unwrap();
        assert!((170..=175).contains(&imax), "peak at {imax}");
        let median = {
            let mut v = px.clone();
            v.sort_unstable();
            v[v.len() / 2]
        };
        assert!(max > median + 60, "max {max} median {median}");
        assert!(median > 5, "noise floor visible: {median}");
    }

    #[test]
    fn degenerate_windows_do_not_panic() {
        let band = Band::new(3);
        let mut sp = Spectrum::new();
        let mut px = Vec::new();
        sp.render(&band, &req(5, 5, 10, 0.0), &[], &mut px);
        assert_eq!(px, vec![0; 10]);
        px.clear();
        sp.render(&band, &req(0, 1_000_000, 0, 0.0), &[], &mut px);
        assert!(px.is_empty());
        sp.render(&band, &req(0, 1, 3, 0.0), &[], &mut px);
        assert_eq!(px.len(), 3);
    }

    #[test]
    fn attenuator_lowers_the_picture() {
        let band = Band::new(4);
        let mut sp = Spectrum::new();
        let mut off = Vec::new();
        let mut att = Vec::new();
        let r = req(9_500_000, 9_600_000, 475, 3.0);
        sp.render(&band, &r, &[], &mut off);
        let r_att = SweepRequest {
            frontend: Frontend::new(20, 0),
            ..r
        };
        sp.render(&band, &r_att, &[], &mut att);
        let sum = |v: &[u8]| v.iter().map(|&x| u32::from(x)).sum::<u32>();
        assert!(sum(&att) < sum(&off));
    }
}
