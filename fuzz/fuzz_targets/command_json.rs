//! `command_json`: `radio::table::parse(name, params, profile)`, the validation of
//! every command a WebSocket or HTTP client sends, with `params` parsed from the input
//! by `serde_json::from_slice` (inputs that are not JSON are skipped), for an embedded
//! profile and a command name from the table or junk, both chosen by the first bytes.
//!
//! Input: `sel profile json…`; `sel < 0xF0` picks `COMMANDS[sel % n]`, otherwise the
//! name is the bytes up to the first `0x00` (lossy UTF-8) and the JSON follows.
//! `sel & 0x40` passes `None` instead of the parsed value.
//!
//! Checks: parsing is deterministic; unknown names give `unknown_command`; a command
//! the profile lacks gives `not_supported`; every error has a non-empty message, and an
//! `invalid_param` message starts with `<field>: ` where the field is a parameter of the
//! command, a key of the object, or `params`; an `Ok` only comes for a supported row,
//! with an object (or no params) whose keys are all parameters of the row, and holds
//! values inside the profile: `set_freq` a frequency in one of the ranges (equal to the
//! JSON number), `set_mode` one of the modes with a filter 1..=filters, `set_filter`
//! 1..=filters, `set_band` the code given (BCD when the profile has a band for it),
//! table writes only settings of the row that the profile supports, on a receiver the
//! radio has, and every target a receiver/VFO the radio has.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::profile::{Profile, VfoScheme};
use rigweb::radio::command::{Command, Target};
use rigweb::radio::error::ErrorCode;
use rigweb::radio::table::{Action, COMMANDS, CommandSpec, all_params, parse, spec};
use rigweb::wire::civ;
use rigweb_fuzz::common::profiles;
use serde_json::Value;

fn check_target(t: Target, p: &Profile) {
    match (p.vfo.scheme, t) {
        (VfoScheme::Ab, Target::Vfo(v)) => assert!(v <= 1, "VFO {v}"),
        (VfoScheme::Ab, Target::SelectedVfo) => {}
        (VfoScheme::MainSub, Target::Receiver(civ::Receiver::Main)) => {}
        (VfoScheme::MainSub, Target::Receiver(civ::Receiver::Sub)) => {
            assert!(p.is_dual(), "SUB on a single-receiver radio")
        }
        other => panic!("target {other:?} does not fit the radio"),
    }
}

fn int(params: Option<&Value>, key: &str) -> Option<i128> {
    let v = params?.get(key)?;
    v.as_i64()
        .map(i128::from)
        .or_else(|| v.as_u64().map(i128::from))
}

fn check_ok(sp: &CommandSpec, cmd: &Command, params: Option<&Value>, p: &Profile) {
    let filters = p.filters.list.len();
    match cmd {
        Command::SetFreq { target, hz } => {
            check_target(*target, p);
            assert!(
                *hz <= civ::MAX_FREQ_HZ && p.in_range(*hz),
                "freq {hz} out of range"
            );
            assert_eq!(int(params, "freq"), Some(i128::from(*hz)));
        }
        Command::SetMode {
            target,
            mode,
            filter,
        } => {
            check_target(*target, p);
            assert!(p.modes.list.contains(mode), "mode {mode:?}");
            assert!(p.has_mode(*mode));
            if let Some(f) = filter {
                assert!((1..=filters).contains(&usize::from(*f)), "filter {f}");
            }
        }
        Command::SetFilter { target, filter } => {
            check_target(*target, p);
            assert!(
                (1..=filters).contains(&usize::from(*filter)),
                "filter {filter}"
            );
        }
        Command::SetDataMode { target, .. } => check_target(*target, p),
        Command::Ptt(on) => {
            assert_eq!(
                params.and_then(|v| v.get("state")).and_then(Value::as_bool),
                Some(*on)
            );
        }
        Command::Write { writes, .. } => {
            let Action::Write(row) = sp.action else {
                panic!("{} is not a write row but wrote {writes:?}", sp.name);
            };
            assert!(!writes.is_empty(), "{}: a write of nothing", sp.name);
            for w in writes {
                assert!(
                    row.iter().any(|(_, id)| *id == w.id),
                    "{} wrote {:?}",
                    sp.name,
                    w.id
                );
                assert!(w.setting().supported(p), "{:?} unsupported", w.id);
                // None: the receiver the scope shows; SUB only on a two-receiver radio
                assert!(w.receiver != Some(civ::Receiver::Sub) || p.is_dual());
            }
        }
        Command::SetBand(code) => {
            // any code 0..=255 is taken as given (interface.md §3 rule 5: a code the
            // profile has no band for is acknowledged and sends nothing); the profile's
            // own codes, the only ones that reach the radio, are BCD
            assert_eq!(
                params.and_then(|v| v.get("band")).and_then(Value::as_f64),
                Some(f64::from(*code))
            );
            if p.band_by_bsr(*code).is_some() {
                assert!(civ::from_bcd_byte(*code).is_ok(), "band code {code:#04x}");
            }
        }
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Some((&pi, rest)) = rest.split_first() else {
        return;
    };
    let all = profiles();
    let p = &all[usize::from(pi) % all.len()];
    let (name, json) = if sel < 0xF0 {
        (
            COMMANDS[usize::from(sel) % COMMANDS.len()].name.to_string(),
            rest,
        )
    } else {
        let end = rest.iter().position(|&c| c == 0).unwrap_or(rest.len());
        (
            String::from_utf8_lossy(&rest[..end]).into_owned(),
            rest.get(end + 1..).unwrap_or(&[]),
        )
    };
    let Ok(value) = serde_json::from_slice::<Value>(json) else {
        return;
    };
    let params = if sel & 0x40 != 0 && sel < 0xF0 {
        None
    } else {
        Some(&value)
    };

    let r = parse(&name, params, p);
    let again = parse(&name, params, p);
    assert_eq!(
        again.as_ref().map(|x| &x.command).map_err(|e| e.clone()),
        r.as_ref().map(|x| &x.command).map_err(|e| e.clone()),
        "parse is not deterministic"
    );
    let sp = spec(&name);
    match &r {
        Ok(parsed) => {
            let sp = sp.expect("Ok for an unknown command");
            assert_eq!(parsed.spec.name, sp.name, "parsed by another row");
            assert!(sp.supported(p), "Ok for a command the profile lacks");
            let names = all_params(sp);
            match params {
                None | Some(Value::Null) => {}
                Some(Value::Object(o)) => {
                    for k in o.keys() {
                        assert!(
                            names.iter().any(|x| x.name == k),
                            "Ok with unknown parameter {k:?}"
                        );
                    }
                }
                Some(other) => panic!("Ok with params {other}"),
            }
            check_ok(sp, &parsed.command, params, p);
        }
        Err(e) => {
            assert!(!e.message.is_empty(), "empty error message");
            assert!(!e.to_string().is_empty());
            match e.code {
                ErrorCode::UnknownCommand => {
                    assert!(sp.is_none(), "known command reported unknown")
                }
                ErrorCode::NotSupported => {
                    // the profile lacks the row, or (a built command) what it asks for
                    assert!(sp.is_some(), "not_supported for an unknown command");
                }
                ErrorCode::InvalidParam => {
                    let sp = sp.expect("invalid_param for an unknown command");
                    let keys: Vec<String> = match params {
                        Some(Value::Object(o)) => o.keys().cloned().collect(),
                        _ => Vec::new(),
                    };
                    let ok = all_params(sp)
                        .iter()
                        .map(|x| x.name.to_string())
                        .chain(keys)
                        .chain(std::iter::once("params".to_string()))
                        .any(|f| e.message.starts_with(&format!("{f}: ")));
                    assert!(
                        ok,
                        "invalid_param message does not name a field: {:?}",
                        e.message
                    );
                }
                other => panic!("parse returned {other:?}"),
            }
            if sp.is_none() {
                assert_eq!(e.code, ErrorCode::UnknownCommand);
            }
        }
    }
});
