//! The amateur bands by name, with the widest edges any IARU region or its member
//! societies give them: what a DX spot's frequency is filed under (`band` of
//! `GET /api/v1/dx/spots`, duplicate merging). The per-region edges are in the band
//! plans (`assets/band-plans/`).

/// An amateur band: name and edges in Hz (inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HamBand {
    /// The name operators use (`20m`, `70cm`).
    pub name: &'static str,
    /// Lower edge, Hz.
    pub start: u64,
    /// Upper edge, Hz.
    pub end: u64,
}

const fn band(name: &'static str, start: u64, end: u64) -> HamBand {
    HamBand { name, start, end }
}

/// Every amateur band from 2200 m to 3 cm, in frequency order.
pub const HAM_BANDS: &[HamBand] = &[
    band("2200m", 135_700, 137_800),
    band("630m", 472_000, 479_000),
    band("160m", 1_800_000, 2_000_000),
    band("80m", 3_500_000, 4_000_000),
    // the national 60 m channels and bands lie between these edges
    band("60m", 5_250_000, 5_450_000),
    band("40m", 7_000_000, 7_300_000),
    band("30m", 10_100_000, 10_150_000),
    band("20m", 14_000_000, 14_350_000),
    band("17m", 18_068_000, 18_168_000),
    band("15m", 21_000_000, 21_450_000),
    band("12m", 24_890_000, 24_990_000),
    band("10m", 28_000_000, 29_700_000),
    band("6m", 50_000_000, 54_000_000),
    band("4m", 70_000_000, 70_500_000),
    band("2m", 144_000_000, 148_000_000),
    band("1.25m", 219_000_000, 225_000_000),
    band("70cm", 420_000_000, 450_000_000),
    band("33cm", 902_000_000, 928_000_000),
    band("23cm", 1_240_000_000, 1_300_000_000),
    band("13cm", 2_300_000_000, 2_450_000_000),
    band("9cm", 3_300_000_000, 3_500_000_000),
    band("6cm", 5_650_000_000, 5_925_000_000),
    band("3cm", 10_000_000_000, 10_500_000_000),
];

/// The band `hz` lies in, if any.
pub fn band_of(hz: u64) -> Option<&'static HamBand> {
    HAM_BANDS.iter().find(|b| (b.start..=b.end).contains(&hz))
}

/// The band called `name` (case-insensitive: `20M` is `20m`).
pub fn band_named(name: &str) -> Option<&'static HamBand> {
    HAM_BANDS.iter().find(|b| b.name.eq_ignore_ascii_case(name))
}

/// True for a name of the form operators give amateur bands (`160m`, `70cm`, `1.25m`),
/// as opposed to other receive ranges of a profile (`Air`, `WFM`).
pub fn looks_like_ham_band(name: &str) -> bool {
    let digits = name.trim_end_matches("cm").trim_end_matches('m');
    digits.len() < name.len()
        && !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_are_ordered_disjoint_and_found_by_frequency_and_name() {
        for w in HAM_BANDS.windows(2) {
            assert!(w[0].start <= w[0].end && w[0].end < w[1].start, "{w:?}");
        }
        assert_eq!(band_of(14_074_000).map(|b| b.name), Some("20m"));
        assert_eq!(band_of(14_350_000).map(|b| b.name), Some("20m"));
        assert_eq!(band_of(14_350_001), None);
        assert_eq!(band_of(0), None);
        assert_eq!(band_named("70CM").map(|b| b.start), Some(420_000_000));
        assert!(band_named("11m").is_none());
        for ham in ["160m", "70cm", "1.25m", "2200m"] {
            assert!(looks_like_ham_band(ham), "{ham}");
        }
        for other in ["Air", "WFM", "m", "cm", "AM", "10 m"] {
            assert!(!looks_like_ham_band(other), "{other}");
        }
    }
}
