//! The command catalogue, the docs and the command table agree: every row of the table
//! is documented in docs/API.md's command reference with the same parameters, and
//! `GET /api/v1/commands` lists, for each profile, exactly the rows the profile supports
//! with the same parameters.

mod common;

use std::collections::BTreeSet;

use common::web::*;
use rigweb::profile::ProfileRegistry;
use rigweb::radio::table::{COMMANDS, all_params, catalogue};
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
        .find(|l| l.starts_with(&format!("| `{name}` |")))
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
            expect.push(format!("{}..{}", num(first), num(last)));
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
