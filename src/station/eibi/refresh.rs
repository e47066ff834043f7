//! When to fetch the schedule, as a sans-IO machine fed the wall-clock time (seasons and
//! weekly refreshes are calendar matters, so its clock is `SystemTime`, passed in):
//!
//! - at start: the cache of this season's file, fetched less than a week ago, is fresh;
//!   anything else (no cache, another season, another URL) is fetched at once;
//! - a week after every successful check, again, conditionally (`If-None-Match` /
//!   `If-Modified-Since` with what the server last said): the file is revised within a
//!   season, and a 304 costs a few hundred bytes;
//! - when the season changes, the new season's file at once;
//! - after a failure, again after 1 min, doubling up to 6 h (the data in hand is kept);
//! - `POST /api/v1/eibi/fetch` asks now: conditionally, or with `force` unconditionally.

use std::time::{Duration, SystemTime};

use super::season::{Season, season_url};

/// What the server said about the file last time (for a conditional GET).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validators {
    /// `ETag`.
    pub etag: Option<String>,
    /// `Last-Modified`.
    pub last_modified: Option<String>,
}

/// What the data in hand is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The URL it came from.
    pub url: String,
    /// When the server last confirmed it (a 200 or a 304).
    pub checked_at: SystemTime,
    /// For the next conditional GET.
    pub validators: Validators,
}

/// A fetch to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchRequest {
    /// The URL.
    pub url: String,
    /// The season it is for.
    pub season: Season,
    /// Ask conditionally with these (None: unconditionally).
    pub validators: Option<Validators>,
}

/// How a fetch ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// New data was loaded.
    Updated(Validators),
    /// The server said 304: the data in hand is current.
    NotModified,
    /// It failed (the data in hand, if any, stays).
    Failed,
}

/// The refresh intervals.
#[derive(Debug, Clone, Copy)]
pub struct Intervals {
    /// Between successful checks.
    pub refresh: Duration,
    /// First retry after a failure.
    pub retry_min: Duration,
    /// Longest retry delay.
    pub retry_max: Duration,
}

impl Default for Intervals {
    fn default() -> Self {
        Intervals {
            refresh: Duration::from_secs(7 * 24 * 3600),
            retry_min: Duration::from_secs(60),
            retry_max: Duration::from_secs(6 * 3600),
        }
    }
}

/// See the module docs.
#[derive(Debug)]
pub struct Refresh {
    template: String,
    intervals: Intervals,
    loaded: Option<Loaded>,
    next_at: SystemTime,
    /// The URL last tried (a failed new season is not retried before `next_at`).
    tried: Option<String>,
    in_flight: Option<FetchRequest>,
    asked: Option<bool>,
    retry: Duration,
}

impl Refresh {
    /// A schedule for URL `template` (may hold `{season}`) with the cache's data, if any.
    pub fn new(
        template: &str,
        intervals: Intervals,
        loaded: Option<Loaded>,
        now: SystemTime,
    ) -> Refresh {
        let next_at = loaded
            .as_ref()
            .map_or(now, |l| l.checked_at + intervals.refresh);
        Refresh {
            template: template.to_string(),
            intervals,
            loaded,
            next_at,
            tried: None,
            in_flight: None,
            asked: None,
            retry: intervals.retry_min,
        }
    }

    /// The URL of the season at `now`.
    pub fn url_at(&self, now: SystemTime) -> String {
        season_url(&self.template, Season::at(now))
    }

    /// What the data in hand is.
    pub fn loaded(&self) -> Option<&Loaded> {
        self.loaded.as_ref()
    }

    /// True while a fetch runs.
    pub fn fetching(&self) -> bool {
        self.in_flight.is_some()
    }

    /// When the next fetch is due (None while one runs).
    pub fn next_at(&self) -> Option<SystemTime> {
        self.in_flight.is_none().then_some(self.next_at)
    }

    /// A fetch is asked for (`POST /api/v1/eibi/fetch`).
    pub fn ask(&mut self, force: bool) {
        self.asked = Some(self.asked.unwrap_or(false) || force);
    }

    /// The fetch to make now, if one is due; it counts as running until
    /// [`Refresh::on_outcome`].
    pub fn poll_fetch(&mut self, now: SystemTime) -> Option<FetchRequest> {
        if self.in_flight.is_some() {
            return None;
        }
        let url = self.url_at(now);
        let stale = self.loaded.as_ref().is_none_or(|l| l.url != url);
        let new_url = stale && self.tried.as_deref() != Some(url.as_str());
        let force = self.asked.take();
        if force.is_none() && now < self.next_at && !new_url {
            return None;
        }
        let validators = match (&self.loaded, force) {
            (_, Some(true)) => None,
            (Some(l), _) if l.url == url => Some(l.validators.clone()),
            _ => None,
        };
        let req = FetchRequest {
            url: url.clone(),
            season: Season::at(now),
            validators,
        };
        self.tried = Some(url);
        self.in_flight = Some(req.clone());
        Some(req)
    }

    /// The running fetch ended.
    pub fn on_outcome(&mut self, now: SystemTime, outcome: Outcome) {
        let Some(req) = self.in_flight.take() else {
            return;
        };
        match outcome {
            Outcome::Updated(validators) => {
                self.loaded = Some(Loaded {
                    url: req.url,
                    checked_at: now,
                    validators,
                });
                self.success(now);
            }
            Outcome::NotModified => {
                if let Some(l) = &mut self.loaded {
                    l.checked_at = now;
                }
                self.success(now);
            }
            Outcome::Failed => {
                self.next_at = now + self.retry;
                self.retry = (self.retry * 2).min(self.intervals.retry_max);
            }
        }
    }

    fn success(&mut self, now: SystemTime) {
        self.retry = self.intervals.retry_min;
        self.next_at = now + self.intervals.refresh;
    }

    /// When [`Refresh::poll_fetch`] should next be called (None while a fetch runs or
    /// one is asked for: at once).
    pub fn poll_timeout(&self, now: SystemTime) -> Option<SystemTime> {
        if self.in_flight.is_some() {
            return None;
        }
        if self.asked.is_some() {
            return Some(now);
        }
        Some(self.next_at.min(Season::at(now).end()))
    }
}

#[cfg(test)]
mod tests;
