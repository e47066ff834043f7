//! The state fields behind settings: how a setting's raw value is read from and written
//! into the typed state, and the macros that make a field accessor of a state field.

use serde::Serialize;
use serde_json::Value;

use crate::radio::state::{Agc, RadioState, ScopeSpeed, Tuner};

/// The state field behind a setting: read as JSON (for events and change detection),
/// written from a raw value (false when the value is not valid for the field).
#[derive(Clone, Copy)]
pub struct Field {
    /// The field's value for receiver `rx` (ignored for global fields), `None` when unknown.
    pub get: fn(&RadioState, u8) -> Option<Value>,
    /// Sets the field for receiver `rx` from a raw value.
    pub set: fn(&mut RadioState, u8, i64) -> bool,
    /// The field's path in the state resource (relative to the receiver object for
    /// per-receiver settings).
    pub path: &'static str,
}

impl std::fmt::Debug for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.path)
    }
}

pub(super) fn json<T: Serialize>(v: T) -> Option<Value> {
    serde_json::to_value(v).ok()
}

pub(super) fn level(raw: i64) -> Option<u16> {
    u16::try_from(raw).ok().filter(|v| *v <= 255)
}

pub(super) fn byte(raw: i64) -> Option<u8> {
    u8::try_from(raw).ok()
}

pub(super) fn flag(raw: i64) -> Option<bool> {
    match raw {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    }
}

pub(super) fn agc(raw: i64) -> Option<Agc> {
    match raw {
        1 => Some(Agc::Fast),
        2 => Some(Agc::Mid),
        3 => Some(Agc::Slow),
        _ => None,
    }
}

pub(super) fn tuner(raw: i64) -> Option<Tuner> {
    match raw {
        0 => Some(Tuner::Off),
        1 => Some(Tuner::On),
        2 => Some(Tuner::Tune),
        _ => None,
    }
}

pub(super) fn speed(raw: i64) -> Option<ScopeSpeed> {
    match raw {
        0 => Some(ScopeSpeed::Fast),
        1 => Some(ScopeSpeed::Mid),
        2 => Some(ScopeSpeed::Slow),
        _ => None,
    }
}

pub(super) fn scope_mode(raw: i64) -> Option<u8> {
    u8::try_from(raw).ok().filter(|m| *m <= 3)
}

pub(super) fn hz32(raw: i64) -> Option<u32> {
    u32::try_from(raw).ok()
}

pub(super) fn hz64(raw: i64) -> Option<u64> {
    u64::try_from(raw).ok()
}

pub(super) fn offset(raw: i64) -> Option<i32> {
    i32::try_from(raw).ok().filter(|v| v.abs() <= 9999)
}

pub(super) fn tenths(raw: i64) -> Option<i16> {
    i16::try_from(raw).ok()
}

/// Tenths of a dB as the state shows them: dB.
pub(super) fn db_of_tenths(t: i16) -> Option<serde_json::Value> {
    Some(serde_json::json!(f64::from(t) / 10.0))
}

/// A per-receiver field `$f` converted from raw by `$conv`.
macro_rules! rx_field {
    ($f:ident, $conv:expr, $path:literal) => {
        Field {
            get: |s, rx| s.receiver(rx).and_then(|r| r.$f).and_then(json),
            set: |s, rx, raw| match (s.receiver_mut(rx), $conv(raw)) {
                (Some(r), Some(v)) => {
                    r.$f = Some(v);
                    true
                }
                _ => false,
            },
            path: $path,
        }
    };
}

/// A global field `$f` converted from raw by `$conv`.
macro_rules! global_field {
    ($f:ident, $conv:expr, $path:literal) => {
        Field {
            get: |s, _| s.$f.and_then(json),
            set: |s, _, raw| match $conv(raw) {
                Some(v) => {
                    s.$f = Some(v);
                    true
                }
                None => false,
            },
            path: $path,
        }
    };
}

/// A field of the scope state, kept for the receiver the scope shows.
macro_rules! scope_field {
    ($f:ident, $conv:expr, $path:literal) => {
        scope_field!($f, $conv, $path, json)
    };
    // `$show`: the value as the state shows it (a JSON value of the stored one)
    ($f:ident, $conv:expr, $path:literal, $show:expr) => {
        Field {
            get: |s, rx| {
                (s.scope.receiver == rx)
                    .then_some(s.scope.$f)
                    .flatten()
                    .and_then($show)
            },
            set: |s, rx, raw| match $conv(raw) {
                Some(v) if s.scope.receiver == rx => {
                    s.scope.$f = Some(v);
                    true
                }
                _ => false,
            },
            path: $path,
        }
    };
}
