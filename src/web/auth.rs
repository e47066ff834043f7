//! Bearer-token authentication (decisions.md "Auth"): `Authorization: Bearer <token>`
//! on every `/api/*` route; WebSocket routes also accept `?token=<token>`. Comparison is
//! constant-time; the token never reaches the logs ([`redact`]).

use crate::util::constant_time_eq;

/// The configured token (none: authentication off).
#[derive(Clone, Default)]
pub struct Auth {
    token: Option<String>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("enabled", &self.token.is_some())
            .finish()
    }
}

impl Auth {
    /// Authentication with `token`, or off.
    pub fn new(token: Option<String>) -> Auth {
        Auth { token }
    }

    /// True when a token is required.
    pub fn enabled(&self) -> bool {
        self.token.is_some()
    }

    /// Checks a request: the `Authorization` header value, and (for WebSockets) the
    /// `token` query parameter. Both are always compared, in constant time.
    pub fn check(&self, authorization: Option<&str>, query_token: Option<&str>) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
        let header_ok = authorization
            .and_then(|v| {
                let v = v.trim();
                let (scheme, rest) = v.split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
            })
            .is_some_and(|t| constant_time_eq(t.as_bytes(), token.as_bytes()));
        // the query value as sent, or percent-decoded (a browser's encodeURIComponent)
        let query_ok = query_token.is_some_and(|t| {
            let decoded = percent_decode(t);
            constant_time_eq(t.as_bytes(), token.as_bytes())
                | constant_time_eq(decoded.as_bytes(), token.as_bytes())
        });
        header_ok | query_ok
    }
}

/// The value of query parameter `name` in a request target (`None` when absent or
/// empty).
pub fn query_param<'a>(target: &'a str, name: &str) -> Option<&'a str> {
    let q = target.split_once('?')?.1;
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (k == name && !v.is_empty()).then_some(v)
    })
}

/// The message of every `401 unauthorized`.
pub const UNAUTHORIZED_MESSAGE: &str = "a valid token is required: send 'Authorization: Bearer <token>' (WebSockets may use ?token=<token>)";

/// A request target for logs: the value of every query parameter whose (percent-decoded)
/// name contains "token" is replaced by `***`, wherever it stands in the query.
pub fn redact(url: &str) -> String {
    let Some((path, query)) = url.split_once('?') else {
        return url.to_string();
    };
    let mut out = format!("{path}?");
    let mut part = String::new();
    let flush = |part: &mut String, out: &mut String| {
        match part.split_once('=') {
            Some((k, _)) if percent_decode(k).to_ascii_lowercase().contains("token") => {
                out.push_str(k);
                out.push_str("=***");
            }
            _ => out.push_str(part),
        }
        part.clear();
    };
    for ch in query.chars() {
        if ch == '&' || ch == '?' {
            flush(&mut part, &mut out);
            out.push(ch);
        } else {
            part.push(ch);
        }
    }
    flush(&mut part, &mut out);
    out
}

/// Decodes `%XX` escapes (invalid ones are kept as they are).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Some(v) = std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_query() {
        let a = Auth::new(Some("s3cret".into()));
        assert!(a.check(Some("Bearer s3cret"), None));
        assert!(a.check(Some("bearer  s3cret "), None));
        assert!(!a.check(Some("Bearer s3cre"), None));
        assert!(!a.check(Some("Basic s3cret"), None));
        assert!(!a.check(Some("s3cret"), None));
        assert!(a.check(None, Some("s3cret")));
        assert!(!a.check(None, None));
        // review: a percent-encoded query token (encodeURIComponent) was refused
        let b = Auth::new(Some("ab+c/d=".into()));
        assert!(b.check(None, Some("ab%2Bc%2Fd%3D")));
        assert!(b.check(None, Some("ab+c/d=")));
        assert!(!b.check(None, Some("ab%2Bc%2Fd")));
        assert!(Auth::new(None).check(None, None));
    }

    #[test]
    fn redaction() {
        assert_eq!(
            redact("/api/v1/ws?token=abc&x=1"),
            "/api/v1/ws?token=***&x=1"
        );
        assert_eq!(
            redact("/api/v1/ws?x=1&TOKEN=abc"),
            "/api/v1/ws?x=1&TOKEN=***"
        );
        assert_eq!(redact("/api/v1/state"), "/api/v1/state");
        assert_eq!(redact("/ws?a=1?token=abc"), "/ws?a=1?token=***");
        assert_eq!(redact("/ws?%74oken=abc&b=2"), "/ws?%74oken=***&b=2");
        assert_eq!(redact("/ws?auth_token=abc"), "/ws?auth_token=***");
        assert_eq!(redact("/ws?x=%"), "/ws?x=%");
    }
}
