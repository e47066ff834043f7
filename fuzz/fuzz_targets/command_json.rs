//! `command_json`: `radio::command_table::parse(name, params, profile)`, the validation of
//! every command a WebSocket or HTTP client sends, with `params` parsed from the input
//! by `serde_json::from_slice` (inputs that are not JSON are skipped), for an embedded
//! profile and a command name from the table or junk, both chosen by the first bytes.
//!
//! Input: `sel profile json…`; `sel < 0xF0` picks `COMMANDS[sel % n]`, otherwise the
//! name is the bytes up to the first `0x00` (lossy UTF-8) and the JSON follows.
//! `sel & 0x40` passes `None` instead of the parsed value.
//!
//! Checks: parsing is deterministic; unknown names give `unknown_command`; a missing
//! capability gives `not_supported`; every error has a non-empty message, and an
//! `invalid_param` message starts with `<field>: ` where the field is a parameter of the
//! command, a key of the object, or `params`; an `Ok` only comes with an object (or no
//! params) whose keys are all parameters of the command, is the variant the name asks
//! for, and holds values inside the profile: `set_freq` a frequency in one of the
//! ranges (equal to the JSON number), `set_mode` one of the modes with a filter
//! 1..=filters, `set_filter` 1..=filters, `set_att` / `set_preamp` one of the listed
//! values, `set_power` the JSON level (0..=255), `set_band` a BCD byte, and every
//! target a receiver/VFO the radio has.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::profile::{Profile, VfoScheme};
use rigweb::radio::command::{Command, Target};
use rigweb::radio::command_table::{COMMANDS, parse, spec};
use rigweb::radio::error::ErrorCode;
use rigweb::wire::civ;
use rigweb_fuzz::common::profiles;
use serde_json::Value;

fn check_target(t: Target, p: &Profile) {
    match (p.vfo.scheme, t) {
        (VfoScheme::Ab, Target::Vfo(v)) => assert!(v <= 1, "VFO {v}"),
        (VfoScheme::MainSub, Target::Receiver(0)) => {}
        (VfoScheme::MainSub, Target::Receiver(1)) => {
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

fn check_ok(name: &str, cmd: &Command, params: Option<&Value>, p: &Profile) {
    let filters = p.filters.list.len();
    match (name, cmd) {
        ("set_freq", Command::SetFreq { target, hz }) => {
            check_target(*target, p);
            assert!(
                *hz <= civ::MAX_FREQ_HZ && p.in_range(*hz),
                "freq {hz} out of range"
            );
            assert_eq!(int(params, "freq"), Some(i128::from(*hz)));
        }
        (
            "set_mode",
            Command::SetMode {
                target,
                mode,
                filter,
            },
        ) => {
            check_target(*target, p);
            assert!(p.modes.list.contains(mode), "mode {mode:?}");
            assert!(p.mode_code(mode).is_some());
            if let Some(f) = filter {
                assert!((1..=filters).contains(&usize::from(*f)), "filter {f}");
            }
        }
        ("set_filter", Command::SetFilter { target, filter }) => {
            check_target(*target, p);
            assert!(
                (1..=filters).contains(&usize::from(*filter)),
                "filter {filter}"
            );
        }
        ("ptt", Command::Ptt(on)) => {
            assert_eq!(
                params.and_then(|v| v.get("state")).and_then(Value::as_bool),
                Some(*on)
            );
        }
        ("set_power", Command::SetPower(level)) => {
            assert_eq!(
                int(params, "level"),
                Some(i128::from(*level)),
                "power level"
            );
        }
        ("set_att", Command::SetAtt { receiver, db }) => {
            assert!(p.attenuator.values.contains(db), "att {db}");
            assert!(*receiver == 0 || (*receiver == 1 && p.is_dual()));
        }
        ("set_preamp", Command::SetPreamp { receiver, level }) => {
            assert!(p.preamp.values.contains(level), "preamp {level}");
            assert!(*receiver == 0 || (*receiver == 1 && p.is_dual()));
        }
        ("vfo_swap", Command::VfoSwap) | ("vfo_equalize", Command::VfoEqualize) => {}
        ("set_band", Command::SetBand(code)) => {
            assert!(civ::from_bcd_byte(*code).is_ok(), "band code {code:#04x}");
            assert_eq!(int(params, "band"), Some(i128::from(*code)));
        }
        (name, cmd) => panic!("{name} parsed to {cmd:?}"),
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
    assert_eq!(parse(&name, params, p), r, "parse is not deterministic");
    let sp = spec(&name);
    match &r {
        Ok(cmd) => {
            let sp = sp.expect("Ok for an unknown command");
            if let Some(f) = sp.feature {
                assert!(p.has_feature(f), "Ok without the {f:?} capability");
            }
            match params {
                None | Some(Value::Null) => {}
                Some(Value::Object(o)) => {
                    for k in o.keys() {
                        assert!(
                            sp.params.iter().any(|x| x.name == k),
                            "Ok with unknown parameter {k:?}"
                        );
                    }
                }
                Some(other) => panic!("Ok with params {other}"),
            }
            check_ok(&name, cmd, params, p);
        }
        Err(e) => {
            assert!(!e.message.is_empty(), "empty error message");
            assert!(!e.to_string().is_empty());
            match e.code {
                ErrorCode::UnknownCommand => {
                    assert!(sp.is_none(), "known command reported unknown")
                }
                ErrorCode::NotSupported => {
                    let f = sp
                        .and_then(|s| s.feature)
                        .expect("not_supported without a feature");
                    assert!(!p.has_feature(f));
                }
                ErrorCode::InvalidParam => {
                    let sp = sp.expect("invalid_param for an unknown command");
                    let keys: Vec<String> = match params {
                        Some(Value::Object(o)) => o.keys().cloned().collect(),
                        _ => Vec::new(),
                    };
                    let ok = sp
                        .params
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
