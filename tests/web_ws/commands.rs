//! Every command with its response and events, validation, and commands under the
//! rate limit and a full radio queue.

use std::time::Duration;

use serde_json::json;

use crate::common::wait_for;
use crate::common::web::*;
use crate::{responses, server, sim_freq};

both_ways!(every_command_with_responses_and_events);
fn every_command_with_responses_and_events() {
    let srv = server("ic7610");
    let mut ws = Ws::control(srv.addr());
    ws.subscribe(&["events"]);
    let r = ws.cmd("1", "set_freq", json!({"vfo": "A", "freq": 14_074_000}));
    assert_eq!(
        r,
        json!({"type": "response", "id": "1", "ok": true, "result": {"vfo": "MAIN", "freq": 14_074_000}})
    );
    let e = ws
        .until(Duration::from_secs(2), |v| {
            v["type"] == "event" && v["name"] == "freq_changed"
        })
        .unwrap();
    assert_eq!(
        (e["data"]["freq"].as_u64(), e["data"]["vfo"].as_str()),
        (Some(14_074_000), Some("MAIN"))
    );
    assert_eq!(ws.cmd("2", "set_mode", json!({"mode": "LSB"}))["ok"], true);
    assert_eq!(
        ws.cmd("3", "set_filter", json!({"filter": "FIL2"}))["result"]["filter"],
        "FIL2"
    );
    assert_eq!(ws.cmd("4", "set_power", json!({"level": 128}))["ok"], true);
    assert_eq!(
        ws.cmd("5", "set_att", json!({"db": 9}))["result"],
        json!({"receiver": 0, "db": 9})
    );
    assert_eq!(
        ws.cmd("6", "set_preamp", json!({"level": 1}))["result"],
        json!({"receiver": 0, "level": 1})
    );
    assert_eq!(
        ws.cmd("7", "ptt", json!({"state": true}))["result"],
        json!({"state": true})
    );
    let e = ws
        .until(Duration::from_secs(2), |v| {
            v["type"] == "event" && v["name"] == "ptt"
        })
        .unwrap();
    assert_eq!(e["data"]["state"], true);
    assert_eq!(ws.cmd("8", "ptt", json!({"state": false}))["ok"], true);
    assert_eq!(ws.cmd("9", "vfo_swap", json!({}))["ok"], true);
    assert_eq!(ws.cmd("10", "vfo_equalize", json!({}))["ok"], true);
    let r = ws.cmd("11", "set_band", json!({"band": 5}));
    assert_eq!(
        (r["ok"].as_bool(), r["result"]["source"].as_str()),
        (Some(true), Some("bsr"))
    );
    std::thread::sleep(Duration::from_millis(60)); // outside the set_band rate-limit window
    let r = ws.cmd("12", "set_band", json!({"band": 0x42}));
    assert_eq!(
        r["result"],
        json!({"band": 0x42, "source": "none", "retuned": false}),
        "unknown code: acknowledged, no retune"
    );
    let s = get(srv.addr(), "/api/v1/state").json();
    assert!((14_000_000..=14_350_000).contains(&s["main"]["freqHz"].as_u64().unwrap()));
    srv.shutdown();
}

both_ways!(invalid_commands_say_which_field_and_what_is_allowed);
fn invalid_commands_say_which_field_and_what_is_allowed() {
    let srv = server("ic705");
    let mut ws = Ws::control(srv.addr());
    let cases = [
        ("set_freq", json!({"freq": 5}), "invalid_param", "freq:"),
        (
            "set_freq",
            json!({"freq": "14074000"}),
            "invalid_param",
            "must be an integer",
        ),
        ("set_freq", json!({"freq": 1e20}), "invalid_param", "freq:"),
        (
            "set_freq",
            json!({"freq": 99999999999999999999u128 as f64}),
            "invalid_param",
            "freq:",
        ),
        (
            "set_mode",
            json!({"mode": "PSK"}),
            "invalid_param",
            "allowed: USB",
        ),
        (
            "set_filter",
            json!({"filter": "FIL9"}),
            "invalid_param",
            "allowed: FIL1, FIL2, FIL3",
        ),
        (
            "set_att",
            json!({"db": 3}),
            "invalid_param",
            "allowed: 0, 20",
        ),
        (
            "set_preamp",
            json!({"level": 7}),
            "invalid_param",
            "allowed: 0, 1, 2",
        ),
        ("set_power", json!({"level": -1}), "invalid_param", "0..255"),
        (
            "ptt",
            json!({"state": "on"}),
            "invalid_param",
            "must be a boolean",
        ),
        ("set_band", json!({"band": 300}), "invalid_param", "0..255"),
        (
            "set_freq",
            json!({"freq": 14_000_000, "bogus": true}),
            "invalid_param",
            "bogus: unknown parameter",
        ),
        ("warp", json!({}), "unknown_command", "known commands"),
    ];
    for (i, (name, params, code, text)) in cases.into_iter().enumerate() {
        let r = ws.cmd(&format!("e{i}"), name, params.clone());
        assert_eq!(
            (r["ok"].as_bool(), r["error"].as_str()),
            (Some(false), Some(code)),
            "{name} {params}: {r}"
        );
        assert!(
            r["message"].as_str().unwrap().contains(text),
            "{name} {params}: {r}"
        );
    }
    // numeric ids are echoed as they are
    ws.send(&json!({"type": "cmd", "id": 77, "name": "set_power", "params": {"level": 1}}));
    let r = ws
        .until(Duration::from_secs(5), |v| v["type"] == "response")
        .unwrap();
    assert_eq!(r["id"], 77);
    srv.shutdown();
}

both_ways!(a_burst_of_100_set_freq_ends_at_the_last_value);
fn a_burst_of_100_set_freq_ends_at_the_last_value() {
    let srv = server("ic7610");
    let mut ws = Ws::control(srv.addr());
    for i in 0..100u64 {
        ws.send(&json!({"type": "cmd", "id": format!("b{i}"), "name": "set_freq", "params": {"freq": 14_000_000 + i * 10}}));
    }
    let mut throttled = 0;
    let mut ok = 0;
    for _ in 0..100 {
        let r = ws
            .until(Duration::from_secs(5), |v| v["type"] == "response")
            .expect("a response per command");
        assert_eq!(r["ok"], true, "{r}");
        if r["result"]["throttled"] == true {
            throttled += 1;
        } else {
            ok += 1;
        }
    }
    assert!(
        throttled > 50 && ok >= 1,
        "throttled {throttled}, sent {ok}"
    );
    let last = 14_000_000 + 99 * 10;
    assert!(wait_for(Duration::from_secs(2), || get(
        srv.addr(),
        "/api/v1/state"
    )
    .json()["main"]["freqHz"]
        == last));
    let snap = srv.sim.as_ref().unwrap().snapshot().unwrap();
    let rx = &snap.receivers[0];
    assert_eq!(
        rx.vfo[usize::from(rx.active_vfo)].freq_hz,
        last,
        "the radio itself ends at the last value"
    );
    // an invalid command inside the window is answered with its error, not throttled
    let r = ws.cmd("bad", "set_freq", json!({"freq": 1}));
    assert_eq!(r["error"], "invalid_param");
    srv.shutdown();
}

both_ways!(throttled_commands_for_two_receivers_and_before_a_close_are_all_applied);
fn throttled_commands_for_two_receivers_and_before_a_close_are_all_applied() {
    // review: MAIN and SUB shared one throttle slot (SUB's value was lost), and a
    // throttled command waiting when the client left was dropped
    let srv = server("ic7610");
    let mut ws = Ws::control(srv.addr());
    let cmds = [
        ("m1", 0, 14_010_000u64),
        ("s1", 1, 7_010_000),
        ("s2", 1, 7_020_000),
        ("m2", 0, 14_020_000),
    ];
    for (id, rx, hz) in cmds {
        ws.send(&json!({"type": "cmd", "id": id, "name": "set_freq", "params": {"receiver": rx, "freq": hz}}));
    }
    let got = responses(&mut ws, &["m1", "s1", "s2", "m2"]);
    assert!(got.values().all(|r| r["ok"] == true), "{got:?}");
    assert!(wait_for(Duration::from_secs(2), || sim_freq(&srv, 0)
        == 14_020_000
        && sim_freq(&srv, 1) == 7_020_000));
    // a throttled value waiting when the client closes is still applied
    ws.send(
        &json!({"type": "cmd", "id": "c1", "name": "set_freq", "params": {"freq": 14_030_000}}),
    );
    ws.send(
        &json!({"type": "cmd", "id": "c2", "name": "set_freq", "params": {"freq": 14_040_000}}),
    );
    let got = responses(&mut ws, &["c1", "c2"]);
    assert!(got.values().all(|r| r["ok"] == true), "{got:?}");
    // (the second one waits in the limiter unless this machine took over 50 ms between)
    eprintln!("c2 throttled: {}", got["c2"]["result"]["throttled"]);
    drop(ws);
    assert!(
        wait_for(Duration::from_secs(2), || sim_freq(&srv, 0) == 14_040_000),
        "ends at {}",
        sim_freq(&srv, 0)
    );
    srv.shutdown();
}

both_ways!(throttled_commands_reach_the_radio_in_the_order_they_were_sent);
fn throttled_commands_reach_the_radio_in_the_order_they_were_sent() {
    // review: set_band 5, set_freq, set_freq (throttled), set_band 7 (throttled) ended
    // on the frequency instead of the band sent last
    let srv = server("ic7610");
    let mut ws = Ws::control(srv.addr());
    let caps = get(srv.addr(), "/api/v1/capabilities").json();
    let bands: Vec<(u64, u64, u64)> = caps["freqRanges"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["bands"].as_array().unwrap().clone())
        .filter(|b| b["bsrCode"].is_u64())
        .map(|b| {
            (
                b["bsrCode"].as_u64().unwrap(),
                b["start"].as_u64().unwrap(),
                b["end"].as_u64().unwrap(),
            )
        })
        .collect();
    let (first, last) = (bands[3], bands[6]);
    ws.send(&json!({"type": "cmd", "id": "b1", "name": "set_band", "params": {"band": first.0}}));
    ws.send(
        &json!({"type": "cmd", "id": "f1", "name": "set_freq", "params": {"freq": 14_100_000}}),
    );
    ws.send(
        &json!({"type": "cmd", "id": "f2", "name": "set_freq", "params": {"freq": 14_123_000}}),
    );
    ws.send(&json!({"type": "cmd", "id": "b2", "name": "set_band", "params": {"band": last.0}}));
    let got = responses(&mut ws, &["b1", "f1", "f2", "b2"]);
    assert!(got.values().all(|r| r["ok"] == true), "{got:?}");
    assert!(
        wait_for(Duration::from_secs(3), || {
            let f = sim_freq(&srv, 0);
            (last.1..=last.2).contains(&f)
        }),
        "ends in band {last:?}, at {}",
        sim_freq(&srv, 0)
    );
    std::thread::sleep(Duration::from_millis(300));
    let f = sim_freq(&srv, 0);
    assert!(
        (last.1..=last.2).contains(&f),
        "stays in the last band: {f}"
    );
    srv.shutdown();
}

both_ways!(a_full_radio_queue_is_answered_with_the_commands_own_id);
fn a_full_radio_queue_is_answered_with_the_commands_own_id() {
    // review: `radio_busy` from a full command queue came back with `"id": null`
    let srv = server("ic7610");
    let mut ws = Ws::control(srv.addr());
    let n = 1500;
    for i in 0..n {
        ws.send(&json!({"type": "cmd", "id": format!("q{i}"), "name": "vfo_equalize"}));
    }
    let mut busy = 0;
    let mut seen = std::collections::HashSet::new();
    for _ in 0..n {
        let r = ws
            .until(Duration::from_secs(30), |v| v["type"] == "response")
            .expect("a response per command");
        let id = r["id"].as_str().expect("the command's id").to_string();
        assert!(seen.insert(id), "one response per id: {r}");
        if r["error"] == "radio_busy" {
            busy += 1;
        }
    }
    eprintln!("{busy} of {n} answered radio_busy");
    assert!(busy > 0, "the queue filled up");
    srv.shutdown();
}
