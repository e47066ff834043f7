//! Responses the front door writes itself (refusals, the WebSocket `101`, redirects and
//! the onboarding pages), as raw HTTP/1.1 bytes with the headers every response of the
//! server carries. Refusals have the JSON body of decisions.md:
//! `{"error": CODE, "message": TEXT}`.

use serde_json::json;

use crate::web::response::COMMON_HEADERS;

/// A request the front door refuses: status, error code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// HTTP status.
    pub status: u16,
    /// The `error` code of the body.
    pub code: &'static str,
    /// The `message` of the body: what was wrong and what to do.
    pub message: String,
    /// Extra headers (e.g. `Allow`, `WWW-Authenticate`).
    pub headers: Vec<(&'static str, String)>,
}

impl Refusal {
    /// A refusal with a JSON body.
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            code,
            message: message.into(),
            headers: Vec::new(),
        }
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Refusal {
        self.headers.push((name, value.into()));
        self
    }

    /// The whole response; `close` adds `Connection: close`.
    pub fn to_bytes(&self, close: bool) -> Vec<u8> {
        let body = json!({"error": self.code, "message": self.message}).to_string();
        let extra: Vec<(&str, &str)> = self.headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        encode(
            self.status,
            "application/json; charset=utf-8",
            &extra,
            body.as_bytes(),
            close,
        )
    }
}

/// The reason phrase of a status the server uses.
pub fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        101 => "Switching Protocols",
        200 => "OK",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        417 => "Expectation Failed",
        426 => "Upgrade Required",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "Status",
    }
}

/// A complete response with a body of `content_type` (`""`: no `Content-Type`).
pub fn encode(
    status: u16,
    content_type: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    close: bool,
) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (k, v) in COMMON_HEADERS.iter().chain(headers) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if !content_type.is_empty() {
        head.push_str(&format!("Content-Type: {content_type}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    if close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    out
}

/// The `101 Switching Protocols` of an accepted WebSocket.
pub fn switching_protocols(accept_key: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept_key}\r\n\r\n"
    )
    .into_bytes()
}

/// `100 Continue`, for a client that waits for it before sending its body.
pub const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_a_json_response() {
        let r = Refusal::new(405, "method_not_allowed", "no").with_header("Allow", "GET");
        let text = String::from_utf8(r.to_bytes(true)).unwrap();
        assert!(
            text.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"),
            "{text}"
        );
        assert!(text.contains("\r\nAllow: GET\r\n"));
        assert!(text.contains("\r\nConnection: close\r\n"));
        assert!(text.contains("X-Content-Type-Options: nosniff"));
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("Content-Length: {}", body.len())));
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["error"], "method_not_allowed");
        assert_eq!(v["message"], "no");
    }
}
