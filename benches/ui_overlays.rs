//! Browser figures of the station-data overlays (issue 18): the scope at 30 fps with 200
//! DX spots and a broadcast band full of EiBi labels in view, against the same page with
//! the overlays off: scope lines drawn per second, the scope's draw time, the overlay
//! layer's redraws and their cost, and the renderer's main-thread load. Also the cost of
//! one full overlay redraw (as after a pan).
//!
//! `cargo bench --bench ui_overlays -- [--seconds S]` (default 10). Needs Debian's
//! chromium. The server, its simulated radio, a DX-cluster node and an EiBi file server
//! run in this process, on loopback.

#[path = "../tests/ui_browser/cdp.rs"]
mod cdp;
#[path = "../tests/station/cluster.rs"]
mod cluster;
#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/station/http.rs"]
mod http;
#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cdp::{Browser, Page};
use common::web::{Ws, get, serve_config, start_server};
use rigweb::app::Tuning;
use rigweb::station::StationConfig;
use rigweb::station::dx::buffer::SpotSource;
use rigweb::station::dx::session::SessionConfig;
use rigweb::station::dx::{DxConfig, FeedConfig};
use rigweb::station::eibi::EibiConfig;
use serde_json::json;

/// The view: 49 m, ±250 kHz around 6.05 MHz.
const CENTRE: u64 = 6_050_000;
const HALF_SPAN: u64 = 250_000;

fn measure(page: &Page, seconds: u64, what: &str) {
    std::thread::sleep(Duration::from_secs(2));
    let m0 = page.metrics();
    let rows0 = page.eval("window.rigweb.scope.rows").as_f64().unwrap();
    let draws0 = page
        .eval("window.rigweb.overlays.stats.draws")
        .as_f64()
        .unwrap();
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs(seconds));
    let wall = t0.elapsed().as_secs_f64();
    let m1 = page.metrics();
    let rows1 = page.eval("window.rigweb.scope.rows").as_f64().unwrap();
    let draws1 = page
        .eval("window.rigweb.overlays.stats.draws")
        .as_f64()
        .unwrap();
    let o = page.eval("window.rigweb.overlays");
    let d = |k: &str| {
        (m1.get(k).copied().unwrap_or(0.0) - m0.get(k).copied().unwrap_or(0.0)) / wall * 100.0
    };
    println!(
        "  {what}: {:.1} scope lines/s; scope draw {:.2} ms per frame; main thread busy {:.1} % (script {:.1} %); \
         overlay redraws {:.1}/s, last {:.2} ms; {} labels drawn, {} hidden",
        (rows1 - rows0) / wall,
        page.eval("window.rigweb.scope.drawMs")
            .as_f64()
            .unwrap_or(f64::NAN),
        d("TaskDuration"),
        d("ScriptDuration"),
        (draws1 - draws0) / wall,
        o["stats"]["drawMs"].as_f64().unwrap_or(f64::NAN),
        o["stats"]["labels"],
        o["stats"]["hidden"],
    );
}

fn main() {
    let seconds = support::arg("--seconds", 10);
    if cdp::chromium_path().is_none() {
        println!("ui_overlays: chromium is not installed; nothing to measure");
        return;
    }
    // 300 broadcasters on the air across 49 m
    let rows: Vec<Vec<u8>> = (0..300)
        .map(|i| {
            format!(
                "{};0000-2400;;D;Broadcaster {i} Espa\u{f1}a;E;Eu;;1;;",
                5_900 + i
            )
            .chars()
            .map(|c| c as u32 as u8)
            .collect()
        })
        .collect();
    let refs: Vec<&[u8]> = rows.iter().map(Vec::as_slice).collect();
    let files = http::FileServer::start(http::season_file(&refs));
    // 200 spots across the view
    let node = cluster::Node::start(Arc::new(|c| {
        c.send(cluster::dialect::DXSPIDER_BANNER);
        if c.line(Duration::from_secs(10)).is_none() {
            return;
        }
        c.send(&cluster::dialect::dxspider_greeting("N0CALL"));
        for i in 0..200u64 {
            let khz = (CENTRE - HALF_SPAN) as f64 / 1000.0 + i as f64 * 2.4;
            c.send(format!("DX de K1ABC:  {khz:>10.1}  DX{i}ABC       CW 599                         1234Z\r\n").as_bytes());
        }
        c.hold(Duration::from_secs(3600));
    }));
    let mut cfg = serve_config("ic7610", None);
    let mut session = SessionConfig::new("N0CALL", None);
    session.backoff_min = Duration::from_millis(300);
    cfg.station = StationConfig {
        dx: Some(DxConfig {
            feeds: vec![FeedConfig {
                address: node.addr().to_string(),
                source: SpotSource::Cluster,
            }],
            session,
            connect_timeout: Duration::from_secs(2),
        }),
        eibi: Some(EibiConfig::new(&files.url("/sked-{season}.csv"), None)),
        ..StationConfig::default()
    };
    let srv = start_server(cfg, Tuning::default());
    let addr = srv.addr();
    let ok = common::wait_for(Duration::from_secs(20), || {
        get(addr, "/api/v1/dx/spots").json()["spots"]
            .as_array()
            .is_some_and(|s| s.len() == 200)
    });
    assert!(ok, "200 spots");
    let mut ws = Ws::control(addr);
    ws.cmd("f", "set_freq", json!({"freq": CENTRE}));
    ws.cmd("m", "set_mode", json!({"mode": "AM"}));
    ws.cmd("s", "set_scope", json!({"span_hz": HALF_SPAN}));
    let page = Browser::shared().new_page(1440, 900);
    page.navigate(&format!("http://{addr}/"));
    page.wait_for(
        "window.rigweb && window.rigweb.scope.rows > 30",
        Duration::from_secs(30),
    );
    let want = "window.rigweb.overlays.labels.filter((l) => l.kind === 'bc').length > 5 && window.rigweb.overlays.labels.some((l) => l.kind === 'cluster')";
    let end = Instant::now() + Duration::from_secs(30);
    while page.eval(want) != json!(true) {
        assert!(
            Instant::now() < end,
            "the labels never showed: {}",
            page.eval("(() => { const o = window.rigweb.overlays; return {stats: o.stats, available: o.available, enabled: o.enabled, kinds: o.labels.map((l) => l.kind)}; })()")
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    println!(
        "Scope at 30 fps, 1440x900, 500 kHz view of 49 m: 200 DX spots and 300 broadcasters on the air in view ({seconds} s each):"
    );
    measure(&page, seconds, "overlays on ");
    let cost: f64 = (0..50)
        .map(|_| {
            page.eval("(() => { const o = window.rigweb.parts.overlays; const t = performance.now(); o.draw(); return performance.now() - t; })()")
                .as_f64()
                .unwrap_or(f64::NAN)
        })
        .sum::<f64>()
        / 50.0;
    println!(
        "  one full overlay redraw (strip and labels, as after a pan): {cost:.2} ms (mean of 50)"
    );
    for k in ["dx", "eibi", "bandplan"] {
        page.click(&format!("button[data-overlay={k}]"));
    }
    page.wait_for(
        "window.rigweb.overlays.labels.length === 0",
        Duration::from_secs(5),
    );
    measure(&page, seconds, "overlays off");
    srv.shutdown();
}
