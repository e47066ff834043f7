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

/// One station-data route (`ROUTES` in `web/router.rs` gives each its path and method).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StationRoute {
    /// The DX spots kept, filtered.
    DxSpots,
    /// The DX feed's connection.
    DxStatus,
    /// The band plans' regions and the one in use.
    BandPlanConfig,
    /// Choose the region in use (a JSON body names it).
    BandPlanRegion,
    /// The band plans' layers.
    BandPlanLayers,
    /// The band-plan segments of a frequency range.
    BandPlanSegments,
    /// The schedule's load and refresh state.
    EibiStatus,
    /// A page of the schedule's stations, filtered.
    EibiStations,
    /// The stations of a frequency range.
    EibiSegments,
    /// Who is on a frequency.
    EibiIdentify,
    /// The broadcast bands.
    EibiBands,
    /// Fetch the schedule again (an optional JSON body).
    EibiFetch,
}

const DX_OFF: &str = "no DX cluster is configured: start rigweb with --callsign CALL and --dx-cluster HOST:PORT (or --rbn HOST:PORT)";
const BAND_PLANS_OFF: &str = "the band plans are not loaded";
const EIBI_OFF: &str = "the EiBi schedule is off: start rigweb without --eibi-url off";

/// Answers a station-data route (`url` is the request target, `body` the JSON body of a
/// `POST`, else `null`); a route of a service that does not run answers `404
/// service_off`.
pub fn answer(app: &AppCtx, route: StationRoute, url: &str, body: &Value) -> Reply {
    use StationRoute::*;
    use eibi::Question;
    let s = &app.station;
    let dx_feed = || running(&s.dx, DX_OFF);
    let plans = || running(&s.band_plans, BAND_PLANS_OFF);
    let schedule = || running(&s.eibi, EIBI_OFF);
    let reply = || -> Result<Reply, Reply> {
        Ok(match route {
            DxSpots => dx::spots(dx_feed()?, url),
            DxStatus => dx::status(dx_feed()?, url),
            BandPlanConfig => band_plan::config(plans()?, url),
            BandPlanRegion => band_plan::set_region(plans()?, body),
            BandPlanLayers => band_plan::layers(plans()?, url),
            BandPlanSegments => band_plan::segments(plans()?, url),
            EibiStatus => eibi::status(schedule()?, url),
            EibiStations => eibi::query(schedule()?, url, Question::Stations),
            EibiSegments => eibi::query(schedule()?, url, Question::Segments),
            EibiIdentify => eibi::query(schedule()?, url, Question::Identify),
            EibiBands => eibi::query(schedule()?, url, Question::Bands),
            EibiFetch => eibi::fetch(schedule()?, body),
        })
    };
    reply().unwrap_or_else(|off| off)
}

/// The service, or `404 service_off` saying how to turn it on.
fn running<'a, T>(service: &'a Option<T>, off_message: &str) -> Result<&'a T, Reply> {
    service.as_ref().ok_or_else(|| off(off_message))
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
