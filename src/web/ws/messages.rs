//! JSON messages of the control channel (interface.md §2.4, §6; decisions.md) and the
//! replies and errors the stream channels (scope, meters, audio) share.

use serde_json::{Map, Value, json};

use super::registry::WsRoute;
use crate::profile::Profile;
use crate::radio::error::{CommandError, ErrorCode};
use crate::radio::state::StateContent;
pub use crate::web::capabilities::capability_tags;
use crate::web::identity::{PROTO, SERVER_NAME, VERSION};

/// `hello`, sent on connect; `session` proves on other channels that a client is this
/// control client (docs/API.md, `hello.session`).
pub fn hello(profile: &Profile, session: &str) -> String {
    json!({
        "type": "hello",
        "proto": PROTO,
        "server": SERVER_NAME,
        "version": VERSION,
        "radio": profile.model(),
        "capabilities": capability_tags(profile),
        "session": session,
    })
    .to_string()
}

/// Parses an incoming text message of any channel: it must be a JSON object, without
/// duplicate keys (the strict parser). Every channel parses through here.
pub fn parse_message(text: &str) -> Result<Map<String, Value>, CommandError> {
    match crate::util::strict_json::parse(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(CommandError::new(
            ErrorCode::InvalidJson,
            "a message must be a JSON object",
        )),
        Err(e) => Err(CommandError::new(
            ErrorCode::InvalidJson,
            format!("not valid JSON: {e}"),
        )),
    }
}

/// Refuses a field of `msg` other than `type`, `id` and `fields`, as a command's unknown
/// parameter is: `invalid_param` naming the field and the allowed ones (`what` is the
/// message's type, e.g. `subscribe`).
pub fn check_fields(
    msg: &Map<String, Value>,
    what: &str,
    fields: &[&str],
) -> Result<(), CommandError> {
    let known = |k: &str| k == "type" || k == "id" || fields.contains(&k);
    match msg.keys().find(|k| !known(k)) {
        None => Ok(()),
        Some(k) => {
            let allowed: Vec<&str> = ["type", "id"].iter().chain(fields).copied().collect();
            Err(CommandError::param(
                k,
                format!("unknown field of {what}; allowed: {}", allowed.join(", ")),
            ))
        }
    }
}

/// `{"type":"error","error","message"}`, with the message's `id` when it had one.
pub fn error(e: &CommandError, id: Option<&Value>) -> String {
    reply(
        json!({"type": "error", "error": e.code.as_str(), "message": e.message}),
        id,
    )
}

/// The `id` of a stream channel's request that its reply echoes: a string or a number
/// (any other `id` is not echoed).
pub fn echoed_id(msg: &Map<String, Value>) -> Option<&Value> {
    msg.get("id").filter(|v| v.is_string() || v.is_number())
}

/// A reply that is not a `response` (a stream channel's `meters_started`,
/// `audio_stopped`, ..., and [`error`]): `fields`, an object, with the request's `id`
/// when it had one.
pub fn reply(mut fields: Value, id: Option<&Value>) -> String {
    if let Some(id) = id {
        fields["id"] = id.clone();
    }
    fields.to_string()
}

/// The error of a message whose `type` the channel of `route` does not take: `got` is
/// its type (`None`: it had none), `allowed` the types the channel takes.
pub fn unknown_type(route: WsRoute, got: Option<&str>, allowed: &[&str]) -> CommandError {
    let what = got.map_or("missing".to_string(), |t| format!("unknown type {t:?}"));
    CommandError::param(
        "type",
        format!(
            "{what} on {}; allowed: {}",
            route.path(),
            allowed.join(", ")
        ),
    )
}

/// The error of a binary message of `len` bytes on the channel of `route`, which takes
/// JSON text only.
pub fn binary_refused(route: WsRoute, len: usize) -> CommandError {
    CommandError::new(
        ErrorCode::InvalidJson,
        format!(
            "binary messages ({len} bytes) are not accepted on {}; send JSON text",
            route.path()
        ),
    )
}

/// The draft `state` message (interface.md §2.4 seed shape).
pub fn draft_state(c: &StateContent, smeter: u16, swr: u16) -> String {
    let r = &c.radio;
    let (freq_a, freq_b) = match (&r.main.vfo_a, &r.main.vfo_b, &r.sub) {
        (Some(a), Some(b), _) => (a.freq_hz, b.freq_hz),
        (_, _, Some(sub)) => (r.main.freq_hz, sub.freq_hz),
        _ => (r.main.freq_hz, r.main.freq_hz),
    };
    let filter = r.main.filter.map(|f| format!("FIL{f}"));
    json!({
        "type": "state",
        "data": {
            "freq_a": freq_a,
            "freq_b": freq_b,
            "mode": r.main.mode,
            "filter": filter,
            "ptt": r.ptt,
            "power": r.settings.power,
            "smeter": smeter,
            "swr": swr,
            "scope": {
                "mode": r.scope.settings.mode,
                "start_freq": r.scope.start_freq,
                "end_freq": r.scope.end_freq,
                "receiver": r.scope.receiver,
            },
        }
    })
    .to_string()
}

/// `state_update` full form.
pub fn full(revision: u64, state_json: &str) -> String {
    format!(
        r#"{{"type":"state_update","data":{{"type":"full","revision":{revision},"data":{state_json}}}}}"#
    )
}

/// `state_update` delta form.
pub fn delta(
    revision: u64,
    changed: &serde_json::Map<String, Value>,
    removed: &[String],
) -> String {
    json!({
        "type": "state_update",
        "data": {"type": "delta", "revision": revision, "changed": changed, "removed": removed},
    })
    .to_string()
}

/// An `event`.
pub fn event(name: &str, data: &Value) -> String {
    json!({"type": "event", "name": name, "data": data}).to_string()
}

/// A successful `response`.
pub fn ok(id: &Value, result: &Value) -> String {
    json!({"type": "response", "id": id, "ok": true, "result": result}).to_string()
}

/// A failed `response`.
pub fn fail(id: &Value, e: &CommandError) -> String {
    json!({"type": "response", "id": id, "ok": false, "error": e.code.as_str(), "message": e.message}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_are_refused_naming_the_field_and_the_allowed_ones() {
        let m = |v: Value| v.as_object().unwrap().clone();
        let ok = m(json!({"type": "subscribe", "id": 1, "scope_fps": 20}));
        assert!(check_fields(&ok, "subscribe", &["scope_fps", "scope_receiver"]).is_ok());
        let bad = m(json!({"type": "subscribe", "scope_fsp": 20}));
        let e = check_fields(&bad, "subscribe", &["scope_fps", "scope_receiver"]).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidParam);
        assert_eq!(
            e.message,
            "scope_fsp: unknown field of subscribe; allowed: type, id, scope_fps, scope_receiver"
        );
    }

    #[test]
    fn a_stream_channel_names_its_path_and_what_it_takes() {
        let e = unknown_type(
            WsRoute::Meters,
            Some("meter_start"),
            &["meters_start", "meters_stop"],
        );
        assert_eq!(e.code, ErrorCode::InvalidParam);
        assert_eq!(
            e.message,
            "type: unknown type \"meter_start\" on /api/v1/meters; allowed: meters_start, meters_stop"
        );
        let e = unknown_type(WsRoute::Scope, None, &["subscribe"]);
        assert_eq!(
            e.message,
            "type: missing on /api/v1/scope; allowed: subscribe"
        );
        let e = binary_refused(WsRoute::Audio, 12);
        assert_eq!(e.code, ErrorCode::InvalidJson);
        assert_eq!(
            e.message,
            "binary messages (12 bytes) are not accepted on /api/v1/audio; send JSON text"
        );
    }

    #[test]
    fn a_reply_echoes_the_id_only_when_the_request_had_one() {
        let r = |id: Option<&Value>| -> Value {
            serde_json::from_str(&reply(json!({"type": "meters_stopped"}), id)).unwrap()
        };
        assert_eq!(r(None), json!({"type": "meters_stopped"}));
        assert_eq!(
            r(Some(&json!("a1"))),
            json!({"type": "meters_stopped", "id": "a1"})
        );
        assert_eq!(
            r(Some(&json!(7))),
            json!({"type": "meters_stopped", "id": 7})
        );
        let m = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(echoed_id(&m(json!({"id": "x"}))), Some(&json!("x")));
        assert_eq!(echoed_id(&m(json!({"id": 3}))), Some(&json!(3)));
        assert_eq!(echoed_id(&m(json!({"id": [1]}))), None);
        assert_eq!(echoed_id(&m(json!({"id": null}))), None);
        assert_eq!(echoed_id(&m(json!({}))), None);
    }
}
