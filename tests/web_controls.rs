//! The operating controls end to end: a command on `/api/v1/ws` reaches the simulated
//! radio, shows in `GET /api/v1/state` and raises its event; a knob turned on the radio's
//! front panel reaches the state by transceive; the controls a model lacks answer
//! `not_supported`; CW is sent only in CW.

#[macro_use]
mod common;

use std::time::Duration;

use common::wait_for;
use common::web::*;
use rigweb::sim::rig::{Knob, PanelAction, Switch};
use serde_json::json;

#[test]
fn the_manual_notch_reaches_the_radio_the_state_and_the_events() {
    let srv = start_server(serve_config("ic7610", None), Default::default());
    let a = srv.addr();
    let sim = srv.sim.as_ref().unwrap();
    let mut ws = Ws::control(a);
    ws.subscribe(&["events"]);
    let r = ok(&ws.cmd(
        "1",
        "set_manual_notch",
        json!({"on": true, "position": 200, "vfo": "SUB"}),
    ))
    .clone();
    assert_eq!(r, json!({"receiver": 1, "on": true, "position": 200}));
    let sub = &sim.snapshot().unwrap().receivers[1];
    assert_eq!(
        (sub.functions.get(&0x48), sub.levels.get(&0x0D)),
        (Some(&1), Some(&200)),
        "16 48 and 14 0D of SUB (command 29)"
    );
    let ev = ws
        .until(Duration::from_secs(2), |v| {
            v["name"] == "manual_notch_changed"
        })
        .unwrap();
    assert_eq!(ev["data"], json!({"receiver": 1, "on": true}));
    let s = state(a);
    assert_eq!(
        (&s["sub"]["manualNotch"], &s["sub"]["notchPosition"]),
        (&json!(true), &json!(200))
    );
    assert_eq!(s["main"]["manualNotch"], false, "read by the fetch: off");
    let r = ws.cmd("2", "set_manual_notch", json!({"position": 10}));
    assert_eq!(r["error"], "invalid_param", "on is required: {r}");
    let r = ws.cmd(
        "3",
        "set_manual_notch",
        json!({"on": true, "position": 256}),
    );
    assert!(r["message"].as_str().unwrap().contains("0..255"), "{r}");
    srv.shutdown();
}

both_ways!(each_control_reaches_the_radio_the_state_and_the_events);
fn each_control_reaches_the_radio_the_state_and_the_events() {
    let srv = start_server(serve_config("ic7610", None), Default::default());
    let a = srv.addr();
    let sim = srv.sim.as_ref().unwrap();
    let mut ws = Ws::control(a);
    ws.subscribe(&["events"]);
    ok(&ws.cmd("1", "set_af_gain", json!({"level": 77, "vfo": "SUB"})));
    assert_eq!(
        sim.snapshot().unwrap().receivers[1].levels.get(&0x01),
        Some(&77)
    );
    let ev = ws
        .until(Duration::from_secs(2), |v| v["name"] == "af_gain_changed")
        .unwrap();
    assert_eq!(ev["data"], json!({"receiver": 1, "level": 77}));
    ok(&ws.cmd("2", "set_agc", json!({"mode": "fast"})));
    ok(&ws.cmd("3", "set_nb", json!({"on": true, "level": 90})));
    ok(&ws.cmd("4", "set_nr", json!({"on": true})));
    ok(&ws.cmd("5", "set_auto_notch", json!({"on": true})));
    ok(&ws.cmd("6", "set_rf_gain", json!({"level": 200})));
    ok(&ws.cmd("7", "set_squelch", json!({"level": 10})));
    ok(&ws.cmd("8", "set_filter_width", json!({"hz": 2100})));
    ok(&ws.cmd("9", "set_split", json!({"on": true})));
    ok(&ws.cmd("10", "set_dual_watch", json!({"on": true})));
    ok(&ws.cmd("11", "set_rit", json!({"on": true, "offset_hz": -250})));
    ok(&ws.cmd("12", "set_cw_speed", json!({"wpm": 25})));
    ok(&ws.cmd("13", "set_comp", json!({"on": true, "level": 40})));
    ok(&ws.cmd("14", "set_mic_gain", json!({"level": 60})));
    let given = json!({"span_hz": 5000, "ref_db": -2.5, "speed": "SLOW", "hold": false});
    let r = ws.cmd("15", "set_scope", given);
    assert_eq!(
        ok(&r),
        &json!({"span_hz": 5000, "ref_db": -2.5, "speed": "slow", "hold": false}),
        "the parameters as given, the choice by its name"
    );
    ok(&ws.cmd("15b", "set_scope", json!({"edge": 3})));
    let r = ws.cmd("15c", "set_scope", json!({"edge": 5}));
    assert_eq!(
        r["error"], "invalid_param",
        "the profile has 4 edge sets: {r}"
    );
    // a whole number is answered as one, not as 3.0 (past the rate window, so that the
    // command runs instead of being merged)
    std::thread::sleep(Duration::from_millis(150));
    let r = ws.cmd("15d", "set_scope", json!({"ref_db": 3}));
    assert_eq!(ok(&r).to_string(), r#"{"ref_db":3}"#);
    ok(&ws.cmd("16", "set_data_mode", json!({"data": 1})));
    ok(&ws.cmd("16b", "set_monitor_gain", json!({"level": 99})));
    ok(&ws.cmd("16c", "set_vox_gain", json!({"level": 42})));
    let s = state(a);
    let m = &s["main"];
    assert_eq!(
        (
            &m["agc"],
            &m["nb"],
            &m["nbLevel"],
            &m["nr"],
            &m["autoNotch"],
            &m["rfGain"],
            &m["squelch"],
            &m["filterWidth"],
            &m["dataMode"]
        ),
        (
            &json!("fast"),
            &json!(true),
            &json!(90),
            &json!(true),
            &json!(true),
            &json!(200),
            &json!(10),
            &json!(2100),
            &json!(1)
        ),
        "{s}"
    );
    assert_eq!(s["sub"]["afGain"], 77);
    assert_eq!(
        (
            &s["split"],
            &s["dualWatch"],
            &s["rit"],
            &s["ritOffsetHz"],
            &s["cwSpeed"],
            &s["comp"],
            &s["compLevel"],
            &s["micGain"]
        ),
        (
            &json!(true),
            &json!(true),
            &json!(true),
            &json!(-250),
            &json!(25),
            &json!(true),
            &json!(40),
            &json!(60)
        ),
        "{s}"
    );
    assert_eq!(
        (
            &s["scope"]["spanHz"],
            &s["scope"]["refDb"],
            &s["scope"]["speed"],
            &s["scope"]["hold"],
            &s["scope"]["edge"]
        ),
        (
            &json!(5000),
            &json!(3.0),
            &json!("slow"),
            &json!(false),
            &json!(3)
        )
    );
    let snap = sim.snapshot().unwrap();
    assert_eq!(
        (snap.split, snap.dual_watch, snap.rit_on, snap.rit_hz),
        (true, true, true, -250)
    );
    assert_eq!(snap.scope.rx[0].half_span_hz, 5000);
    assert_eq!(snap.levels.get(&0x15), Some(&99), "monitor gain");
    assert_eq!(s["monitorGain"], 99);
    assert_eq!(s["voxGain"], 42);
    assert_eq!(
        snap.levels.get(&0x16),
        Some(&42),
        "VOX gain reached the radio"
    );
    assert_eq!(snap.scope.rx[0].ref_tenths_db, 30);
    assert_eq!(snap.scope.rx[0].edge, 3);
    // a width the mode does not have, and a mode without widths
    let r = ws.cmd("e1", "set_filter_width", json!({"hz": 2150}));
    assert_eq!(r["error"], "invalid_param", "{r}");
    assert!(r["message"].as_str().unwrap().contains("50..3600"), "{r}");
    // the tuner: tune runs, then reports on
    ok(&ws.cmd("17", "set_tuner", json!({"state": "tune"})));
    assert!(
        wait_for(Duration::from_secs(5), || state(a)["tuner"] == "on"),
        "{}",
        state(a)["tuner"]
    );
    srv.shutdown();
}

both_ways!(front_panel_changes_reach_the_state_by_transceive);
fn front_panel_changes_reach_the_state_by_transceive() {
    let srv = start_server(serve_config("ic7610", None), Default::default());
    let a = srv.addr();
    let sim = srv.sim.as_ref().unwrap();
    let mut ws = Ws::control(a);
    ws.subscribe(&["events"]);
    sim.panel(PanelAction::Level {
        receiver: 0,
        knob: Knob::Af,
        value: 33,
    });
    let ev = ws
        .until(Duration::from_secs(2), |v| v["name"] == "af_gain_changed")
        .unwrap();
    assert_eq!(ev["data"], json!({"receiver": 0, "level": 33}));
    sim.panel(PanelAction::Function {
        receiver: 0,
        switch: Switch::Nr,
        value: 1,
    });
    assert!(
        ws.until(Duration::from_secs(2), |v| v["name"] == "nr_changed")
            .is_some()
    );
    sim.panel(PanelAction::RitOffset(120));
    assert!(wait_for(Duration::from_secs(2), || state(a)["ritOffsetHz"] == 120));
    assert_eq!(state(a)["main"]["afGain"], 33);
    srv.shutdown();
}

both_ways!(cw_is_sent_in_cw_only_and_controls_a_model_lacks_are_refused);
fn cw_is_sent_in_cw_only_and_controls_a_model_lacks_are_refused() {
    let srv = start_server(serve_config("ic705", None), Default::default());
    let a = srv.addr();
    let sim = srv.sim.as_ref().unwrap();
    let mut ws = Ws::control(a);
    let r = ws.cmd("1", "send_cw", json!({"text": "CQ TEST"}));
    assert_eq!(r["error"], "invalid_param", "not in CW: {r}");
    ok(&ws.cmd("2", "set_freq", json!({"freq": 7_030_000})));
    ok(&ws.cmd("3", "set_mode", json!({"mode": "CW"})));
    ok(&ws.cmd("4", "send_cw", json!({"text": "cq test"})));
    assert!(
        wait_for(Duration::from_secs(2), || sim
            .snapshot()
            .unwrap()
            .cw
            .is_some()),
        "the radio keys the CW"
    );
    ok(&ws.cmd("5", "stop_cw", json!({})));
    assert!(wait_for(Duration::from_secs(2), || sim
        .snapshot()
        .unwrap()
        .cw
        .is_none()));
    // CW keys the transmitter: not while another client transmits
    let mut other = Ws::control(a);
    ok(&other.cmd("k", "ptt", json!({"state": true})));
    let r = ws.cmd("6", "send_cw", json!({"text": "cq"}));
    assert_eq!(r["error"], "ptt_busy", "{r}");
    assert!(sim.snapshot().unwrap().cw.is_none());
    ok(&other.cmd("u", "ptt", json!({"state": false})));
    ok(&ws.cmd("7", "send_cw", json!({"text": "cq"})));
    for (name, params) in [
        ("set_dual_watch", json!({"on": true})),
        ("set_tuner", json!({"state": "on"})),
    ] {
        let r = ws.cmd("x", name, params);
        assert_eq!(r["error"], "not_supported", "{name}: {r}");
    }
    srv.shutdown();
}
