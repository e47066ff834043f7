//! Calendar arithmetic for the radio's clock (UTC, proleptic Gregorian calendar):
//! seconds since the Unix epoch to a date and a time of day and back (H. Hinnant's
//! `civil_from_days` / `days_from_civil`).

/// A date and a time of day, UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DateTime {
    /// Year (1970..=9999 for what a radio shows).
    pub year: i64,
    /// Month 1..=12.
    pub month: u32,
    /// Day 1..=31.
    pub day: u32,
    /// Hour 0..=23.
    pub hour: u32,
    /// Minute 0..=59.
    pub minute: u32,
    /// Second 0..=59.
    pub second: u32,
}

const DAY_S: i64 = 86_400;

/// Days since 1970-01-01 of a date.
pub(super) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number (days since 1970-01-01).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Seconds since the epoch as a date and time.
pub(super) fn from_unix(s: i64) -> DateTime {
    let days = s.div_euclid(DAY_S);
    let sod = s.rem_euclid(DAY_S);
    let (year, month, day) = civil_from_days(days);
    DateTime {
        year,
        month,
        day,
        hour: (sod / 3_600) as u32,
        minute: (sod % 3_600 / 60) as u32,
        second: (sod % 60) as u32,
    }
}

/// A date and time as seconds since the epoch.
pub(super) fn to_unix(t: &DateTime) -> i64 {
    days_from_civil(t.year, t.month, t.day) * DAY_S
        + i64::from(t.hour) * 3_600
        + i64::from(t.minute) * 60
        + i64::from(t.second)
}

/// True if `day` exists in `month` of `year`.
pub(super) fn valid_date(year: i64, month: u32, day: u32) -> bool {
    if !(1..=12).contains(&month) || day == 0 {
        return false;
    }
    let next = if month == 12 {
        days_from_civil(year + 1, 1, 1)
    } else {
        days_from_civil(year, month + 1, 1)
    };
    i64::from(day) <= next - days_from_civil(year, month, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(
            from_unix(1_735_689_600),
            DateTime {
                year: 2025,
                month: 1,
                day: 1,
                hour: 0,
                minute: 0,
                second: 0
            }
        );
        let t = from_unix(951_827_696); // 2000-02-29 12:34:56
        assert_eq!((t.year, t.month, t.day), (2000, 2, 29));
        assert_eq!((t.hour, t.minute, t.second), (12, 34, 56));
        for s in [0, 86_399, 951_827_696, 4_102_444_800, 253_402_300_799] {
            assert_eq!(to_unix(&from_unix(s)), s);
        }
        assert!(valid_date(2024, 2, 29));
        assert!(!valid_date(2025, 2, 29));
        assert!(!valid_date(2025, 4, 31));
        assert!(!valid_date(2025, 13, 1));
        assert!(!valid_date(2025, 1, 0));
    }
}
