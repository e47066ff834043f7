//! The command table (interface.md §4.4): name -> parameter schema -> capability gate
//! -> builder of a typed [`Command`] validated against the profile. Every
//! validation error is `invalid_param` naming the field and what is allowed.

use serde_json::{Map, Value};

use super::command::{Command, Target};
use super::error::{CommandError, ErrorCode};
use crate::profile::{Profile, VfoScheme};
use crate::wire::civ;

/// Type of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// JSON integer.
    Int,
    /// JSON string.
    Str,
    /// JSON boolean.
    Bool,
}

/// One parameter of a command.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    /// Name.
    pub name: &'static str,
    /// Type.
    pub kind: ParamKind,
    /// Must be present.
    pub required: bool,
}

/// One command of the table.
pub struct CommandSpec {
    /// Name on the wire.
    pub name: &'static str,
    /// Parameters.
    pub params: &'static [ParamSpec],
    /// Profile feature the command needs, if any.
    pub feature: Option<&'static str>,
    /// Builds the typed command from checked parameters.
    pub build: fn(&Args, &Profile) -> Result<Command, CommandError>,
}

const fn p(name: &'static str, kind: ParamKind, required: bool) -> ParamSpec {
    ParamSpec {
        name,
        kind,
        required,
    }
}

const TARGET: [ParamSpec; 2] = [
    p("vfo", ParamKind::Str, false),
    p("receiver", ParamKind::Int, false),
];

/// Every command clients may send.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "set_freq",
        params: &[TARGET[0], TARGET[1], p("freq", ParamKind::Int, true)],
        feature: None,
        build: build_set_freq,
    },
    CommandSpec {
        name: "set_mode",
        params: &[
            TARGET[0],
            TARGET[1],
            p("mode", ParamKind::Str, true),
            p("filter", ParamKind::Str, false),
        ],
        feature: None,
        build: build_set_mode,
    },
    CommandSpec {
        name: "set_filter",
        params: &[TARGET[0], TARGET[1], p("filter", ParamKind::Str, true)],
        feature: None,
        build: build_set_filter,
    },
    CommandSpec {
        name: "ptt",
        params: &[p("state", ParamKind::Bool, true)],
        feature: Some("tx"),
        build: |a, _| Ok(Command::Ptt(a.bool("state")?.unwrap_or(false))),
    },
    CommandSpec {
        name: "set_power",
        params: &[p("level", ParamKind::Int, true)],
        feature: Some("tx"),
        build: |a, _| Ok(Command::SetPower(a.int_in("level", 0, 255)? as u8)),
    },
    CommandSpec {
        name: "set_att",
        params: &[TARGET[0], TARGET[1], p("db", ParamKind::Int, true)],
        feature: Some("attenuator"),
        build: build_set_att,
    },
    CommandSpec {
        name: "set_preamp",
        params: &[TARGET[0], TARGET[1], p("level", ParamKind::Int, true)],
        feature: Some("preamp"),
        build: build_set_preamp,
    },
    CommandSpec {
        name: "vfo_swap",
        params: &[],
        feature: None,
        build: |_, _| Ok(Command::VfoSwap),
    },
    CommandSpec {
        name: "vfo_equalize",
        params: &[],
        feature: None,
        build: |_, _| Ok(Command::VfoEqualize),
    },
    CommandSpec {
        name: "set_band",
        params: &[p("band", ParamKind::Int, true)],
        feature: None,
        build: build_set_band,
    },
];

/// The spec of command `name`.
pub fn spec(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// Parses and validates command `name` with `params` (absent / null means `{}`).
pub fn parse(
    name: &str,
    params: Option<&Value>,
    profile: &Profile,
) -> Result<Command, CommandError> {
    let Some(spec) = spec(name) else {
        let names: Vec<_> = COMMANDS.iter().map(|c| c.name).collect();
        return Err(CommandError::new(
            ErrorCode::UnknownCommand,
            format!(
                "unknown command {name:?}; known commands: {}",
                names.join(", ")
            ),
        ));
    };
    if let Some(f) = spec.feature
        && !profile.has_feature(f)
    {
        return Err(CommandError::new(
            ErrorCode::NotSupported,
            format!(
                "{name} is not supported by the {} (it has no {f:?} capability)",
                profile.model()
            ),
        ));
    }
    let empty = Map::new();
    let obj = match params {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(o)) => o,
        Some(_) => return Err(CommandError::param("params", "must be an object")),
    };
    for key in obj.keys() {
        if !spec.params.iter().any(|p| p.name == key) {
            let allowed: Vec<_> = spec.params.iter().map(|p| p.name).collect();
            let allowed = if allowed.is_empty() {
                "none".to_string()
            } else {
                allowed.join(", ")
            };
            return Err(CommandError::param(
                key,
                format!("unknown parameter of {name}; allowed: {allowed}"),
            ));
        }
    }
    for ps in spec.params {
        match obj.get(ps.name) {
            None | Some(Value::Null) if ps.required => {
                return Err(CommandError::param(
                    ps.name,
                    format!("required ({})", kind_name(ps.kind)),
                ));
            }
            None | Some(Value::Null) => {}
            Some(v) => {
                let ok = match ps.kind {
                    ParamKind::Int => v.is_i64() || v.is_u64(),
                    ParamKind::Str => v.is_string(),
                    ParamKind::Bool => v.is_boolean(),
                };
                if !ok {
                    return Err(CommandError::param(
                        ps.name,
                        format!("must be {}, got {v}", kind_name(ps.kind)),
                    ));
                }
            }
        }
    }
    (spec.build)(&Args(obj), profile)
}

fn kind_name(k: ParamKind) -> &'static str {
    match k {
        ParamKind::Int => "an integer",
        ParamKind::Str => "a string",
        ParamKind::Bool => "a boolean",
    }
}

/// Type-checked access to the parameters.
pub struct Args<'a>(&'a Map<String, Value>);

impl Args<'_> {
    /// An integer parameter (type already checked).
    pub fn int(&self, name: &str) -> Option<i128> {
        let v = self.0.get(name)?;
        v.as_i64()
            .map(i128::from)
            .or_else(|| v.as_u64().map(i128::from))
    }

    /// A required integer within `lo..=hi`.
    pub fn int_in(&self, name: &str, lo: i128, hi: i128) -> Result<i128, CommandError> {
        let v = self
            .int(name)
            .ok_or_else(|| CommandError::param(name, "required (an integer)"))?;
        if v < lo || v > hi {
            return Err(CommandError::param(
                name,
                format!("{v} is out of range; allowed {lo}..{hi}"),
            ));
        }
        Ok(v)
    }

    /// A string parameter.
    pub fn str(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }

    /// A boolean parameter.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, CommandError> {
        Ok(self.0.get(name).and_then(Value::as_bool))
    }
}

/// Resolves `vfo` / `receiver` into a [`Target`] (default MAIN or VFO A).
fn target(a: &Args, profile: &Profile) -> Result<Target, CommandError> {
    let dual = profile.is_dual();
    let (vfo, receiver) = (a.str("vfo"), a.int("receiver"));
    let index = match (vfo, receiver) {
        (Some(_), Some(_)) => {
            return Err(CommandError::param(
                "vfo",
                "give either vfo or receiver, not both",
            ));
        }
        (Some(v), None) => match v.to_ascii_uppercase().as_str() {
            "A" | "MAIN" => 0,
            "B" | "SUB" => 1,
            _ => {
                let allowed = match profile.vfo.scheme {
                    VfoScheme::Ab => "A, B",
                    VfoScheme::MainSub if dual => "MAIN, SUB (or A, B)",
                    VfoScheme::MainSub => "MAIN (or A)",
                };
                return Err(CommandError::param(
                    "vfo",
                    format!("{v:?} is not a VFO; allowed: {allowed}"),
                ));
            }
        },
        (None, Some(r)) => {
            let max = if profile.vfo.scheme == VfoScheme::MainSub && dual {
                1
            } else {
                0
            };
            if !(0..=max).contains(&r) {
                return Err(CommandError::param(
                    "receiver",
                    format!("{r} is out of range; allowed 0..{max}"),
                ));
            }
            r as u8
        }
        (None, None) => 0,
    };
    match profile.vfo.scheme {
        VfoScheme::Ab => Ok(Target::Vfo(index)),
        VfoScheme::MainSub if index == 1 && !dual => Err(CommandError::param(
            "vfo",
            format!("the {} has one receiver; allowed: MAIN", profile.model()),
        )),
        VfoScheme::MainSub => Ok(Target::Receiver(index)),
    }
}

fn ranges(profile: &Profile) -> String {
    profile
        .freq_ranges
        .iter()
        .map(|r| format!("{}-{}", r.start_hz, r.end_hz))
        .collect::<Vec<_>>()
        .join(", ")
}

fn build_set_freq(a: &Args, profile: &Profile) -> Result<Command, CommandError> {
    let target = target(a, profile)?;
    let hz = a.int("freq").unwrap_or(-1);
    if hz < 0 || hz > civ::MAX_FREQ_HZ as i128 || !profile.in_range(hz as u64) {
        return Err(CommandError::param(
            "freq",
            format!(
                "{hz} Hz is outside the {}'s ranges; allowed {} Hz",
                profile.model(),
                ranges(profile)
            ),
        ));
    }
    Ok(Command::SetFreq {
        target,
        hz: hz as u64,
    })
}

fn filter_param(a: &Args, profile: &Profile) -> Result<Option<u8>, CommandError> {
    let Some(f) = a.str("filter") else {
        return Ok(None);
    };
    profile
        .filter_number(&f.to_ascii_uppercase())
        .map(Some)
        .ok_or_else(|| {
            CommandError::param(
                "filter",
                format!(
                    "{f:?} is not a filter; allowed: {}",
                    profile.filters.list.join(", ")
                ),
            )
        })
}

fn build_set_mode(a: &Args, profile: &Profile) -> Result<Command, CommandError> {
    let target = target(a, profile)?;
    let mode = a.str("mode").unwrap_or_default().to_ascii_uppercase();
    if profile.mode_code(&mode).is_none() {
        return Err(CommandError::param(
            "mode",
            format!(
                "{mode:?} is not a mode of the {}; allowed: {}",
                profile.model(),
                profile.modes.list.join(", ")
            ),
        ));
    }
    Ok(Command::SetMode {
        target,
        mode,
        filter: filter_param(a, profile)?,
    })
}

fn build_set_filter(a: &Args, profile: &Profile) -> Result<Command, CommandError> {
    let target = target(a, profile)?;
    let filter = filter_param(a, profile)?
        .ok_or_else(|| CommandError::param("filter", "required (a string)"))?;
    Ok(Command::SetFilter { target, filter })
}

fn one_of(name: &str, v: i128, allowed: &[u8], unit: &str) -> Result<u8, CommandError> {
    if (0..=255).contains(&v) && allowed.contains(&(v as u8)) {
        return Ok(v as u8);
    }
    let list: Vec<String> = allowed.iter().map(|x| x.to_string()).collect();
    Err(CommandError::param(
        name,
        format!(
            "{v}{unit} is not allowed; allowed: {}{unit}",
            list.join(", ")
        ),
    ))
}

fn build_set_att(a: &Args, profile: &Profile) -> Result<Command, CommandError> {
    let receiver = target(a, profile)?.receiver();
    let db = one_of(
        "db",
        a.int("db").unwrap_or(-1),
        &profile.attenuator.values,
        " dB",
    )?;
    Ok(Command::SetAtt { receiver, db })
}

fn build_set_preamp(a: &Args, profile: &Profile) -> Result<Command, CommandError> {
    let receiver = target(a, profile)?.receiver();
    let level = one_of(
        "level",
        a.int("level").unwrap_or(-1),
        &profile.preamp.values,
        "",
    )?;
    Ok(Command::SetPreamp { receiver, level })
}

fn build_set_band(a: &Args, profile: &Profile) -> Result<Command, CommandError> {
    // any byte is taken: a code the profile does not list is acknowledged without
    // retuning (interface.md §7 item 3), so only what cannot be a code is refused
    match a.int("band").and_then(|b| u8::try_from(b).ok()) {
        Some(band) => Ok(Command::SetBand(band)),
        None => {
            let codes: Vec<String> = profile
                .bands()
                .filter_map(|b| b.bsr_code)
                .map(|c| c.to_string())
                .collect();
            Err(CommandError::param(
                "band",
                format!(
                    "must be a band stack register code, an integer 0..255 (a BCD byte); the {} has: {}",
                    profile.model(),
                    codes.join(", ")
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ProfileRegistry;
    use serde_json::json;

    fn parse_on(model: &str, name: &str, params: Value) -> Result<Command, CommandError> {
        let p = ProfileRegistry::embedded().get(model).unwrap();
        parse(name, Some(&params), &p)
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
                target: Target::Receiver(1),
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
                target: Target::Receiver(0),
                mode: "CW-R".into(),
                filter: Some(2)
            }
        );
        assert_eq!(
            parse_on("ic7610", "set_att", json!({"db": 45})).unwrap(),
            Command::SetAtt {
                receiver: 0,
                db: 45
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
        assert_eq!(
            parse(
                "ptt",
                None,
                &ProfileRegistry::embedded().get("ic7610").unwrap()
            )
            .unwrap_err()
            .code,
            ErrorCode::InvalidParam
        );
    }

    #[test]
    fn errors_name_the_field_and_the_allowed_values() {
        let e = parse_on("ic7610", "set_freq", json!({"freq": 99})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidParam);
        assert!(
            e.message.starts_with("freq:") && e.message.contains("30000-60000000"),
            "{}",
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
            e.message.starts_with("frq:") && e.message.contains("allowed: vfo, receiver, freq"),
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
    }
}
