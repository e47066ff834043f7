//! JSON messages of the control channel (interface.md §2.4, §6; decisions.md).

use serde_json::{Value, json};

use crate::profile::Profile;
use crate::radio::error::CommandError;
use crate::radio::state::StateContent;
pub use crate::web::capabilities::capability_tags;
use crate::web::identity::{PROTO, SERVER_NAME, VERSION};

/// `hello`, sent on connect.
pub fn hello(profile: &Profile) -> String {
    json!({
        "type": "hello",
        "proto": PROTO,
        "server": SERVER_NAME,
        "version": VERSION,
        "radio": profile.model(),
        "capabilities": capability_tags(profile),
    })
    .to_string()
}

/// The draft `state` message (interface.md §2.4 seed shape).
pub fn draft_state(c: &StateContent, smeter: u16, swr: u16) -> String {
    let r = &c.radio;
    let (freq_a, freq_b) = match (&r.main.vfo_a, &r.main.vfo_b, &r.sub) {
        (Some(a), Some(b), _) => (a.freq_hz, b.freq_hz),
        (_, _, Some(sub)) => (r.main.freq_hz, sub.freq_hz),
        _ => (r.main.freq_hz, r.main.freq_hz),
    };
    json!({
        "type": "state",
        "data": {
            "freq_a": freq_a,
            "freq_b": freq_b,
            "mode": r.main.mode,
            "filter": format!("FIL{}", r.main.filter),
            "ptt": r.ptt,
            "power": r.power,
            "smeter": smeter,
            "swr": swr,
            "scope": {
                "mode": r.scope.mode,
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
