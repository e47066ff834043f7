//! The station-data routes (interface.md §4.1/§4.2, decisions.md "Station data"):
//! `/api/v1/dx/*`, `/api/v1/band-plan/*`, `/api/v1/eibi/*`. A route of a service that
//! does not run answers `404 service_off` naming the flag that turns it on.

mod band_plan;
mod dx;
mod eibi;
pub mod query;

use serde_json::{Value, json};

use super::context::AppCtx;
use super::response::{self, Reply};

/// True when `method path` takes a JSON body, and whether it must have one.
pub fn body_rule(method: &str, path: &str) -> Option<bool> {
    match (method, path) {
        ("POST", "/api/v1/band-plan/config") => Some(true),
        ("POST", "/api/v1/eibi/fetch") => Some(false),
        _ => None,
    }
}

/// Answers a request for a station-data route (`url` is the request target).
pub fn route(app: &AppCtx, method: &str, path: &str, url: &str, body: &Value) -> Reply {
    let s = &app.station;
    match path {
        "/api/v1/dx/spots" | "/api/v1/dx/status" => match &s.dx {
            Some(dx) if path.ends_with("spots") => dx::spots(dx, url),
            Some(dx) => dx::status(dx, url),
            None => off(
                "no DX cluster is configured: start rigweb with --callsign CALL and --dx-cluster HOST:PORT (or --rbn HOST:PORT)",
            ),
        },
        p if p.starts_with("/api/v1/band-plan/") => match &s.band_plans {
            Some(plans) => band_plan::route(plans, method, path, url, body),
            None => off("the band plans are not loaded"),
        },
        _ => match &s.eibi {
            Some(e) => eibi::route(e, path, url, body),
            None => off("the EiBi schedule is off: start rigweb without --eibi-url off"),
        },
    }
}

fn off(message: &str) -> Reply {
    response::error(404, "service_off", message)
}

/// `services` of `GET /api/v1/info` and `GET /api/v1/capabilities`: which optional
/// services this server runs.
pub fn services_json(app: &AppCtx) -> Value {
    json!({
        "dxSpots": app.station.dx.is_some(),
        "bandPlan": app.station.band_plans.is_some(),
        "eibi": app.station.eibi.is_some(),
        "bridge": app.cfg.services.bridge,
    })
}

/// Checks that a JSON body is an object whose keys are all in `allowed`.
fn body_object<'a>(
    body: &'a Value,
    allowed: &[&str],
) -> Result<Option<&'a serde_json::Map<String, Value>>, Reply> {
    match body {
        Value::Null => Ok(None),
        Value::Object(m) => match m.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(k) => Err(query::invalid(
                k,
                format!("unknown field; allowed: {}", allowed.join(", ")),
            )),
            None => Ok(Some(m)),
        },
        _ => Err(response::error(
            400,
            "invalid_json",
            "the body must be a JSON object",
        )),
    }
}
