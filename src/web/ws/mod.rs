//! WebSocket routes: the upgrade checks (auth first, then headers, then the per-channel
//! client cap — all answered with JSON errors before any upgrade), the registry of
//! connected clients, and one thread per client.

pub mod audio_channel;
pub mod conn;
pub mod control;
pub mod feed;
pub mod messages;
pub mod meters_channel;
pub mod pacer;
pub mod rate_limit;
pub mod registry;
pub mod scope_channel;
pub mod tx_gate;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tiny_http::{Request, Response, StatusCode};

use self::conn::Channel;
pub use self::registry::WsRegistry;
use super::context::AppCtx;
use super::response::{self, Reply};
use super::upgrade;
use crate::radio::error::CommandError;

/// A WebSocket route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WsRoute {
    /// `/api/v1/ws`.
    Control,
    /// `/api/v1/scope`.
    Scope,
    /// `/api/v1/meters`.
    Meters,
    /// `/api/v1/audio`.
    Audio,
}

impl WsRoute {
    fn index(self) -> usize {
        self as usize
    }

    fn name(self) -> &'static str {
        match self {
            WsRoute::Control => "control",
            WsRoute::Scope => "scope",
            WsRoute::Meters => "meters",
            WsRoute::Audio => "audio",
        }
    }
}

/// Holds a place in the per-route count; gives it back when dropped.
struct Slot {
    app: Arc<AppCtx>,
    route: WsRoute,
    id: u64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.app.ws.counts[self.route.index()].fetch_sub(1, Ordering::AcqRel);
        self.app.ws.clients.lock().remove(&self.id);
    }
}

fn header<'a>(req: &'a Request, name: &str) -> Option<&'a str> {
    crate::web::request_header(req, name)
}

/// The channel that serves `route` for client `id` (`url` is the request target, for
/// the query parameters a channel reads); an error is answered 400 before the upgrade.
fn channel_for(
    route: WsRoute,
    url: &str,
    app: &Arc<AppCtx>,
    id: u64,
) -> Result<Box<dyn Channel>, CommandError> {
    Ok(match route {
        WsRoute::Control => Box::new(control::ControlChannel::new(app.clone(), id)),
        WsRoute::Scope => {
            let ask = scope_channel::parse_query(url, &app.radio.profile())?;
            Box::new(scope_channel::ScopeChannel::new(app.clone(), ask))
        }
        WsRoute::Meters => Box::new(meters_channel::MetersChannel::new(app.clone(), id)),
        WsRoute::Audio => Box::new(audio_channel::AudioChannel::new(app.clone())),
    })
}

/// Answers a WebSocket upgrade on `route`. Errors are plain JSON responses sent before
/// any upgrade; on success a client thread runs the channel.
pub fn accept(req: Request, route: WsRoute, app: &Arc<AppCtx>, local_port: u16) -> Option<Reply> {
    let upgrade_ok = header(&req, "Upgrade").is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
        && header(&req, "Connection").is_some_and(|v| v.to_ascii_lowercase().contains("upgrade"));
    if !upgrade_ok {
        let path = req.url().split('?').next().unwrap_or("").to_string();
        let _ = req.respond(response::error(
            426,
            "upgrade_required",
            format!("{path} is a WebSocket route: connect with a WebSocket client"),
        ));
        return None;
    }
    if header(&req, "Sec-WebSocket-Version") != Some("13") {
        let _ = req.respond(response::error(
            400,
            "invalid_param",
            "Sec-WebSocket-Version: only 13 is supported",
        ));
        return None;
    }
    let Some(key) = header(&req, "Sec-WebSocket-Key").map(str::to_string) else {
        let _ = req.respond(response::error(
            400,
            "invalid_param",
            "Sec-WebSocket-Key: required",
        ));
        return None;
    };
    let id = app.next_client_id();
    // the channel does nothing until the socket is open
    let channel = match channel_for(route, req.url(), app, id) {
        Ok(c) => c,
        Err(e) => {
            let _ = req.respond(response::error(400, e.code.as_str(), e.message));
            return None;
        }
    };
    // claim a place under the cap before upgrading
    let n = app.ws.counts[route.index()].fetch_add(1, Ordering::AcqRel);
    let slot = Slot {
        app: app.clone(),
        route,
        id,
    };
    if n >= app.cfg.max_clients {
        drop(slot);
        let _ = req.respond(response::error(
            503,
            "too_many_clients",
            format!(
                "{} clients are connected to the {} channel (the limit); try again later",
                n,
                route.name()
            ),
        ));
        return None;
    }
    let parts = match conn::client_parts(id, &app.cfg.ws) {
        Ok(p) => p,
        Err(e) => {
            drop(slot);
            let _ = req.respond(response::error(
                500,
                "internal_error",
                format!("cannot create the client: {e}"),
            ));
            return None;
        }
    };
    let accept_key = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let resp = Response::empty(StatusCode(101))
        .with_header(response::make_header("Sec-WebSocket-Accept", &accept_key));
    let peer = req.remote_addr().copied();
    let up = match upgrade::upgrade(req, resp, local_port) {
        Ok(u) => u,
        Err(e) => {
            log::error!("WebSocket upgrade from {peer:?} failed: {e}");
            return None;
        }
    };
    app.ws.clients.lock().insert(id, parts.handle.clone());
    let limits = app.cfg.ws.clone();
    log::info!(
        "ws client {id} connected to the {} channel from {peer:?}",
        route.name()
    );
    let spawned = std::thread::Builder::new()
        .name(format!("ws-{}-{id}", route.name()))
        .stack_size(256 * 1024)
        .spawn(move || {
            let _slot = slot;
            conn::run(up.stream, up.keep_alive, channel, parts, limits);
        });
    if let Err(e) = spawned {
        log::error!("cannot start a thread for ws client {id}: {e}");
    }
    None
}
