//! `/api/v1/eibi/*`: `status`, `stations` (paged, filtered), `segments`, `identify`,
//! `bands`, and `POST fetch` (202 at once; the work shows in `status`).

use std::time::SystemTime;

use serde_json::{Value, json};

use super::body_object;
use super::query::{Query, invalid};
use crate::station::eibi::EibiService;
use crate::station::eibi::dataset::StationQuery;
use crate::util::time::utc_parts;
use crate::web::response::{self, Reply};

/// Highest frequency of a schedule query (Hz).
const MAX_HZ: u64 = 100_000_000;
/// Most rows of a page.
const MAX_PER_PAGE: u64 = 500;
/// Most segments in one answer.
const MAX_SEGMENTS: usize = 5000;

/// What a query route of the schedule asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Question {
    /// A page of stations, filtered.
    Stations,
    /// The stations of a frequency range.
    Segments,
    /// Who is on a frequency.
    Identify,
    /// The broadcast bands and how busy they are.
    Bands,
}

impl Question {
    /// The query parameters it takes.
    fn params(self) -> &'static [&'static str] {
        match self {
            Question::Stations => &[
                "page", "per_page", "q", "freq_min", "freq_max", "language", "target", "on_air",
            ],
            Question::Segments => &["start", "end", "on_air"],
            Question::Identify => &["freq", "tolerance", "limit"],
            Question::Bands => &[],
        }
    }
}

/// The schedule's load and refresh state.
pub fn status(e: &EibiService, url: &str) -> Reply {
    match Query::parse(url, &[]) {
        Ok(_) => response::json(200, &e.status_json()),
        Err(r) => r,
    }
}

/// Answers `question` from the loaded schedule (`503 not_loaded` before it is).
pub fn query(e: &EibiService, url: &str, question: Question) -> Reply {
    let q = match Query::parse(url, question.params()) {
        Ok(q) => q,
        Err(r) => return r,
    };
    let Some(data) = e.dataset() else {
        return response::error(
            503,
            "not_loaded",
            "the EiBi schedule is not loaded yet: see GET /api/v1/eibi/status (POST /api/v1/eibi/fetch loads it)",
        );
    };
    let now = utc_parts(SystemTime::now());
    let result = match question {
        Question::Stations => stations(&q).map(|(sq, page, per_page)| {
            let (total, items) = data.stations(&sq, page, per_page, &now);
            json!({"total": total, "page": page, "per_page": per_page, "items": items})
        }),
        Question::Segments => range(&q, "start", "end").and_then(|(start, end)| {
            let on_air = q.bool("on_air")?.unwrap_or(true);
            let (segs, truncated) = data.segments(start, end, on_air, &now, MAX_SEGMENTS);
            Ok(json!({"start": start, "end": end, "on_air": on_air, "segments": segs, "truncated": truncated}))
        }),
        Question::Identify => identify(&q).map(|(freq, tolerance, limit)| {
            let c = data.identify(freq, tolerance, &now, limit);
            json!({"freq": freq, "tolerance": tolerance, "candidates": c})
        }),
        Question::Bands => Ok(json!({"bands": data.bands(&now)})),
    };
    match result {
        Ok(v) => response::json(200, &v),
        Err(r) => r,
    }
}

/// Fetches the schedule again: `{"force": bool}` or no body; 202 at once.
pub fn fetch(e: &EibiService, body: &Value) -> Reply {
    let force = match body_object(body, &["force"]) {
        Ok(None) => false,
        Ok(Some(o)) => match o.get("force") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return invalid("force", "must be true or false"),
        },
        Err(r) => return r,
    };
    e.request_fetch(force);
    response::json(202, &json!({"fetching": true, "force": force}))
}

fn range(q: &Query, lo: &str, hi: &str) -> Result<(u64, u64), Reply> {
    let start = q.u64(lo, 0, MAX_HZ)?.unwrap_or(0);
    let end = q.u64(hi, 0, MAX_HZ)?.unwrap_or(30_000_000);
    if start > end {
        return Err(invalid(lo, format!("{start} is above {hi} ({end})")));
    }
    Ok((start, end))
}

fn stations(q: &Query) -> Result<(StationQuery, usize, usize), Reply> {
    let page = q.u64("page", 1, 1_000_000)?.unwrap_or(1) as usize;
    let per_page = q.u64("per_page", 1, MAX_PER_PAGE)?.unwrap_or(100) as usize;
    let freq_min = q.u64("freq_min", 0, MAX_HZ)?;
    let freq_max = q.u64("freq_max", 0, MAX_HZ)?;
    if let (Some(a), Some(b)) = (freq_min, freq_max)
        && a > b
    {
        return Err(invalid("freq_min", format!("{a} is above freq_max ({b})")));
    }
    let sq = StationQuery {
        q: q.text("q", 64)?,
        freq_min,
        freq_max,
        language: q.text("language", 16)?,
        target: q.text("target", 16)?,
        on_air: q.bool("on_air")?,
    };
    Ok((sq, page, per_page))
}

fn identify(q: &Query) -> Result<(u64, u64, usize), Reply> {
    let freq = q
        .u64("freq", 1, MAX_HZ)?
        .ok_or_else(|| invalid("freq", "required, in Hz"))?;
    let tolerance = q.u64("tolerance", 0, 100_000)?.unwrap_or(5_000);
    let limit = q.u64("limit", 1, 50)?.unwrap_or(10) as usize;
    Ok((freq, tolerance, limit))
}
