//! The spots kept for `GET /api/v1/dx/spots`: newest first, at most [`CAPACITY`], and a
//! spot of a call already spotted on the same band within [`MERGE_WINDOW`] replaces the
//! older one (the newest wins).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::spot::SpotLine;
use crate::station::ham_bands::band_of;
use crate::util::time::iso8601;
use crate::wire::civ::Mode;

/// Spots kept.
pub const CAPACITY: usize = 500;
/// Two spots of one call on one band this close in time are one.
pub const MERGE_WINDOW: Duration = Duration::from_secs(600);

/// Where a spot came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpotSource {
    /// A DX cluster node (`--dx-cluster`).
    Cluster,
    /// The Reverse Beacon Network or another skimmer feed (`--rbn`).
    Rbn,
}

impl SpotSource {
    /// The name in `source`.
    pub fn as_str(self) -> &'static str {
        match self {
            SpotSource::Cluster => "cluster",
            SpotSource::Rbn => "rbn",
        }
    }
}

/// A spot as served (decisions.md "Station data"), plus where it came from, its band
/// and the mode it implies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spot {
    /// The line's fields.
    pub line: SpotLine,
    /// When it arrived.
    pub received_at: SystemTime,
    /// Which feed.
    pub source: SpotSource,
    /// The mode its comment or frequency implies.
    pub mode: Option<Mode>,
}

impl Spot {
    /// The amateur band of the spot, if it is in one.
    pub fn band(&self) -> Option<&'static str> {
        band_of(self.line.freq_hz).map(|b| b.name)
    }

    /// What "the same band" means for merging: the band, else the MHz.
    fn band_key(&self) -> (Option<&'static str>, u64) {
        match self.band() {
            Some(b) => (Some(b), 0),
            None => (None, self.line.freq_hz / 1_000_000),
        }
    }

    /// The JSON record.
    pub fn to_json(&self) -> Value {
        let l = &self.line;
        json!({
            "spotter": l.spotter,
            "freq": l.freq_hz,
            "call": l.call,
            "comment": l.comment,
            "time_utc": l.time_utc,
            "received_at": iso8601(self.received_at),
            "source": self.source.as_str(),
            "band": self.band(),
            "mode": self.mode.map(Mode::name),
        })
    }
}

/// What `GET /api/v1/dx/spots` asks for.
#[derive(Debug, Clone, Default)]
pub struct SpotQuery {
    /// At most this many (newest first).
    pub limit: Option<usize>,
    /// Only this band (a name of [`crate::station::ham_bands::HAM_BANDS`]).
    pub band: Option<&'static str>,
    /// Only spots received after this.
    pub since: Option<SystemTime>,
}

/// See the module docs.
#[derive(Debug, Default)]
pub struct SpotBuffer {
    spots: VecDeque<Arc<Spot>>,
}

impl SpotBuffer {
    /// Adds a spot; true when it replaced an older one of the same call and band.
    pub fn insert(&mut self, spot: Arc<Spot>) -> bool {
        let key = spot.band_key();
        let merged = self
            .spots
            .iter()
            .position(|old| {
                old.line.call == spot.line.call
                    && old.band_key() == key
                    && within(old.received_at, spot.received_at, MERGE_WINDOW)
            })
            .and_then(|i| self.spots.remove(i))
            .is_some();
        self.spots.push_front(spot);
        self.spots.truncate(CAPACITY);
        merged
    }

    /// Spots kept.
    pub fn len(&self) -> usize {
        self.spots.len()
    }

    /// True with none.
    pub fn is_empty(&self) -> bool {
        self.spots.is_empty()
    }

    /// The spots `q` asks for, newest first.
    pub fn query(&self, q: &SpotQuery) -> Vec<Arc<Spot>> {
        self.spots
            .iter()
            .filter(|s| q.band.is_none_or(|b| s.band() == Some(b)))
            .filter(|s| q.since.is_none_or(|t| s.received_at > t))
            .take(q.limit.unwrap_or(CAPACITY))
            .cloned()
            .collect()
    }
}

fn within(a: SystemTime, b: SystemTime, window: Duration) -> bool {
    let d = a.duration_since(b).or_else(|_| b.duration_since(a));
    d.is_ok_and(|d| d <= window)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    fn spot(call: &str, khz: u64, at_s: u64) -> Arc<Spot> {
        Arc::new(Spot {
            line: SpotLine {
                spotter: "K1ABC".into(),
                freq_hz: khz * 1000,
                call: call.into(),
                comment: String::new(),
                time_utc: String::new(),
                locator: None,
            },
            received_at: UNIX_EPOCH + Duration::from_secs(1_700_000_000 + at_s),
            source: SpotSource::Cluster,
            mode: None,
        })
    }

    #[test]
    fn duplicates_on_one_band_within_ten_minutes_merge_and_the_newest_wins() {
        let mut b = SpotBuffer::default();
        assert!(!b.insert(spot("JA1XYZ", 14_025, 0)));
        assert!(!b.insert(spot("JA1XYZ", 7_025, 10)), "another band");
        assert!(
            b.insert(spot("JA1XYZ", 14_030, 590)),
            "same band, 590 s later"
        );
        assert_eq!(b.len(), 2);
        let all = b.query(&SpotQuery::default());
        assert_eq!(
            all[0].line.freq_hz, 14_030_000,
            "newest first, the newer kept"
        );
        assert!(
            !b.insert(spot("JA1XYZ", 14_031, 590 + 601)),
            "more than 10 min later"
        );
        assert_eq!(b.len(), 3);
    }

    #[test]
    fn the_buffer_keeps_five_hundred_and_queries_filter() {
        let mut b = SpotBuffer::default();
        for i in 0..700 {
            b.insert(spot(
                &format!("CALL{i}"),
                if i % 2 == 0 { 14_000 } else { 7_000 },
                i,
            ));
        }
        assert_eq!(b.len(), CAPACITY);
        let newest = b.query(&SpotQuery {
            limit: Some(3),
            ..Default::default()
        });
        let calls: Vec<&str> = newest.iter().map(|s| s.line.call.as_str()).collect();
        assert_eq!(calls, ["CALL699", "CALL698", "CALL697"]);
        let forty = b.query(&SpotQuery {
            band: Some("40m"),
            ..Default::default()
        });
        assert_eq!(forty.len(), 250);
        assert!(forty.iter().all(|s| s.band() == Some("40m")));
        let since = UNIX_EPOCH + Duration::from_secs(1_700_000_000 + 695);
        let recent = b.query(&SpotQuery {
            since: Some(since),
            ..Default::default()
        });
        assert_eq!(recent.len(), 4, "strictly after");
    }

    #[test]
    fn the_record_has_the_fields_of_the_decision() {
        let s = spot("JA1XYZ", 14_025, 0);
        let v = s.to_json();
        for k in [
            "spotter",
            "freq",
            "call",
            "comment",
            "time_utc",
            "received_at",
            "source",
        ] {
            assert!(v.get(k).is_some(), "{k} in {v}");
        }
        assert_eq!(v["freq"], 14_025_000);
        assert_eq!(v["band"], "20m");
        assert_eq!(v["received_at"], "2023-11-14T22:13:20.000000+00:00");
    }
}
