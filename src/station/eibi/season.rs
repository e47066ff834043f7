//! EiBi's schedule seasons (those of HFCC): A from the last Sunday of March to the last
//! Sunday of October, B the rest; a B season spans two years and is named after the
//! first (`b24` runs from October 2024 to March 2025). Seasons change at 01:00 UTC, when
//! Europe's clocks change.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::util::time::{days_from_civil, utc_parts};

/// A schedule season.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Season {
    /// True for A (summer), false for B (winter).
    pub summer: bool,
    /// The year it starts in.
    pub year: i64,
}

impl Season {
    /// The season `t` falls in.
    pub fn at(t: SystemTime) -> Season {
        let year = utc_parts(t).year;
        if t < change(year, 3) {
            Season {
                summer: false,
                year: year - 1,
            }
        } else if t < change(year, 10) {
            Season { summer: true, year }
        } else {
            Season {
                summer: false,
                year,
            }
        }
    }

    /// `a25`, `b24`.
    pub fn name(self) -> String {
        format!(
            "{}{:02}",
            if self.summer { 'a' } else { 'b' },
            self.year.rem_euclid(100)
        )
    }

    /// When the season after this one begins.
    pub fn end(self) -> SystemTime {
        if self.summer {
            change(self.year, 10)
        } else {
            change(self.year + 1, 3)
        }
    }
}

/// 01:00 UTC on the last Sunday of `month` (3 or 10) of `year`.
fn change(year: i64, month: u32) -> SystemTime {
    let last_day = days_from_civil(year, month, 31);
    // 1970-01-01 was a Thursday: weekday 0 = Monday
    let weekday = (last_day + 3).rem_euclid(7);
    let sunday = last_day - (weekday - 6).rem_euclid(7);
    let secs = sunday * 86_400 + 3600;
    UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).unwrap_or(0))
}

/// The URL of the schedule for a season: `--eibi-url` may hold `{season}`, replaced by
/// the season's name; without it the URL is used as given whatever the season.
pub fn season_url(template: &str, season: Season) -> String {
    template.replace("{season}", &season.name())
}

/// The EiBi site's current-season CSV.
pub const DEFAULT_URL: &str = "http://www.eibispace.de/dx/sked-{season}.csv";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::time::parse_iso8601;

    fn at(s: &str) -> Season {
        Season::at(parse_iso8601(s).unwrap())
    }

    #[test]
    fn seasons_change_on_the_last_sundays_of_march_and_october() {
        // 2025: last Sundays are 30 March and 26 October
        assert_eq!(at("2025-03-30T00:59:59Z").name(), "b24");
        assert_eq!(at("2025-03-30T01:00:00Z").name(), "a25");
        assert_eq!(at("2025-10-26T00:59:00Z").name(), "a25");
        assert_eq!(at("2025-10-26T01:00:00Z").name(), "b25");
        assert_eq!(
            at("2026-01-15T12:00:00Z").name(),
            "b25",
            "B is named after its first year"
        );
        // 2026: 29 March, 25 October; 2000 (leap): 26 March
        assert_eq!(at("2026-03-29T01:00:00Z").name(), "a26");
        assert_eq!(at("2026-10-24T23:00:00Z").name(), "a26");
        assert_eq!(at("2000-03-26T02:00:00Z").name(), "a00");
        assert_eq!(at("2000-03-25T02:00:00Z").name(), "b99");
        let a25 = at("2025-06-01T00:00:00Z");
        assert_eq!(Some(a25.end()), parse_iso8601("2025-10-26T01:00:00Z"));
        assert_eq!(
            Some(at("2025-12-01T00:00:00Z").end()),
            parse_iso8601("2026-03-29T01:00:00Z")
        );
    }

    #[test]
    fn the_url_names_the_season() {
        let s = at("2025-06-01T00:00:00Z");
        assert_eq!(
            season_url(DEFAULT_URL, s),
            "http://www.eibispace.de/dx/sked-a25.csv"
        );
        assert_eq!(
            season_url("http://127.0.0.1:9/x.csv", s),
            "http://127.0.0.1:9/x.csv"
        );
    }
}
