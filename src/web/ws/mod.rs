//! WebSocket routes: the checks the front door runs on an upgrade request (Origin,
//! token, method, handshake headers, HTTP/1.1, channel, per-channel cap; each refusal a status
//! with a JSON body, before anything is upgraded), and one thread per accepted client
//! running its channel over its own stream (plain or TLS).

pub mod audio_channel;
pub mod conn;
pub mod control;
pub mod control_messages;
pub mod direct;
pub mod driver;
pub mod feed;
pub mod messages;
pub mod meters_channel;
pub mod pacer;
pub mod registry;
pub mod scope_channel;
pub mod sockopt;
pub mod tx_gate;

use std::io;
use std::sync::Arc;

use parking_lot::Mutex;

pub use self::registry::{WsRegistry, WsRoute};

use self::conn::{Channel, ClientParts, Opening};
use self::registry::Slot;
use super::auth::{UNAUTHORIZED_MESSAGE, query_param};
use super::context::AppCtx;
use super::front::head::{RequestHead, Version};
use super::front::reply::{self, Refusal};
use super::origin::OriginPolicy;
use crate::net::transport::Transport;

/// An upgrade that passed every check: the client's channel, its place under the cap,
/// its queues and the `Sec-WebSocket-Accept` value.
pub struct Accepted {
    id: u64,
    route: WsRoute,
    channel: Box<dyn Channel>,
    slot: Slot,
    parts: ClientParts,
    accept_key: String,
}

/// Picks the channel that serves `route` for client `id` (`target` is the request
/// target, whose query may carry the channel's settings): the one place where a route
/// gets its channel.
fn channel_for(
    route: WsRoute,
    target: &str,
    app: &Arc<AppCtx>,
    id: u64,
) -> Result<Box<dyn Channel>, Refusal> {
    Ok(match route {
        WsRoute::Control => Box::new(control::ControlChannel::new(app.clone(), id)),
        WsRoute::Scope => {
            let ask = scope_channel::parse_query(target, &app.radio.profile())
                .map_err(|e| Refusal::new(400, e.code.as_str(), e.message))?;
            Box::new(scope_channel::ScopeChannel::new(app.clone(), ask))
        }
        WsRoute::Meters => Box::new(meters_channel::MetersChannel::new(app.clone(), id)),
        WsRoute::Audio => Box::new(audio_channel::AudioChannel::new(app.clone())),
    })
}

/// Checks an upgrade request for `route` that came in on a port with (`secure`) or
/// without TLS.
pub fn check(
    head: &RequestHead,
    route: WsRoute,
    app: &Arc<AppCtx>,
    secure: bool,
) -> Result<Accepted, Refusal> {
    let path = route.path();
    if let Err(denied) = app
        .cfg
        .origins
        .check(head.header("Origin"), head.header("Host"), secure)
    {
        let origin = head.header("Origin").unwrap_or_default();
        return Err(OriginPolicy::refusal(
            origin,
            &denied,
            "WebSocket connections",
        ));
    }
    let token = query_param(&head.target, "token");
    if !app.cfg.auth.check(head.header("Authorization"), token) {
        return Err(Refusal::new(401, "unauthorized", UNAUTHORIZED_MESSAGE)
            .with_header("WWW-Authenticate", "Bearer"));
    }
    if head.method != "GET" {
        return Err(Refusal::new(
            405,
            "method_not_allowed",
            format!("{} is not allowed on {path}; allowed: GET", head.method),
        )
        .with_header("Allow", "GET"));
    }
    let upgrade_ok = head
        .header("Upgrade")
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
        && head.connection_has("upgrade");
    if !upgrade_ok {
        return Err(Refusal::new(
            426,
            "upgrade_required",
            format!("{path} is a WebSocket route: connect with a WebSocket client"),
        )
        .with_header("Upgrade", "websocket"));
    }
    if head.version != Version::Http11 {
        // RFC 6455 §4.1: the opening handshake is an HTTP/1.1 request
        return Err(Refusal::new(
            400,
            "bad_request",
            format!(
                "a WebSocket upgrade needs HTTP/1.1 (RFC 6455 §4.1); {path} was asked for over HTTP/1.0"
            ),
        ));
    }
    if head.header("Sec-WebSocket-Version") != Some("13") {
        // RFC 6455 §4.4: 426 with the version the server speaks
        return Err(Refusal::new(
            426,
            "upgrade_required",
            "Sec-WebSocket-Version: only 13 is supported",
        )
        .with_header("Sec-WebSocket-Version", "13"));
    }
    let Some(key) = head.header("Sec-WebSocket-Key").filter(|k| !k.is_empty()) else {
        return Err(Refusal::new(
            400,
            "invalid_param",
            "Sec-WebSocket-Key: required",
        ));
    };
    let accept_key = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let id = app.next_client_id();
    // the channel does nothing until the socket is open
    let channel = channel_for(route, &head.target, app, id)?;
    let slot = app.ws.claim(route, id, app.cfg.max_clients).map_err(|n| {
        Refusal::new(
            503,
            "too_many_clients",
            format!(
                "{n} clients are connected to the {} channel (the limit); try again later",
                route.name()
            ),
        )
    })?;
    let parts = conn::client_parts(id, &app.cfg.ws).map_err(|e| {
        Refusal::new(
            500,
            "internal_error",
            format!("cannot create the client: {e}"),
        )
    })?;
    Ok(Accepted {
        id,
        route,
        channel,
        slot,
        parts,
        accept_key,
    })
}

/// A client whose thread could not be started: its stream, its place under the caps
/// and the answers to earlier requests, back for a 503.
pub struct NotStarted<K> {
    /// Why.
    pub error: io::Error,
    /// The client's stream.
    pub stream: Transport,
    /// Answers to earlier pipelined requests not sent yet.
    pub pending: Vec<u8>,
    /// What `spawn` was to keep alive.
    pub keep: K,
}

/// Starts the client's thread: it writes `pending` (answers to earlier requests not
/// sent yet) and the `101`, then runs the channel over `stream`. `leftover` is what was
/// read past the request head; `keep` (the connection's place under the caps) lives as
/// long as the thread. When no thread can be started, the stream comes back (nothing
/// has been written to it) so that the client can be answered.
pub fn spawn<K: Send + 'static>(
    accepted: Accepted,
    stream: Transport,
    pending: Vec<u8>,
    leftover: Vec<u8>,
    keep: K,
    app: &Arc<AppCtx>,
) -> Result<(), NotStarted<K>> {
    let Accepted {
        id,
        route,
        channel,
        slot,
        parts,
        accept_key,
    } = accepted;
    // registered before the thread starts: the slot, dropped with the thread (or with
    // the closure when none starts), forgets the client again
    app.ws.register(&slot, parts.handle.clone());
    let limits = app.cfg.ws.clone();
    let pending_len = pending.len();
    let mut prelude = pending;
    prelude.extend_from_slice(&reply::switching_protocols(&accept_key));
    let opening = Opening { prelude, leftover };
    let secure = stream.is_tls();
    let peer = stream.tcp().peer_addr().ok();
    // the thread takes its part from here; if it cannot start, the part comes back
    let handover = Arc::new(Mutex::new(Some((stream, opening, keep))));
    let theirs = handover.clone();
    let started = std::thread::Builder::new()
        .name(format!("ws-{}-{id}", route.name()))
        .stack_size(limits.thread_stack)
        .spawn(move || {
            let _slot = slot;
            let Some((stream, opening, keep)) = theirs.lock().take() else {
                return;
            };
            drop(theirs);
            driver::run(stream, opening, keep, channel, parts, limits);
        });
    match started {
        Ok(_) => {
            log::info!(
                "ws client {id} connected to the {} channel from {peer:?}{}",
                route.name(),
                if secure { " (TLS)" } else { "" }
            );
            Ok(())
        }
        Err(error) => {
            let Some((stream, opening, keep)) = handover.lock().take() else {
                // unreachable: a thread that did not start took nothing
                return Ok(());
            };
            let mut pending = opening.prelude;
            pending.truncate(pending_len);
            Err(NotStarted {
                error,
                stream,
                pending,
                keep,
            })
        }
    }
}
