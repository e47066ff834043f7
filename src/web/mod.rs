//! The web layer: REST routes on a tiny_http worker pool and WebSocket channels, one
//! thread per client, all on one public port (see `upgrade.rs` for how).

pub mod auth;
pub mod context;
pub mod intake;
pub mod ptt;
pub mod response;
pub mod routes;
pub mod server;
pub mod ui_page;
pub mod upgrade;
pub mod ws;

/// The value of request header `name` (case-insensitive).
pub(crate) fn request_header<'a>(req: &'a tiny_http::Request, name: &str) -> Option<&'a str> {
    req.headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}
