//! JSON responses and the error body of decisions.md: `{"error": CODE, "message": TEXT}`
//! with a fitting status, plus the headers every response carries.

use std::io::Cursor;

use serde_json::{Value, json};
use tiny_http::{Header, Response, StatusCode};

use crate::radio::error::{CommandError, ErrorCode};

/// A response body ready for tiny_http.
pub type Reply = Response<Cursor<Vec<u8>>>;

fn header(name: &str, value: &str) -> Header {
    // names and values here are ASCII constants or digits: from_bytes cannot fail
    Header::from_bytes(name.as_bytes(), value.as_bytes()).unwrap_or_else(|_| {
        Header::from_bytes(&b"X-Invalid-Header"[..], &b"1"[..]).expect("static header")
    })
}

/// The headers every response carries (REST, refusals of the front door, onboarding).
pub const COMMON_HEADERS: [(&str, &str); 4] = [
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
];

/// Adds the headers every response carries. Bodies always go with a `Content-Length`
/// (never chunked), which is how the front door finds where a response ends.
fn common(r: Reply) -> Reply {
    COMMON_HEADERS
        .iter()
        .fold(r, |r, (k, v)| r.with_header(header(k, v)))
        .with_chunked_threshold(usize::MAX)
}

/// A JSON response.
pub fn json(status: u16, body: &Value) -> Reply {
    json_text(status, body.to_string())
}

/// A JSON response from already serialised text.
pub fn json_text(status: u16, body: String) -> Reply {
    common(
        Response::from_data(body.into_bytes())
            .with_status_code(StatusCode(status))
            .with_header(header("Content-Type", "application/json; charset=utf-8")),
    )
}

/// An error response `{"error": code, "message": message}`.
pub fn error(status: u16, code: &str, message: impl Into<String>) -> Reply {
    json(status, &json!({"error": code, "message": message.into()}))
}

/// 401 with `WWW-Authenticate: Bearer`.
pub fn unauthorized() -> Reply {
    error(401, "unauthorized", crate::web::auth::UNAUTHORIZED_MESSAGE)
        .with_header(header("WWW-Authenticate", "Bearer"))
}

/// 404 for an unknown route.
pub fn not_found(method: &str, path: &str) -> Reply {
    error(
        404,
        "not_found",
        format!("no route {method} {path}; the API is described at /api/v1/info"),
    )
}

/// 405 with `Allow`.
pub fn method_not_allowed(method: &str, path: &str, allow: &[&str]) -> Reply {
    let list = allow.join(", ");
    error(
        405,
        "method_not_allowed",
        format!("{method} is not allowed on {path}; allowed: {list}"),
    )
    .with_header(header("Allow", &list))
}

/// A 304 with the ETag and no body.
pub fn not_modified(etag: &str) -> Reply {
    common(
        Response::from_data(Vec::new())
            .with_status_code(StatusCode(304))
            .with_header(header("ETag", etag)),
    )
}

/// Adds an `ETag` header.
pub fn with_etag(r: Reply, etag: &str) -> Reply {
    r.with_header(header("ETag", etag))
}

/// An HTML page from bytes (possibly compressed: the caller adds `Content-Encoding`).
pub fn html_bytes(status: u16, body: Vec<u8>) -> Reply {
    common(
        Response::from_data(body)
            .with_status_code(StatusCode(status))
            .with_header(header("Content-Type", "text/html; charset=utf-8")),
    )
}

/// The HTTP status for a command error.
pub fn status_for(code: ErrorCode) -> u16 {
    match code {
        ErrorCode::InvalidJson | ErrorCode::InvalidParam | ErrorCode::UnknownCommand => 400,
        ErrorCode::NotSupported
        | ErrorCode::RadioRejected
        | ErrorCode::PttBusy
        | ErrorCode::PttRequired => 409,
        ErrorCode::RadioUnavailable | ErrorCode::RadioBusy => 503,
        ErrorCode::RadioTimeout => 504,
        ErrorCode::Forbidden => 403,
    }
}

/// The error response for a command error.
pub fn command_error(e: &CommandError) -> Reply {
    error(status_for(e.code), e.code.as_str(), e.message.clone())
}

/// A response header built from a name and value (for handlers that add their own).
pub fn make_header(name: &str, value: &str) -> Header {
    header(name, value)
}
