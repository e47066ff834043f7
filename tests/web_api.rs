//! REST routes against the running server (built-in simulator), over 127.0.0.1.

#[macro_use]
mod common;

use std::time::Duration;

use common::wait_for;
use common::web::*;
use rigweb::app::Tuning;
use serde_json::{Value, json};

both_ways!(info_capabilities_and_health);
fn info_capabilities_and_health() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    let r = get(a, "/api/v1/info");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    let v = r.json();
    assert_eq!(
        (v["server"].as_str(), v["proto"].as_u64()),
        (Some("rigweb"), Some(1))
    );
    assert!(v["version"].is_string());
    assert_eq!(v["radio"], "IC-7610");
    assert_eq!(v["model"], "IC-7610");
    let c = &v["capabilities"];
    for k in [
        "hasSpectrum",
        "hasAudio",
        "hasTx",
        "hasDualReceiver",
        "hasTuner",
        "hasCw",
        "hasLan",
    ] {
        assert!(c[k].is_boolean(), "{k}: {c}");
    }
    assert_eq!(c["maxReceivers"], 2);
    assert_eq!(c["vfoScheme"], "main_sub");
    assert!(c["tags"].as_array().unwrap().iter().any(|t| t == "scope"));
    assert_eq!(c["filters"], json!(["FIL1", "FIL2", "FIL3"]));
    assert!(c["modes"].as_array().unwrap().iter().any(|m| m == "PSK"));
    let conn = &v["connection"];
    assert_eq!(
        (conn["rigConnected"].as_bool(), conn["radioReady"].as_bool()),
        (Some(true), Some(true))
    );
    assert!(conn["controlConnected"].as_bool().unwrap() && conn["wsClients"].is_u64());

    let caps = get(a, "/api/v1/capabilities").json();
    assert_eq!(caps["receivers"], 2);
    assert_eq!(caps["vfoScheme"], "main_sub");
    assert_eq!(caps["scopeSource"], "hardware");
    assert!(caps["scopeConfig"]["defaultSpan"].as_u64().unwrap() > 0);
    assert_eq!(caps["audioConfig"]["sampleRate"], 48000);
    // each of the profile's meters, with its label and when it is read
    let meters = caps["meters"].as_array().unwrap();
    let info = caps["meterInfo"].as_object().unwrap();
    assert_eq!(info.len(), meters.len(), "{info:?}");
    assert_eq!(
        info["smeter_sub"],
        json!({"label": "S (SUB)", "read": "rx"})
    );
    assert_eq!(info["power"], json!({"label": "Po", "read": "tx"}));
    assert_eq!(info["vd"], json!({"label": "Vd", "read": "always"}));
    let bands: Vec<&Value> = caps["freqRanges"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["bands"].as_array().unwrap())
        .collect();
    let six = bands.iter().find(|b| b["name"] == "6m").unwrap();
    assert_eq!(six["bsrCode"], 0x10);
    let sixty = bands.iter().find(|b| b["name"] == "60m").unwrap();
    assert!(sixty.get("bsrCode").is_none(), "no register on 60 m");

    let h = get(a, "/healthz");
    assert_eq!((h.status, h.json()["status"].as_str()), (200, Some("ok")));
    let rz = get(a, "/readyz");
    assert_eq!(
        (rz.status, rz.json()["radioReady"].as_bool()),
        (200, Some(true))
    );
    assert_eq!(get(a, "/").status, 200);
    srv.shutdown();
}

both_ways!(info_tells_the_tx_timeout_and_the_optional_services);
fn info_tells_the_tx_timeout_and_the_optional_services() {
    let mut cfg = serve_config("ic7610", None);
    cfg.tx_timeout = Duration::from_secs(42);
    let srv = start_server(cfg, Tuning::default());
    let v = get(srv.addr(), "/api/v1/info").json();
    assert_eq!(v["txTimeoutS"], 42, "--tx-timeout in seconds: {v}");
    // the services this server runs (the band plans need nothing; the audio bridge is
    // stopped until started): the page asks only for those; the others answer 404
    // service_off
    assert_eq!(
        v["services"],
        json!({"dxSpots": false, "bandPlan": true, "eibi": false, "bridge": true}),
        "{v}"
    );
    assert_eq!(get(srv.addr(), "/api/v1/bridge").json()["state"], "stopped");
    assert_eq!(get(srv.addr(), "/api/v1/dx/spots").status, 404);
    assert_eq!(get(srv.addr(), "/api/v1/band-plan/config").status, 200);
    srv.shutdown();
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    assert_eq!(get(srv.addr(), "/api/v1/info").json()["txTimeoutS"], 180);
    srv.shutdown();
}

both_ways!(ic705_and_ic7100_capabilities);
fn ic705_and_ic7100_capabilities() {
    let srv = start_server(serve_config("ic7100", None), Tuning::default());
    let caps = get(srv.addr(), "/api/v1/capabilities").json();
    assert_eq!(caps["scopeSource"], "audio_fft");
    assert_eq!(caps["receivers"], 1);
    assert_eq!(caps["vfoScheme"], "ab");
    let state = get(srv.addr(), "/api/v1/state").json();
    assert!(state.get("sub").is_none(), "single receiver: no sub");
    assert!(state["main"]["vfoA"].is_object() && state["main"]["vfoB"].is_object());
    srv.shutdown();
}

both_ways!(state_fields_and_etag);
fn state_fields_and_etag() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    let r = get(a, "/api/v1/state");
    assert_eq!(r.status, 200);
    let etag = r.header("etag").unwrap().to_string();
    let s = r.json();
    assert_eq!(etag, format!("\"{}\"", s["revision"]));
    assert!(
        s["main"]["freqHz"].is_u64()
            && s["main"]["mode"].is_string()
            && s["main"]["filter"].is_u64()
    );
    assert!(s["sub"].is_object());
    assert!(s["updatedAt"].as_str().unwrap().ends_with("+00:00"));
    assert_eq!(s["radioDetail"]["status"], "connected");
    for k in ["scope", "control", "audio"] {
        assert!(s["wsClients"][k].is_u64(), "wsClients.{k}");
    }
    for k in ["rigConnected", "radioReady", "controlConnected"] {
        assert_eq!(s["connection"][k], true, "connection.{k}");
    }
    for k in ["ptt", "powerOn", "power", "split", "active", "scope"] {
        assert!(s.get(k).is_some(), "{k}");
    }
    // 304 on the current tag (also inside a list, and weak), 200 on another
    let r304 = http(a, "GET", "/api/v1/state", &[("If-None-Match", &etag)], None);
    assert_eq!(r304.status, 304);
    assert!(r304.body.is_empty());
    assert_eq!(r304.header("etag"), Some(etag.as_str()));
    let list = format!("\"0\", W/{etag}");
    assert_eq!(
        http(a, "GET", "/api/v1/state", &[("If-None-Match", &list)], None).status,
        304
    );
    assert_eq!(
        http(
            a,
            "GET",
            "/api/v1/state",
            &[("If-None-Match", "\"1\"")],
            None
        )
        .status,
        200
    );
    // a change moves the revision and the tag
    srv.app
        .radio
        .execute(rigweb::radio::command::Command::write(
            rigweb::radio::table::settings::SettingId::Power,
            rigweb::wire::civ::Receiver::Main,
            i64::from(33),
        ))
        .unwrap();
    let r2 = http(a, "GET", "/api/v1/state", &[("If-None-Match", &etag)], None);
    assert_eq!(r2.status, 200);
    assert_ne!(r2.header("etag").unwrap(), etag);
    assert_eq!(r2.json()["power"], 33);
    // HEAD: headers, no body
    let h = http(a, "HEAD", "/api/v1/state", &[], None);
    assert_eq!(h.status, 200);
    srv.shutdown();
}

both_ways!(connect_disconnect_and_power);
fn connect_disconnect_and_power() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    assert_eq!(
        post_json(a, "/api/v1/radio/connect", &json!({})).json()["status"],
        "connected"
    );
    let r = http(a, "POST", "/api/v1/radio/disconnect", &[], None);
    assert_eq!(
        (r.status, r.json()["status"].as_str()),
        (200, Some("disconnected"))
    );
    assert!(wait_for(Duration::from_secs(3), || !get(
        a,
        "/api/v1/state"
    )
    .json()["connection"]["controlConnected"]
        .as_bool()
        .unwrap()));
    let s = get(a, "/api/v1/state").json();
    assert_eq!(
        s["connection"],
        json!({"rigConnected": false, "radioReady": false, "controlConnected": false})
    );
    assert_eq!(s["radioDetail"]["status"], "disconnected");
    assert_eq!(get(a, "/readyz").status, 503);
    // commands while disconnected: 503 radio_unavailable
    let r = post_json(a, "/api/v1/radio/power", &json!({"state": "on"}));
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (503, Some("radio_unavailable"))
    );
    let r = http(a, "POST", "/api/v1/radio/connect", &[], None);
    assert_eq!(
        (r.status, r.json()["status"].as_str()),
        (202, Some("connecting"))
    );
    assert!(wait_for(Duration::from_secs(5), || get(a, "/readyz")
        .status
        == 200));

    let r = post_json(a, "/api/v1/radio/power", &json!({"state": "off"}));
    assert_eq!((r.status, r.json()["state"].as_str()), (200, Some("off")));
    let s = get(a, "/api/v1/state").json();
    assert_eq!(
        (
            s["powerOn"].as_bool(),
            s["connection"]["radioReady"].as_bool()
        ),
        (Some(false), Some(false))
    );
    assert_eq!(s["radioDetail"]["status"], "powered_off");
    assert_eq!(get(a, "/readyz").status, 503);
    // off when already off is a harmless success (it answered 409 radio_rejected)
    let r = post_json(a, "/api/v1/radio/power", &json!({"state": "off"}));
    assert_eq!((r.status, r.json()["state"].as_str()), (200, Some("off")));
    let r = post_json(a, "/api/v1/radio/power", &json!({"state": "on"}));
    assert_eq!(r.status, 200);
    assert!(wait_for(Duration::from_secs(5), || get(a, "/readyz")
        .status
        == 200));
    // bad bodies
    for (body, code) in [
        (json!({"state": "maybe"}), "invalid_param"),
        (json!({}), "invalid_param"),
        (json!({"state": "on", "extra": 1}), "invalid_param"),
        (json!([1]), "invalid_json"),
    ] {
        let r = post_json(a, "/api/v1/radio/power", &body);
        assert_eq!(
            (r.status, r.json()["error"].as_str()),
            (400, Some(code)),
            "{body}"
        );
        assert!(r.json()["message"].as_str().unwrap().len() > 5);
    }
    srv.shutdown();
}

both_ways!(connection_flags_follow_the_radio_going_away_and_coming_back);
fn connection_flags_follow_the_radio_going_away_and_coming_back() {
    let tuning = quick_reconnect();
    let srv = start_server(serve_config("ic7610", None), tuning);
    let a = srv.addr();
    srv.sim.as_ref().unwrap().silence(Duration::from_secs(3));
    assert!(wait_for(Duration::from_secs(5), || !get(
        a,
        "/api/v1/state"
    )
    .json()["connection"]["rigConnected"]
        .as_bool()
        .unwrap()));
    let s = get(a, "/api/v1/state").json();
    assert_eq!(s["connection"]["radioReady"], false);
    assert!(
        matches!(
            s["radioDetail"]["status"].as_str(),
            Some("reconnecting" | "connecting")
        ),
        "{s}"
    );
    assert!(s["radioDetail"]["message"].is_string());
    assert!(wait_for(Duration::from_secs(10), || get(a, "/readyz")
        .status
        == 200));
    srv.shutdown();
}
