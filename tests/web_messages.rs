//! JSON from the network on every channel and on a REST body: strict (a key named twice
//! is `invalid_json` naming the key) and deep nesting answered, never a stack overflow
//! (the WebSocket threads run on 256 KiB stacks, and an overflow would abort the whole
//! process; these tests run in debug builds, where frames are largest). Nesting deeper
//! than 32 levels is `invalid_json` (`strict_json::MAX_DEPTH`).

#[macro_use]
mod common;

use std::time::Duration;

use common::web::*;
use rigweb::app::Tuning;
use serde_json::{Value, json};
use tungstenite::Message;

const CHANNELS: [&str; 4] = [
    "/api/v1/ws",
    "/api/v1/scope",
    "/api/v1/meters",
    "/api/v1/audio",
];

/// The next `error` (or failed `response`) on `ws`.
fn next_error(ws: &mut Ws, what: &str) -> Value {
    ws.until(Duration::from_secs(5), |v| {
        v["type"] == "error" || (v["type"] == "response" && v["ok"] == false)
    })
    .unwrap_or_else(|| panic!("no error for {what}"))
}

fn error_code(v: &Value) -> &str {
    v["error"]
        .as_str()
        .or_else(|| v["error"]["code"].as_str())
        .unwrap_or_default()
}

/// `depth` arrays nested inside each other inside a message object.
fn nested_message(depth: usize) -> String {
    format!(
        r#"{{"type":"deep","id":"deep","x":{}{}}}"#,
        "[".repeat(depth - 1),
        "]".repeat(depth - 1)
    )
}

fn nested_objects(depth: usize) -> String {
    format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
}

both_ways!(every_channel_refuses_duplicate_keys_naming_the_key);
fn every_channel_refuses_duplicate_keys_naming_the_key() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    for path in CHANNELS {
        let mut ws = Ws::connect(a, path, &[]).unwrap();
        for (text, key) in [
            (r#"{"type":"subscribe","type":"meters_stop"}"#, "type"),
            (r#"{"type":"x","id":"1","p":{"fps":10,"fps":30}}"#, "fps"),
        ] {
            ws.ws.send(Message::Text(text.into())).unwrap();
            let e = next_error(&mut ws, path);
            assert_eq!(error_code(&e), "invalid_json", "{path}: {e}");
            let message = e["message"]
                .as_str()
                .or_else(|| e["error"]["message"].as_str())
                .unwrap_or_default();
            assert!(message.contains(&format!("\"{key}\"")), "{path}: {e}");
        }
    }
    srv.shutdown();
}

both_ways!(deeply_nested_json_is_answered_on_every_channel_and_rest);
fn deeply_nested_json_is_answered_on_every_channel_and_rest() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    let opened = "[".repeat(10_000);
    let unclosed = format!(r#"{{"type":"deep","x":{opened}"#);
    for path in CHANNELS {
        let mut ws = Ws::connect(a, path, &[]).unwrap();
        for text in [
            opened.clone(),
            unclosed.clone(),
            nested_message(32),
            nested_message(33),
            nested_message(127),
            format!("[{}]", nested_message(126)),
            nested_objects(32),
            nested_objects(127),
            nested_objects(129),
        ] {
            ws.ws.send(Message::Text(text.clone().into())).unwrap();
            let e = next_error(&mut ws, path);
            let depth = text.bytes().filter(|b| *b == b'[' || *b == b'{').count();
            if depth > 32 {
                assert_eq!(error_code(&e), "invalid_json", "{path} {depth}: {e}");
            } else {
                assert!(!error_code(&e).is_empty(), "{path}: {e}");
            }
        }
        // and the channel goes on
        ws.ws
            .send(Message::Text(r#"{"type":"nope"}"#.into()))
            .unwrap();
        next_error(&mut ws, path);
    }
    // the control channel: deep params of a command
    let mut ctl = Ws::control(a);
    let deep = json!({"type": "cmd", "id": "d", "name": "set_power"}).to_string();
    let deep = format!(
        "{},\"params\":{}1{}}}",
        deep.trim_end_matches('}'),
        r#"{"level":"#.repeat(126),
        "}".repeat(126)
    );
    ctl.ws.send(Message::Text(deep.into())).unwrap();
    next_error(&mut ctl, "deep params");
    assert_eq!(ctl.cmd("ok", "set_power", json!({"level": 3}))["ok"], true);
    // REST bodies
    for body in [opened.clone(), nested_objects(127), nested_objects(129)] {
        let r = http(
            a,
            "POST",
            "/api/v1/radio/power",
            &[("Content-Type", "application/json")],
            Some(body.as_bytes()),
        );
        assert_eq!(r.status, 400, "{:?}", String::from_utf8_lossy(&r.body));
    }
    assert_eq!(get(a, "/healthz").status, 200, "the process is alive");
    srv.shutdown();
}

#[test]
fn every_channel_refuses_unknown_fields_naming_the_field() {
    // issue 15.8c: the scope channel's subscribe accepted unknown fields while commands
    // refused unknown parameters; now every message of every channel refuses them alike
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    let cases = [
        (
            "/api/v1/scope",
            "scope_fsp",
            json!({"type": "subscribe", "id": "s", "scope_fsp": 20}),
        ),
        (
            "/api/v1/meters",
            "fsp",
            json!({"type": "meters_start", "id": "m", "fsp": 20}),
        ),
        (
            "/api/v1/meters",
            "now",
            json!({"type": "meters_stop", "id": "m", "now": true}),
        ),
        (
            "/api/v1/audio",
            "rate",
            json!({"type": "audio_start", "id": "a", "direction": "rx", "rate": 48000}),
        ),
        (
            "/api/v1/audio",
            "all",
            json!({"type": "audio_stop", "id": "a", "direction": "rx", "all": 1}),
        ),
        (
            "/api/v1/ws",
            "stream",
            json!({"type": "subscribe", "id": "s", "stream": ["events"]}),
        ),
        (
            "/api/v1/ws",
            "all",
            json!({"type": "unsubscribe", "id": "u", "all": true}),
        ),
        (
            "/api/v1/ws",
            "param",
            json!({"type": "cmd", "id": "c", "name": "vfo_swap", "param": {}}),
        ),
    ];
    for (path, field, msg) in cases {
        let mut ws = Ws::connect(a, path, &[]).unwrap();
        ws.send(&msg);
        let e = next_error(&mut ws, path);
        assert_eq!(error_code(&e), "invalid_param", "{path} {msg}: {e}");
        assert_eq!(e["id"], msg["id"], "{path}: the id is echoed");
        let message = e["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(&format!(
                "{field}: unknown field of {}",
                msg["type"].as_str().unwrap()
            )),
            "{path}: {message}"
        );
        assert!(message.contains("allowed: type, id"), "{path}: {message}");
        // the socket stays usable: the same message without the field is accepted
        let mut good = msg.as_object().unwrap().clone();
        good.remove(field);
        ws.send(&Value::Object(good));
        let answer = ws
            .until(Duration::from_secs(5), |v| {
                v["id"] == msg["id"] || v["type"] == "error"
            })
            .unwrap_or_else(|| panic!("{path}: an answer"));
        assert_ne!(answer["type"], "error", "{path}: {answer}");
    }
    srv.shutdown();
}
