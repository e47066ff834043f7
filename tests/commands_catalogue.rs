//! The command catalogue, the docs and the command table agree: every row of the table
//! is documented in docs/API.md's command reference with the same parameters (the
//! settings commands' part of it is generated from the table: `UPDATE_DOCS=1 cargo test
//! --test commands_catalogue` writes it), every setting's event is in its events table,
//! and `GET /api/v1/commands` lists, for each profile, exactly the rows the profile
//! supports with the same parameters.

mod common;

use std::collections::BTreeSet;

use common::web::*;
use rigweb::profile::ProfileRegistry;
use rigweb::radio::table::{Action, COMMANDS, CommandSpec, TargetKind, all_params, catalogue};
use serde_json::Value;

/// `(name, parameter names)` of every row of the reference table in docs/API.md.
fn documented() -> Vec<(String, BTreeSet<String>)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/API.md"))
        .expect("docs/API.md");
    let start = text
        .find("### Command reference")
        .expect("a command reference");
    let rest = &text[start..];
    let end = rest[4..].find("\n#").map_or(rest.len(), |i| i + 4);
    let backticked = |s: &str| -> Vec<String> {
        s.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    rest[..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cols: Vec<&str> = l.split('|').collect();
            let name = backticked(cols[1]).remove(0);
            let params: BTreeSet<String> = backticked(cols[2])
                .into_iter()
                .flat_map(|p| p.split('/').map(str::to_string).collect::<Vec<_>>())
                .filter(|p| p != "bsrCode")
                .collect();
            (name, params)
        })
        .collect()
}

#[test]
fn the_docs_describe_every_command_of_the_table_with_its_parameters() {
    let docs = documented();
    let doc_names: BTreeSet<&str> = docs.iter().map(|(n, _)| n.as_str()).collect();
    let table_names: BTreeSet<&str> = COMMANDS.iter().map(|c| c.name).collect();
    assert_eq!(doc_names, table_names, "docs/API.md vs the command table");
    for (name, params) in &docs {
        let spec = COMMANDS.iter().find(|c| c.name == name).unwrap();
        let table: BTreeSet<String> = all_params(spec)
            .iter()
            .map(|p| p.name.to_string())
            .collect();
        assert_eq!(params, &table, "parameters of {name}");
    }
}

/// The reference table's row of command `name`.
fn doc_row(name: &str) -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/API.md"))
        .expect("docs/API.md");
    let start = text
        .find("### Command reference")
        .expect("a command reference");
    text[start..]
        .lines()
        .find(|l| {
            l.strip_prefix(&format!("| `{name}`"))
                .is_some_and(|rest| rest.starts_with(" |") || rest.starts_with(':'))
        })
        .unwrap_or_else(|| panic!("{name} is documented"))
        .to_string()
}

/// A catalogue number as the docs write it (`-30`, not `-30.0`).
fn num(v: &Value) -> String {
    match v.as_i64() {
        Some(i) => i.to_string(),
        None => format!("{}", v.as_f64().unwrap_or(f64::NAN)),
    }
}

/// What the docs' `row` must say of a parameter: its range and its named choices.
fn must_say(param: &Value, row: &str) -> Vec<String> {
    let mut expect = Vec::new();
    if let (Some(min), Some(max)) = (param.get("min"), param.get("max")) {
        expect.push(format!("{}..{}", num(min), num(max)));
    }
    if let Some(values) = param["values"].as_array() {
        let names: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        if let ([first, .., last], true) = (names.as_slice(), names.len() == values.len()) {
            // every name, or their run (FIL1..FIL3)
            let run = format!("{first}..{last}");
            if !row.contains(&run) {
                expect.extend(names.iter().map(|n| n.to_string()));
            }
        } else if let [first, .., last] = values.as_slice() {
            // their run (0..45), or every value
            let run = format!("{}..{}", num(first), num(last));
            if !row.contains(&run) {
                expect.extend(values.iter().map(num));
            }
        }
    }
    if let Some(n) = param.get("maxLength") {
        expect.push(format!("{n}"));
    }
    if param["type"] == "boolean" {
        expect.push("boolean".into());
    }
    expect
}

#[test]
fn the_docs_give_the_allowed_values_the_catalogue_gives() {
    // every parameter whose allowed values are the same on every profile (the others
    // the docs describe per profile), as the catalogue gives them
    let reg = ProfileRegistry::embedded();
    let catalogues: Vec<Value> = reg
        .ids()
        .iter()
        .map(|id| catalogue::catalogue(&reg.get(id).unwrap()))
        .collect();
    let param_of = |cat: &Value, cmd: &str, name: &str| -> Option<Value> {
        let c = cat["commands"]
            .as_array()?
            .iter()
            .find(|c| c["name"] == cmd)?;
        c["params"]
            .as_array()?
            .iter()
            .find(|p| p["name"] == name)
            .cloned()
    };
    let mut missing = Vec::new();
    let mut checked = 0;
    for spec in COMMANDS {
        let row = doc_row(spec.name);
        // the target (`vfo` / `receiver`) is described once, for every command
        for p in all_params(spec)
            .iter()
            .filter(|p| !["vfo", "receiver"].contains(&p.name))
        {
            let seen: Vec<Value> = catalogues
                .iter()
                .filter_map(|cat| param_of(cat, spec.name, p.name))
                .collect();
            let Some(first) = seen.first() else {
                continue;
            };
            if seen.iter().any(|s| s != first) {
                continue; // per profile
            }
            checked += 1;
            for e in must_say(first, &row) {
                if !row.contains(&e) {
                    missing.push(format!("{}.{}: {e}", spec.name, p.name));
                }
            }
        }
    }
    assert!(missing.is_empty(), "docs/API.md lacks: {missing:#?}");
    assert!(checked > 30, "only {checked} parameters checked");
}

#[test]
fn the_catalogue_of_every_profile_lists_what_the_table_supports() {
    let reg = ProfileRegistry::embedded();
    for id in reg.ids() {
        let p = reg.get(&id).unwrap();
        let cat = catalogue::catalogue(&p);
        let listed: Vec<&Value> = cat["commands"].as_array().unwrap().iter().collect();
        let names: BTreeSet<&str> = listed.iter().map(|c| c["name"].as_str().unwrap()).collect();
        let supported: BTreeSet<&str> = COMMANDS
            .iter()
            .filter(|c| c.supported(&p))
            .map(|c| c.name)
            .collect();
        assert_eq!(names, supported, "{id}");
        for c in listed {
            let spec = COMMANDS.iter().find(|s| s.name == c["name"]).unwrap();
            let params: BTreeSet<&str> = c["params"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["name"].as_str().unwrap())
                .collect();
            let table: BTreeSet<&str> = all_params(spec)
                .iter()
                .map(|p| p.name)
                .filter(|n| *n != "receiver" || p.is_dual())
                .collect();
            assert_eq!(params, table, "{id}: {}", spec.name);
        }
    }
}

#[test]
fn get_commands_serves_the_catalogue_of_the_connected_radio() {
    let srv = start_server(serve_config("ic7610", None), Default::default());
    let r = get(srv.addr(), "/api/v1/commands");
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["model"], "IC-7610");
    let p = ProfileRegistry::embedded().get("ic7610").unwrap();
    assert_eq!(v, catalogue::catalogue(&p));
    srv.shutdown();
    let srv = start_server(serve_config("ic705", None), Default::default());
    let v = get(srv.addr(), "/api/v1/commands").json();
    let names: Vec<&str> = v["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.contains(&"set_dual_watch") && names.contains(&"set_af_gain"),
        "{names:?}"
    );
    srv.shutdown();
}

/// The start and end markers of the generated part of docs/API.md.
const SETTINGS_START: &str = "<!-- settings commands: generated from the command table";
const SETTINGS_END: &str = "<!-- end of the settings commands -->";

/// A catalogue number as the docs write it, with its unit.
fn with_unit(text: String, param: &Value) -> String {
    match param["unit"].as_str() {
        Some(u) => format!("{text} {u}"),
        None => text,
    }
}

/// The allowed values of a catalogue parameter in words.
fn allowed(param: &Value) -> String {
    if param["type"] == "boolean" {
        return "boolean".into();
    }
    let labels = param["labels"].as_array().map(|l| {
        let l: Vec<&str> = l.iter().filter_map(Value::as_str).collect();
        format!(" ({})", l.join(", "))
    });
    if let Some(values) = param["values"].as_array() {
        if let Some(names) = values.iter().map(Value::as_str).collect::<Option<Vec<_>>>() {
            return match names.as_slice() {
                [] => String::new(),
                [one] => one.to_string(),
                [init @ .., last] => format!("{} or {last}", init.join(", ")),
            };
        }
        let ints: Vec<i64> = values.iter().filter_map(Value::as_i64).collect();
        let steps: BTreeSet<i64> = ints.windows(2).map(|w| w[1] - w[0]).collect();
        let text = match (ints.as_slice(), steps.first()) {
            ([first, _, _, ..], Some(1)) if steps.len() == 1 => {
                format!("{first}..{}", ints[ints.len() - 1])
            }
            ([first, _, _, ..], Some(step)) if steps.len() == 1 => {
                format!("{first}..{} in steps of {step}", ints[ints.len() - 1])
            }
            ([init @ .., last], _) if !init.is_empty() => {
                let init: Vec<String> = init.iter().map(i64::to_string).collect();
                format!("{} or {last}", init.join(", "))
            }
            _ => ints.iter().map(i64::to_string).collect(),
        };
        // labels of values with a unit say what the unit says already
        return match labels.filter(|_| param.get("unit").is_none()) {
            Some(l) => format!("{text}{l}"),
            None => with_unit(text, param),
        };
    }
    if let (Some(min), Some(max)) = (param.get("min"), param.get("max")) {
        let mut text = format!("{}..{}", num(min), num(max));
        if let Some(step) = param.get("step") {
            text = format!("{text} in steps of {}", num(step));
        }
        return match labels.filter(|_| param.get("unit").is_none()) {
            Some(l) => format!("{text}{l}"),
            None => with_unit(text, param),
        };
    }
    String::new()
}

/// The docs' row of a settings command: its name and description, each parameter's
/// allowed values (per profile where they differ), its state fields and its result.
fn settings_row(spec: &CommandSpec, catalogues: &[(String, Value)]) -> String {
    let mut params = Vec::new();
    for p in spec.params {
        let mut per_text: Vec<(String, Vec<&str>)> = Vec::new();
        for (model, cat) in catalogues {
            let Some(cp) = cat["commands"]
                .as_array()
                .and_then(|c| c.iter().find(|c| c["name"] == spec.name))
                .and_then(|c| c["params"].as_array())
                .and_then(|ps| ps.iter().find(|x| x["name"] == p.name))
            else {
                continue;
            };
            let text = allowed(cp);
            match per_text.iter_mut().find(|(t, _)| *t == text) {
                Some((_, models)) => models.push(model),
                None => per_text.push((text, vec![model])),
            }
        }
        let text = match per_text.as_slice() {
            [(one, _)] => one.clone(),
            many => many
                .iter()
                .map(|(t, models)| format!("{t} ({})", models.join(", ")))
                .collect::<Vec<_>>()
                .join("; "),
        };
        let optional = if p.required { "" } else { " optional" };
        params.push(format!("`{}` {text}{optional}", p.name));
    }
    let mut params = params.join(", ");
    if spec.need_one {
        params.push_str(" (at least one)");
    }
    match spec.target {
        TargetKind::None => {}
        TargetKind::Receiver => params.push_str("; `vfo`/`receiver`"),
        TargetKind::ScopeReceiver => {
            params.push_str("; `receiver` (default: the one the scope shows)")
        }
    }
    let state: Vec<String> = spec
        .state_paths()
        .iter()
        .map(|(_, path)| format!("`{path}`"))
        .collect();
    let mut result: Vec<String> = Vec::new();
    if spec.target == TargetKind::Receiver {
        result.push("receiver".into());
    }
    for p in spec.params {
        result.push(format!("{}{}", p.name, if p.required { "" } else { "?" }));
    }
    format!(
        "| `{}`: {} | {params} | {} | `{{{}}}` |",
        spec.name,
        spec.description,
        state.join(", "),
        result.join(", ")
    )
}

/// The generated part of docs/API.md: every command that writes settings.
fn settings_reference() -> String {
    let reg = ProfileRegistry::embedded();
    let catalogues: Vec<(String, Value)> = reg
        .ids()
        .iter()
        .map(|id| {
            let p = reg.get(id).unwrap();
            (p.model().to_string(), catalogue::catalogue(&p))
        })
        .collect();
    let mut out =
        String::from("| command | params | state field(s) | result |\n|---|---|---|---|\n");
    for spec in COMMANDS
        .iter()
        .filter(|c| matches!(c.action, Action::Write(_)))
    {
        out.push_str(&settings_row(spec, &catalogues));
        out.push('\n');
    }
    out
}

#[test]
fn the_docs_settings_commands_are_those_the_table_generates() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/API.md");
    let text = std::fs::read_to_string(path).expect("docs/API.md");
    let start = text.find(SETTINGS_START).expect("the start marker");
    let body = start + text[start..].find('\n').expect("a line") + 1;
    let end = text.find(SETTINGS_END).expect("the end marker");
    let want = settings_reference();
    if text[body..end] != want {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            let new = format!("{}{want}{}", &text[..body], &text[end..]);
            std::fs::write(path, new).expect("writing docs/API.md");
        } else {
            panic!(
                "docs/API.md's settings commands differ from the table; \
                 `UPDATE_DOCS=1 cargo test --test commands_catalogue` writes them:\n{want}"
            );
        }
    }
}

#[test]
fn the_docs_events_table_names_every_settings_event() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/API.md"))
        .expect("docs/API.md");
    let start = text.find("### Events").expect("an events section");
    let rest = &text[start..];
    let end = rest[4..].find("\n#").map_or(rest.len(), |i| i + 4);
    let table: Vec<&str> = rest[..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| l.split('|').nth(1).unwrap_or(""))
        .collect();
    let missing: Vec<&str> = rigweb::radio::table::settings::SETTINGS
        .iter()
        .map(|s| s.event)
        .filter(|e| !table.iter().any(|names| names.contains(&format!("`{e}`"))))
        .collect();
    assert!(table.len() > 20, "{table:?}");
    assert!(
        missing.is_empty(),
        "events not in docs/API.md's table: {missing:?}"
    );
}
