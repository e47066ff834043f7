//! The Origin policy end to end (docs/API.md "Origin policy"): foreign pages reach no
//! channel and no REST route, a listed origin and scripts without `Origin` do, and a
//! name rebound to the station over plain HTTP is not the server's own origin.

#[macro_use]
mod common;

use std::net::SocketAddr;

use common::web::*;
use rigweb::app::{Running, Tuning};
use rigweb::web::context::WebConfig;
use rigweb::web::origin::OriginPolicy;
use serde_json::Value;

const CHANNELS: [&str; 4] = [
    "/api/v1/ws",
    "/api/v1/scope",
    "/api/v1/meters",
    "/api/v1/audio",
];

fn server(origins: OriginPolicy, token: Option<&str>) -> Running {
    let web = WebConfig {
        origins: origins.clone(),
        ..WebConfig::default()
    };
    let mut cfg = serve_config("ic7610", token);
    cfg.allowed_origins = origins;
    start_server(
        cfg,
        Tuning {
            web: Some(web),
            ..Tuning::default()
        },
    )
}

fn assert_forbidden(status: u16, body: &str, what: &str) {
    assert_eq!(status, 403, "{what}: {body}");
    let v: Value = serde_json::from_str(body).unwrap();
    assert_eq!(v["error"], "forbidden_origin", "{what}");
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()));
}

/// `POST /api/v1/radio/power` (on) with `host` and `origin` headers, as a page would.
fn power_on(a: SocketAddr, host: &str, origin: &str) -> HttpResponse {
    let body = br#"{"state":"on"}"#;
    let mut req = format!(
        "POST /api/v1/radio/power HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    raw(a, &req)
}

both_ways!(foreign_origins_reach_no_channel_and_no_rest_route);
fn foreign_origins_reach_no_channel_and_no_rest_route() {
    let origins = OriginPolicy::new(&["https://dash.example:9000".into()]).unwrap();
    let srv = server(origins, Some("tok"));
    let a = srv.addr();
    let scheme = if srv.web.is_tls() { "https" } else { "http" };
    for path in CHANNELS {
        for target in [format!("{path}?token=tok"), path.to_string()] {
            let refused = Ws::connect(a, &target, &[("Origin", "http://evil.example")])
                .err()
                .expect("refused");
            assert_forbidden(refused.status, &refused.body, &target);
        }
        // its own origin (the Host the client used), a listed one, and none at all pass
        let own = format!("{scheme}://{a}");
        let target = format!("{path}?token=tok");
        assert!(
            Ws::connect(a, &target, &[("Origin", &own)]).is_ok(),
            "{path}"
        );
        let listed = [("Origin", "https://dash.example:9000")];
        assert!(Ws::connect(a, &target, &listed).is_ok(), "{path}");
        assert!(Ws::connect(a, &target, &[]).is_ok(), "{path}");
        // the other scheme is another origin
        let other = format!("{}://{a}", if scheme == "https" { "http" } else { "https" });
        let refused = Ws::connect(a, &target, &[("Origin", &other)])
            .err()
            .expect("refused");
        assert_forbidden(refused.status, &refused.body, &other);
    }
    // REST: a foreign page's request is refused before it reaches the radio
    let r = http(
        a,
        "GET",
        "/api/v1/state",
        &[
            ("Origin", "http://evil.example"),
            ("Authorization", "Bearer tok"),
        ],
        None,
    );
    assert_forbidden(r.status, &String::from_utf8_lossy(&r.body), "REST");
    let r = http(
        a,
        "GET",
        "/api/v1/state",
        &[("Authorization", "Bearer tok")],
        None,
    );
    assert_eq!(r.status, 200, "scripts send no Origin");
    // a refused page asks why: the reason names the flag; an allowed page is told so
    let ask = |origin: &str| {
        http(
            a,
            "POST",
            "/api/v1/origin-check",
            &[("Origin", origin), ("Authorization", "Bearer tok")],
            None,
        )
    };
    let r = ask("http://evil.example");
    let body = String::from_utf8_lossy(&r.body).to_string();
    assert_forbidden(r.status, &body, "origin-check");
    assert!(body.contains("--allowed-"), "{body}");
    let r = ask("https://dash.example:9000");
    assert_eq!(
        (r.status, r.json()["origin"].clone()),
        (200, "allowed".into())
    );
    srv.shutdown();
}

both_ways!(a_name_rebound_to_the_station_is_not_its_own_origin);
fn a_name_rebound_to_the_station_is_not_its_own_origin() {
    // review: a page on evil.example rebinding its name to the station made the browser
    // send Host: evil.example:PORT and the matching Origin, which counted as the
    // server's own: with no token the page could key the transmitter
    let srv = server(OriginPolicy::default(), None);
    let a = srv.addr();
    let tls = srv.web.is_tls();
    let scheme = if tls { "https" } else { "http" };
    let host = format!("evil.example:{}", a.port());
    let origin = format!("{scheme}://{host}");
    let page = [("Origin", origin.as_str()), ("Host", host.as_str())];
    // switch the radio off first (no Origin: a script)
    let off = http(
        a,
        "POST",
        "/api/v1/radio/power",
        &[("Content-Type", "application/json")],
        Some(br#"{"state":"off"}"#),
    );
    assert_eq!(off.status, 200, "{:?}", String::from_utf8_lossy(&off.body));
    if tls {
        // over HTTPS the certificate vouches for the name: a browser would not have
        // completed a handshake for evil.example with it
        assert!(Ws::connect(a, "/api/v1/ws", &page).is_ok());
    } else {
        for path in CHANNELS {
            let refused = Ws::connect(a, path, &page).err().expect("refused");
            assert_forbidden(refused.status, &refused.body, path);
            assert!(
                refused.body.contains("--allowed-host evil.example"),
                "{}",
                refused.body
            );
        }
        let r = power_on(a, &host, &origin);
        assert_forbidden(r.status, &String::from_utf8_lossy(&r.body), "REST");
        assert_eq!(
            get(a, "/api/v1/state").json()["powerOn"],
            false,
            "the radio was not touched"
        );
        // the names the server does answer to still work for pages
        for name in ["127.0.0.1", "localhost"] {
            let h = format!("{name}:{}", a.port());
            let o = format!("http://{h}");
            let own = [("Origin", o.as_str()), ("Host", h.as_str())];
            assert!(Ws::connect(a, "/api/v1/meters", &own).is_ok(), "{name}");
        }
    }
    srv.shutdown();
    // the operator's own DDNS name, given with --allowed-host
    let srv = server(
        OriginPolicy::default()
            .with_hosts(&["evil.example".into()])
            .unwrap(),
        None,
    );
    let a = srv.addr();
    let host = format!("evil.example:{}", a.port());
    let origin = format!("{scheme}://{host}");
    let page = [("Origin", origin.as_str()), ("Host", host.as_str())];
    assert!(Ws::connect(a, "/api/v1/audio", &page).is_ok());
    assert_eq!(power_on(a, &host, &origin).status, 200);
    srv.shutdown();
}
