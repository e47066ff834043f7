//! Frequencies written in kHz with up to three decimals (`14025.0`, `7018.20`,
//! `6070`), as the cluster spots and the EiBi schedule write them, to Hz.

/// `s` in Hz: at most `max_int_digits` digits before the point and three after it,
/// nothing else; `None` for anything else.
pub fn to_hz(s: &str, max_int_digits: usize) -> Option<u64> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty()
        || int.len() > max_int_digits
        || frac.len() > 3
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut hz: u64 = int.parse::<u64>().ok()? * 1000;
    let mut scale = 100;
    for b in frac.bytes() {
        hz += u64::from(b - b'0') * scale;
        scale /= 10;
    }
    Some(hz)
}

#[cfg(test)]
mod tests {
    use super::to_hz;

    #[test]
    fn decimals_and_refusals() {
        assert_eq!(to_hz("14025.0", 9), Some(14_025_000));
        assert_eq!(to_hz("7018.20", 9), Some(7_018_200));
        assert_eq!(to_hz("1294068.2", 9), Some(1_294_068_200));
        assert_eq!(to_hz("6070", 6), Some(6_070_000));
        assert_eq!(to_hz("0.137", 6), Some(137));
        for bad in [
            "", ".5", "1.2345", "12a", "-1", "1 2", "1234567", "1..2", "+5",
        ] {
            assert_eq!(to_hz(bad, 6), None, "{bad:?}");
        }
    }
}
