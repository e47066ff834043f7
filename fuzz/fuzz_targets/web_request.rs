//! `web_request`: the request-line and header handling that runs before authentication:
//! `web::auth::Auth::check` (the `Authorization` header and the WebSocket `?token=`),
//! `web::auth::redact` (what the access log shows of the request target) and
//! `web::routes::etag_matches` (`If-None-Match`), on strings from the input.
//!
//! Input: `configured token`, `0xFF`, `Authorization value`, `0xFF`, `request target`
//! (lossy UTF-8; the token is taken only when non-empty and without surrounding space).
//!
//! Checks: without a token everything passes; with one, `Bearer <token>` and
//! `?token=<token>` pass, and an accepted header or query value contains the token;
//! `redact` keeps the path and the number of query parameters (split at `&` and `?`),
//! is idempotent, and replaces the value of every parameter whose percent-decoded name
//! contains `token` (any case) by `***`, so the logged target never holds a token; `etag_matches` accepts a tag
//! (plain or weak) and `*` and otherwise only headers that contain the tag.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::web::auth::{Auth, redact};
use rigweb::web::routes::etag_matches;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0xFF);
    let token = String::from_utf8_lossy(parts.next().unwrap_or(&[])).into_owned();
    let header = String::from_utf8_lossy(parts.next().unwrap_or(&[])).into_owned();
    let url = String::from_utf8_lossy(parts.next().unwrap_or(&[])).into_owned();

    // authentication
    assert!(
        Auth::new(None).check(Some(&header), Some(&url)),
        "no token configured"
    );
    if !token.is_empty() && token.trim() == token {
        let a = Auth::new(Some(token.clone()));
        assert!(a.check(Some(&format!("Bearer {token}")), None));
        assert!(a.check(Some(&format!("  bearer   {token} ")), None));
        assert!(a.check(None, Some(&token)));
        assert!(!a.check(None, None));
        if a.check(Some(&header), None) {
            assert!(
                header.contains(&token),
                "accepted a header without the token"
            );
        }
        if a.check(None, Some(&url)) {
            assert_eq!(url, token, "accepted a query value that is not the token");
        }
    }

    // the access log
    let r = redact(&url);
    assert_eq!(redact(&r), r, "redact not idempotent");
    match url.split_once('?') {
        None => assert_eq!(r, url),
        Some((path, query)) => {
            let (rpath, rquery) = r.split_once('?').expect("redact dropped the query");
            assert_eq!(rpath, path, "redact changed the path");
            let sep = |c: char| c == '&' || c == '?';
            let (a, b): (Vec<&str>, Vec<&str>) =
                (query.split(sep).collect(), rquery.split(sep).collect());
            assert_eq!(a.len(), b.len(), "redact changed the parameter count");
            for (p, q) in a.iter().zip(&b) {
                match p.split_once('=') {
                    Some((k, _)) if decoded_lower(k).contains("token") => {
                        assert_eq!(*q, format!("{k}=***"), "token value logged")
                    }
                    _ => assert_eq!(p, q, "redact changed another parameter"),
                }
            }
        }
    }

    // conditional GET
    let etag = format!("\"{}\"", token.replace(['"', ','], ""));
    assert!(etag_matches(&etag, &etag));
    assert!(etag_matches(&format!("W/{etag}"), &etag));
    assert!(etag_matches(&format!("{header}, {etag}"), &etag));
    assert!(etag_matches("*", &etag));
    if etag_matches(&header, &etag) {
        assert!(
            header.contains(&etag) || header.split(',').any(|t| t.trim() == "*"),
            "If-None-Match {header:?} matched {etag:?}"
        );
    }
});

/// A parameter name percent-decoded (invalid escapes kept) and lower-cased.
fn decoded_lower(k: &str) -> String {
    let b = k.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let hex = (b[i] == b'%' && i + 2 < b.len())
            .then(|| {
                std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
            })
            .flatten();
        match hex {
            Some(v) => {
                out.push(v);
                i += 3;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).to_ascii_lowercase()
}
