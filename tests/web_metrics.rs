//! `GET /metrics`: the Prometheus text format, figures that follow what happens (clients,
//! commands, transmit time), and the token when authentication is on.

#[macro_use]
mod common;

use std::time::Duration;

use common::web::*;
use rigweb::app::Tuning;
use serde_json::json;

/// The value of the sample `name{labels}` (exactly as written on the page).
fn sample(page: &str, series: &str) -> f64 {
    page.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {series} in\n{page}"))
        .parse()
        .unwrap()
}

fn metrics(addr: std::net::SocketAddr) -> String {
    let r = get(addr, "/metrics");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    String::from_utf8(r.body).unwrap()
}

both_ways!(metrics_follow_clients_commands_and_transmissions);
fn metrics_follow_clients_commands_and_transmissions() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    let page = metrics(a);
    for family in [
        "rigweb_uptime_seconds",
        "rigweb_ws_clients",
        "rigweb_stream_frames_sent_total",
        "rigweb_commands_total",
        "rigweb_civ_retransmits_total",
        "rigweb_radio_link_state",
        "rigweb_radio_packets_resent_total",
        "rigweb_radio_retransmit_requests_total",
        "rigweb_radio_packets_lost_total",
        "rigweb_tx_seconds_total",
    ] {
        assert!(
            page.contains(&format!("# TYPE {family} ")),
            "{family}:\n{page}"
        );
    }
    assert_eq!(sample(&page, "rigweb_ws_clients{channel=\"control\"}"), 0.0);
    // a clean loopback link: every port is listed, nothing needed recovering
    for port in ["control", "civ", "audio"] {
        let series = format!("rigweb_radio_packets_lost_total{{port=\"{port}\"}}");
        assert_eq!(sample(&page, &series), 0.0, "{series}");
    }

    let mut ws = Ws::control(a);
    let ok_before = sample(&metrics(a), "rigweb_commands_total{result=\"ok\"}");
    let r = ws.cmd("1", "set_freq", json!({"freq": 7_074_000}));
    assert_eq!(r["ok"], true, "{r}");
    let page = metrics(a);
    assert_eq!(sample(&page, "rigweb_ws_clients{channel=\"control\"}"), 1.0);
    assert!(sample(&page, "rigweb_commands_total{result=\"ok\"}") > ok_before);
    assert_eq!(
        sample(&page, "rigweb_radio_link_state{state=\"connected\"}"),
        1.0
    );
    assert_eq!(sample(&page, "rigweb_radio_link_up"), 1.0);

    // a transmission of a little while counts in tx seconds, the current one included
    assert_eq!(sample(&page, "rigweb_tx_seconds_total"), 0.0);
    let r = ws.cmd("2", "ptt", json!({"state": true}));
    assert_eq!(r["ok"], true, "{r}");
    std::thread::sleep(Duration::from_millis(300));
    let on_air = sample(&metrics(a), "rigweb_tx_seconds_total");
    assert!(on_air >= 0.25, "{on_air}");
    let r = ws.cmd("3", "ptt", json!({"state": false}));
    assert_eq!(r["ok"], true, "{r}");
    let after = sample(&metrics(a), "rigweb_tx_seconds_total");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        sample(&metrics(a), "rigweb_tx_seconds_total"),
        after,
        "stopped counting"
    );

    drop(ws);
    assert!(common::wait_for(Duration::from_secs(10), || {
        sample(&metrics(a), "rigweb_ws_clients{channel=\"control\"}") == 0.0
    }));
    srv.shutdown();
}

#[test]
fn metrics_need_the_token_when_auth_is_on() {
    let token = "metrics-token-1";
    let srv = start_server(serve_config("ic7610", Some(token)), Tuning::default());
    let a = srv.addr();
    assert_eq!(get(a, "/metrics").status, 401);
    let bearer = format!("Bearer {token}");
    let r = http(a, "GET", "/metrics", &[("Authorization", &bearer)], None);
    assert_eq!(r.status, 200);
    assert!(String::from_utf8_lossy(&r.body).contains("rigweb_uptime_seconds"));
    assert_eq!(
        http(a, "POST", "/metrics", &[("Authorization", &bearer)], None).status,
        405
    );
    srv.shutdown();
}
