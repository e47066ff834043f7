//! EiBi's day and date columns: when a transmission is on the air.
//!
//! Days (about 110 distinct codes in a season file): empty = daily; ranges `Mo-Fr`,
//! `We-Mo` (wrapping past Sunday); runs of abbreviations `SaSu`, `MoWeFr`; lists `Tu,Fr`;
//! digits `156` (1 = Monday .. 7 = Sunday); `1.Sa` (the first Saturday of the month);
//! dates `8Jun`; and words (`irr`, `alt`, `Tests`, `Ram`, ...) that say nothing about the
//! day, taken as "any day". Start and stop dates are `DDMM`, sometimes with a note
//! (`1104[0426]`).

use crate::util::time::UtcParts;

/// When in the week (or year) a row is on the air.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DayRule {
    /// Every day.
    Daily,
    /// These weekdays: bit 0 = Monday .. bit 6 = Sunday.
    Weekdays(u8),
    /// The `nth` (1..=5) given weekday (0 = Monday) of each month.
    NthWeekday {
        /// Which occurrence.
        nth: u8,
        /// Which weekday.
        weekday: u8,
    },
    /// One date of the year.
    Date {
        /// Day of the month.
        day: u8,
        /// Month, 1..=12.
        month: u8,
    },
    /// A code that says nothing about the day (`irr`, `alt`, `Tests`, ...).
    Unspecified,
}

const DAYS: [&str; 7] = ["mo", "tu", "we", "th", "fr", "sa", "su"];
const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

impl DayRule {
    /// Reads a days column.
    pub fn parse(s: &str) -> DayRule {
        let s = s.trim();
        if s.is_empty() {
            return DayRule::Daily;
        }
        let mut mask = 0u8;
        if s.split(',').all(|item| match weekday_set(item.trim()) {
            Some(m) => {
                mask |= m;
                true
            }
            None => false,
        }) && mask != 0
        {
            return if mask == 0x7F {
                DayRule::Daily
            } else {
                DayRule::Weekdays(mask)
            };
        }
        nth_weekday(s)
            .or_else(|| date(s))
            .unwrap_or(DayRule::Unspecified)
    }

    /// True if the rule allows the day of `t`.
    pub fn allows(&self, t: &UtcParts) -> bool {
        match *self {
            DayRule::Daily | DayRule::Unspecified => true,
            DayRule::Weekdays(m) => m & (1 << t.weekday) != 0,
            DayRule::NthWeekday { nth, weekday } => {
                u32::from(weekday) == t.weekday && (t.day - 1) / 7 + 1 == u32::from(nth)
            }
            DayRule::Date { day, month } => u32::from(day) == t.day && u32::from(month) == t.month,
        }
    }
}

/// `Mo`, `Mo-Fr`, `SaSu`, `156`, `1-5` to a weekday mask.
fn weekday_set(item: &str) -> Option<u8> {
    if item.is_empty() {
        return None;
    }
    if item.bytes().all(|b| (b'1'..=b'7').contains(&b)) {
        return Some(item.bytes().fold(0, |m, b| m | 1 << (b - b'1')));
    }
    if let Some((a, b)) = item.split_once('-') {
        let (a, b) = (day_index(a)?, day_index(b)?);
        let mut m = 0;
        let mut d = a;
        loop {
            m |= 1 << d;
            if d == b {
                return Some(m);
            }
            d = (d + 1) % 7;
        }
    }
    if !item.len().is_multiple_of(2) || !item.is_ascii() {
        return None;
    }
    (0..item.len())
        .step_by(2)
        .try_fold(0u8, |m, i| Some(m | 1 << day_index(&item[i..i + 2])?))
}

/// `Mo` (or `1`) to 0 .. `Su` (or `7`) to 6.
fn day_index(s: &str) -> Option<u8> {
    if let [d @ b'1'..=b'7'] = s.as_bytes() {
        return Some(d - b'1');
    }
    let lower = s.to_ascii_lowercase();
    DAYS.iter().position(|d| *d == lower).map(|i| i as u8)
}

/// `1.Sa` .. `5.Su`.
fn nth_weekday(s: &str) -> Option<DayRule> {
    let (n, d) = s.split_once('.')?;
    let nth: u8 = n.parse().ok().filter(|n| (1..=5).contains(n))?;
    Some(DayRule::NthWeekday {
        nth,
        weekday: day_index(d)?,
    })
}

/// `8Jun`, `24Dec`.
fn date(s: &str) -> Option<DayRule> {
    let split = s.find(|c: char| !c.is_ascii_digit())?;
    let (d, m) = s.split_at(split);
    let day: u8 = d.parse().ok().filter(|d| (1..=31).contains(d))?;
    let lower = m.to_ascii_lowercase();
    let month = MONTHS.iter().position(|x| *x == lower)? as u8 + 1;
    Some(DayRule::Date { day, month })
}

/// A start or stop date: `DDMM`, possibly followed by a note; None when unreadable.
pub fn day_month(s: &str) -> Option<(u8, u8)> {
    let b = s.trim().as_bytes();
    let digits = b.get(..4)?;
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let day = (digits[0] - b'0') * 10 + (digits[1] - b'0');
    let month = (digits[2] - b'0') * 10 + (digits[3] - b'0');
    ((1..=31).contains(&day) && (1..=12).contains(&month)).then_some((day, month))
}

/// Minutes since midnight of `HHMM-HHMM` (the end may be `2400`).
pub fn time_span(s: &str) -> Option<(u16, u16)> {
    let (a, b) = s.trim().split_once('-')?;
    let minutes = |t: &str, end: bool| -> Option<u16> {
        if t.len() != 4 || !t.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let (h, m) = (t[..2].parse::<u16>().ok()?, t[2..].parse::<u16>().ok()?);
        let v = h * 60 + m;
        (m < 60 && (v < 1440 || (end && v == 1440))).then_some(v)
    };
    Some((minutes(a, false)?, minutes(b, true)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2025-06-07 was a Saturday (the first of the month), 2025-06-08 a Sunday.
    fn on(day: u32, weekday: u32) -> UtcParts {
        UtcParts {
            year: 2025,
            month: 6,
            day,
            weekday,
            minute_of_day: 600,
        }
    }

    #[test]
    fn the_day_codes_of_a_season_file() {
        let mask = |s| match DayRule::parse(s) {
            DayRule::Weekdays(m) => m,
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(mask("Mo-Fr"), 0b001_1111);
        assert_eq!(mask("We-Mo"), 0b111_1101, "wraps past Sunday");
        assert_eq!(mask("SaSu"), 0b110_0000);
        assert_eq!(mask("MoWeFr"), 0b001_0101);
        assert_eq!(mask("Tu,Fr"), 0b001_0010);
        assert_eq!(mask("156"), 0b011_0001);
        assert_eq!(mask("Mo-Fr,Su"), 0b101_1111);
        assert_eq!(mask("1-5"), 0b001_1111);
        assert_eq!(DayRule::parse(""), DayRule::Daily);
        assert_eq!(DayRule::parse("1234567"), DayRule::Daily);
        assert_eq!(DayRule::parse("Mo-Su"), DayRule::Daily);
        assert_eq!(
            DayRule::parse("1.Sa"),
            DayRule::NthWeekday { nth: 1, weekday: 5 }
        );
        assert_eq!(DayRule::parse("8Jun"), DayRule::Date { day: 8, month: 6 });
        for other in [
            "irr", "alt", "Tests", "Ram", "tent", "6.Sa", "32Jan", "Mo-", "x,Mo", "Mö", "8Jux", "0",
        ] {
            assert_eq!(DayRule::parse(other), DayRule::Unspecified, "{other}");
        }
    }

    #[test]
    fn rules_allow_their_days() {
        let sat1 = on(7, 5);
        let sun = on(8, 6);
        assert!(DayRule::parse("SaSu").allows(&sat1));
        assert!(!DayRule::parse("Mo-Fr").allows(&sun));
        assert!(DayRule::parse("1.Sa").allows(&sat1));
        assert!(!DayRule::parse("2.Sa").allows(&sat1));
        assert!(
            !DayRule::parse("1.Sa").allows(&on(14, 5)),
            "the second Saturday"
        );
        assert!(DayRule::parse("8Jun").allows(&sun));
        assert!(!DayRule::parse("8Jun").allows(&sat1));
        assert!(DayRule::parse("irr").allows(&sun));
    }

    #[test]
    fn times_and_dates() {
        assert_eq!(time_span("0000-2400"), Some((0, 1440)));
        assert_eq!(time_span("2330-0030"), Some((1410, 30)));
        for bad in [
            "2400-0100",
            "0060-0100",
            "000-0100",
            "0000_2400",
            "",
            "-",
            "ab00-0100",
            "0000-2401",
        ] {
            assert_eq!(time_span(bad), None, "{bad}");
        }
        assert_eq!(day_month("1104[0426]"), Some((11, 4)));
        assert_eq!(day_month("2903"), Some((29, 3)));
        for bad in ["", "11", "3213", "0013", "ab04", "1é04"] {
            assert_eq!(day_month(bad), None, "{bad}");
        }
    }
}
