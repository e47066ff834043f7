//! A loaded schedule and the questions the routes ask of it: a filtered, paged station
//! list, the segments of a frequency range, the stations probably heard at a frequency
//! (on the air first, then the nearest), and the broadcast bands with their counts.
//! Rows are sorted by frequency, so a range is two binary searches.

use serde_json::{Value, json};

use super::days::DayRule;
use crate::util::time::UtcParts;

/// An index into the dataset's string table.
pub type Sym = u32;

/// One row of the schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Frequency, Hz.
    pub freq_hz: u32,
    /// Start, minutes since 00:00 UTC.
    pub start: u16,
    /// End, minutes since 00:00 UTC (1440 = 2400; below `start`: past midnight).
    pub end: u16,
    /// The days column, read.
    pub days: DayRule,
    /// The days column as written.
    pub days_text: Sym,
    /// ITU code of the station's country.
    pub itu: Sym,
    /// Station name.
    pub station: Sym,
    /// Language code(s) (`E`, `A,F`).
    pub language: Sym,
    /// Target area code.
    pub target: Sym,
    /// Remarks (transmitter site).
    pub remarks: Sym,
    /// Persistence code (0..9), if readable.
    pub persistence: Option<u8>,
    /// First day (day, month), if given.
    pub valid_from: Option<(u8, u8)>,
    /// Last day (day, month), if given.
    pub valid_to: Option<(u8, u8)>,
    /// The start-date column as written.
    pub start_text: Sym,
    /// The stop-date column as written.
    pub stop_text: Sym,
}

/// The broadcasting bands as `GET /api/v1/eibi/bands` counts them (Hz, inclusive;
/// wider than the ITU edges, because broadcasters also use the frequencies just
/// outside them).
pub const BANDS: &[(&str, u32, u32)] = &[
    ("LW", 148_500, 283_500),
    ("MW", 520_000, 1_710_000),
    ("120m", 2_300_000, 2_500_000),
    ("90m", 3_200_000, 3_400_000),
    ("75m", 3_900_000, 4_000_000),
    ("60m", 4_750_000, 5_100_000),
    ("49m", 5_800_000, 6_300_000),
    ("41m", 7_200_000, 7_600_000),
    ("31m", 9_300_000, 10_000_000),
    ("25m", 11_500_000, 12_200_000),
    ("22m", 13_500_000, 13_900_000),
    ("19m", 15_000_000, 15_900_000),
    ("16m", 17_400_000, 17_950_000),
    ("15m", 18_850_000, 19_050_000),
    ("13m", 21_400_000, 21_900_000),
    ("11m", 25_600_000, 26_200_000),
];

/// The broadcast band of `hz`.
pub fn band_of(hz: u32) -> Option<&'static str> {
    BANDS
        .iter()
        .find(|(_, lo, hi)| (*lo..=*hi).contains(&hz))
        .map(|(n, _, _)| *n)
}

/// Half the width of a station's segment (a 5 kHz HF channel).
pub const HALF_CHANNEL: u32 = 2_500;

/// `GET /api/v1/eibi/stations` filters.
#[derive(Debug, Clone, Default)]
pub struct StationQuery {
    /// A case-insensitive substring of station, country, language, target or remarks.
    pub q: Option<String>,
    /// Lowest frequency, Hz.
    pub freq_min: Option<u64>,
    /// Highest frequency, Hz.
    pub freq_max: Option<u64>,
    /// A language code (matches one of a row's codes).
    pub language: Option<String>,
    /// A target area code.
    pub target: Option<String>,
    /// Only rows on the air now (true) or off it (false).
    pub on_air: Option<bool>,
}

/// See the module docs.
#[derive(Debug)]
pub struct Dataset {
    entries: Vec<Entry>,
    strings: Vec<Box<str>>,
    skipped: usize,
}

impl Dataset {
    /// A dataset of `entries` (sorted by frequency) over `strings`.
    pub fn new(entries: Vec<Entry>, strings: Vec<Box<str>>, skipped: usize) -> Dataset {
        Dataset {
            entries,
            strings,
            skipped,
        }
    }

    /// Rows.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Rows that could not be read.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// Every row, by frequency.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Distinct texts stored.
    pub fn strings_len(&self) -> usize {
        self.strings.len()
    }

    /// The text of `s`.
    pub fn text(&self, s: Sym) -> &str {
        self.strings.get(s as usize).map_or("", |b| b)
    }

    /// True if `e` is on the air at `t`: its time span, its days (for a span past
    /// midnight the day is the one it began on) and its dates.
    pub fn on_air(&self, e: &Entry, t: &UtcParts) -> bool {
        let m = t.minute_of_day as u16;
        let today = if e.start < e.end {
            (e.start..e.end).contains(&m) && e.days.allows(t)
        } else if e.start > e.end {
            (m >= e.start && e.days.allows(t)) || (m < e.end && e.days.allows(&yesterday(t)))
        } else {
            false
        };
        today && in_dates(e, t)
    }

    /// The record of a row.
    pub fn entry_json(&self, e: &Entry, t: &UtcParts) -> Value {
        json!({
            "freq": e.freq_hz,
            "time": format!("{}-{}", hhmm(e.start), hhmm(e.end)),
            "days": self.text(e.days_text),
            "itu": self.text(e.itu),
            "station": self.text(e.station),
            "language": self.text(e.language),
            "target": self.text(e.target),
            "remarks": self.text(e.remarks),
            "persistence": e.persistence,
            "start_date": self.text(e.start_text),
            "stop_date": self.text(e.stop_text),
            "band": band_of(e.freq_hz),
            "on_air": self.on_air(e, t),
        })
    }

    /// The rows `q` selects: their number and page `page` (from 1) of `per_page`.
    pub fn stations(
        &self,
        q: &StationQuery,
        page: usize,
        per_page: usize,
        t: &UtcParts,
    ) -> (usize, Vec<Value>) {
        let text_hit = q.q.as_ref().map(|needle| {
            let n = needle.to_lowercase();
            self.strings
                .iter()
                .map(|s| s.to_lowercase().contains(&n))
                .collect::<Vec<bool>>()
        });
        let lang_hit = q.language.as_ref().map(|l| {
            self.strings
                .iter()
                .map(|s| s.split(',').any(|c| c.trim().eq_ignore_ascii_case(l)))
                .collect::<Vec<bool>>()
        });
        let target_hit = q.target.as_ref().map(|tg| {
            self.strings
                .iter()
                .map(|s| s.eq_ignore_ascii_case(tg))
                .collect::<Vec<bool>>()
        });
        let hit = |v: &Option<Vec<bool>>, s: Sym| v.as_ref().is_none_or(|v| v[s as usize]);
        let lo = q.freq_min.unwrap_or(0);
        let hi = q.freq_max.unwrap_or(u64::MAX);
        let first = self.entries.partition_point(|e| u64::from(e.freq_hz) < lo);
        let skip = page.saturating_sub(1).saturating_mul(per_page);
        let mut total = 0;
        let mut items = Vec::new();
        for e in self.entries[first..]
            .iter()
            .take_while(|e| u64::from(e.freq_hz) <= hi)
        {
            let text_ok = text_hit.as_ref().is_none_or(|v| {
                [e.station, e.itu, e.language, e.target, e.remarks]
                    .iter()
                    .any(|s| v[*s as usize])
            });
            if !text_ok
                || !hit(&lang_hit, e.language)
                || !hit(&target_hit, e.target)
                || q.on_air.is_some_and(|want| self.on_air(e, t) != want)
            {
                continue;
            }
            if total >= skip && items.len() < per_page {
                items.push(self.entry_json(e, t));
            }
            total += 1;
        }
        (total, items)
    }

    /// The rows within `start..=end` (by their channel), clipped, at most `limit`; true
    /// when more were left out.
    pub fn segments(
        &self,
        start: u64,
        end: u64,
        on_air_only: bool,
        t: &UtcParts,
        limit: usize,
    ) -> (Vec<Value>, bool) {
        let half = u64::from(HALF_CHANNEL);
        let first = self
            .entries
            .partition_point(|e| u64::from(e.freq_hz) + half < start);
        let mut out = Vec::new();
        for e in self.entries[first..]
            .iter()
            .take_while(|e| u64::from(e.freq_hz).saturating_sub(half) <= end)
        {
            let on_air = self.on_air(e, t);
            if on_air_only && !on_air {
                continue;
            }
            if out.len() == limit {
                return (out, true);
            }
            let f = u64::from(e.freq_hz);
            out.push(json!({
                "start": f.saturating_sub(half).max(start),
                "end": (f + half).min(end),
                "freq": f,
                "label": self.text(e.station),
                "station": self.text(e.station),
                "language": self.text(e.language),
                "target": self.text(e.target),
                "itu": self.text(e.itu),
                "time": format!("{}-{}", hhmm(e.start), hhmm(e.end)),
                "days": self.text(e.days_text),
                "on_air": on_air,
                "layer": "eibi",
                "mode": "broadcast",
                "color": "#C084FC",
            }));
        }
        (out, false)
    }

    /// The rows within `tolerance` of `freq`: on the air first, then by distance; at
    /// most `limit`.
    pub fn identify(&self, freq: u64, tolerance: u64, t: &UtcParts, limit: usize) -> Vec<Value> {
        let lo = freq.saturating_sub(tolerance);
        let first = self.entries.partition_point(|e| u64::from(e.freq_hz) < lo);
        let mut found: Vec<(bool, u64, &Entry)> = self.entries[first..]
            .iter()
            .take_while(|e| u64::from(e.freq_hz) <= freq + tolerance)
            .map(|e| (self.on_air(e, t), u64::from(e.freq_hz).abs_diff(freq), e))
            .collect();
        found.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(a.1.cmp(&b.1))
                .then_with(|| self.text(a.2.station).cmp(self.text(b.2.station)))
        });
        found
            .into_iter()
            .take(limit)
            .map(|(_, d, e)| {
                let mut v = self.entry_json(e, t);
                v["distance"] = json!(d);
                v
            })
            .collect()
    }

    /// Every broadcast band with its rows and those on the air.
    pub fn bands(&self, t: &UtcParts) -> Vec<Value> {
        BANDS
            .iter()
            .map(|&(name, lo, hi)| {
                let first = self.entries.partition_point(|e| e.freq_hz < lo);
                let rows = self.entries[first..].iter().take_while(|e| e.freq_hz <= hi);
                let (mut total, mut on_air) = (0, 0);
                for e in rows {
                    total += 1;
                    on_air += usize::from(self.on_air(e, t));
                }
                json!({"name": name, "start": lo, "end": hi, "total": total, "on_air": on_air})
            })
            .collect()
    }
}

fn hhmm(minutes: u16) -> String {
    format!("{:02}{:02}", minutes / 60, minutes % 60)
}

/// The day before `t` (only the fields day rules read).
fn yesterday(t: &UtcParts) -> UtcParts {
    let mut y = *t;
    y.weekday = (t.weekday + 6) % 7;
    if t.day > 1 {
        y.day = t.day - 1;
    } else {
        y.month = if t.month == 1 { 12 } else { t.month - 1 };
        y.day = MONTH_DAYS[(y.month - 1) as usize];
    }
    y
}

const MONTH_DAYS: [u32; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/// Day of a (non-leap) year, 0..365.
fn ordinal(day: u32, month: u32) -> i32 {
    let before: u32 = MONTH_DAYS[..(month.clamp(1, 12) - 1) as usize].iter().sum();
    (before + day) as i32 - if month > 2 { 1 } else { 0 }
}

/// `to - from` in days, taken the short way round the year (-182..=182).
fn days_between(from: i32, to: i32) -> i32 {
    (to - from + 182).rem_euclid(365) - 182
}

/// True unless `t` is before the row's first date or after its last (dates are taken
/// within half a year of today, so a winter season spanning New Year works).
fn in_dates(e: &Entry, t: &UtcParts) -> bool {
    let today = ordinal(t.day, t.month);
    let started = e
        .valid_from
        .is_none_or(|(d, m)| days_between(ordinal(u32::from(d), u32::from(m)), today) >= 0);
    let not_ended = e
        .valid_to
        .is_none_or(|(d, m)| days_between(today, ordinal(u32::from(d), u32::from(m))) >= 0);
    started && not_ended
}

#[cfg(test)]
mod tests;
