//! Where the synthetic band puts its signals: CW at the bottom of the amateur bands,
//! SSB in the phone segments (LSB below 10 MHz), FT8 clusters at the usual dial
//! frequencies, beacons, broadcast AM in the LW/MW/SW broadcast bands, CB, FM on VHF/UHF,
//! wide FM broadcast, airband AM, plus "hotspots" that guarantee activity near given
//! frequencies (the default frequency of every band of the radio being simulated).

use super::signal::{Signal, SignalKind};
use crate::sim::rng::Rng;

/// What a region is filled with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Cw,
    Usb,
    Lsb,
    /// AM broadcast: a carrier that is always on.
    Broadcast,
    /// AM voice in overs (airband, CB).
    AmVoice,
    Fm,
    Wfm,
    Beacon,
}

/// How a region is filled.
#[derive(Debug, Clone, Copy)]
enum Fill {
    /// Signals placed at random, this many Hz apart on average.
    Scatter(Kind, u64),
    /// Channels every `step` Hz, each occupied with probability `prob`.
    Raster(Kind, u64, f32),
}

const fn k(khz: u64) -> u64 {
    khz * 1_000
}

/// `(lo Hz, hi Hz, fill)`.
const REGIONS: &[(u64, u64, Fill)] = &[
    (k(153), k(279), Fill::Raster(Kind::Broadcast, 9_000, 0.5)),
    (135_700, 137_800, Fill::Scatter(Kind::Cw, 700)),
    (472_000, 479_000, Fill::Scatter(Kind::Cw, 1_200)),
    (k(531), k(1_602), Fill::Raster(Kind::Broadcast, 9_000, 0.6)),
    (k(1_800), k(1_838), Fill::Scatter(Kind::Cw, 2_500)),
    (k(1_843), k(2_000), Fill::Scatter(Kind::Lsb, 10_000)),
    (
        k(2_300),
        k(2_495),
        Fill::Raster(Kind::Broadcast, 5_000, 0.3),
    ),
    (
        k(3_200),
        k(3_400),
        Fill::Raster(Kind::Broadcast, 5_000, 0.35),
    ),
    (k(3_500), k(3_570), Fill::Scatter(Kind::Cw, 2_000)),
    (k(3_600), k(4_000), Fill::Scatter(Kind::Lsb, 7_000)),
    (
        k(3_900),
        k(4_000),
        Fill::Raster(Kind::Broadcast, 5_000, 0.3),
    ),
    (
        k(4_750),
        k(5_060),
        Fill::Raster(Kind::Broadcast, 5_000, 0.35),
    ),
    (5_351_500, 5_354_000, Fill::Scatter(Kind::Cw, 800)),
    (k(5_360), k(5_450), Fill::Scatter(Kind::Usb, 9_000)),
    (
        k(5_900),
        k(6_200),
        Fill::Raster(Kind::Broadcast, 5_000, 0.5),
    ),
    (k(7_000), k(7_040), Fill::Scatter(Kind::Cw, 1_500)),
    (k(7_100), k(7_300), Fill::Scatter(Kind::Lsb, 5_000)),
    (
        k(7_200),
        k(7_450),
        Fill::Raster(Kind::Broadcast, 5_000, 0.45),
    ),
    (
        k(9_400),
        k(9_900),
        Fill::Raster(Kind::Broadcast, 5_000, 0.5),
    ),
    (k(10_100), k(10_130), Fill::Scatter(Kind::Cw, 2_000)),
    (
        k(11_600),
        k(12_100),
        Fill::Raster(Kind::Broadcast, 5_000, 0.5),
    ),
    (
        k(13_570),
        k(13_870),
        Fill::Raster(Kind::Broadcast, 5_000, 0.4),
    ),
    (k(14_000), k(14_070), Fill::Scatter(Kind::Cw, 1_500)),
    (k(14_150), k(14_350), Fill::Scatter(Kind::Usb, 4_000)),
    (
        k(15_100),
        k(15_800),
        Fill::Raster(Kind::Broadcast, 5_000, 0.45),
    ),
    (
        k(17_480),
        k(17_900),
        Fill::Raster(Kind::Broadcast, 5_000, 0.4),
    ),
    (k(18_068), k(18_095), Fill::Scatter(Kind::Cw, 2_500)),
    (k(18_111), k(18_168), Fill::Scatter(Kind::Usb, 5_000)),
    (
        k(18_900),
        k(19_020),
        Fill::Raster(Kind::Broadcast, 5_000, 0.3),
    ),
    (k(21_000), k(21_070), Fill::Scatter(Kind::Cw, 2_000)),
    (k(21_151), k(21_450), Fill::Scatter(Kind::Usb, 5_000)),
    (
        k(21_450),
        k(21_850),
        Fill::Raster(Kind::Broadcast, 5_000, 0.35),
    ),
    (k(24_890), k(24_915), Fill::Scatter(Kind::Cw, 2_500)),
    (k(24_931), k(24_990), Fill::Scatter(Kind::Usb, 6_000)),
    (
        k(25_670),
        k(26_100),
        Fill::Raster(Kind::Broadcast, 5_000, 0.3),
    ),
    (
        k(26_965),
        k(27_405),
        Fill::Raster(Kind::AmVoice, 10_000, 0.3),
    ),
    (k(28_000), k(28_070), Fill::Scatter(Kind::Cw, 2_500)),
    (k(28_201), k(28_300), Fill::Scatter(Kind::Beacon, 8_000)),
    (k(28_300), k(29_000), Fill::Scatter(Kind::Usb, 6_000)),
    (k(29_520), k(29_700), Fill::Raster(Kind::Fm, 10_000, 0.25)),
    (k(50_000), k(50_080), Fill::Scatter(Kind::Beacon, 10_000)),
    (k(50_080), k(50_100), Fill::Scatter(Kind::Cw, 5_000)),
    (k(50_100), k(50_300), Fill::Scatter(Kind::Usb, 10_000)),
    (k(51_000), k(54_000), Fill::Raster(Kind::Fm, 20_000, 0.04)),
    (k(70_000), k(70_100), Fill::Scatter(Kind::Beacon, 25_000)),
    (k(70_150), k(70_250), Fill::Scatter(Kind::Usb, 30_000)),
    (
        k(87_500),
        k(108_000),
        Fill::Raster(Kind::Wfm, 100_000, 0.35),
    ),
    (
        k(118_000),
        k(137_000),
        Fill::Raster(Kind::AmVoice, 25_000, 0.06),
    ),
    (k(144_000), k(144_150), Fill::Scatter(Kind::Cw, 10_000)),
    (k(144_150), k(144_400), Fill::Scatter(Kind::Usb, 20_000)),
    (k(144_400), k(144_490), Fill::Scatter(Kind::Beacon, 15_000)),
    (k(144_500), k(148_000), Fill::Raster(Kind::Fm, 12_500, 0.07)),
    (k(420_000), k(432_000), Fill::Raster(Kind::Fm, 25_000, 0.01)),
    (k(432_000), k(432_100), Fill::Scatter(Kind::Cw, 15_000)),
    (k(432_100), k(432_400), Fill::Scatter(Kind::Usb, 25_000)),
    (k(432_400), k(432_490), Fill::Scatter(Kind::Beacon, 20_000)),
    (k(433_000), k(450_000), Fill::Raster(Kind::Fm, 12_500, 0.02)),
    (
        446_006_250,
        446_193_750,
        Fill::Raster(Kind::Fm, 12_500, 0.35),
    ),
    (
        k(1_240_000),
        k(1_296_000),
        Fill::Raster(Kind::Fm, 25_000, 0.002),
    ),
    (k(1_296_000), k(1_296_150), Fill::Scatter(Kind::Cw, 20_000)),
    (k(1_296_150), k(1_296_400), Fill::Scatter(Kind::Usb, 30_000)),
    (
        k(1_296_800),
        k(1_296_990),
        Fill::Scatter(Kind::Beacon, 30_000),
    ),
    (
        k(1_297_000),
        k(1_300_000),
        Fill::Raster(Kind::Fm, 25_000, 0.05),
    ),
];

/// The usual FT8 dial frequencies.
pub const FT8_DIALS: &[u64] = &[
    1_840_000,
    3_573_000,
    5_357_000,
    7_074_000,
    10_136_000,
    14_074_000,
    18_100_000,
    21_074_000,
    24_915_000,
    28_074_000,
    50_313_000,
    70_154_000,
    144_174_000,
    432_174_000,
    1_296_174_000,
];

/// Single stations: the NCDXF beacon frequencies and the HF time-signal carriers.
const SINGLES: &[(u64, Kind)] = &[
    (14_100_000, Kind::Beacon),
    (18_110_000, Kind::Beacon),
    (21_150_000, Kind::Beacon),
    (24_930_000, Kind::Beacon),
    (28_200_000, Kind::Beacon),
    (2_500_000, Kind::Broadcast),
    (5_000_000, Kind::Broadcast),
    (10_000_000, Kind::Broadcast),
    (15_000_000, Kind::Broadcast),
    (20_000_000, Kind::Broadcast),
];

/// A level between `lo` and `hi` dBm, skewed towards weak signals.
fn level(rng: &mut Rng, lo: f32, hi: f32) -> f32 {
    let u = rng.next_f32();
    lo + (hi - lo) * u * u.sqrt()
}

/// A signal of `kind` at `freq_hz` with random (seeded) parameters.
fn make(rng: &mut Rng, kind: Kind, freq_hz: u64) -> Signal {
    let mut s = Signal {
        freq_hz,
        kind: SignalKind::Cw,
        base_dbm: -100.0,
        partner_db: rng.range_f32(-12.0, 6.0),
        qsb_depth_db: rng.range_f32(2.0, 12.0),
        qsb_rate_hz: 1.0 / rng.range_f32(8.0, 40.0),
        qsb_phase: rng.next_f32(),
        wpm: rng.range_f32(14.0, 34.0),
        over_s: rng.range_f32(40.0, 180.0),
        duty: rng.range_f32(0.55, 0.9),
        phase_s: 0.0,
        slot: (rng.next_u64() & 1) as u8,
        key: rng.next_u64(),
    };
    match kind {
        Kind::Cw => {
            s.base_dbm = level(rng, -124.0, -66.0);
        }
        Kind::Beacon => {
            s.kind = SignalKind::Beacon;
            s.base_dbm = level(rng, -118.0, -84.0);
            s.wpm = rng.range_f32(16.0, 22.0);
            s.duty = 1.0;
        }
        Kind::Usb | Kind::Lsb => {
            s.kind = if kind == Kind::Usb {
                SignalKind::Usb
            } else {
                SignalKind::Lsb
            };
            s.base_dbm = level(rng, -116.0, -60.0);
            s.over_s = rng.range_f32(60.0, 240.0);
            s.duty = rng.range_f32(0.6, 0.95);
        }
        Kind::Broadcast => {
            s.kind = SignalKind::Am;
            s.base_dbm = level(rng, -96.0, -44.0);
            s.qsb_depth_db = rng.range_f32(1.0, 8.0);
            s.duty = 1.0;
        }
        Kind::AmVoice => {
            s.kind = SignalKind::Am;
            s.base_dbm = level(rng, -112.0, -70.0);
            s.qsb_depth_db = rng.range_f32(0.0, 3.0);
            s.over_s = rng.range_f32(20.0, 90.0);
            s.duty = rng.range_f32(0.3, 0.7);
        }
        Kind::Fm => {
            s.kind = SignalKind::Fm;
            s.base_dbm = level(rng, -118.0, -60.0);
            s.qsb_depth_db = rng.range_f32(0.0, 3.0);
            s.over_s = rng.range_f32(30.0, 120.0);
            s.duty = rng.range_f32(0.35, 0.75);
        }
        Kind::Wfm => {
            s.kind = SignalKind::Wfm;
            s.base_dbm = level(rng, -80.0, -44.0);
            s.qsb_depth_db = rng.range_f32(0.0, 2.0);
            s.duty = 1.0;
        }
    }
    s.phase_s = rng.range_f32(0.0, s.over_s);
    s
}

/// Fills one region.
fn fill(rng: &mut Rng, lo: u64, hi: u64, how: Fill, out: &mut Vec<Signal>) {
    match how {
        Fill::Scatter(kind, spacing) => {
            let spacing = spacing.max(100);
            let mut f = lo + rng.below(spacing);
            while f < hi {
                let grid = if matches!(kind, Kind::Usb | Kind::Lsb) {
                    100
                } else {
                    10
                };
                out.push(make(rng, kind, f / grid * grid));
                f += spacing / 2 + rng.below(spacing);
            }
        }
        Fill::Raster(kind, step, prob) => {
            let step = step.max(100);
            let mut f = lo;
            while f <= hi {
                if rng.next_f32() < prob {
                    out.push(make(rng, kind, f));
                }
                f += step;
            }
        }
    }
}

/// An FT8 cluster: 10-25 stations at audio offsets 150-2950 Hz above `dial`.
fn ft8_cluster(rng: &mut Rng, dial: u64, out: &mut Vec<Signal>) {
    let n = 10 + rng.below(16);
    for _ in 0..n {
        let f = dial + 150 + rng.below(2_800);
        let mut s = make(rng, Kind::Cw, f);
        s.kind = SignalKind::Ft8;
        s.base_dbm = level(rng, -124.0, -82.0);
        s.duty = 1.0;
        out.push(s);
    }
}

/// Activity guaranteed within about ±20 kHz of `hz`.
fn hotspot(rng: &mut Rng, hz: u64, out: &mut Vec<Signal>) {
    let off = |rng: &mut Rng, lo: u64, hi: u64| -> u64 {
        let d = lo + rng.below(hi - lo);
        if rng.next_f32() < 0.5 {
            hz.saturating_sub(d)
        } else {
            hz + d
        }
    };
    match hz {
        0..30_000_000 => {
            let beacon = off(rng, 4_000, 18_000);
            out.push(make(rng, Kind::Beacon, beacon / 10 * 10));
            let cw = off(rng, 2_000, 20_000);
            out.push(make(rng, Kind::Cw, cw / 10 * 10));
            let voice = if hz < 10_000_000 {
                Kind::Lsb
            } else {
                Kind::Usb
            };
            for _ in 0..2 {
                let f = off(rng, 3_000, 20_000);
                out.push(make(rng, voice, f / 100 * 100));
            }
        }
        30_000_000..74_800_000 => {
            let beacon = off(rng, 4_000, 18_000);
            out.push(make(rng, Kind::Beacon, beacon / 10 * 10));
            for _ in 0..2 {
                let f = off(rng, 3_000, 20_000);
                out.push(make(rng, Kind::Usb, f / 100 * 100));
            }
        }
        74_800_000..108_000_000 => {
            let mut s = make(rng, Kind::Wfm, hz / 100_000 * 100_000);
            s.base_dbm = s.base_dbm.max(-70.0);
            out.push(s);
        }
        108_000_000..137_000_000 => {
            let atis = off(rng, 8_000, 20_000);
            out.push(make(rng, Kind::Broadcast, atis / 1_000 * 1_000));
            let voice = make(rng, Kind::AmVoice, hz);
            out.push(voice);
        }
        _ => {
            let beacon = off(rng, 5_000, 20_000);
            out.push(make(rng, Kind::Beacon, beacon / 10 * 10));
            out.push(make(rng, Kind::Fm, hz));
            let ch = off(rng, 12_500, 12_501);
            out.push(make(rng, Kind::Fm, ch));
        }
    }
}

/// Every signal of the band, unsorted.
pub(crate) fn populate(seed: u64, hotspots: &[u64]) -> Vec<Signal> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(4_096);
    for &(lo, hi, how) in REGIONS {
        fill(&mut rng, lo, hi, how, &mut out);
    }
    for &dial in FT8_DIALS {
        ft8_cluster(&mut rng, dial, &mut out);
    }
    for &(f, kind) in SINGLES {
        out.push(make(&mut rng, kind, f));
    }
    for &h in hotspots {
        hotspot(&mut rng, h, &mut out);
    }
    out
}
