//! The EiBi service against an HTTP server on 127.0.0.1 with season files in the real
//! format: fetch, cache, offline start, conditional refresh, 304, 404, redirect, slow,
//! stalled and truncated transfers, and what is not a schedule.

use std::path::PathBuf;
use std::time::Duration;

use rigweb::station::eibi::refresh::Intervals;
use rigweb::station::eibi::{EibiConfig, EibiService};
use serde_json::Value;

use super::http::{FileServer, fixture, season_file};
use crate::common::wait_for;
use crate::common::web::temp_data_dir;

const ROWS: u64 = 12;

fn service(url: &str, dir: Option<PathBuf>, tweak: impl FnOnce(&mut EibiConfig)) -> EibiService {
    let mut cfg = EibiConfig::new(url, dir);
    tweak(&mut cfg);
    let e = EibiService::start(cfg).unwrap();
    // a client asks for the schedule: the service may fetch
    let _ = e.dataset();
    e
}

fn wait_status(e: &EibiService, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
    let mut last = Value::Null;
    let ok = wait_for(Duration::from_secs(20), || {
        last = e.status_json();
        cond(&last)
    });
    assert!(ok, "never {what}: {last}");
    last
}

fn loaded(s: &Value) -> bool {
    s["loaded"] == true && s["fetching"] == false
}

#[test]
fn the_season_file_is_fetched_cached_and_served_offline_after_a_restart() {
    let http = FileServer::start(fixture());
    let dir = temp_data_dir();
    let url = http.url("/sked-{season}.csv");
    let e = service(&url, Some(dir.clone()), |_| {});
    let s = wait_status(&e, "loaded", loaded);
    assert_eq!(s["entries"], ROWS);
    assert_eq!(s["skipped_rows"], 2);
    assert_eq!(s["from_cache"], false);
    assert!(s["error"].is_null(), "{s}");
    let season = s["season"].as_str().unwrap().to_string();
    assert!(
        s["source"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/sked-{season}.csv")),
        "{s}"
    );
    assert!(s["fetched_at"].is_string());
    let data = e.dataset().unwrap();
    let names: Vec<&str> = data
        .entries()
        .iter()
        .map(|x| data.text(x.station))
        .collect();
    assert!(names.contains(&"R România Actualitãþi"), "{names:?}");
    assert!(names.contains(&"Radio Exterior de España"));
    let seen = http.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].header("if-none-match"),
        None,
        "nothing to be conditional about"
    );
    e.stop();
    drop(http);
    // offline: the cache serves
    let e = service(&url, Some(dir.clone()), |_| {});
    let s = wait_status(&e, "loaded from the cache and the failed check", |s| {
        s["loaded"] == true && s["fetching"] == false
    });
    assert_eq!(
        (s["entries"].as_u64(), s["from_cache"].as_bool()),
        (Some(ROWS), Some(true))
    );
    assert_eq!(s["season"].as_str(), Some(season.as_str()));
    e.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_cache_nothing_is_fetched_until_a_client_asks() {
    let http = FileServer::start(fixture());
    let e = EibiService::start(EibiConfig::new(&http.url("/sked-{season}.csv"), None)).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(http.seen().is_empty(), "no request before a client asks");
    assert_eq!(e.status_json()["loaded"], false);
    e.request_fetch(false);
    wait_status(&e, "loaded", loaded);
    assert_eq!(http.seen().len(), 1);
    e.stop();
}

#[test]
fn weekly_checks_are_conditional_a_304_keeps_the_data_and_a_revision_replaces_it() {
    let http = FileServer::start(fixture());
    let dir = temp_data_dir();
    let e = service(&http.url("/sked-{season}.csv"), Some(dir.clone()), |c| {
        c.intervals = Intervals {
            refresh: Duration::from_millis(700),
            ..Intervals::default()
        };
    });
    wait_status(&e, "loaded", loaded);
    assert!(
        wait_for(Duration::from_secs(10), || http.seen().len() >= 2),
        "a second check"
    );
    let second = &http.seen()[1];
    assert_eq!(second.header("if-none-match"), Some("\"v1\""));
    assert_eq!(
        second.header("if-modified-since"),
        Some("Sun, 01 Jun 2025 10:00:00 GMT")
    );
    let s = e.status_json();
    assert_eq!(s["entries"], ROWS, "a 304 keeps the data");
    assert!(s["error"].is_null(), "{s}");
    http.revise(
        season_file(&[b"7300;0000-2400;;CHN;China Radio International;C;As;;1;;"]),
        "\"v2\"",
    );
    wait_status(&e, "the revision", |s| s["entries"] == 1);
    e.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_fetch_asked_for_is_conditional_unless_forced() {
    let http = FileServer::start(fixture());
    let e = service(&http.url("/sked-{season}.csv"), None, |_| {});
    wait_status(&e, "loaded", loaded);
    e.request_fetch(false);
    assert!(wait_for(Duration::from_secs(10), || http.seen().len() == 2));
    assert_eq!(http.seen()[1].header("if-none-match"), Some("\"v1\""));
    wait_status(&e, "the check done", loaded);
    e.request_fetch(true);
    assert!(wait_for(Duration::from_secs(10), || http.seen().len() == 3));
    assert_eq!(
        http.seen()[2].header("if-none-match"),
        None,
        "forced: unconditional"
    );
    wait_status(&e, "the forced fetch done", loaded);
    e.stop();
}

#[test]
fn a_404_keeps_the_cached_data_and_says_why() {
    let http = FileServer::start(fixture());
    let dir = temp_data_dir();
    let e = service(&http.url("/sked-{season}.csv"), Some(dir.clone()), |_| {});
    wait_status(&e, "loaded", loaded);
    e.stop();
    // the next start is configured with a URL that is not there (a season not published)
    let e = service(&http.url("/missing.csv"), Some(dir.clone()), |_| {});
    let s = wait_status(&e, "the 404", |s| {
        s["error"].as_str().is_some_and(|x| x.contains("404"))
    });
    assert_eq!(
        (s["loaded"].as_bool(), s["entries"].as_u64()),
        (Some(true), Some(ROWS))
    );
    assert_eq!(s["from_cache"], true);
    assert!(s["next_check_at"].is_string());
    e.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_redirect_is_followed() {
    let http = FileServer::start(fixture());
    let e = service(&http.url("/redirect.csv"), None, |_| {});
    let s = wait_status(&e, "loaded", loaded);
    assert_eq!(s["entries"], ROWS);
    let paths: Vec<String> = http.seen().iter().map(|x| x.path.clone()).collect();
    assert_eq!(paths, ["/redirect.csv", "/sked-a25.csv"]);
    e.stop();
}

#[test]
fn a_slow_server_shows_progress_and_a_stalled_one_times_out() {
    // a full season's size, trickled over two seconds
    let mut rows = Vec::new();
    for i in 0..6000 {
        rows.push(format!("{};0000-2400;;CAN;Station {i};E;ENA;;1;;", 5900 + i % 400).into_bytes());
    }
    let refs: Vec<&[u8]> = rows.iter().map(Vec::as_slice).collect();
    let body = season_file(&refs);
    let total = body.len() as u64;
    let http = FileServer::start(body);
    let e = service(&http.url("/slow.csv"), None, |_| {});
    let s = wait_status(&e, "progress under way", |s| {
        s["progress"]["received"]
            .as_u64()
            .is_some_and(|r| r > 0 && r < total)
    });
    assert_eq!(s["fetching"], true);
    assert_eq!(s["progress"]["total"], total);
    let s = wait_status(&e, "loaded", loaded);
    assert_eq!(s["entries"], 6000);
    assert!(s["progress"].is_null(), "no progress when idle: {s}");
    e.stop();

    let e = service(&http.url("/stall.csv"), None, |c| {
        c.timeout = Duration::from_secs(1)
    });
    let s = wait_status(&e, "the timeout", |s| {
        s["error"].is_string() && s["fetching"] == false
    });
    assert_eq!(s["loaded"], false);
    assert!(s["error"].as_str().unwrap().contains("stall.csv"), "{s}");
    e.stop();
}

#[test]
fn a_truncated_transfer_is_refused_and_a_cut_file_keeps_its_whole_rows() {
    let http = FileServer::start(fixture());
    let e = service(&http.url("/truncated.csv"), None, |_| {});
    let s = wait_status(&e, "the broken transfer", |s| {
        s["error"].is_string() && s["fetching"] == false
    });
    assert_eq!(s["loaded"], false);
    assert!(s["error"].as_str().unwrap().contains("broke off"), "{s}");
    e.stop();
    let e = service(&http.url("/cut.csv"), None, |_| {});
    let s = wait_status(&e, "the cut file", loaded);
    let n = s["entries"].as_u64().unwrap();
    assert!(n > 0 && n < ROWS, "{s}");
    e.stop();
}

#[test]
fn a_page_that_is_not_a_schedule_is_refused_and_nothing_is_loaded() {
    let http = FileServer::start(fixture());
    let e = service(&http.url("/page.html"), None, |_| {});
    let s = wait_status(&e, "the refusal", |s| {
        s["error"].is_string() && s["fetching"] == false
    });
    assert!(
        s["error"]
            .as_str()
            .unwrap()
            .contains("not an EiBi schedule"),
        "{s}"
    );
    assert_eq!(s["loaded"], false);
    let _ = e.dataset();
    e.stop();
}
