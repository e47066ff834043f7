//! Strict JSON for everything that arrives from the network (request bodies, WebSocket
//! messages): like `serde_json::from_str`, but an object that names a key twice is an
//! error that names the key. `{"state":"off","state":"on"}` must not quietly mean "on".
//!
//! Use [`parse`] (text) or [`parse_slice`] (bytes); the error's `Display` is a sentence
//! for the `message` of an `invalid_json` answer, and [`JsonError::duplicate_key`] tells
//! the duplicate apart from other syntax errors.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Why a text is not acceptable JSON.
#[derive(Debug)]
pub struct JsonError {
    inner: serde_json::Error,
    duplicate: Option<String>,
}

impl JsonError {
    /// The key that appeared twice in one object, if that is the problem.
    pub fn duplicate_key(&self) -> Option<&str> {
        self.duplicate.as_deref()
    }

    /// Line of the problem (1-based).
    pub fn line(&self) -> usize {
        self.inner.line()
    }

    /// Column of the problem (1-based).
    pub fn column(&self) -> usize {
        self.inner.column()
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.duplicate {
            Some(k) => write!(
                f,
                "duplicate key {k:?} at line {} column {}: every key may appear once per object",
                self.inner.line(),
                self.inner.column()
            ),
            None => self.inner.fmt(f),
        }
    }
}

impl std::error::Error for JsonError {}

/// Deepest nesting of arrays and objects accepted. No message of the API needs more
/// than a few levels; the limit keeps the parser's recursion (and the drop of what it
/// built) small enough for the 256 KiB stacks of the WebSocket threads, also in debug
/// builds (serde_json's own limit, 128, needs more than 224 KiB there).
pub const MAX_DEPTH: usize = 32;

/// Marks the custom error raised for a duplicate key, so that it can be recognised.
const DUPLICATE_MARK: &str = "\u{0}duplicate key\u{0}";

/// Parses `text` as one JSON value; duplicate keys in any object are an error.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let mut de = serde_json::Deserializer::from_str(text);
    finish(
        StrictValue { depth: 0 }
            .deserialize(&mut de)
            .and_then(|v| de.end().map(|()| v)),
    )
}

/// [`parse`] for bytes (which must be UTF-8).
pub fn parse_slice(bytes: &[u8]) -> Result<Value, JsonError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    finish(
        StrictValue { depth: 0 }
            .deserialize(&mut de)
            .and_then(|v| de.end().map(|()| v)),
    )
}

fn finish(r: Result<Value, serde_json::Error>) -> Result<Value, JsonError> {
    r.map_err(|inner| {
        let text = inner.to_string();
        let duplicate = text
            .strip_prefix(DUPLICATE_MARK)
            .and_then(|rest| rest.split(DUPLICATE_MARK).next())
            .map(str::to_string);
        JsonError { inner, duplicate }
    })
}

/// Builds a [`Value`] like serde_json's own visitor, refusing duplicate keys and
/// nesting deeper than [`MAX_DEPTH`]; `depth` is the number of arrays and objects
/// around the value.
#[derive(Clone, Copy)]
struct StrictValue {
    depth: usize,
}

impl StrictValue {
    /// The seed for the values inside an array or object at this depth.
    fn inner<E: de::Error>(self) -> Result<StrictValue, E> {
        if self.depth >= MAX_DEPTH {
            return Err(E::custom(format!(
                "nested deeper than {MAX_DEPTH} levels of arrays and objects"
            )));
        }
        Ok(StrictValue {
            depth: self.depth + 1,
        })
    }
}

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(inner)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "{DUPLICATE_MARK}{key}{DUPLICATE_MARK}"
                )));
            }
            let v = map.next_value_seed(inner)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn same_values_as_serde_json() {
        for text in [
            r#"{"a":1,"b":[1,2,{"c":null}],"d":-3,"e":1.5,"f":"x\u00e9","g":true}"#,
            "[]",
            "{}",
            "42",
            "\"s\"",
            "18446744073709551615",
            "-9223372036854775808",
            " { \"a\" : { \"a\" : 1 } } ",
        ] {
            let ours = parse(text).unwrap();
            let theirs: Value = serde_json::from_str(text).unwrap();
            assert_eq!(ours, theirs, "{text}");
            assert_eq!(parse_slice(text.as_bytes()).unwrap(), theirs);
        }
    }

    #[test]
    fn duplicate_keys_are_named() {
        let e = parse(r#"{"state":"off","state":"on"}"#).unwrap_err();
        assert_eq!(e.duplicate_key(), Some("state"));
        assert!(e.to_string().contains("\"state\""), "{e}");
        assert!(!e.to_string().contains('\u{0}'), "{e}");
        let nested = parse(r#"{"type":"cmd","params":{"freq":1,"freq":2}}"#).unwrap_err();
        assert_eq!(nested.duplicate_key(), Some("freq"));
        let in_array = parse_slice(br#"[{"a":1},{"b":1,"b":1}]"#).unwrap_err();
        assert_eq!(in_array.duplicate_key(), Some("b"));
        // an escaped spelling of the same key is the same key
        let escaped = parse(r#"{"a":1,"\u0061":2}"#).unwrap_err();
        assert_eq!(escaped.duplicate_key(), Some("a"));
        // the same key in sibling objects is fine
        assert_eq!(
            parse(r#"[{"a":1},{"a":2}]"#).unwrap(),
            json!([{"a": 1}, {"a": 2}])
        );
    }

    #[test]
    fn other_errors_are_serde_json_errors() {
        for bad in ["{not json", "{\"a\":1", "[1,]", "{} {}", "", "\u{feff}{}"] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.duplicate_key(), None, "{bad}");
            assert!(!e.to_string().is_empty());
        }
        assert!(parse_slice(b"\xff").is_err());
        // depth is bounded as in serde_json (no stack overflow)
        let deep = "[".repeat(100_000);
        assert!(parse(&deep).is_err());
    }

    fn nested(depth: usize) -> (String, String) {
        (
            format!("{}{}", "[".repeat(depth), "]".repeat(depth)),
            format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth)),
        )
    }

    #[test]
    fn nesting_is_limited_to_a_depth_small_stacks_take() {
        let (arrays, objects) = nested(MAX_DEPTH);
        assert!(parse(&arrays).is_ok() && parse(&objects).is_ok());
        let (arrays, objects) = nested(MAX_DEPTH + 1);
        for deep in [arrays, objects] {
            let e = parse(&deep).unwrap_err();
            assert!(e.to_string().contains("nested deeper than 32"), "{e}");
        }
        // review: serde_json's own limit (128) needed more than 224 KiB of stack in a
        // debug build; the WebSocket threads have 256 KiB and an overflow aborts the
        // process. Whatever comes in now parses within 96 KiB.
        let worker = std::thread::Builder::new()
            .stack_size(96 * 1024)
            .spawn(|| {
                for depth in [MAX_DEPTH, 127, 128, 10_000] {
                    let (arrays, objects) = nested(depth);
                    let _ = parse(&arrays);
                    let _ = parse(&objects);
                    let _ = parse_slice("[".repeat(depth).as_bytes());
                }
            })
            .unwrap();
        assert!(worker.join().is_ok());
    }
}
