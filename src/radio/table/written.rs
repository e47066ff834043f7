//! What a write of settings answers: the parameters as the client gave them, typed
//! (they become JSON only at the web edge, `web/answer.rs`).

use serde_json::Value;

use crate::wire::civ::Receiver;

/// What a write of settings answers: the receiver written to and each parameter as the
/// client gave it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Written {
    /// The receiver whose settings were written (`None`: global or scope settings).
    pub receiver: Option<Receiver>,
    /// Each parameter given, in the order of the command's row.
    pub values: Vec<(&'static str, Given)>,
}

/// A parameter's value as the client gave it (a choice by its canonical name), answered
/// as given: `3` as `3`, `3.5` as `3.5`, never `3` as `3.0`.
#[derive(Debug, Clone, PartialEq)]
pub enum Given {
    /// A switch.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// A number with a fraction (or beyond the whole numbers' range).
    Real(f64),
    /// A choice or a text.
    Text(String),
}

impl Given {
    /// A client's value (`None` for null, arrays and objects, which no parameter takes).
    pub fn from_json(v: &Value) -> Option<Given> {
        Some(match v {
            Value::Bool(b) => Given::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Given::Int(i),
                None => Given::Real(n.as_f64()?),
            },
            Value::String(s) => Given::Text(s.clone()),
            Value::Null | Value::Array(_) | Value::Object(_) => return None,
        })
    }
}
