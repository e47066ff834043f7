//! REST handlers (interface.md §2.1-2.3, §4.1, §4.2; decisions.md "HTTP").

use std::time::Duration;

use serde_json::{Value, json};

use super::answer;
use super::capabilities::{capabilities_json, capability_tags};
use super::context::AppCtx;
use super::identity::{PROTO, SERVER_NAME, VERSION};
use super::response::{self, Reply};
use crate::profile::{Feature, ScopeSourceKind};
use crate::radio::command::Command;

/// `GET /healthz`: the process is up.
pub fn healthz(app: &AppCtx) -> Reply {
    response::json(
        200,
        &json!({"status": "ok", "version": VERSION, "uptimeS": app.started.elapsed().as_secs()}),
    )
}

/// `GET /readyz`: 200 when the radio is ready, else 503.
pub fn readyz(app: &AppCtx) -> Reply {
    let (ready, status, message) = app.radio.store().read(|c| {
        (
            c.connection.radio_ready,
            c.detail.status,
            c.detail.message.clone(),
        )
    });
    if ready {
        response::json(200, &json!({"status": "ready", "radioReady": true}))
    } else {
        let why = message.unwrap_or_else(|| format!("radio status: {}", status.name()));
        response::json(
            503,
            &json!({"status": "not_ready", "radioReady": false, "error": "radio_unavailable", "message": why}),
        )
    }
}

/// `GET /api/v1/info`.
pub fn info(app: &AppCtx) -> Reply {
    let p = app.radio.profile();
    let (conn, clients) = app.radio.store().read(|c| (c.connection, c.ws_clients));
    let total = clients.control + clients.scope + clients.audio + clients.meters;
    response::json(
        200,
        &json!({
            "server": SERVER_NAME,
            "version": VERSION,
            "proto": PROTO,
            "radio": p.model(),
            "model": p.model(),
            "capabilities": {
                "hasSpectrum": p.scope.source != ScopeSourceKind::None,
                "hasAudio": p.has_feature(Feature::Audio),
                "hasTx": p.has_feature(Feature::Tx),
                "hasDualReceiver": p.is_dual(),
                "hasTuner": p.has_feature(Feature::Tuner),
                "hasCw": p.has_feature(Feature::Cw),
                "maxReceivers": p.radio.receivers,
                "tags": capability_tags(&p),
                "modes": p.modes.list,
                "filters": p.filters.list,
                "vfoScheme": p.vfo.scheme.name(),
                "hasLan": p.radio.lan,
            },
            "connection": {
                "rigConnected": conn.rig_connected,
                "radioReady": conn.radio_ready,
                "controlConnected": conn.control_connected,
                "wsClients": total,
            },
            "txTimeoutS": app.cfg.tx_timeout.as_secs(),
            "services": super::station::services_json(app),
        }),
    )
}

/// `GET /api/v1/state` with ETag / If-None-Match.
pub fn state(app: &AppCtx, if_none_match: Option<&str>) -> Reply {
    let snap = app.radio.store().snapshot();
    let etag = format!("\"{}\"", snap.revision);
    if if_none_match.is_some_and(|v| etag_matches(v, &etag)) {
        return response::not_modified(&etag);
    }
    response::with_etag(
        response::json_text(200, snap.json.as_str().to_string()),
        &etag,
    )
}

/// True if an `If-None-Match` value (a list, weak tags allowed, or `*`) names `etag`.
pub fn etag_matches(header: &str, etag: &str) -> bool {
    header
        .split(',')
        .map(str::trim)
        .any(|t| t == "*" || t.trim_start_matches("W/") == etag)
}

/// `GET /api/v1/commands`: the catalogue of the commands the radio's profile supports,
/// generated from the command table.
pub fn commands(app: &AppCtx) -> Reply {
    response::json(
        200,
        &crate::radio::table::catalogue::catalogue(&app.radio.profile()),
    )
}

/// `GET /api/v1/capabilities`.
pub fn capabilities(app: &AppCtx) -> Reply {
    let mut caps = capabilities_json(&app.radio.profile(), app.radio.link_status().rx_codec);
    caps["services"] = super::station::services_json(app);
    response::json(200, &caps)
}

/// `POST /api/v1/radio/connect`.
pub fn connect(app: &AppCtx) -> Reply {
    let ready = app.radio.store().read(|c| c.connection.rig_connected);
    if ready {
        return response::json(200, &json!({"status": "connected"}));
    }
    app.radio.connect();
    response::json(202, &json!({"status": "connecting"}))
}

/// `POST /api/v1/radio/disconnect` (unkeys first if transmitting).
pub fn disconnect(app: &AppCtx) -> Reply {
    if app.radio.store().read(|c| c.radio.ptt != Some(false)) {
        // TX audio stops now, not when the radio confirms
        app.ptt.unkeying();
        if let Err(e) = app.radio.execute(Command::Ptt(false)) {
            log::warn!("unkeying before disconnect failed: {e}");
        }
        app.ptt.clear();
    }
    app.radio.disconnect();
    response::json(200, &json!({"status": "disconnected"}))
}

/// `POST /api/v1/radio/power` with `{"state": "on" | "off"}`.
pub fn power(app: &AppCtx, body: &Value) -> Reply {
    let Some(obj) = body.as_object() else {
        return response::error(
            400,
            "invalid_json",
            "the body must be a JSON object like {\"state\":\"on\"}",
        );
    };
    if let Some(k) = obj.keys().find(|k| *k != "state") {
        return response::error(
            400,
            "invalid_param",
            format!("{k}: unknown field; allowed: state"),
        );
    }
    let on = match obj.get("state").and_then(Value::as_str) {
        Some("on") => true,
        Some("off") => false,
        Some(other) => {
            return response::error(
                400,
                "invalid_param",
                format!("state: {other:?} is not allowed; allowed: \"on\", \"off\""),
            );
        }
        None => return response::error(400, "invalid_param", "state: required, \"on\" or \"off\""),
    };
    if !on {
        // TX audio stops now; the engine unkeys before it switches off when the
        // transmitter may be keyed (also by a key that is still on its way)
        app.ptt.unkeying();
    }
    match app.radio.execute(Command::Power(on)) {
        Ok(v) => response::json(200, &answer::result_json(&v)),
        Err(e) => response::command_error(&e),
    }
}

/// `GET /`: the browser UI (gzip when `Accept-Encoding` allows it).
pub fn root(accept_encoding: Option<&str>) -> Reply {
    super::ui_page::reply(accept_encoding)
}

/// Bounded time for radio commands started from HTTP.
pub const HTTP_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
