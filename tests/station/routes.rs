//! The station-data routes of the whole server: services in info and capabilities, the
//! band-plan, EiBi and DX routes with their parameters and errors, `dx_spot` events,
//! and the flags that configure it all.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rigweb::app::{Running, Tuning};
use rigweb::cli::Cli;
use rigweb::config::ServeConfig;
use rigweb::station::dx::buffer::SpotSource;
use rigweb::station::dx::session::SessionConfig;
use rigweb::station::dx::{DxConfig, FeedConfig};
use rigweb::station::eibi::EibiConfig;
use rigweb::station::{BandPlanConfig, StationConfig};
use serde_json::{Value, json};

use super::cluster::{Node, dialect};
use super::http::{FileServer, fixture};
use crate::common::wait_for;
use crate::common::web::{Ws, get, http, post_json, serve_config, start_server, temp_data_dir};

fn server(station: StationConfig) -> Running {
    let mut cfg = serve_config("ic7610", None);
    cfg.station = station;
    start_server(cfg, Tuning::default())
}

fn assert_error(r: &crate::common::web::HttpResponse, status: u16, code: &str, names: &str) {
    let v = r.json();
    assert_eq!((r.status, v["error"].as_str()), (status, Some(code)), "{v}");
    let m = v["message"].as_str().unwrap();
    assert!(
        m.starts_with(names) || m.contains(names),
        "{m:?} names {names:?}"
    );
}

#[test]
fn info_and_capabilities_name_the_services_that_run_and_the_others_answer_404() {
    let srv = server(StationConfig::default());
    let a = srv.addr();
    let want = json!({"dxSpots": false, "bandPlan": true, "eibi": false, "bridge": true});
    assert_eq!(get(a, "/api/v1/info").json()["services"], want);
    assert_eq!(get(a, "/api/v1/capabilities").json()["services"], want);
    assert_error(
        &get(a, "/api/v1/dx/spots"),
        404,
        "service_off",
        "--dx-cluster",
    );
    assert_error(
        &get(a, "/api/v1/dx/status"),
        404,
        "service_off",
        "--dx-cluster",
    );
    assert_error(
        &get(a, "/api/v1/eibi/status"),
        404,
        "service_off",
        "--eibi-url",
    );
    assert_error(
        &post_json(a, "/api/v1/eibi/fetch", &json!({})),
        404,
        "service_off",
        "--eibi-url",
    );
    assert_eq!(
        get(a, "/api/v1/bridge").json()["state"],
        "stopped",
        "every server has the audio bridge, stopped until started"
    );
    assert_eq!(get(a, "/api/v1/band-plan/layers").status, 200);
    assert_eq!(
        http(a, "DELETE", "/api/v1/band-plan/config", &[], None).status,
        405
    );
    srv.shutdown();
}

#[test]
fn band_plan_routes_choose_a_region_keep_it_across_a_restart_and_refuse_bad_values() {
    let dir = temp_data_dir();
    let station = || StationConfig {
        band_plan: Some(BandPlanConfig {
            region: None,
            data_dir: Some(dir.clone()),
        }),
        ..StationConfig::default()
    };
    let srv = server(station());
    let a = srv.addr();
    let c = get(a, "/api/v1/band-plan/config").json();
    assert_eq!(c["region"], "r1");
    let names: Vec<&str> = c["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["r1", "r2", "r3"]);
    let r = post_json(a, "/api/v1/band-plan/config", &json!({"region": "IARU-R2"}));
    assert_eq!((r.status, r.json()["region"].as_str()), (200, Some("r2")));
    let layers = get(a, "/api/v1/band-plan/layers").json();
    let first = &layers["layers"][0];
    for k in ["name", "label", "color", "visible"] {
        assert!(first.get(k).is_some(), "{k} in {first}");
    }
    let segs = get(
        a,
        "/api/v1/band-plan/segments?start=7250000&end=7260000&layers=band,phone",
    )
    .json();
    let list = segs["segments"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{segs}");
    for s in list {
        assert_eq!(
            (s["start"].as_u64(), s["end"].as_u64()),
            (Some(7_250_000), Some(7_260_000)),
            "clipped: {s}"
        );
        for k in ["start", "end", "label", "layer", "color", "mode"] {
            assert!(s.get(k).is_some(), "{k} in {s}");
        }
    }
    // bad values: 400 naming the field
    assert_error(
        &get(a, "/api/v1/band-plan/segments?start=8&end=7"),
        400,
        "invalid_param",
        "start",
    );
    assert_error(
        &get(a, "/api/v1/band-plan/segments?start=1&end=abc"),
        400,
        "invalid_param",
        "end",
    );
    assert_error(
        &get(a, "/api/v1/band-plan/segments?start=-1"),
        400,
        "invalid_param",
        "start",
    );
    assert_error(
        &get(a, "/api/v1/band-plan/segments?layers=cw,morse"),
        400,
        "invalid_param",
        "layers",
    );
    assert_error(
        &get(a, "/api/v1/band-plan/segments?strat=1"),
        400,
        "invalid_param",
        "strat",
    );
    assert_error(
        &get(a, "/api/v1/band-plan/config?x=1"),
        400,
        "invalid_param",
        "x",
    );
    for (body, name) in [
        (json!({"region": "r4"}), "region"),
        (json!({"region": 2}), "region"),
        (json!({}), "region"),
        (json!({"region": "r1", "extra": 1}), "extra"),
    ] {
        assert_error(
            &post_json(a, "/api/v1/band-plan/config", &body),
            400,
            "invalid_param",
            name,
        );
    }
    assert_error(
        &http(a, "POST", "/api/v1/band-plan/config", &[], None),
        400,
        "invalid_json",
        "",
    );
    let r = http(
        a,
        "POST",
        "/api/v1/band-plan/config",
        &[("Content-Type", "text/plain")],
        Some(b"r1"),
    );
    assert_eq!(r.status, 415);
    assert_eq!(
        get(a, "/api/v1/band-plan/config").json()["region"],
        "r2",
        "unchanged"
    );
    srv.shutdown();
    let srv = server(station());
    assert_eq!(
        get(srv.addr(), "/api/v1/band-plan/config").json()["region"],
        "r2",
        "kept"
    );
    srv.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

fn eibi_server(url: &str) -> Running {
    server(StationConfig {
        eibi: Some(EibiConfig::new(url, None)),
        ..StationConfig::default()
    })
}

#[test]
fn eibi_routes_page_filter_identify_segment_count_and_fetch() {
    let files = FileServer::start(fixture());
    let srv = eibi_server(&files.url("/sked-{season}.csv"));
    let a = srv.addr();
    let status = get(a, "/api/v1/eibi/status").json();
    for k in [
        "loaded",
        "entries",
        "season",
        "source",
        "fetched_at",
        "fetching",
        "error",
    ] {
        assert!(status.get(k).is_some(), "{k} in {status}");
    }
    // the first question lets the service fetch; until it has the data: 503
    let first = get(a, "/api/v1/eibi/bands");
    assert!(
        first.status == 503 || first.status == 200,
        "{}",
        first.status
    );
    assert!(wait_for(Duration::from_secs(15), || get(
        a,
        "/api/v1/eibi/status"
    )
    .json()["loaded"]
        == true));
    let page = get(a, "/api/v1/eibi/stations?per_page=5&page=2").json();
    assert_eq!(
        (
            page["total"].as_u64(),
            page["page"].as_u64(),
            page["per_page"].as_u64()
        ),
        (Some(12), Some(2), Some(5))
    );
    assert_eq!(page["items"].as_array().unwrap().len(), 5);
    let q = get(a, "/api/v1/eibi/stations?q=espa%C3%B1a").json();
    assert_eq!(q["items"][0]["station"], "Radio Exterior de España");
    let lang = get(a, "/api/v1/eibi/stations?language=F").json();
    assert_eq!(lang["total"], 3, "F, and F of A,F: {lang}");
    let range = get(
        a,
        "/api/v1/eibi/stations?freq_min=6070000&freq_max=6080000&target=eu",
    )
    .json();
    assert_eq!(range["total"], 2);
    let on = get(a, "/api/v1/eibi/stations?on_air=true").json();
    assert!(
        on["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["on_air"] == true)
    );
    assert!(
        on["total"].as_u64().unwrap() >= 3,
        "the 0000-2400 rows at least: {on}"
    );
    let id = get(a, "/api/v1/eibi/identify?freq=9421000&tolerance=2000").json();
    assert_eq!(id["candidates"][0]["station"], "Voice of Greece");
    assert_eq!(id["candidates"][0]["distance"], 1000);
    let segs = get(
        a,
        "/api/v1/eibi/segments?start=6000000&end=6200000&on_air=false",
    )
    .json();
    assert_eq!(segs["segments"].as_array().unwrap().len(), 9);
    let bands = get(a, "/api/v1/eibi/bands").json();
    let b49 = bands["bands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "49m")
        .unwrap()
        .clone();
    assert_eq!(b49["total"], 9);
    for (path, name) in [
        ("/api/v1/eibi/stations?per_page=501", "per_page"),
        ("/api/v1/eibi/stations?page=0", "page"),
        (
            "/api/v1/eibi/stations?freq_min=7000000&freq_max=6000000",
            "freq_min",
        ),
        ("/api/v1/eibi/stations?on_air=maybe", "on_air"),
        ("/api/v1/eibi/stations?sort=freq", "sort"),
        ("/api/v1/eibi/identify", "freq"),
        ("/api/v1/eibi/identify?freq=abc", "freq"),
        (
            "/api/v1/eibi/identify?freq=6000000&tolerance=1000000",
            "tolerance",
        ),
        ("/api/v1/eibi/segments?start=2&end=1", "start"),
    ] {
        assert_error(&get(a, path), 400, "invalid_param", name);
    }
    let r = post_json(a, "/api/v1/eibi/fetch", &json!({"force": true}));
    assert_eq!(
        (r.status, r.json()["fetching"].as_bool()),
        (202, Some(true))
    );
    assert_eq!(
        http(a, "POST", "/api/v1/eibi/fetch", &[], None).status,
        202,
        "no body: not forced"
    );
    assert_error(
        &post_json(a, "/api/v1/eibi/fetch", &json!({"force": "yes"})),
        400,
        "invalid_param",
        "force",
    );
    assert_error(
        &post_json(a, "/api/v1/eibi/fetch", &json!({"forse": true})),
        400,
        "invalid_param",
        "forse",
    );
    assert_error(
        &post_json(a, "/api/v1/eibi/fetch", &json!([1])),
        400,
        "invalid_json",
        "",
    );
    assert_eq!(get(a, "/api/v1/eibi/fetch").status, 405);
    assert!(wait_for(Duration::from_secs(15), || get(
        a,
        "/api/v1/eibi/status"
    )
    .json()["fetching"]
        == false));
    assert!(
        files
            .seen()
            .iter()
            .any(|s| s.header("if-none-match").is_none() && files.seen().len() > 1)
    );
    srv.shutdown();
}

#[test]
fn eibi_routes_answer_503_until_a_schedule_is_loaded() {
    let files = FileServer::start(fixture());
    let srv = eibi_server(&files.url("/missing.csv"));
    let a = srv.addr();
    assert_error(&get(a, "/api/v1/eibi/stations"), 503, "not_loaded", "");
    assert!(wait_for(Duration::from_secs(15), || {
        get(a, "/api/v1/eibi/status").json()["error"]
            .as_str()
            .is_some_and(|e| e.contains("404"))
    }));
    assert_error(
        &get(a, "/api/v1/eibi/identify?freq=6070000"),
        503,
        "not_loaded",
        "",
    );
    srv.shutdown();
}

#[test]
fn dx_routes_filter_spots_and_subscribed_clients_get_dx_spot_events() {
    let go = Arc::new(AtomicBool::new(false));
    let g = go.clone();
    let node = Node::start(Arc::new(move |c| {
        c.send(dialect::DXSPIDER_BANNER);
        if c.line(Duration::from_secs(10)).is_none() {
            return;
        }
        c.send(&dialect::dxspider_greeting("N0CALL"));
        c.send(b"DX de K1ABC:     14025.0  JA1XYZ       CW 599                         1234Z\r\n");
        c.send(b"DX de K1ABC:      7074.0  EA8XYZ       FT8 -12                        1235Z\r\n");
        // (bounded: a failed test must not leave this script waiting for ever)
        for _ in 0..1000 {
            if g.load(Ordering::SeqCst) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        c.send(b"DX de G4ABC:     21074.0  VK9XX        loud                           1236Z\r\n");
        c.hold(Duration::from_secs(20));
    }));
    let mut session = SessionConfig::new("N0CALL", None);
    session.backoff_min = Duration::from_millis(300);
    let srv = server(StationConfig {
        dx: Some(DxConfig {
            feeds: vec![FeedConfig {
                address: node.addr().to_string(),
                source: SpotSource::Cluster,
            }],
            session,
            connect_timeout: Duration::from_secs(2),
        }),
        ..StationConfig::default()
    });
    let a = srv.addr();
    assert!(wait_for(Duration::from_secs(15), || {
        get(a, "/api/v1/dx/spots").json()["spots"]
            .as_array()
            .is_some_and(|s| s.len() == 2)
    }));
    let spots = get(a, "/api/v1/dx/spots").json()["spots"].clone();
    assert_eq!(spots[0]["call"], "EA8XYZ", "newest first");
    assert_eq!(spots[0]["freq"], 7_074_000);
    assert_eq!(spots[0]["mode"], "USB");
    assert_eq!(spots[1]["mode"], "CW");
    for k in [
        "spotter",
        "freq",
        "call",
        "comment",
        "time_utc",
        "received_at",
        "source",
    ] {
        assert!(spots[0].get(k).is_some(), "{k} in {}", spots[0]);
    }
    assert_eq!(
        get(a, "/api/v1/dx/spots?limit=1").json()["spots"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let twenty = get(a, "/api/v1/dx/spots?band=20M").json();
    assert_eq!(twenty["spots"][0]["call"], "JA1XYZ");
    assert_eq!(twenty["spots"].as_array().unwrap().len(), 1);
    let since = spots[1]["received_at"]
        .as_str()
        .unwrap()
        .replace('+', "%2B");
    let newer = get(a, &format!("/api/v1/dx/spots?since={since}")).json();
    assert_eq!(
        newer["spots"].as_array().unwrap().len(),
        1,
        "strictly after: {newer}"
    );
    for (path, name) in [
        ("/api/v1/dx/spots?limit=0", "limit"),
        ("/api/v1/dx/spots?limit=501", "limit"),
        ("/api/v1/dx/spots?band=11m", "band"),
        ("/api/v1/dx/spots?since=yesterday", "since"),
        ("/api/v1/dx/spots?call=X", "call"),
    ] {
        assert_error(&get(a, path), 400, "invalid_param", name);
    }
    let st = get(a, "/api/v1/dx/status").json();
    assert_eq!(
        (st["connected"].as_bool(), st["node"].as_str()),
        (Some(true), Some("GB7TST"))
    );
    assert!(
        st["last_spot_at"].is_string() && st["error"].is_null(),
        "{st}"
    );
    // a client subscribed to events gets the next spot; one without events does not
    let mut with = Ws::control(a);
    with.subscribe(&["events"]);
    let mut without = Ws::control(a);
    without.subscribe(&["scope"]);
    go.store(true, Ordering::SeqCst);
    let ev = with
        .until(Duration::from_secs(10), |v| {
            v["type"] == "event" && v["name"] == "dx_spot"
        })
        .expect("a dx_spot event");
    assert_eq!(ev["data"]["call"], "VK9XX");
    assert_eq!(ev["data"]["band"], "15m");
    assert!(
        without
            .until(Duration::from_secs(1), |v| v["name"] == "dx_spot")
            .is_none(),
        "no events without the events stream"
    );
    srv.shutdown();
}

fn cli(args: &[&str]) -> Cli {
    argh::FromArgs::from_args(&["rigweb"], args).expect("parses")
}

#[test]
fn the_flags_configure_the_feeds_the_password_file_the_region_and_the_schedule() {
    let node = Node::start(Arc::new(|c| {
        c.send(dialect::DXSPIDER_BANNER);
        let call = c.line(Duration::from_secs(10)).unwrap_or_default();
        c.send(format!("{call}\r\npassword: ").as_bytes());
        c.hold(Duration::from_secs(10));
    }));
    let dir = temp_data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let pw = dir.join("dx-password");
    std::fs::write(&pw, "s3cret\n").unwrap();
    let addr = node.addr().to_string();
    let pw_s = pw.to_str().unwrap();
    let dir_s = dir.to_str().unwrap();
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--dx-cluster",
        &addr,
        "--callsign",
        "n0call",
        "--dx-cluster-password-file",
        pw_s,
        "--band-plan-region",
        "3",
        "--eibi-url",
        "off",
        "--data-dir",
        dir_s,
        "--log-level",
        "warn",
    ];
    let mut cfg = ServeConfig::from_cli(&cli(&args), None).unwrap();
    cfg.listen = "127.0.0.1:0".parse().unwrap();
    let srv = start_server(cfg, Tuning::default());
    let a = srv.addr();
    assert!(
        wait_for(Duration::from_secs(15), || node.heard().text(0)
            == "N0CALL\r\ns3cret\r\n"),
        "{:?}",
        node.heard()
    );
    let services: Value = get(a, "/api/v1/info").json()["services"].clone();
    assert_eq!(
        services,
        json!({"dxSpots": true, "bandPlan": true, "eibi": false, "bridge": true})
    );
    assert_eq!(get(a, "/api/v1/band-plan/config").json()["region"], "r3");
    srv.shutdown();
    // mistakes name the flag
    let err = |args: &[&str]| {
        ServeConfig::from_cli(&cli(args), None)
            .unwrap_err()
            .to_string()
    };
    assert!(err(&["--dx-cluster", "host:7300"]).contains("--callsign"));
    assert!(err(&["--rbn", "host", "--callsign", "N0CALL"]).contains("--rbn"));
    assert!(err(&["--dx-cluster", ":7300", "--callsign", "N0CALL"]).contains("HOST:PORT"));
    assert!(err(&["--dx-cluster", "h:0", "--callsign", "N0CALL"]).contains("--dx-cluster"));
    assert!(err(&["--dx-cluster", "h:1", "--callsign", "N0 CALL"]).contains("--callsign"));
    assert!(err(&["--dx-cluster-password-file", pw_s]).contains("needs --dx-cluster"));
    assert!(err(&["--band-plan-region", "us"]).contains("--band-plan-region"));
    assert!(err(&["--eibi-url", "https://www.eibispace.de/x.csv"]).contains("https"));
    assert!(err(&["--eibi-url", "ftp://x"]).contains("--eibi-url"));
    let c = ServeConfig::from_cli(&cli(&["--data-dir", dir_s]), None).unwrap();
    let e = c.station.eibi.expect("EiBi is on by default");
    assert_eq!(e.url, "http://www.eibispace.de/dx/sked-{season}.csv");
    assert_eq!(e.data_dir.as_deref(), Some(dir.as_path()));
    let _ = std::fs::remove_dir_all(&dir);
}
