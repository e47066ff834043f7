//! The `1A 03` IF filter width: one BCD index byte whose meaning depends on the mode
//! (Icom segment table, spec §4.5): SSB/CW/PSK 0–9 → 50–500 Hz step 50, 10–40 →
//! 600–3600 Hz step 100; RTTY the same up to index 31 (2700 Hz); AM 0–49 → 200–10 000 Hz
//! step 200; FM, WFM, DV and DD have fixed widths (no index).

use super::mode::code;

/// Filter width in Hz of index `idx` in mode `mode` (`None` for fixed-width modes or an
/// index out of the mode's table).
pub fn width_of_index(mode: u8, idx: u8) -> Option<u32> {
    let idx = u32::from(idx);
    match mode {
        code::AM => (idx <= 49).then_some(200 + 200 * idx),
        code::FM | code::WFM | code::DV | code::DD => None,
        _ => {
            let max = if matches!(mode, code::RTTY | code::RTTY_R) {
                31
            } else {
                40
            };
            if idx > max {
                None
            } else if idx <= 9 {
                Some(50 + 50 * idx)
            } else {
                Some(600 + (idx - 10) * 100)
            }
        }
    }
}

/// The index whose width is exactly `hz` in mode `mode`.
pub fn index_of_width_exact(mode: u8, hz: u32) -> Option<u8> {
    (0u8..=49).find(|i| width_of_index(mode, *i) == Some(hz))
}

/// The index closest to `hz` in mode `mode` (`None` for fixed-width modes).
pub fn index_of_width(mode: u8, hz: u32) -> Option<u8> {
    (0u8..=49)
        .filter_map(|i| width_of_index(mode, i).map(|w| (i, w.abs_diff(hz))))
        .min_by_key(|&(_, d)| d)
        .map(|(i, _)| i)
}

/// `(min, max)` widths of `mode` in Hz (`None` for fixed-width modes).
pub fn width_range(mode: u8) -> Option<(u32, u32)> {
    let widths: Vec<u32> = (0u8..=49).filter_map(|i| width_of_index(mode, i)).collect();
    Some((*widths.iter().min()?, *widths.iter().max()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_segment_table_of_the_spec() {
        assert_eq!(width_of_index(code::USB, 0), Some(50));
        assert_eq!(width_of_index(code::USB, 9), Some(500));
        assert_eq!(width_of_index(code::USB, 10), Some(600), "not wfview's 550");
        assert_eq!(width_of_index(code::USB, 40), Some(3600));
        assert_eq!(width_of_index(code::USB, 41), None);
        assert_eq!(width_of_index(code::RTTY, 31), Some(2700));
        assert_eq!(width_of_index(code::RTTY, 32), None);
        assert_eq!(width_of_index(code::AM, 49), Some(10_000));
        assert_eq!(width_of_index(code::FM, 0), None);
        assert_eq!(index_of_width_exact(code::CW, 500), Some(9));
        assert_eq!(index_of_width_exact(code::CW, 520), None);
        assert_eq!(index_of_width(code::CW, 520), Some(9));
        assert_eq!(index_of_width(code::USB, 3000), Some(34));
        assert_eq!(index_of_width(code::USB, 2400), Some(28));
        assert_eq!(index_of_width(code::AM, 9000), Some(44));
        assert_eq!(index_of_width(code::FM, 15000), None);
        assert_eq!(width_range(code::AM), Some((200, 10_000)));
        assert_eq!(width_range(code::WFM), None);
    }
}
