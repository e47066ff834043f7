//! ISO 8601 timestamps without a date-time crate.

use std::time::{SystemTime, UNIX_EPOCH};

/// Formats `t` as UTC ISO 8601 with microseconds and an explicit offset,
/// e.g. `2026-11-22T10:00:00.123456+00:00`.
pub fn iso8601(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let micros = d.subsec_micros();
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, dd) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{dd:02}T{:02}:{:02}:{:02}.{micros:06}+00:00",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// (year, month, day) to days since 1970-01-01, the inverse of [`civil_from_days`].
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A UTC instant taken apart: what calendars and schedules ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtcParts {
    /// Year.
    pub year: i64,
    /// Month, 1..=12.
    pub month: u32,
    /// Day of the month, 1..=31.
    pub day: u32,
    /// Day of the week, 0 = Monday .. 6 = Sunday.
    pub weekday: u32,
    /// Minutes since midnight, 0..1440.
    pub minute_of_day: u32,
}

/// `t` in UTC, taken apart (instants before 1970 count as 1970-01-01).
pub fn utc_parts(t: SystemTime) -> UtcParts {
    let secs = t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs() as i64;
    let days = secs.div_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    UtcParts {
        year,
        month,
        day,
        // 1970-01-01 was a Thursday
        weekday: (days + 3).rem_euclid(7) as u32,
        minute_of_day: (secs.rem_euclid(86_400) / 60) as u32,
    }
}

/// Parses an ISO 8601 UTC timestamp as [`iso8601`] writes it, also with `Z`, another
/// offset, no fraction or no seconds: `2026-03-15T10:00:00.123+00:00`,
/// `2026-03-15T10:00Z`. None for anything else.
pub fn parse_iso8601(s: &str) -> Option<SystemTime> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    if b.len() < 17 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi) = (num(11..13)?, num(14..16)?);
    if b[13] != b':' || !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 {
        return None;
    }
    let mut i = 16;
    let mut sec = 0;
    let mut nanos: u64 = 0;
    if b.get(i) == Some(&b':') {
        sec = num(i + 1..i + 3)?;
        if sec > 60 {
            return None;
        }
        i += 3;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                if i - start < 9 {
                    nanos = nanos * 10 + u64::from(b[i] - b'0');
                }
                i += 1;
            }
            if i == start {
                return None;
            }
            for _ in (i - start)..9 {
                nanos *= 10;
            }
        }
    }
    let offset_min: i64 = match &b[i..] {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), ..] if b.len() - i == 6 && b[i + 3] == b':' => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let o = oh * 60 + om;
            if *sign == b'-' { -o } else { o }
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo as u32, d as u32);
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_min * 60;
    let secs = u64::try_from(secs).ok()?;
    Some(UNIX_EPOCH + std::time::Duration::new(secs, nanos as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn known_instants() {
        assert_eq!(iso8601(UNIX_EPOCH), "1970-01-01T00:00:00.000000+00:00");
        let t = UNIX_EPOCH + Duration::from_millis(1_773_568_800_123);
        assert_eq!(iso8601(t), "2026-03-15T10:00:00.123000+00:00");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(&iso8601(leap)[..10], "2000-02-29");
    }

    #[test]
    fn days_and_civil_dates_round_trip_and_weekdays_are_right() {
        for days in [-1000, 0, 59, 60, 10_957, 11_016, 20_527, 40_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        // 2026-03-15 was a Sunday, 2000-02-29 a Tuesday
        let p = utc_parts(UNIX_EPOCH + Duration::from_secs(1_773_568_800 + 61));
        assert_eq!((p.year, p.month, p.day, p.weekday), (2026, 3, 15, 6));
        assert_eq!(p.minute_of_day, 10 * 60 + 1);
        assert_eq!(
            utc_parts(UNIX_EPOCH + Duration::from_secs(951_782_400)).weekday,
            1
        );
    }

    #[test]
    fn iso8601_parses_what_it_writes_and_other_offsets() {
        let t = UNIX_EPOCH + Duration::from_micros(1_773_568_800_123_456);
        assert_eq!(parse_iso8601(&iso8601(t)), Some(t));
        let whole = UNIX_EPOCH + Duration::from_secs(1_773_568_800);
        assert_eq!(parse_iso8601("2026-03-15T10:00:00Z"), Some(whole));
        assert_eq!(parse_iso8601("2026-03-15T10:00Z"), Some(whole));
        assert_eq!(parse_iso8601("2026-03-15T12:00:00+02:00"), Some(whole));
        assert_eq!(parse_iso8601("2026-03-15T09:30:00-00:30"), Some(whole));
        for bad in [
            "",
            "2026-03-15",
            "2026-13-15T10:00Z",
            "2026-03-15T25:00Z",
            "2026-03-15T10:00:00",
            "2026-03-15T10:00:00.Z",
            "2026-03-15T10:00:00+0200",
            "1969-12-31T23:59:59Z",
            "2026-03-15T10:00:00Zjunk",
            "２０２６-03-15T10:00Z",
        ] {
            assert_eq!(parse_iso8601(bad), None, "{bad:?}");
        }
    }
}
