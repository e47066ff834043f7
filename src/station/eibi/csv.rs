//! Reading an EiBi season file: ISO-8859-1, CRLF, `;` separated, a header line
//!
//! ```text
//! kHz:75;Time(UTC):93;Days:59;ITU:49;Station:201;Lng:49;Target:62;Remarks:135;P:35;Start:60;Stop:60;
//! ```
//!
//! then ~10,000-10,500 rows of 10 semicolons each. Rows that cannot be read (no
//! frequency, a bad time, too few fields) are counted and skipped, never a panic. Every
//! text column is interned: a season file repeats a few thousand distinct strings, so a
//! loaded schedule costs about 50 bytes a row.

use std::collections::HashMap;

use super::dataset::{Dataset, Entry, Sym};
use super::days::{DayRule, day_month, time_span};

/// Why a file is not a schedule at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotASchedule(pub String);

impl std::fmt::Display for NotASchedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The first field of the header line.
const HEADER_START: &str = "kHz";
/// Fields a row must have: frequency, time, days, ITU, station, language, target.
const MIN_FIELDS: usize = 7;
/// Frequencies taken (Hz): long wave to the top of HF and a little more.
const FREQ_RANGE: std::ops::RangeInclusive<u64> = 10_000..=100_000_000;
/// The longest text kept of a column, in characters.
const MAX_FIELD: usize = 80;

/// Parses a whole file.
pub fn parse(bytes: &[u8]) -> Result<Dataset, NotASchedule> {
    let mut lines = bytes
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let header = lines
        .by_ref()
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .ok_or_else(|| NotASchedule("the file is empty".into()))?;
    if !header.starts_with(HEADER_START.as_bytes()) {
        return Err(NotASchedule(format!(
            "not an EiBi schedule: the first line does not start with \"{HEADER_START}\""
        )));
    }
    let mut b = Builder::default();
    for line in lines {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if !b.row(line) {
            b.skipped += 1;
        }
    }
    if b.entries.is_empty() {
        return Err(NotASchedule(format!(
            "no readable rows ({} skipped)",
            b.skipped
        )));
    }
    Ok(b.finish())
}

#[derive(Default)]
struct Builder {
    entries: Vec<Entry>,
    strings: Vec<Box<str>>,
    index: HashMap<Box<str>, Sym>,
    skipped: usize,
    text: String,
}

impl Builder {
    fn intern(&mut self, field: &[u8]) -> Sym {
        // ISO-8859-1: every byte is the code point of the same value
        self.text.clear();
        self.text.extend(
            field
                .iter()
                .map(|&b| char::from(b))
                .filter(|c| !c.is_control())
                .take(MAX_FIELD),
        );
        let t = self.text.trim();
        if let Some(&s) = self.index.get(t) {
            return s;
        }
        let s = self.strings.len() as Sym;
        let boxed: Box<str> = t.into();
        self.strings.push(boxed.clone());
        self.index.insert(boxed, s);
        s
    }

    /// Adds a row; false when it cannot be read.
    fn row(&mut self, line: &[u8]) -> bool {
        let f: Vec<&[u8]> = line.split(|&b| b == b';').collect();
        if f.len() < MIN_FIELDS {
            return false;
        }
        let text = |i: usize| std::str::from_utf8(f.get(i).copied().unwrap_or(b"")).unwrap_or("");
        let Some(freq_hz) = parse_khz(text(0)) else {
            return false;
        };
        let Some((start, end)) = time_span(text(1)) else {
            return false;
        };
        let field = |i: usize| f.get(i).copied().unwrap_or(b"");
        let days_sym = self.intern(field(2));
        let days = DayRule::parse(&self.strings[days_sym as usize]);
        let entry = Entry {
            freq_hz,
            start,
            end,
            days,
            days_text: days_sym,
            itu: self.intern(field(3)),
            station: self.intern(field(4)),
            language: self.intern(field(5)),
            target: self.intern(field(6)),
            remarks: self.intern(field(7)),
            persistence: text(8).trim().parse().ok().filter(|p: &u8| *p <= 9),
            valid_from: day_month(text(9)),
            valid_to: day_month(text(10)),
            start_text: self.intern(field(9)),
            stop_text: self.intern(field(10)),
        };
        self.entries.push(entry);
        true
    }

    fn finish(mut self) -> Dataset {
        self.entries.sort_by_key(|e| (e.freq_hz, e.start));
        self.entries.shrink_to_fit();
        self.strings.shrink_to_fit();
        Dataset::new(self.entries, self.strings, self.skipped)
    }
}

/// `6070`, `6070.5`, ` 9420.0` (kHz) to Hz.
fn parse_khz(s: &str) -> Option<u32> {
    let hz = crate::station::khz::to_hz(s.trim(), 6)?;
    FREQ_RANGE
        .contains(&hz)
        .then(|| u32::try_from(hz).ok())
        .flatten()
}

#[cfg(test)]
mod tests;
