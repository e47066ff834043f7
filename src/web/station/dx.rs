//! `GET /api/v1/dx/spots` (`limit`, `band`, `since`) and `GET /api/v1/dx/status`.

use serde_json::json;

use super::query::{Query, invalid};
use crate::station::dx::DxService;
use crate::station::dx::buffer::{CAPACITY, SpotQuery};
use crate::station::ham_bands::band_named;
use crate::util::time::parse_iso8601;
use crate::web::response::{self, Reply};

/// `GET /api/v1/dx/spots`: newest first.
pub fn spots(dx: &DxService, url: &str) -> Reply {
    let q = match Query::parse(url, &["limit", "band", "since"]) {
        Ok(q) => q,
        Err(r) => return r,
    };
    let limit = match q.u64("limit", 1, CAPACITY as u64) {
        Ok(l) => l.map(|l| l as usize),
        Err(r) => return r,
    };
    let band = match q.str("band") {
        Some(b) => match band_named(b) {
            Some(b) => Some(b.name),
            None => {
                return invalid(
                    "band",
                    format!("{b:?} is not an amateur band (160m .. 3cm)"),
                );
            }
        },
        None => None,
    };
    let since = match q.str("since") {
        Some(s) => match parse_iso8601(s) {
            Some(t) => Some(t),
            None => {
                return invalid(
                    "since",
                    format!("{s:?} is not an ISO 8601 time such as 2025-06-01T12:00:00Z"),
                );
            }
        },
        None => None,
    };
    let list = dx.spots(&SpotQuery { limit, band, since });
    let spots: Vec<_> = list.iter().map(|s| s.to_json()).collect();
    response::json(200, &json!({"spots": spots}))
}

/// `GET /api/v1/dx/status`.
pub fn status(dx: &DxService, url: &str) -> Reply {
    match Query::parse(url, &[]) {
        Ok(_) => response::json(200, &dx.status_json()),
        Err(r) => r,
    }
}
