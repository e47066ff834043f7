//! The command table (interface.md §4.4, DESIGN.md §5), as Hamlib keeps its rig
//! commands: one row per command with its parameter schema (types, ranges, per-profile
//! values), feature gate, target (receiver / VFO), the settings it writes (whose rows in
//! [`settings`] hold the CI-V encoder, the decoder into a state field and the fetch read)
//! or the builder of a typed command, and its rate-limit class. Parsing, validation,
//! rate limiting and the catalogue (`GET /api/v1/commands`) all come from here; every
//! validation error is `invalid_param` naming the field and what is allowed.

pub mod answer;
mod builders;
pub mod catalogue;
pub mod codec;
pub mod command;
mod domains;
pub mod error;
mod params;
mod rows;
pub mod settings;
pub mod values;
pub mod written;

use serde_json::{Map, Value};

pub use params::{Allowed, Args, Domain, Labels, ParamKind, ParamSpec};
pub use rows::COMMANDS;

use crate::profile::{Feature, Profile, VfoScheme};
use crate::radio::table::command::{Command, RateClass, Target, Write};
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::util::vocabulary::vocabulary;
use crate::wire::civ::Receiver;
use settings::SettingId;
use written::{Given, Written};

/// What a command aims at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// Nothing (global).
    None,
    /// A receiver or VFO: takes `vfo` (MAIN/SUB/A/B) or `receiver` (0/1).
    Receiver,
    /// A scope receiver: takes `receiver` (default: the receiver the scope shows).
    ScopeReceiver,
}

vocabulary! {
    /// The panel of a page where a command's control belongs.
    pub enum Group {
        /// Frequency, mode, filter, band: the page's tuning panel.
        Tuning = "tuning",
        /// Receiver settings (gains, AGC, noise blanker and reduction, notch, ...).
        Rx = "rx",
        /// VFOs: split, dual watch, RIT, swap and equalize.
        Vfo = "vfo",
        /// Transmitter: PTT, power, microphone, compressor, tuner, ...
        Tx = "tx",
        /// CW keyer.
        Cw = "cw",
        /// Spectrum scope.
        Scope = "scope",
        /// Memory channels: list, recall, store.
        Memory = "memory",
    }
}

/// How a row becomes a [`Command`].
pub enum Action {
    /// Each parameter given writes its setting.
    Write(&'static [(&'static str, SettingId)]),
    /// A typed command built from the checked parameters and the resolved target.
    Build(fn(&Args, &Profile, Target) -> Result<Command, CommandError>),
}

/// One command of the table.
pub struct CommandSpec {
    /// Name on the wire.
    pub name: &'static str,
    /// What it does, for the catalogue and the docs.
    pub description: &'static str,
    /// Profile feature the command needs, if any.
    pub feature: Option<Feature>,
    /// What it aims at.
    pub target: TargetKind,
    /// Parameters (the target's `vfo`/`receiver` are added from `target`).
    pub params: &'static [ParamSpec],
    /// At least one of the optional parameters must be given.
    pub need_one: bool,
    /// How it runs.
    pub action: Action,
    /// Where each parameter's current value shows in the state (custom commands; for
    /// `Write` rows it comes from the settings).
    pub state: &'static [(&'static str, &'static str)],
    /// How it is rate limited per client (`ptt false` is urgent whatever its row says).
    pub rate: RateClass,
    /// Short name for a page's control ("AF gain").
    pub label: &'static str,
    /// The panel its control belongs to.
    pub group: Group,
}

impl CommandSpec {
    /// The same row with the label and panel group of its control.
    pub const fn shown(mut self, label: &'static str, group: Group) -> CommandSpec {
        self.label = label;
        self.group = group;
        self
    }

    /// True if `profile` has this command.
    pub fn supported(&self, profile: &Profile) -> bool {
        let gate = self.feature.is_none_or(|f| profile.has_feature(f));
        let settings = match self.action {
            Action::Write(ws) => ws
                .iter()
                .all(|(_, id)| settings::Setting::of(*id).supported(profile)),
            Action::Build(_) => true,
        };
        gate && settings
    }

    /// The state paths of the parameters.
    pub fn state_paths(&self) -> Vec<(&'static str, &'static str)> {
        match self.action {
            Action::Write(ws) => ws
                .iter()
                .map(|(p, id)| (*p, settings::Setting::of(*id).path))
                .collect(),
            Action::Build(_) => self.state.to_vec(),
        }
    }
}

/// The spec of command `name`.
pub fn spec(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// A parsed command and the row it came from.
#[derive(Debug)]
pub struct Parsed {
    /// The command.
    pub command: Command,
    /// Its row.
    pub spec: &'static CommandSpec,
}

impl std::fmt::Debug for CommandSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The parameters a row takes, its target's included.
pub fn all_params(spec: &CommandSpec) -> Vec<ParamSpec> {
    let mut v = spec.params.to_vec();
    match spec.target {
        TargetKind::None => {}
        TargetKind::Receiver => {
            v.push(params::VFO_PARAM);
            v.push(params::RECEIVER_PARAM);
        }
        TargetKind::ScopeReceiver => v.push(params::RECEIVER_PARAM),
    }
    v
}

/// Parses and validates command `name` with `params` (absent / null means `{}`).
pub fn parse(
    name: &str,
    params: Option<&Value>,
    profile: &Profile,
) -> Result<Parsed, CommandError> {
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
    if !spec.supported(profile) {
        return Err(CommandError::new(
            ErrorCode::NotSupported,
            format!("{name} is not supported by the {}", profile.model()),
        ));
    }
    let empty = Map::new();
    let obj = match params {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(o)) => o,
        Some(_) => return Err(CommandError::param("params", "must be an object")),
    };
    let specs = all_params(spec);
    for key in obj.keys() {
        if !specs.iter().any(|p| p.name == key) {
            let allowed: Vec<_> = specs.iter().map(|p| p.name).collect();
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
    let args = Args::check(obj, &specs, profile)?;
    if spec.need_one && !spec.params.iter().any(|p| args.has(p.name)) {
        let names: Vec<_> = spec.params.iter().map(|p| p.name).collect();
        return Err(CommandError::param(
            spec.params.first().map_or("params", |p| p.name),
            format!("give at least one of: {}", names.join(", ")),
        ));
    }
    let target = match spec.target {
        TargetKind::Receiver => target(&args, profile)?,
        TargetKind::None | TargetKind::ScopeReceiver => Target::Receiver(Receiver::Main),
    };
    let command = match spec.action {
        Action::Build(build) => build(&args, profile, target)?,
        Action::Write(ws) => {
            // a scope setting without `receiver` is the shown receiver's
            let receiver = match spec.target {
                TargetKind::ScopeReceiver => receiver_arg(&args),
                _ => Some(target.receiver()),
            };
            let mut result = Written {
                receiver: (spec.target == TargetKind::Receiver).then(|| target.receiver()),
                values: Vec::new(),
            };
            let mut writes = Vec::new();
            for (param, id) in ws {
                if let Some(raw) = args.raw(param) {
                    writes.push(Write {
                        id: *id,
                        receiver,
                        raw,
                    });
                    if let Some(given) = args.value(param).and_then(Given::from_json) {
                        result.values.push((param, given));
                    }
                }
            }
            let vfo = match target {
                Target::Vfo(v) => Some(v),
                _ => None,
            };
            Command::Write {
                vfo,
                writes,
                result,
            }
        }
    };
    Ok(Parsed { command, spec })
}

/// The `receiver` parameter (checked against the profile's receivers already).
fn receiver_arg(a: &Args) -> Option<Receiver> {
    let code = u8::try_from(a.raw("receiver")?).ok()?;
    Receiver::from_code(code)
}

/// Resolves `vfo` / `receiver` into a [`Target`] (default MAIN or VFO A).
fn target(a: &Args, profile: &Profile) -> Result<Target, CommandError> {
    let dual = profile.is_dual();
    let index = match (a.str("vfo"), a.raw("receiver")) {
        (Some(_), Some(_)) => {
            return Err(CommandError::param(
                "vfo",
                "give either vfo or receiver, not both",
            ));
        }
        (Some(v), None) => match v.to_ascii_uppercase().as_str() {
            "A" | "MAIN" => 0,
            _ => 1, // checked against the allowed values already
        },
        (None, Some(r)) => r as u8,
        (None, None) if profile.vfo.scheme == VfoScheme::Ab => return Ok(Target::SelectedVfo),
        (None, None) => 0,
    };
    match (profile.vfo.scheme, Receiver::from_code(index)) {
        (VfoScheme::Ab, _) => Ok(Target::Vfo(index)),
        (VfoScheme::MainSub, Some(Receiver::Sub)) if !dual => Err(CommandError::param(
            "vfo",
            format!("the {} has one receiver; allowed: MAIN", profile.model()),
        )),
        (VfoScheme::MainSub, Some(r)) => Ok(Target::Receiver(r)),
        (VfoScheme::MainSub, None) => Err(CommandError::param(
            "receiver",
            format!("{index} is not a receiver; allowed: 0 (MAIN), 1 (SUB)"),
        )),
    }
}

#[cfg(test)]
mod tests;
