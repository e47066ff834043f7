//! `GET|POST /api/v1/band-plan/config`, `GET /api/v1/band-plan/layers`,
//! `GET /api/v1/band-plan/segments` (`start`, `end`, `layers`).

use serde_json::{Value, json};

use super::body_object;
use super::query::{Query, invalid};
use crate::station::band_plan::model::Layer;
use crate::station::band_plan::{BandPlans, RegionError};
use crate::web::response::{self, Reply};

/// The highest frequency asked about (Hz).
const MAX_HZ: u64 = 300_000_000_000;

/// The regions and the one in use.
pub fn config(plans: &BandPlans, url: &str) -> Reply {
    no_params(url, || plans.config_json())
}

/// The layers.
pub fn layers(plans: &BandPlans, url: &str) -> Reply {
    no_params(url, || plans.layers_json())
}

fn no_params(url: &str, body: impl FnOnce() -> Value) -> Reply {
    match Query::parse(url, &[]) {
        Ok(_) => response::json(200, &body()),
        Err(r) => r,
    }
}

/// Chooses the region in use: `{"region": name}`.
pub fn set_region(plans: &BandPlans, body: &Value) -> Reply {
    let obj = match body_object(body, &["region"]) {
        Ok(Some(o)) => o,
        Ok(None) => return response::error(400, "invalid_json", "a JSON body is required"),
        Err(r) => return r,
    };
    let Some(name) = obj.get("region").and_then(Value::as_str) else {
        return invalid("region", "required, a region name such as \"r1\"");
    };
    match plans.set_region(name) {
        Ok(_) => response::json(200, &plans.config_json()),
        Err(RegionError::Unknown(m)) => invalid("region", format!("{name:?}: {m}")),
        Err(RegionError::NotSaved(m)) => response::error(
            500,
            "internal_error",
            format!("the region could not be kept in --data-dir: {m}"),
        ),
    }
}

/// The segments of a frequency range (`start`, `end`, `layers`).
pub fn segments(plans: &BandPlans, url: &str) -> Reply {
    let q = match Query::parse(url, &["start", "end", "layers"]) {
        Ok(q) => q,
        Err(r) => return r,
    };
    let (start, end) = match (q.u64("start", 0, MAX_HZ), q.u64("end", 0, MAX_HZ)) {
        (Ok(s), Ok(e)) => (s.unwrap_or(0), e.unwrap_or(MAX_HZ)),
        (Err(r), _) | (_, Err(r)) => return r,
    };
    if start > end {
        return invalid("start", format!("{start} is above end ({end})"));
    }
    let layers: Vec<Layer> = match q.str("layers") {
        None => Layer::ALL.to_vec(),
        Some(list) => {
            let mut out = Vec::new();
            for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                match Layer::from_name(name) {
                    Some(l) => out.push(l),
                    None => {
                        let known: Vec<&str> = Layer::ALL.iter().map(|l| l.name()).collect();
                        return invalid(
                            "layers",
                            format!("{name:?} is not a layer; known: {}", known.join(", ")),
                        );
                    }
                }
            }
            out
        }
    };
    let segs: Vec<Value> = plans
        .segments(start, end, &layers)
        .iter()
        .map(|s| s.to_json_clipped(start, end))
        .collect();
    response::json(
        200,
        &json!({"region": plans.active_name(), "start": start, "end": end, "segments": segs}),
    )
}
