//! The synthetic band: every signal the simulated radio can receive, deterministic from a
//! seed and the time. The scope ([`crate::sim::spectrum`]), the S-meter and the RX audio
//! ([`crate::sim::audio_synth`]) all read this one model, so what you see is what you hear.
//!
//! Signals are kept sorted by frequency in two lists (narrow emissions and wide FM
//! broadcast), so a query for a frequency window costs two binary searches plus the
//! signals inside the window.

mod populate;
mod signal;

pub use populate::FT8_DIALS;
pub use signal::{SignalKind, SignalSample};

use signal::Signal;

/// A voice-like syllabic envelope 0..1 (about 4.3 syllables per second, with word gaps
/// and breath pauses) for `key` at `t` seconds: the same shape SSB signals use.
pub fn voice_envelope(key: u64, t: f64) -> f32 {
    signal::syllable(key, t).0
}

/// Signals sorted by frequency, with the widest half-width of any of them.
#[derive(Debug, Clone)]
struct SignalList {
    sigs: Vec<Signal>,
    max_half: u64,
    first_id: u32,
}

impl SignalList {
    fn new(mut sigs: Vec<Signal>, first_id: u32) -> SignalList {
        sigs.sort_by_key(|s| s.freq_hz);
        let max_half = sigs
            .iter()
            .map(|s| s.kind.half_width_hz())
            .max()
            .unwrap_or(0);
        SignalList {
            sigs,
            max_half,
            first_id,
        }
    }

    /// Index range of the signals that may overlap `lo..=hi`.
    fn window(&self, lo: u64, hi: u64) -> (usize, usize) {
        let from = lo.saturating_sub(self.max_half);
        let to = hi.saturating_add(self.max_half);
        let a = self.sigs.partition_point(|s| s.freq_hz < from);
        let b = self.sigs.partition_point(|s| s.freq_hz <= to);
        (a, b.max(a))
    }
}

/// The synthetic band.
#[derive(Debug, Clone)]
pub struct Band {
    seed: u64,
    lists: [SignalList; 2],
}

/// Noise floor reference points: `(MHz, dBm in 500 Hz)`.
const NOISE: &[(f32, f32)] = &[
    (0.1, -92.0),
    (0.5, -96.0),
    (1.8, -101.0),
    (3.5, -104.0),
    (7.0, -108.0),
    (10.0, -111.0),
    (14.0, -115.0),
    (21.0, -119.0),
    (28.0, -123.0),
    (50.0, -127.0),
    (144.0, -133.0),
    (432.0, -136.0),
    (1296.0, -138.0),
];

/// Bandwidth the noise floor is quoted in, Hz.
pub const NOISE_BW_HZ: f32 = 500.0;

impl Band {
    /// The built-in band plan (HF to 23 cm, broadcast, airband) populated from `seed`.
    pub fn new(seed: u64) -> Band {
        Band::with_hotspots(seed, &[])
    }

    /// Like [`Band::new`], plus guaranteed activity within about ±20 kHz of each
    /// frequency in `hotspots` (the simulator passes every band's default frequency).
    pub fn with_hotspots(seed: u64, hotspots: &[u64]) -> Band {
        let all = populate::populate(seed, hotspots);
        let (wide, narrow): (Vec<Signal>, Vec<Signal>) = all
            .into_iter()
            .partition(|s| s.kind.half_width_hz() > 10_000);
        let n = narrow.len() as u32;
        Band {
            seed,
            lists: [SignalList::new(narrow, 0), SignalList::new(wide, n)],
        }
    }

    /// The seed the band was built from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Number of signals.
    pub fn len(&self) -> usize {
        self.lists.iter().map(|l| l.sigs.len()).sum()
    }

    /// True if the band holds no signal.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The signals on the air at `t` seconds whose emission overlaps `lo_hz..=hi_hz`.
    pub fn signals_near(
        &self,
        lo_hz: u64,
        hi_hz: u64,
        t: f64,
    ) -> impl Iterator<Item = SignalSample> + '_ {
        self.lists.iter().flat_map(move |list| {
            let (a, b) = list.window(lo_hz, hi_hz);
            let slice = list.sigs.get(a..b).unwrap_or(&[]);
            slice.iter().enumerate().filter_map(move |(i, s)| {
                // cheap static check before evaluating the signal
                let half = s.kind.half_width_hz();
                if s.freq_hz.saturating_add(half) < lo_hz || s.freq_hz.saturating_sub(half) > hi_hz
                {
                    return None;
                }
                let id = list.first_id.wrapping_add((a + i) as u32);
                let smp = s.eval(id, t)?;
                let (l, h) = smp.extent();
                (h >= lo_hz as f64 && l <= hi_hz as f64).then_some(smp)
            })
        })
    }

    /// Total power of the signals inside `lo_hz..=hi_hz` at `t`, dBm (−200 if none).
    /// A signal partly inside counts with the part of its bandwidth that is inside.
    pub fn signal_power_dbm(&self, lo_hz: u64, hi_hz: u64, t: f64) -> f32 {
        let (lo, hi) = (lo_hz as f64, hi_hz as f64);
        let mut mw = 0.0f64;
        for s in self.signals_near(lo_hz, hi_hz, t) {
            let (l, h) = s.extent();
            let inside = (h.min(hi) - l.max(lo)).max(0.0);
            let frac = if h - l <= 10.0 {
                if s.freq_hz >= lo && s.freq_hz <= hi {
                    1.0
                } else {
                    0.0
                }
            } else {
                inside / (h - l)
            };
            mw += frac * 10f64.powf(f64::from(s.level_dbm) / 10.0);
        }
        if mw <= 0.0 {
            -200.0
        } else {
            (10.0 * mw.log10()) as f32
        }
    }

    /// Antenna noise floor at `hz`, dBm in [`NOISE_BW_HZ`] (higher on the low bands).
    pub fn noise_floor(hz: u64) -> f32 {
        let mhz = (hz as f32 / 1e6).max(1e-3);
        let first = NOISE[0];
        if mhz <= first.0 {
            return first.1;
        }
        for w in NOISE.windows(2) {
            let (a, b) = (w[0], w[1]);
            if mhz <= b.0 {
                let x = (mhz.ln() - a.0.ln()) / (b.0.ln() - a.0.ln());
                return a.1 + (b.1 - a.1) * x;
            }
        }
        NOISE[NOISE.len() - 1].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_from_seed() {
        let a = Band::new(11);
        let b = Band::new(11);
        let c = Band::new(12);
        let va: Vec<_> = a.signals_near(14_000_000, 14_350_000, 33.3).collect();
        let vb: Vec<_> = b.signals_near(14_000_000, 14_350_000, 33.3).collect();
        let vc: Vec<_> = c.signals_near(14_000_000, 14_350_000, 33.3).collect();
        assert!(!va.is_empty());
        assert_eq!(va, vb);
        assert_ne!(va, vc);
        assert_eq!(a.seed(), 11);
        assert!(a.len() > 500 && !a.is_empty());
    }

    #[test]
    fn query_returns_only_overlapping_signals_in_order_of_lists() {
        let band = Band::new(3);
        for t in [0.0, 7.5, 61.0] {
            for s in band.signals_near(7_000_000, 7_050_000, t) {
                let (l, h) = s.extent();
                assert!(h >= 7_000_000.0 && l <= 7_050_000.0, "{s:?}");
            }
        }
        // nothing far from any allocation
        assert_eq!(
            band.signals_near(2_100_000_000, 2_100_100_000, 1.0).count(),
            0
        );
        // a window at the very bottom does not underflow
        let _ = band.signals_near(0, 10, 1.0).count();
    }

    #[test]
    fn ft8_clusters_sit_at_the_dial_frequencies() {
        let band = Band::new(5);
        let mut seen = 0;
        for t in [1.0, 3.0, 16.0, 18.0, 31.0, 46.0] {
            seen += band
                .signals_near(14_074_000, 14_077_000, t)
                .filter(|s| s.kind == SignalKind::Ft8)
                .count();
        }
        assert!(seen > 5, "ft8 seen {seen}");
        assert!(FT8_DIALS.contains(&7_074_000));
    }

    #[test]
    fn hotspots_add_activity_anywhere() {
        let bare = Band::new(9);
        let hot = Band::with_hotspots(9, &[600_000_000]);
        let count = |b: &Band| -> usize {
            (0..30)
                .map(|i| {
                    b.signals_near(599_975_000, 600_025_000, f64::from(i))
                        .count()
                })
                .sum()
        };
        assert_eq!(count(&bare), 0);
        assert!(count(&hot) > 10);
    }

    #[test]
    fn noise_floor_falls_with_frequency() {
        assert!(Band::noise_floor(1_900_000) > Band::noise_floor(14_100_000));
        assert!(Band::noise_floor(14_100_000) > Band::noise_floor(145_000_000));
        assert_eq!(Band::noise_floor(1), -92.0);
        assert_eq!(Band::noise_floor(5_000_000_000), -138.0);
        let nf = Band::noise_floor(14_000_000);
        assert!((nf + 115.0).abs() < 0.01, "{nf}");
    }

    #[test]
    fn signal_power_counts_what_is_inside() {
        let band = Band::new(21);
        // the broadcast band is full of always-on carriers
        let p = band.signal_power_dbm(9_400_000, 9_900_000, 10.0);
        assert!(p > -100.0, "{p}");
        assert_eq!(
            band.signal_power_dbm(2_100_000_000, 2_100_001_000, 1.0),
            -200.0
        );
    }
}
