//! `GET /`: the browser UI page over HTTP (gzip when accepted, headers, size, no token
//! needed), without a browser.

mod common;

use std::io::Read;

use common::web::{http, serve_config, start_server};
use rigweb::app::Tuning;

#[test]
fn the_page_is_served_plain_or_gzipped_as_the_browser_accepts() {
    let srv = start_server(serve_config("ic7610", Some("tok")), Tuning::default());
    let addr = srv.addr();
    let plain = http(addr, "GET", "/", &[], None);
    assert_eq!(plain.status, 200, "no token needed for the page");
    assert_eq!(
        plain.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(plain.header("vary"), Some("Accept-Encoding"));
    let csp = plain.header("content-security-policy").expect("CSP");
    assert!(
        csp.contains("default-src 'none'") && csp.contains("connect-src 'self'"),
        "{csp}"
    );
    assert!(
        plain.body.len() < 200_000,
        "page under 200 KB: {}",
        plain.body.len()
    );
    let text = String::from_utf8(plain.body.clone()).expect("UTF-8");
    assert!(text.starts_with("<!doctype html>"));
    assert!(text.contains("<canvas id=\"waterfall\""));
    for remote in ["src=\"http", "href=\"http", "url(http", "@import", "//cdn"] {
        assert!(
            !text.contains(remote),
            "nothing loaded from elsewhere: {remote}"
        );
    }
    assert!(!text.contains("/*@SCRIPT@*/"));

    let gz = http(
        addr,
        "GET",
        "/",
        &[("Accept-Encoding", "gzip, deflate, br")],
        None,
    );
    assert_eq!(gz.status, 200);
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert!(
        gz.body.len() < plain.body.len() / 2,
        "{} vs {}",
        gz.body.len(),
        plain.body.len()
    );
    let mut unpacked = Vec::new();
    flate2::read::GzDecoder::new(&gz.body[..])
        .read_to_end(&mut unpacked)
        .expect("valid gzip");
    assert_eq!(unpacked, plain.body);

    let refused = http(
        addr,
        "GET",
        "/index.html",
        &[("Accept-Encoding", "gzip;q=0")],
        None,
    );
    assert_eq!(refused.header("content-encoding"), None);
    assert_eq!(refused.body, plain.body);

    let head = http(addr, "HEAD", "/", &[], None);
    assert_eq!(head.status, 200);
    let post = http(addr, "POST", "/", &[], Some(b"x"));
    assert_eq!(post.status, 405);
    srv.shutdown();
}
