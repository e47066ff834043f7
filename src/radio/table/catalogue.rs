//! The self-describing command catalogue (`GET /api/v1/commands`): every command the
//! profile supports with its parameter schema, generated from the table, so that a UI
//! or a script builds its controls without hard-coding them.

use serde_json::{Map, Value, json};

use super::params::{Allowed, ParamKind, ParamSpec};
use super::settings::SettingId;
use super::{Action, COMMANDS, CommandSpec, TargetKind, all_params};
use crate::profile::Profile;
use crate::wire::civ;

fn param_json(ps: &ParamSpec, profile: &Profile) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(ps.name));
    m.insert("type".into(), json!(ps.kind.name()));
    m.insert("required".into(), json!(ps.required));
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
    match ps.domain.resolve(profile) {
        Allowed::Any => {}
        Allowed::Range { min, max, step } => {
            m.insert("min".into(), num(min));
            m.insert("max".into(), num(max));
            if step > 1 || scale != 1.0 {
                m.insert("step".into(), num(step.max(1)));
            }
        }
        Allowed::Ints(v) => {
            m.insert("values".into(), json!(v));
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
    if !ps.labels.is_empty() {
        m.insert("labels".into(), json!(ps.labels));
    }
    Value::Object(m)
}

/// `min`/`max`/`step` of `set_filter_width`'s `hz` per mode of the profile.
fn filter_widths_by_mode(profile: &Profile) -> Value {
    let mut m = Map::new();
    for mode in &profile.modes.list {
        let Some(code) = civ::mode_code(mode) else {
            continue;
        };
        let Some((min, max)) = civ::width_range(code) else {
            continue;
        };
        let widths: Vec<u32> = (0u8..=49)
            .filter_map(|i| civ::width_of_index(code, i))
            .collect();
        m.insert(
            mode.clone(),
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
    m.insert("target".into(), json!(target));
    m.insert(
        "rateLimited".into(),
        json!(spec.rate != crate::radio::command::RateClass::Urgent),
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
