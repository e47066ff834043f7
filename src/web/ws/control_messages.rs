//! What the control channel's messages (`/api/v1/ws`: `cmd`, `subscribe`, `unsubscribe`)
//! may carry, checked: their fields and the streams and scope settings of a
//! subscription (docs/API.md, *Lifecycle* and *Streams on the control socket*).

use serde_json::{Map, Value};

use super::messages;
use crate::profile::{Profile, ScopeSourceKind};
use crate::radio::error::{CommandError, ErrorCode};
use crate::wire::civ::Receiver;

/// The streams a control client may subscribe to.
pub const STREAMS: [&str; 3] = ["events", "scope", "meters"];
/// Scope frames per second when a subscription does not say.
pub const DEFAULT_SCOPE_FPS: u32 = 30;

/// A validated `subscribe`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscribeAsk {
    /// The streams asked for (default: events).
    pub streams: Vec<&'static str>,
    /// Scope frames per second, 1..60.
    pub fps: u32,
    /// Receiver the scope stream shows.
    pub receiver: Receiver,
}

/// Refuses a field a message of its type does not have (`invalid_param` naming it); a
/// message of an unknown type is left to the type check.
pub fn check_fields(msg: &Map<String, Value>) -> Result<(), CommandError> {
    let kind = msg.get("type").and_then(Value::as_str).unwrap_or_default();
    let fields: &[&str] = match kind {
        "cmd" => &["name", "params"],
        "subscribe" => &["streams", "scope_fps", "scope_receiver"],
        "unsubscribe" => &["streams"],
        _ => return Ok(()),
    };
    messages::check_fields(msg, kind, fields)
}

/// The `streams` of a message; without any, all of them (`default_all`) or events.
pub fn parse_streams(
    msg: &Map<String, Value>,
    default_all: bool,
) -> Result<Vec<&'static str>, CommandError> {
    match msg.get("streams") {
        None | Some(Value::Null) => Ok(if default_all {
            STREAMS.to_vec()
        } else {
            vec!["events"]
        }),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                let s = v
                    .as_str()
                    .ok_or_else(|| CommandError::param("streams", "must be an array of strings"))?;
                STREAMS.iter().copied().find(|x| *x == s).ok_or_else(|| {
                    CommandError::param(
                        "streams",
                        format!("unknown stream {s:?}; allowed: {}", STREAMS.join(", ")),
                    )
                })
            })
            .collect(),
        Some(_) => Err(CommandError::param(
            "streams",
            "must be an array of strings",
        )),
    }
}

/// Validates a `subscribe` against `profile`.
pub fn parse_subscribe(
    msg: &Map<String, Value>,
    profile: &Profile,
) -> Result<SubscribeAsk, CommandError> {
    let streams = parse_streams(msg, false)?;
    let fps = match msg.get("scope_fps") {
        None | Some(Value::Null) => DEFAULT_SCOPE_FPS,
        Some(v) => match v.as_u64() {
            Some(f) if (1..=60).contains(&f) => f as u32,
            _ => {
                return Err(CommandError::param(
                    "scope_fps",
                    format!("{v} is not allowed; allowed 1..60"),
                ));
            }
        },
    };
    let max_rx = u64::from(profile.is_dual());
    let receiver = match msg.get("scope_receiver") {
        None | Some(Value::Null) => Receiver::Main,
        Some(v) => match v
            .as_u64()
            .and_then(|r| u8::try_from(r).ok())
            .and_then(Receiver::from_code)
        {
            Some(r) if u64::from(r.code()) <= max_rx => r,
            _ => {
                return Err(CommandError::param(
                    "scope_receiver",
                    format!("{v} is not allowed; allowed 0..{max_rx}"),
                ));
            }
        },
    };
    if streams.contains(&"scope") && profile.scope.source == ScopeSourceKind::None {
        return Err(CommandError::new(
            ErrorCode::NotSupported,
            format!("the {} has no scope to stream", profile.model()),
        ));
    }
    Ok(SubscribeAsk {
        streams,
        fps,
        receiver,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ProfileRegistry;
    use serde_json::json;

    fn m(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn subscriptions_are_checked() {
        let p = ProfileRegistry::embedded().get("ic7610").unwrap();
        let ask =
            parse_subscribe(&m(json!({"streams": ["scope"], "scope_receiver": 1})), &p).unwrap();
        assert_eq!(
            ask,
            SubscribeAsk {
                streams: vec!["scope"],
                fps: DEFAULT_SCOPE_FPS,
                receiver: Receiver::Sub
            }
        );
        assert_eq!(
            parse_streams(&m(json!({})), true).unwrap(),
            STREAMS.to_vec()
        );
        for bad in [
            json!({"streams": ["waterfall"]}),
            json!({"streams": "events"}),
            json!({"scope_fps": 61}),
            json!({"scope_receiver": 2}),
        ] {
            assert!(parse_subscribe(&m(bad.clone()), &p).is_err(), "{bad}");
        }
        assert!(check_fields(&m(json!({"type": "cmd", "id": "1", "nme": "x"}))).is_err());
        assert!(check_fields(&m(json!({"type": "teleport", "x": 1}))).is_ok());
    }
}
