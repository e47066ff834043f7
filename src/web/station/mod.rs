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

/// One station-data route: `ROUTES` (`web/router.rs`) names each at its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StationRoute {
    /// `GET /api/v1/dx/spots`.
    DxSpots,
    /// `GET /api/v1/dx/status`.
    DxStatus,
    /// `GET /api/v1/band-plan/config`.
    BandPlanConfig,
    /// `POST /api/v1/band-plan/config` (a body with the region).
    BandPlanRegion,
    /// `GET /api/v1/band-plan/layers`.
    BandPlanLayers,
    /// `GET /api/v1/band-plan/segments`.
    BandPlanSegments,
    /// `GET /api/v1/eibi/status`.
    EibiStatus,
    /// `GET /api/v1/eibi/stations`.
    EibiStations,
    /// `GET /api/v1/eibi/segments`.
    EibiSegments,
    /// `GET /api/v1/eibi/identify`.
    EibiIdentify,
    /// `GET /api/v1/eibi/bands`.
    EibiBands,
    /// `POST /api/v1/eibi/fetch` (an optional body).
    EibiFetch,
}

/// Answers a station-data route (`url` is the request target, `body` the JSON body of a
/// `POST`, else `null`).
pub fn answer(app: &AppCtx, route: StationRoute, url: &str, body: &Value) -> Reply {
    use StationRoute::*;
    let s = &app.station;
    match route {
        DxSpots | DxStatus => match &s.dx {
            Some(dx) if route == DxSpots => dx::spots(dx, url),
            Some(dx) => dx::status(dx, url),
            None => off(
                "no DX cluster is configured: start rigweb with --callsign CALL and --dx-cluster HOST:PORT (or --rbn HOST:PORT)",
            ),
        },
        BandPlanConfig | BandPlanRegion | BandPlanLayers | BandPlanSegments => {
            let Some(plans) = &s.band_plans else {
                return off("the band plans are not loaded");
            };
            match route {
                BandPlanRegion => band_plan::set_region(plans, body),
                BandPlanConfig => band_plan::config(plans, url),
                BandPlanLayers => band_plan::layers(plans, url),
                _ => band_plan::segments(plans, url),
            }
        }
        EibiStatus | EibiStations | EibiSegments | EibiIdentify | EibiBands | EibiFetch => {
            let Some(e) = &s.eibi else {
                return off("the EiBi schedule is off: start rigweb without --eibi-url off");
            };
            match route {
                EibiFetch => eibi::fetch(e, body),
                EibiStatus => eibi::status(e, url),
                EibiStations => eibi::query(e, url, eibi::Question::Stations),
                EibiSegments => eibi::query(e, url, eibi::Question::Segments),
                EibiIdentify => eibi::query(e, url, eibi::Question::Identify),
                _ => eibi::query(e, url, eibi::Question::Bands),
            }
        }
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
