//! Parameter schemas: a parameter's type, whether it is required, and its domain (a
//! range, named choices, or values that depend on the profile), used both to validate a
//! command and to describe it in the catalogue.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::profile::{Profile, VfoScheme};
use crate::radio::table::error::CommandError;

/// Type of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// JSON integer.
    Int,
    /// JSON number (may have a fraction); `scale` turns it into the raw integer.
    Number {
        /// Raw = value × scale.
        scale: i64,
    },
    /// JSON string.
    Str,
    /// JSON boolean (raw 0 / 1).
    Bool,
}

impl ParamKind {
    /// The type name in messages and in the catalogue.
    pub fn name(self) -> &'static str {
        match self {
            ParamKind::Int => "integer",
            ParamKind::Number { .. } => "number",
            ParamKind::Str => "string",
            ParamKind::Bool => "boolean",
        }
    }

    /// The type with its article, for messages ("an integer").
    pub fn described(self) -> &'static str {
        match self {
            ParamKind::Int => "an integer",
            ParamKind::Number { .. } => "a number",
            ParamKind::Str => "a string",
            ParamKind::Bool => "a boolean",
        }
    }
}

/// Other names of VFOs that are taken too: A/B on MAIN/SUB radios and MAIN/SUB on A/B
/// radios address the first and second receiver or VFO (clients written for either
/// scheme keep working).
const VFO_ALIASES: [(&str, &str); 4] = [("A", "MAIN"), ("B", "SUB"), ("MAIN", "A"), ("SUB", "B")];

/// The values a parameter may take, resolved for a profile.
#[derive(Debug, Clone, PartialEq)]
pub enum Allowed {
    /// Anything of the type.
    Any,
    /// Raw integers `min..=max` in steps of `step`.
    Range {
        /// Smallest.
        min: i64,
        /// Largest.
        max: i64,
        /// Step.
        step: i64,
    },
    /// These raw integers.
    Ints(Vec<i64>),
    /// These names, each standing for a raw value.
    Names(Vec<(String, i64)>),
    /// Strings of at most `max_len` characters from `charset`.
    Text {
        /// Longest.
        max_len: usize,
        /// Characters allowed.
        charset: &'static str,
    },
}

/// Where a parameter's allowed values come from.
#[derive(Clone, Copy)]
pub enum Domain {
    /// Anything of the type.
    Any,
    /// A fixed range of raw values.
    Range(i64, i64, i64),
    /// Fixed named choices and their raw values.
    Choices(&'static [(&'static str, i64)]),
    /// Values that depend on the profile.
    Profile(fn(&Profile) -> Allowed),
}

impl std::fmt::Debug for Domain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Domain")
    }
}

impl Domain {
    /// The allowed values for `profile`.
    pub fn resolve(&self, profile: &Profile) -> Allowed {
        match self {
            Domain::Any => Allowed::Any,
            Domain::Range(min, max, step) => Allowed::Range {
                min: *min,
                max: *max,
                step: *step,
            },
            Domain::Choices(c) => {
                Allowed::Names(c.iter().map(|(n, v)| (n.to_string(), *v)).collect())
            }
            Domain::Profile(f) => f(profile),
        }
    }
}

/// How a parameter's values are shown: display names for a page's buttons and lists.
#[derive(Clone, Copy)]
pub enum Labels {
    /// The value itself (with its unit) is shown.
    None,
    /// Names of the values `0..` (an integer parameter).
    Of(&'static [&'static str]),
    /// A name made from each value (values that depend on the profile: ATT `6 dB`).
    With(fn(i64) -> String),
}

impl Labels {
    /// The display name of raw value `v`, if there is one.
    pub fn of(&self, v: i64) -> Option<String> {
        match self {
            Labels::None => None,
            Labels::Of(names) => usize::try_from(v)
                .ok()
                .and_then(|i| names.get(i))
                .map(|n| n.to_string()),
            Labels::With(f) => Some(f(v)),
        }
    }
}

impl std::fmt::Debug for Labels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Labels")
    }
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
    /// Allowed values.
    pub domain: Domain,
    /// Unit, for the catalogue.
    pub unit: Option<&'static str>,
    /// Display name of the parameter (a page's control), when not its name.
    pub title: Option<&'static str>,
    /// Display names of its values, for the catalogue.
    pub labels: Labels,
}

impl ParamSpec {
    /// A parameter with no unit, title or labels.
    pub const fn new(name: &'static str, kind: ParamKind, required: bool, domain: Domain) -> Self {
        ParamSpec {
            name,
            kind,
            required,
            domain,
            unit: None,
            title: None,
            labels: Labels::None,
        }
    }

    /// The same parameter with a unit.
    pub const fn unit(mut self, unit: &'static str) -> Self {
        self.unit = Some(unit);
        self
    }

    /// The same parameter with a display name.
    pub const fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// The same parameter with display names of its values `0..`.
    pub const fn labels(mut self, labels: &'static [&'static str]) -> Self {
        self.labels = Labels::Of(labels);
        self
    }

    /// The same parameter with display names made from its values.
    pub const fn labels_with(mut self, label: fn(i64) -> String) -> Self {
        self.labels = Labels::With(label);
        self
    }
}

fn vfo_names(p: &Profile) -> Allowed {
    let names: &[&str] = match p.vfo.scheme {
        VfoScheme::Ab => &["A", "B"],
        VfoScheme::MainSub if p.is_dual() => &["MAIN", "SUB"],
        VfoScheme::MainSub => &["MAIN"],
    };
    Allowed::Names(
        names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), i as i64))
            .collect(),
    )
}

fn receivers(p: &Profile) -> Allowed {
    let max = i64::from(p.vfo.scheme == VfoScheme::MainSub && p.is_dual());
    Allowed::Range {
        min: 0,
        max,
        step: 1,
    }
}

/// The `vfo` parameter of receiver commands.
pub const VFO_PARAM: ParamSpec =
    ParamSpec::new("vfo", ParamKind::Str, false, Domain::Profile(vfo_names));
/// The `receiver` parameter of receiver and scope commands.
pub const RECEIVER_PARAM: ParamSpec = ParamSpec::new(
    "receiver",
    ParamKind::Int,
    false,
    Domain::Profile(receivers),
);

/// Checked parameters: each given one with its JSON value and its raw integer. A named
/// choice is matched without regard to case (and a VFO by its other scheme's name), and
/// its value is then the canonical name, not the spelling sent.
pub struct Args<'a> {
    values: &'a Map<String, Value>,
    raw: BTreeMap<&'static str, i64>,
    canonical: BTreeMap<&'static str, Value>,
}

fn describe(allowed: &Allowed, spec: &ParamSpec) -> String {
    let scale = match spec.kind {
        ParamKind::Number { scale } => scale as f64,
        _ => 1.0,
    };
    let unit = spec.unit.map(|u| format!(" {u}")).unwrap_or_default();
    match allowed {
        Allowed::Any => "any".into(),
        Allowed::Range { min, max, step } if *step <= 1 && scale == 1.0 => {
            format!("{min}..{max}{unit}")
        }
        Allowed::Range { min, max, step } => format!(
            "{}..{}{unit} in steps of {}",
            *min as f64 / scale,
            *max as f64 / scale,
            *step as f64 / scale
        ),
        Allowed::Ints(v) => {
            let list: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            format!("{}{unit}", list.join(", "))
        }
        Allowed::Names(v) => v
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        Allowed::Text { max_len, charset } => {
            format!("1 to {max_len} characters from {charset:?}")
        }
    }
}

impl<'a> Args<'a> {
    /// Type- and domain-checks every parameter of `specs` present in `values`.
    pub fn check(
        values: &'a Map<String, Value>,
        specs: &[ParamSpec],
        profile: &Profile,
    ) -> Result<Args<'a>, CommandError> {
        let mut raw = BTreeMap::new();
        let mut canonical = BTreeMap::new();
        for ps in specs {
            let v = match values.get(ps.name) {
                None | Some(Value::Null) if ps.required => {
                    return Err(CommandError::param(
                        ps.name,
                        format!("required ({})", ps.kind.described()),
                    ));
                }
                None | Some(Value::Null) => continue,
                Some(v) => v,
            };
            let allowed = ps.domain.resolve(profile);
            let bad = || {
                CommandError::param(
                    ps.name,
                    format!("{v} is not allowed; allowed: {}", describe(&allowed, ps)),
                )
            };
            let wrong_type = || {
                CommandError::param(ps.name, format!("must be {}, got {v}", ps.kind.described()))
            };
            let r: i64 = match ps.kind {
                ParamKind::Bool => i64::from(v.as_bool().ok_or_else(wrong_type)?),
                ParamKind::Int => {
                    if !(v.is_i64() || v.is_u64()) {
                        return Err(wrong_type());
                    }
                    v.as_i64().ok_or_else(bad)?
                }
                ParamKind::Number { scale } => {
                    let f = v.as_f64().ok_or_else(wrong_type)? * scale as f64;
                    if !f.is_finite() || (f - f.round()).abs() > 1e-6 || f.abs() > 1e15 {
                        return Err(bad());
                    }
                    f.round() as i64
                }
                ParamKind::Str => {
                    let s = v.as_str().ok_or_else(wrong_type)?;
                    match &allowed {
                        Allowed::Names(names) => {
                            let alias = (ps.name == "vfo")
                                .then(|| {
                                    VFO_ALIASES.iter().find(|(a, _)| a.eq_ignore_ascii_case(s))
                                })
                                .flatten()
                                .map(|(_, canonical)| *canonical);
                            let (name, r) = names
                                .iter()
                                .find(|(n, _)| {
                                    n.eq_ignore_ascii_case(s) || alias == Some(n.as_str())
                                })
                                .ok_or_else(bad)?;
                            canonical.insert(ps.name, Value::String(name.clone()));
                            *r
                        }
                        Allowed::Text { max_len, charset } => {
                            let n = s.chars().count();
                            if n == 0 || n > *max_len {
                                return Err(bad());
                            }
                            if let Some(c) = s
                                .chars()
                                .find(|c| !charset.contains(c.to_ascii_uppercase()))
                            {
                                return Err(CommandError::param(
                                    ps.name,
                                    format!(
                                        "{c:?} cannot be sent; allowed: {}",
                                        describe(&allowed, ps)
                                    ),
                                ));
                            }
                            n as i64
                        }
                        _ => 0,
                    }
                }
            };
            let ok = match &allowed {
                Allowed::Range { min, max, step } => {
                    (*min..=*max).contains(&r) && (r - min) % (*step).max(1) == 0
                }
                Allowed::Ints(list) => list.contains(&r),
                Allowed::Any | Allowed::Names(_) | Allowed::Text { .. } => true,
            };
            if !ok {
                return Err(bad());
            }
            raw.insert(ps.name, r);
        }
        Ok(Args {
            values,
            raw,
            canonical,
        })
    }

    /// True if `name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.raw.contains_key(name)
    }

    /// The raw value of `name` (booleans 0/1, choices their value, numbers scaled).
    pub fn raw(&self, name: &str) -> Option<i64> {
        self.raw.get(name).copied()
    }

    /// The JSON value of `name`: as given, or for a named choice its canonical name.
    pub fn value(&self, name: &str) -> Option<&Value> {
        self.canonical
            .get(name)
            .or_else(|| self.values.get(name).filter(|v| !v.is_null()))
    }

    /// A string parameter.
    pub fn str(&self, name: &str) -> Option<&str> {
        self.value(name).and_then(Value::as_str)
    }
}
