//! The self-describing command catalogue (`GET /api/v1/commands`): every command the
//! profile supports with its parameter schema, generated from the table, so that a UI
//! or a script builds its controls without hard-coding them.

use serde_json::{Map, Value, json};

use crate::profile::Profile;
use crate::radio::table::params::{Allowed, ParamKind, ParamSpec};
use crate::radio::table::settings::SettingId;
use crate::radio::table::{Action, COMMANDS, CommandSpec, TargetKind, all_params};
use crate::wire::civ;

/// Ranges up to this many values get a label per value.
const MAX_LABELLED_RANGE: i64 = 16;

fn param_json(ps: &ParamSpec, profile: &Profile) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(ps.name));
    m.insert("type".into(), json!(ps.kind.name()));
    m.insert("required".into(), json!(ps.required));
    if let Some(t) = ps.title {
        m.insert("title".into(), json!(t));
    }
    let scale = match ps.kind {
        ParamKind::Number { scale } => scale as f64,
        _ => 1.0,
    };
    let num = |v: i64| {
        if scale == 1.0 {
            json!(v)
        } else {
            json!(v as f64 / scale)
        }
    };
    // the raw values labels are given for, in the order of `values` (or min..=max)
    let mut labelled: Vec<i64> = Vec::new();
    match ps.domain.resolve(profile) {
        Allowed::Any => {}
        Allowed::Range { min, max, step } => {
            m.insert("min".into(), num(min));
            m.insert("max".into(), num(max));
            if step > 1 || scale != 1.0 {
                m.insert("step".into(), num(step.max(1)));
            }
            if step <= 1 && max - min < MAX_LABELLED_RANGE {
                labelled = (min..=max).collect();
            }
        }
        Allowed::Ints(v) => {
            m.insert("values".into(), json!(v));
            labelled = v;
        }
        Allowed::Names(v) => {
            let names: Vec<&str> = v.iter().map(|(n, _)| n.as_str()).collect();
            m.insert("values".into(), json!(names));
        }
        Allowed::Text { max_len, charset } => {
            m.insert("maxLength".into(), json!(max_len));
            m.insert("charset".into(), json!(charset));
        }
    }
    if let Some(u) = ps.unit {
        m.insert("unit".into(), json!(u));
    }
    let labels: Option<Vec<String>> = labelled.iter().map(|v| ps.labels.of(*v)).collect();
    if let Some(labels) = labels.filter(|l| !l.is_empty()) {
        m.insert("labels".into(), json!(labels));
    }
    Value::Object(m)
}

/// `min`/`max`/`step` of `set_filter_width`'s `hz` per mode of the profile.
fn filter_widths_by_mode(profile: &Profile) -> Value {
    let mut m = Map::new();
    for mode in &profile.modes.list {
        let code = mode.code();
        let Some((min, max)) = civ::width_range(code) else {
            continue;
        };
        let widths: Vec<u32> = (0u8..=49)
            .filter_map(|i| civ::width_of_index(code, i))
            .collect();
        m.insert(
            mode.name().to_string(),
            json!({"min": min, "max": max, "values": widths}),
        );
    }
    Value::Object(m)
}

fn command_json(spec: &CommandSpec, profile: &Profile) -> Value {
    let params: Vec<Value> = all_params(spec)
        .iter()
        .filter(|p| {
            !(p.name == "receiver" && spec.target != TargetKind::None && !profile.is_dual())
        })
        .map(|p| param_json(p, profile))
        .collect();
    let state: Map<String, Value> = spec
        .state_paths()
        .into_iter()
        .map(|(p, path)| (p.to_string(), json!(path)))
        .collect();
    let target = match spec.target {
        TargetKind::None => "none",
        TargetKind::Receiver => "receiver",
        TargetKind::ScopeReceiver => "scope_receiver",
    };
    let mut m = Map::new();
    m.insert("name".into(), json!(spec.name));
    m.insert("description".into(), json!(spec.description));
    m.insert("label".into(), json!(spec.label));
    m.insert("group".into(), json!(spec.group));
    m.insert("target".into(), json!(target));
    m.insert(
        "rateLimited".into(),
        json!(spec.rate != crate::radio::table::command::RateClass::Urgent),
    );
    m.insert("rateClass".into(), json!(spec.rate.as_str()));
    m.insert("params".into(), Value::Array(params));
    m.insert("state".into(), Value::Object(state));
    if matches!(spec.action, Action::Write(ws) if ws.iter().any(|(_, id)| *id == SettingId::FilterWidth))
    {
        m.insert("byMode".into(), filter_widths_by_mode(profile));
    }
    Value::Object(m)
}

/// The catalogue of `profile`.
pub fn catalogue(profile: &Profile) -> Value {
    let commands: Vec<Value> = COMMANDS
        .iter()
        .filter(|c| c.supported(profile))
        .map(|c| command_json(c, profile))
        .collect();
    json!({"model": profile.model(), "commands": commands})
}
