use serde_json::{Value, json};

use super::*;
use crate::profile::ProfileRegistry;
use crate::wire::civ::{Mode, Receiver};

fn parse_on(model: &str, name: &str, params: Value) -> Result<Command, CommandError> {
    let p = ProfileRegistry::embedded().get(model).unwrap();
    parse(name, Some(&params), &p).map(|x| x.command)
}

fn writes(c: &Command) -> Vec<(SettingId, Option<Receiver>, i64)> {
    match c {
        Command::Write { writes, .. } => writes.iter().map(|w| (w.id, w.receiver, w.raw)).collect(),
        other => panic!("not a write: {other:?}"),
    }
}

#[test]
fn valid_commands() {
    assert_eq!(
        parse_on(
            "ic7610",
            "set_freq",
            json!({"vfo": "SUB", "freq": 7_074_000})
        )
        .unwrap(),
        Command::SetFreq {
            target: Target::Receiver(Receiver::Sub),
            hz: 7_074_000
        }
    );
    assert_eq!(
        parse_on(
            "ic705",
            "set_freq",
            json!({"vfo": "b", "freq": 145_500_000})
        )
        .unwrap(),
        Command::SetFreq {
            target: Target::Vfo(1),
            hz: 145_500_000
        }
    );
    assert_eq!(
        parse_on(
            "ic7610",
            "set_mode",
            json!({"mode": "cw-r", "filter": "FIL2"})
        )
        .unwrap(),
        Command::SetMode {
            target: Target::Receiver(Receiver::Main),
            mode: Mode::CwR,
            filter: Some(2)
        }
    );
    let att = parse_on("ic7610", "set_att", json!({"db": 45, "receiver": 1})).unwrap();
    assert_eq!(
        writes(&att),
        vec![(SettingId::Att, Some(Receiver::Sub), 45)]
    );
    let Command::Write { result, .. } = &att else {
        unreachable!()
    };
    assert_eq!(
        result,
        &Written {
            receiver: Some(Receiver::Sub),
            values: vec![("db", Given::Int(45))],
        }
    );
    assert_eq!(
        parse_on("ic7610", "set_band", json!({"band": 16})).unwrap(),
        Command::SetBand(0x10)
    );
    assert_eq!(
        parse_on("ic7610", "vfo_swap", json!({})).unwrap(),
        Command::VfoSwap
    );
    let agc = parse_on("ic7610", "set_agc", json!({"mode": "SLOW", "vfo": "SUB"})).unwrap();
    assert_eq!(writes(&agc), vec![(SettingId::Agc, Some(Receiver::Sub), 3)]);
    let nb = parse_on("ic7610", "set_nb", json!({"on": true, "level": 80})).unwrap();
    assert_eq!(
        writes(&nb),
        vec![
            (SettingId::Nb, Some(Receiver::Main), 1),
            (SettingId::NbLevel, Some(Receiver::Main), 80)
        ]
    );
    let rit = parse_on("ic7610", "set_rit", json!({"offset_hz": -120})).unwrap();
    assert_eq!(
        writes(&rit),
        vec![(SettingId::RitOffset, Some(Receiver::Main), -120)]
    );
    let scope = parse_on(
        "ic7610",
        "set_scope",
        json!({"ref_db": -2.5, "span_hz": 5000}),
    )
    .unwrap();
    assert_eq!(
        writes(&scope),
        vec![
            (SettingId::ScopeSpan, None, 5000),
            (SettingId::ScopeRef, None, -25)
        ]
    );
    let tuner = parse_on("ic7610", "set_tuner", json!({"state": "tune"})).unwrap();
    assert_eq!(
        writes(&tuner),
        vec![(SettingId::Tuner, Some(Receiver::Main), 2)]
    );
    assert_eq!(
        parse_on("ic7610", "send_cw", json!({"text": "cq de dl1abc"})).unwrap(),
        Command::SendCw("CQ DE DL1ABC".into())
    );
    let e = parse(
        "ptt",
        None,
        &ProfileRegistry::embedded().get("ic7610").unwrap(),
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParam);
}

#[test]
fn errors_name_the_field_and_the_allowed_values() {
    let e = parse_on("ic7610", "set_freq", json!({"freq": 99})).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParam);
    assert!(e.message.starts_with("freq:"), "{}", e.message);
    let e = parse_on("ic7610", "set_freq", json!({"freq": 61_000_000})).unwrap_err();
    assert!(e.message.contains("30000..60000000 Hz"), "{}", e.message);
    let e = parse_on("ic9700", "set_freq", json!({"freq": 200_000_000})).unwrap_err();
    assert!(
        e.message.contains("144000000-148000000"),
        "between the bands: {}",
        e.message
    );
    let e = parse_on("ic705", "set_mode", json!({"mode": "PSK"})).unwrap_err();
    assert!(e.message.contains("allowed: USB"), "{}", e.message);
    let e = parse_on("ic7610", "set_att", json!({"db": 4})).unwrap_err();
    assert!(e.message.contains("0, 3, 6"), "{}", e.message);
    let e = parse_on("ic705", "set_att", json!({"db": 6})).unwrap_err();
    assert!(e.message.contains("0, 20"), "{}", e.message);
    let e = parse_on("ic7610", "set_power", json!({"level": 256})).unwrap_err();
    assert!(e.message.contains("0..255"), "{}", e.message);
    let e = parse_on("ic7610", "set_power", json!({"level": "10"})).unwrap_err();
    assert!(e.message.contains("must be an integer"), "{}", e.message);
    let e = parse_on("ic7610", "set_power", json!({"level": 1.5})).unwrap_err();
    assert!(e.message.contains("must be an integer"), "{}", e.message);
    let e = parse_on("ic7610", "set_freq", json!({"freq": 1e300})).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParam);
    let e = parse_on("ic7610", "set_freq", json!({"freq": 14_000_000, "frq": 1})).unwrap_err();
    assert!(
        e.message.starts_with("frq:") && e.message.contains("allowed: freq, vfo, receiver"),
        "{}",
        e.message
    );
    let e = parse_on(
        "ic705",
        "set_freq",
        json!({"vfo": "SUB2", "freq": 14_000_000}),
    )
    .unwrap_err();
    assert!(e.message.contains("allowed: A, B"), "{}", e.message);
    assert_eq!(
        parse_on("ic7610", "set_band", json!({"band": 0x1A})).unwrap(),
        Command::SetBand(0x1A),
        "a code the profile lacks is acknowledged later, not refused"
    );
    for (bad, says) in [
        (json!(256), "0..255"),
        (json!(-1), "0..255"),
        (json!("20m"), "integer"),
        (json!(1.5), "integer"),
    ] {
        let e = parse_on("ic7610", "set_band", json!({"band": bad})).unwrap_err();
        assert!(e.message.starts_with("band: "), "{bad}: {}", e.message);
        assert!(e.message.contains(says), "{bad}: {}", e.message);
    }
    let e = parse_on("ic7610", "fly", json!({})).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnknownCommand);
    let e = parse_on("ic7610", "set_freq", json!([1])).unwrap_err();
    assert!(e.message.starts_with("params:"));
    let e = parse_on(
        "ic7610",
        "set_freq",
        json!({"freq": 18_446_744_073_709_551_615u64}),
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParam);
    let e = parse_on("ic7610", "set_agc", json!({"mode": "medium"})).unwrap_err();
    assert!(e.message.contains("fast, mid, slow"), "{}", e.message);
    let e = parse_on("ic7610", "set_rit", json!({})).unwrap_err();
    assert!(
        e.message.contains("at least one of: on, offset_hz"),
        "{}",
        e.message
    );
    let e = parse_on("ic7610", "set_rit", json!({"offset_hz": 10_000})).unwrap_err();
    assert!(e.message.contains("-9999..9999"), "{}", e.message);
    let e = parse_on("ic7610", "set_scope", json!({"ref_db": -2.3})).unwrap_err();
    assert!(e.message.contains("steps of 0.5"), "{}", e.message);
    let e = parse_on("ic7610", "set_scope", json!({"span_hz": 3000})).unwrap_err();
    assert!(e.message.contains("2500, 5000"), "{}", e.message);
    let e = parse_on("ic7610", "send_cw", json!({"text": "CQ ü"})).unwrap_err();
    assert!(e.message.contains("cannot be sent"), "{}", e.message);
    let e = parse_on("ic7610", "send_cw", json!({"text": "A".repeat(31)})).unwrap_err();
    assert!(e.message.contains("1 to 30 characters"), "{}", e.message);
    let e = parse_on("ic7610", "set_cw_speed", json!({"wpm": 5})).unwrap_err();
    assert!(e.message.contains("6..48"), "{}", e.message);
}

#[test]
fn the_profile_gates_commands() {
    let e = parse_on("ic705", "set_dual_watch", json!({"on": true})).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotSupported);
    let e = parse_on("ic705", "set_tuner", json!({"state": "on"})).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotSupported);
    let e = parse_on("ic7100", "set_scope", json!({"span_hz": 5000})).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotSupported);
    let e = parse_on("ic7100", "set_filter_width", json!({"hz": 500})).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotSupported);
    assert!(parse_on("ic7610", "set_dual_watch", json!({"on": true})).is_ok());
}

#[test]
fn every_row_is_consistent() {
    let reg = ProfileRegistry::embedded();
    for spec in COMMANDS {
        let expected = match spec.name {
            n if n.starts_with("set_") => RateClass::Setting,
            "stop_cw" => RateClass::Urgent,
            _ => RateClass::Action,
        };
        assert_eq!(spec.rate, expected, "{}", spec.name);
        if let Action::Write(ws) = spec.action {
            for (param, _) in ws {
                assert!(
                    spec.params.iter().any(|p| p.name == *param),
                    "{}: {param}",
                    spec.name
                );
            }
        }
        for (param, path) in spec.state_paths() {
            assert!(
                all_params(spec).iter().any(|p| p.name == param),
                "{}: {param}",
                spec.name
            );
            assert!(!path.is_empty());
        }
    }
    // every command the IC-7610 has is in its catalogue, with its state paths
    let p = reg.get("ic7610").unwrap();
    let cat = catalogue::catalogue(&p);
    let names: Vec<&str> = cat["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), COMMANDS.len(), "the IC-7610 has every command");
    let af = cat["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "set_af_gain")
        .unwrap();
    assert_eq!(af["state"], json!({"level": "afGain"}));
    assert_eq!(af["target"], "receiver");
    assert_eq!(
        af["params"][0],
        json!({"name": "level", "type": "integer", "required": true, "min": 0, "max": 255})
    );
    assert_eq!(af["params"][1]["values"], json!(["MAIN", "SUB"]));
    let fw = cat["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "set_filter_width")
        .unwrap();
    assert_eq!(fw["byMode"]["AM"]["max"], 10_000);
    assert!(fw["byMode"].get("FM").is_none(), "FM has a fixed width");
    let scope = cat["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "set_scope")
        .unwrap();
    let ref_db = scope["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "ref_db")
        .unwrap();
    assert_eq!(
        (&ref_db["min"], &ref_db["max"], &ref_db["step"]),
        (&json!(-30.0), &json!(10.0), &json!(0.5))
    );
    let p705 = reg.get("ic705").unwrap();
    let cat = catalogue::catalogue(&p705);
    let names: Vec<&str> = cat["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"set_dual_watch") && !names.contains(&"set_tuner"));
    let f = cat["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "set_freq")
        .unwrap();
    assert!(
        f["params"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["name"] != "receiver"),
        "one receiver"
    );
}

#[test]
fn events_show_values_as_the_state_does() {
    // review: `scope_ref_changed` carried tenths of a dB while `scope.refDb` and the
    // `ref_db` parameter are in dB
    let p = ProfileRegistry::embedded().get("ic7610").unwrap();
    let mut radio = crate::radio::engine::unknown_radio(&p);
    radio.scope.settings.ref_db = Some(values::Tenths(-25));
    let s = settings::Setting::of(settings::SettingId::ScopeRef);
    assert_eq!(radio.setting(s.id, Receiver::Main), Some(json!(-2.5)));
    assert_eq!(s.key, "ref_db");
    let shown = serde_json::to_value(&radio.scope).unwrap();
    assert_eq!(shown["refDb"], json!(-2.5));
}

#[test]
fn choices_are_answered_by_their_canonical_name() {
    // issue 15.8b: `set_agc "FAST"` was matched without regard to case but answered
    // `"FAST"` as sent
    let result = |model: &str, name: &str, params: Value| match parse_on(model, name, params) {
        Ok(Command::Write { result, .. }) => result,
        other => panic!("{other:?}"),
    };
    // numbers are answered as given: a whole number as one, a fraction as one
    let ref_db = |v: Value| result("ic7610", "set_scope", json!({ "ref_db": v })).values;
    assert_eq!(ref_db(json!(3)), vec![("ref_db", Given::Int(3))]);
    assert_eq!(ref_db(json!(-10.5)), vec![("ref_db", Given::Real(-10.5))]);
    assert_eq!(
        result("ic7610", "set_scope", json!({"hold": true})),
        Written {
            receiver: None,
            values: vec![("hold", Given::Bool(true))],
        },
        "a scope setting names no receiver"
    );
    let choice = |receiver, name: &'static str, value: &str| Written {
        receiver,
        values: vec![(name, Given::Text(value.into()))],
    };
    assert_eq!(
        result("ic7610", "set_agc", json!({"mode": "FAST"})),
        choice(Some(Receiver::Main), "mode", "fast")
    );
    assert_eq!(
        result("ic7610", "set_agc", json!({"mode": "sLoW", "vfo": "sub"})),
        choice(Some(Receiver::Sub), "mode", "slow")
    );
    assert_eq!(
        result("ic7610", "set_tuner", json!({"state": "TUNE"})).values,
        vec![("state", Given::Text("tune".into()))]
    );
    // the parsed arguments name the choice canonically too (VFO aliases included)
    let p = ProfileRegistry::embedded().get("ic705").unwrap();
    let obj = json!({"vfo": "main"});
    let args = Args::check(obj.as_object().unwrap(), &[params::VFO_PARAM], &p).unwrap();
    assert_eq!(args.str("vfo"), Some("A"));
    assert_eq!(args.raw("vfo"), Some(0));
}

/// The value at dotted `path` of `v`, if every key on the way exists.
fn at_path<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, key| v.get(key))
}

#[test]
fn every_state_path_a_row_names_resolves_in_the_state_resource() {
    let reg = ProfileRegistry::embedded();
    let mut checked = 0;
    for id in reg.ids() {
        let p = reg.get(&id).unwrap();
        let content = crate::radio::shell::service::initial_content(&p);
        let doc = Value::Object(content.to_json(1, std::time::SystemTime::UNIX_EPOCH));
        for spec in COMMANDS.iter().filter(|c| c.supported(&p)) {
            for (param, path) in spec.state_paths() {
                // receiver commands name fields of the receiver object, the others the root
                let base = match spec.target {
                    TargetKind::Receiver => &doc["main"],
                    _ => &doc,
                };
                assert!(
                    at_path(base, path).is_some(),
                    "{id}: {}.{param} names {path:?}, which the state resource lacks",
                    spec.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} paths checked");
    // and the check finds a path that is not there
    let p = reg.get("ic7610").unwrap();
    let doc = Value::Object(
        crate::radio::shell::service::initial_content(&p)
            .to_json(1, std::time::SystemTime::UNIX_EPOCH),
    );
    assert!(at_path(&doc["main"], "afGain").is_some());
    assert!(at_path(&doc["main"], "afGian").is_none());
    assert!(at_path(&doc, "scope.spanHz").is_some());
    assert!(at_path(&doc, "scope.spanHertz").is_none());
}

#[test]
fn every_row_has_the_label_and_group_of_its_control_in_the_catalogue() {
    for spec in COMMANDS {
        assert!(!spec.label.is_empty(), "{} has no label", spec.name);
    }
    let p = ProfileRegistry::embedded().get("ic7610").unwrap();
    let cat = catalogue::catalogue(&p);
    let cmd = |name: &str| {
        cat["commands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()
            .clone()
    };
    // what the page's "other" panel received before: now labelled and grouped
    assert_eq!(
        (
            &cmd("set_monitor_gain")["label"],
            &cmd("set_monitor_gain")["group"]
        ),
        (&json!("Monitor"), &json!("tx"))
    );
    assert_eq!(cmd("set_vox_gain")["group"], "tx");
    assert_eq!(cmd("set_af_gain")["label"], "AF gain");
    assert_eq!(cmd("set_scope")["group"], "scope");
    // value labels: per value of the profile, and of small ranges
    let param = |c: &Value, name: &str| {
        c["params"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap()
            .clone()
    };
    let att = param(&cmd("set_att"), "db");
    assert_eq!(att["labels"][0], "Off");
    assert_eq!(att["labels"][1], "3 dB");
    assert_eq!(
        att["labels"].as_array().unwrap().len(),
        att["values"].as_array().unwrap().len()
    );
    assert_eq!(
        param(&cmd("set_preamp"), "level")["labels"],
        json!(["Off", "P1", "P2"])
    );
    assert_eq!(
        param(&cmd("set_data_mode"), "data")["labels"],
        json!(["Off", "D1", "D2", "D3"])
    );
    let scope = cmd("set_scope");
    assert_eq!(
        param(&scope, "mode")["labels"],
        json!(["Center", "Fixed", "Scroll-C", "Scroll-F"])
    );
    let span = param(&scope, "span_hz");
    assert_eq!(
        (&span["title"], &span["labels"][0]),
        (&json!("Span"), &json!("±2.5k"))
    );
    assert_eq!(span["labels"][7], "±500k");
    assert!(
        param(&scope, "ref_db").get("labels").is_none(),
        "a wide range has none"
    );
    assert!(
        param(&cmd("set_af_gain"), "level").get("labels").is_none(),
        "0..255 is shown as a level"
    );
}

#[test]
fn the_controls_of_issue_19_parse_where_the_profile_has_them() {
    assert_eq!(
        writes(&parse_on("ic705", "set_xit", json!({"on": true, "offset_hz": -20})).unwrap()),
        vec![
            (SettingId::Xit, Some(Receiver::Main), 1),
            (SettingId::RitOffset, Some(Receiver::Main), -20)
        ]
    );
    assert_eq!(
        writes(&parse_on("ic7610", "set_rit", json!({"offset_hz": 0})).unwrap()),
        vec![(SettingId::RitOffset, Some(Receiver::Main), 0)],
        "the RIT/XIT clear"
    );
    assert_eq!(
        parse_on("ic7610", "set_antenna", json!({"ant": 2, "vfo": "SUB"})).unwrap(),
        Command::SetAntenna {
            receiver: Receiver::Sub,
            ant: 2,
            rx_ant: None
        }
    );
    assert_eq!(
        writes(&parse_on("ic7610", "set_digisel", json!({"on": true, "receiver": 1})).unwrap()),
        vec![(SettingId::Digisel, Some(Receiver::Sub), 1)]
    );
    assert_eq!(
        parse_on("ic7610", "list_memories", json!({"first": 90, "last": 99})).unwrap(),
        Command::ListMemories {
            first: 90,
            last: 99
        }
    );
    assert_eq!(
        parse_on("ic7610", "store_memory", json!({"channel": 1})).unwrap(),
        Command::StoreMemory(1)
    );
    for (model, name) in [
        ("ic7100", "set_xit"),
        ("ic7100", "set_apf"),
        ("ic705", "set_antenna"),
        ("ic9700", "set_digisel"),
        ("ic705", "set_ip_plus"),
        ("ic9700", "recall_memory"),
    ] {
        let e = parse_on(model, name, json!({})).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotSupported, "{model} {name}");
    }
}

#[test]
fn memory_ranges_and_list_sizes_are_checked() {
    let msg = |name: &str, params: Value| {
        let e = parse_on("ic7610", name, params).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidParam, "{name}");
        e.message
    };
    assert!(msg("list_memories", json!({"first": 1, "last": 11})).contains("at most 10"));
    assert!(msg("list_memories", json!({"first": 5, "last": 4})).contains("below first"));
    assert!(msg("list_memories", json!({"first": 0, "last": 3})).contains("1..99"));
    assert!(msg("list_memories", json!({"first": 1})).contains("last"));
    assert!(msg("recall_memory", json!({"channel": 100})).contains("1..99"));
    assert!(msg("store_memory", json!({"channel": "5"})).contains("channel"));
    assert!(msg("set_antenna", json!({"ant": 0})).contains("1..2"));
}
