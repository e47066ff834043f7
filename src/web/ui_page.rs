//! `GET /`: the browser UI, one self-contained HTML file assembled at build time from
//! `assets/ui/` (see `build.rs`), served gzip-compressed to browsers that accept it.

use super::response::{self, Reply};

/// The page as assembled.
pub const PAGE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/ui.html"));
/// The page, gzip-compressed at build time.
pub const PAGE_GZIP: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/ui.html.gz"));

/// What the page may load: itself, its own API and WebSockets, blob: worklets (the audio
/// processors) and data: images (the icon). Nothing from elsewhere.
const CSP: &str = "default-src 'none'; script-src 'unsafe-inline' blob:; style-src 'unsafe-inline'; \
img-src 'self' data:; connect-src 'self' ws: wss:; media-src 'self' blob:; worker-src blob:; \
base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// True when an `Accept-Encoding` value accepts gzip (`gzip` or `*` without `q=0`).
pub fn accepts_gzip(accept_encoding: Option<&str>) -> bool {
    let Some(value) = accept_encoding else {
        return false;
    };
    let mut star = None;
    for item in value.split(',') {
        let mut parts = item.split(';').map(str::trim);
        let coding = parts.next().unwrap_or("").to_ascii_lowercase();
        let refused = parts.any(|p| {
            p.strip_prefix("q=")
                .or_else(|| p.strip_prefix("Q="))
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        match coding.as_str() {
            "gzip" | "x-gzip" => return !refused,
            "*" => star = Some(!refused),
            _ => {}
        }
    }
    star.unwrap_or(false)
}

/// The page, compressed when the request's `Accept-Encoding` allows it.
pub fn reply(accept_encoding: Option<&str>) -> Reply {
    let gzip = accepts_gzip(accept_encoding);
    let body = if gzip { PAGE_GZIP } else { PAGE };
    let mut r = response::html_bytes(200, body.to_vec())
        .with_header(response::make_header("Content-Security-Policy", CSP))
        .with_header(response::make_header("Vary", "Accept-Encoding"));
    if gzip {
        r = r.with_header(response::make_header("Content-Encoding", "gzip"));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn gzip_is_chosen_only_when_accepted() {
        assert!(accepts_gzip(Some("gzip, deflate, br")));
        assert!(accepts_gzip(Some("br;q=1.0, GZIP;q=0.5")));
        assert!(accepts_gzip(Some("*")));
        assert!(!accepts_gzip(Some("gzip;q=0")));
        assert!(!accepts_gzip(Some("gzip;q=0.0, *")));
        assert!(!accepts_gzip(Some("*;q=0")));
        assert!(!accepts_gzip(Some("deflate, br")));
        assert!(!accepts_gzip(Some("")));
        assert!(!accepts_gzip(None));
    }

    #[test]
    fn the_compressed_page_is_the_page() {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(PAGE_GZIP)
            .read_to_end(&mut out)
            .expect("valid gzip");
        assert_eq!(out, PAGE);
        assert!(PAGE.len() < 200_000, "page is {} bytes", PAGE.len());
        assert!(PAGE_GZIP.len() < PAGE.len() / 2);
        let text = std::str::from_utf8(PAGE).expect("UTF-8");
        assert!(text.starts_with("<!doctype html>"));
        assert!(!text.contains("/*@SCRIPT@*/") && !text.contains("/*@STYLE@*/"));
        assert!(
            text.contains("rel=\"icon\""),
            "an inline icon: no /favicon.ico request"
        );
    }
}
