//! The station-data overlays on the waterfall against the whole server with a DX-cluster
//! node and an EiBi file server on 127.0.0.1: the band-plan strip and its region
//! chooser, DX labels (live, fading, clickable with their mode), EiBi labels on a
//! broadcast band and the probable station near the VFO, the toggles remembered, and
//! the overlay layer redrawn only when something changed.

use std::sync::Arc;

use rigweb::station::StationConfig;
use rigweb::station::dx::buffer::SpotSource;
use rigweb::station::dx::session::SessionConfig;
use rigweb::station::dx::{DxConfig, FeedConfig};
use rigweb::station::eibi::EibiConfig;
use serde_json::{Value, json};

use super::*;
use crate::cluster::{Node, dialect};
use crate::eibi_files::{FileServer, season_file};

fn start_with(station: StationConfig) -> Running {
    let mut cfg = serve_config("ic7610", None);
    cfg.station = station;
    start_server(cfg, Tuning::default())
}

/// Tunes MAIN over the control socket and waits until the page's scope is centred there.
fn tune(addr: SocketAddr, page: &Page, hz: u64, mode: &str) {
    let mut ws = common::web::Ws::control(addr);
    assert_eq!(ws.cmd("f", "set_freq", json!({"freq": hz}))["ok"], true);
    assert_eq!(ws.cmd("m", "set_mode", json!({"mode": mode}))["ok"], true);
    centred(page, hz);
}

/// Waits until the scope (centre mode) shows `hz` in its middle.
fn centred(page: &Page, hz: u64) {
    page.wait_for(
        &format!("(() => {{ const r = window.rigweb.scope.range; return !!r && (r.startHz + r.endHz) / 2 === {hz}; }})()"),
        Duration::from_secs(10),
    );
}

fn overlays(page: &Page) -> Value {
    page.eval("window.rigweb.overlays")
}

/// The page coordinates of the label whose text is `text` (once the labels are laid out
/// for the range the scope shows).
fn label_point(page: &Page, text: &str) -> (f64, f64) {
    page.wait_for(
        "(() => { const o = window.rigweb.overlays, r = window.rigweb.scope.range; \
           return !!o.range && o.range.startHz === r.startHz && o.range.endHz === r.endHz; })()",
        Duration::from_secs(5),
    );
    let v = page.eval(&format!(
        "(() => {{ const l = window.rigweb.overlays.labels.find((l) => l.text === {t}); if (!l) return null; \
           const r = document.getElementById('overlay-labels').getBoundingClientRect(); \
           return [r.left + l.left + l.w / 2, r.top + 2 + l.row * 16 + 7]; }})()",
        t = json!(text)
    ));
    (
        v[0].as_f64().expect("label x"),
        v[1].as_f64().expect("label y"),
    )
}

#[test]
fn the_band_plan_strip_tunes_and_its_region_chooser_switches_the_server() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1440, 900, "dark");
    tune(addr, &page, 14_050_000, "USB");
    page.wait_for(
        "window.rigweb.overlays.strip.some((s) => s.layer === 'cw')",
        Duration::from_secs(10),
    );
    let o = overlays(&page);
    assert_eq!(o["region"], "r1");
    let layers: Vec<&str> = o["strip"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["layer"].as_str().unwrap())
        .collect();
    assert!(
        layers.contains(&"wsjt") && layers.contains(&"digital"),
        "{layers:?}"
    );
    // the strip is painted
    let lit = page.eval(
        "(() => { const c = document.getElementById('overlay-strip'); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; \
         let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n; })()",
    );
    assert!(lit.as_u64().unwrap() > 500, "painted strip pixels: {lit}");
    // a click on the CW part of the strip tunes there in CW
    let range = page.eval("window.rigweb.scope.range");
    let (s0, e0) = (
        range["startHz"].as_f64().unwrap(),
        range["endHz"].as_f64().unwrap(),
    );
    let frac = (14_030_000.0 - s0) / (e0 - s0);
    let (x, y) = page.point_in("#overlay-strip", frac, 0.5);
    page.click_at(x, y);
    let s = wait_state(addr, "CW in the CW segment", |s| s["main"]["mode"] == "CW");
    let f = s["main"]["freqHz"].as_f64().unwrap();
    assert!((f - 14_030_000.0).abs() < 1500.0, "tuned to {f}");
    // the region chooser changes the server's region, and the page keeps showing it
    page.eval("(() => { const s = document.querySelector('select[data-overlay=region]'); s.value = 'r2'; s.dispatchEvent(new Event('change')); return true; })()");
    assert!(common::wait_for(Duration::from_secs(10), || {
        get(addr, "/api/v1/band-plan/config").json()["region"] == "r2"
    }));
    page.wait_for(
        "window.rigweb.overlays.region === 'r2'",
        Duration::from_secs(5),
    );
    page.screenshot("overlay-bandplan.png");
    // toggled off, the strip goes, and stays off after a reload
    page.click("button[data-overlay=bandplan]");
    page.wait_for(
        "document.getElementById('overlay-strip').hidden",
        Duration::from_secs(5),
    );
    page.navigate(&url(addr));
    page.wait_for(
        "window.rigweb && window.rigweb.overlays.available.bandplan === true",
        Duration::from_secs(20),
    );
    page.wait_for("window.rigweb.scope.rows > 5", Duration::from_secs(20));
    assert_eq!(page.eval("window.rigweb.overlays.enabled.bandplan"), false);
    assert_eq!(
        page.eval("document.getElementById('overlay-strip').hidden"),
        true
    );
    assert_eq!(
        page.eval("document.querySelector('select[data-overlay=region]').value"),
        "r2"
    );
    page.click("button[data-overlay=bandplan]");
    page.wait_for(
        "!document.getElementById('overlay-strip').hidden",
        Duration::from_secs(5),
    );
    page.assert_no_console_errors();
    srv.shutdown();
}

fn dx_station(node: &Node) -> StationConfig {
    let mut session = SessionConfig::new("N0CALL", None);
    session.backoff_min = Duration::from_millis(300);
    StationConfig {
        dx: Some(DxConfig {
            feeds: vec![FeedConfig {
                address: node.addr().to_string(),
                source: SpotSource::Cluster,
            }],
            session,
            connect_timeout: Duration::from_secs(2),
        }),
        ..StationConfig::default()
    }
}

#[test]
fn dx_spots_are_labels_that_tune_with_their_mode_and_live_spots_appear_at_once() {
    let _t = turn();
    let live = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let l = live.clone();
    let node = Node::start(Arc::new(move |c| {
        c.send(dialect::DXSPIDER_BANNER);
        if c.line(Duration::from_secs(10)).is_none() {
            return;
        }
        c.send(&dialect::dxspider_greeting("N0CALL"));
        c.send(b"DX de K1ABC:     14040.0  JA1XYZ       CW 599                         1234Z\r\n");
        c.send(b"DX de G4ABC:     14062.0  EA8XYZ       FT8 -12                        1235Z\r\n");
        for _ in 0..2000 {
            if l.load(std::sync::atomic::Ordering::SeqCst) {
                c.send(b"DX de W1AW:      14055.0  VK9LIVE      ssb 59                         1236Z\r\n");
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        c.hold(Duration::from_secs(30));
    }));
    let srv = start_with(dx_station(&node));
    let addr = srv.addr();
    assert!(common::wait_for(Duration::from_secs(15), || {
        get(addr, "/api/v1/dx/spots").json()["spots"]
            .as_array()
            .is_some_and(|s| s.len() == 2)
    }));
    let page = open(addr, 1440, 900, "dark");
    tune(addr, &page, 14_050_000, "USB");
    page.wait_for(
        "window.rigweb.overlays.labels.filter((l) => l.kind === 'cluster').length === 2",
        Duration::from_secs(10),
    );
    // at its frequency
    let o = overlays(&page);
    let ja = o["labels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["text"] == "JA1XYZ")
        .unwrap()
        .clone();
    let range = page.eval("window.rigweb.scope.range");
    let (s0, e0) = (
        range["startHz"].as_f64().unwrap(),
        range["endHz"].as_f64().unwrap(),
    );
    let width = page
        .eval("document.getElementById('spectrum').getBoundingClientRect().width")
        .as_f64()
        .unwrap();
    let want = (14_040_000.0 - s0) / (e0 - s0) * width;
    assert!(
        (ja["x"].as_f64().unwrap() - want).abs() < 2.0,
        "{ja} at {want}"
    );
    assert_eq!(ja["alpha"], 1.0, "fresh");
    // live: the next spot appears without waiting for a poll
    live.store(true, std::sync::atomic::Ordering::SeqCst);
    page.wait_for(
        "window.rigweb.overlays.labels.some((l) => l.text === 'VK9LIVE')",
        Duration::from_secs(5),
    );
    // an old spot fades
    page.eval("window.rigweb.parts.overlays.onSpot({call: 'OLD1', band: '20m', freq: 14045000, spotter: 'X', received_at: new Date(Date.now() - 3600e3).toISOString(), source: 'cluster', mode: null}); true");
    page.wait_for(
        "window.rigweb.overlays.labels.some((l) => l.text === 'OLD1' && l.alpha < 0.5)",
        Duration::from_secs(5),
    );
    // clicking a label tunes to it in the mode it implies
    let (x, y) = label_point(&page, "EA8XYZ");
    page.click_at(x, y);
    wait_state(addr, "EA8XYZ in USB", |s| {
        s["main"]["freqHz"] == 14_062_000 && s["main"]["mode"] == "USB"
    });
    centred(&page, 14_062_000);
    let (x, y) = label_point(&page, "JA1XYZ");
    page.click_at(x, y);
    wait_state(addr, "JA1XYZ in CW", |s| {
        s["main"]["freqHz"] == 14_040_000 && s["main"]["mode"] == "CW"
    });
    page.screenshot("overlay-dx.png");
    // toggled off: no labels
    page.click("button[data-overlay=dx]");
    page.wait_for(
        "window.rigweb.overlays.labels.length === 0",
        Duration::from_secs(5),
    );
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn eibi_labels_on_a_broadcast_band_and_the_probable_station_near_the_vfo() {
    let _t = turn();
    let files = FileServer::start(season_file(&[
        b"6070;0000-2400;;CAN;CFRX Toronto;E;ENA;;1;;",
        b"6080;0000-2400;;D;Radio <b>Test</b>;D;Eu;;1;;",
        b"6090;0000-2400;;E;Radio Exterior de Espa\xf1a;S;Eu;;1;;",
        b"14100;0000-2400;;X;Not in a broadcast band;E;Eu;;1;;",
    ]));
    let srv = start_with(StationConfig {
        eibi: Some(EibiConfig::new(&files.url("/sked-{season}.csv"), None)),
        ..StationConfig::default()
    });
    let addr = srv.addr();
    let page = open(addr, 1440, 900, "dark");
    tune(addr, &page, 6_080_000, "AM");
    page.wait_for(
        "window.rigweb.overlays.labels.filter((l) => l.kind === 'bc').length === 3",
        Duration::from_secs(20),
    );
    let texts: Vec<String> = overlays(&page)["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        texts.contains(&"Radio Exterior de España".to_string()),
        "{texts:?}"
    );
    // the probable station for the tuned frequency, as text
    page.wait_for(
        "!document.getElementById('vfo-station').hidden",
        Duration::from_secs(10),
    );
    let line = page.eval("document.getElementById('vfo-station').textContent");
    assert!(
        line.as_str().unwrap().contains("Radio <b>Test</b>"),
        "{line}"
    );
    assert_eq!(
        page.eval("document.querySelectorAll('#vfo-station b, .scope b').length"),
        0
    );
    // a broadcaster's label tunes there in AM
    let mut ws = common::web::Ws::control(addr);
    ws.cmd("m", "set_mode", json!({"mode": "USB"}));
    wait_state(addr, "USB", |s| s["main"]["mode"] == "USB");
    let (x, y) = label_point(&page, "CFRX Toronto");
    page.click_at(x, y);
    wait_state(addr, "CFRX in AM", |s| {
        s["main"]["freqHz"] == 6_070_000 && s["main"]["mode"] == "AM"
    });
    page.wait_for(
        "document.getElementById('vfo-station').textContent.includes('CFRX')",
        Duration::from_secs(10),
    );
    page.screenshot("overlay-eibi.png");
    // outside the broadcast bands: no labels, no station line
    tune(addr, &page, 14_100_000, "USB");
    page.wait_for(
        "window.rigweb.overlays.labels.length === 0 && document.getElementById('vfo-station').hidden",
        Duration::from_secs(10),
    );
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn the_overlay_layer_is_redrawn_only_when_something_changes_while_the_scope_runs() {
    let _t = turn();
    let node = Node::start(Arc::new(|c| {
        c.send(dialect::DXSPIDER_BANNER);
        if c.line(Duration::from_secs(10)).is_some() {
            c.send(&dialect::dxspider_greeting("N0CALL"));
            c.send(
                b"DX de K1ABC:     14040.0  JA1XYZ       CW 599                         1234Z\r\n",
            );
            c.hold(Duration::from_secs(30));
        }
    }));
    let srv = start_with(dx_station(&node));
    let addr = srv.addr();
    let page = open(addr, 1440, 900, "dark");
    tune(addr, &page, 14_050_000, "USB");
    page.wait_for(
        "window.rigweb.overlays.labels.length === 1",
        Duration::from_secs(15),
    );
    std::thread::sleep(Duration::from_millis(1500));
    let before = overlays(&page)["stats"]["draws"].as_u64().unwrap();
    let rows0 = page.eval("window.rigweb.scope.rows").as_u64().unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let after = overlays(&page)["stats"]["draws"].as_u64().unwrap();
    let rows1 = page.eval("window.rigweb.scope.rows").as_u64().unwrap();
    assert!(
        rows1 - rows0 > 30,
        "the scope kept running: {} rows in 3 s",
        rows1 - rows0
    );
    assert_eq!(after, before, "no overlay redraw without a change");
    // a pan (a new range) redraws
    let mut ws = common::web::Ws::control(addr);
    ws.cmd("f", "set_freq", json!({"freq": 14_052_000}));
    page.wait_for(
        &format!("window.rigweb.overlays.stats.draws > {after}"),
        Duration::from_secs(5),
    );
    srv.shutdown();
}
