//! The web layer: the front door (`front/`) owns the public port(s), terminates TLS
//! (`tls/`) and checks every request; REST routes run on a tiny_http worker pool behind
//! it, and every WebSocket client gets a thread of its own (`ws/`).

pub mod answer;
pub mod auth;
pub mod bridge_route;
pub mod capabilities;
pub mod context;
pub mod front;
pub mod identity;
pub mod metrics_page;
pub mod mod_input;
pub mod origin;
pub mod ptt;
pub mod ptt_watch;
pub mod response;
pub mod router;
pub mod routes;
pub mod server;
pub mod session;
pub mod station;
pub mod stream_stats;
pub mod tls;
pub mod ui_page;
pub mod ws;

/// The value of request header `name` (case-insensitive).
pub(crate) fn request_header<'a>(req: &'a tiny_http::Request, name: &str) -> Option<&'a str> {
    req.headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}
