//! The controls of issue 19 end to end over the control WebSocket against the simulated
//! radio: XIT and the RIT/XIT clear, antenna selection, DIGI-SEL, IP+, APF, VOX and
//! monitor on/off. Each reaches the radio (the simulator's state), the state resource and
//! the events; bad input gets `invalid_param`, a refusing radio `radio_rejected` with the
//! state left as the radio last said; the catalogue shows each with label and panel only
//! where the profile has it.

#[macro_use]
mod common;

use std::time::Duration;

use common::wait_for;
use common::web::*;
use rigweb::sim::faults::FaultConfig;
use rigweb::sim::rig::RigSnapshot;
use rigweb::sim::server::SimHandle;
use serde_json::{Value, json};

/// `(label, group)` of command `name` in the catalogue of the server at `addr`.
fn shown(addr: std::net::SocketAddr, name: &str) -> Option<(String, String)> {
    let cat = get(addr, "/api/v1/commands").json();
    cat["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .map(|c| {
            (
                c["label"].as_str().unwrap().to_string(),
                c["group"].as_str().unwrap().to_string(),
            )
        })
}

/// Waits until the simulated radio's state satisfies `cond` (a second command of the
/// same name within the rate window is applied when the window ends).
fn settled(sim: &SimHandle, cond: impl Fn(&RigSnapshot) -> bool) -> RigSnapshot {
    assert!(
        wait_for(Duration::from_secs(5), || sim
            .snapshot()
            .is_some_and(|r| cond(&r))),
        "the radio did not get there: {:?}",
        sim.snapshot().map(|r| (r.rit_hz, r.rit_on, r.xit_on))
    );
    sim.snapshot().unwrap()
}

/// Waits for event `name` with `data`.
fn event(ws: &mut Ws, name: &str, data: Value) {
    ws.until(Duration::from_secs(5), |v| {
        v["name"] == name && v["data"] == data
    })
    .unwrap_or_else(|| panic!("no {name} event with {data}"));
}

#[test]
fn xit_shares_the_rit_offset_and_an_offset_of_zero_clears_both() {
    let srv = start_server(serve_config("ic7610", None), Default::default());
    let a = srv.addr();
    let sim = srv.sim.as_ref().unwrap();
    let mut ws = Ws::control(a);
    ws.subscribe(&["events"]);
    assert_eq!(state(a)["xit"], false, "read by the fetch (21 02)");
    let r = ok(&ws.cmd("1", "set_xit", json!({"on": true, "offset_hz": -1230}))).clone();
    assert_eq!(r, json!({"on": true, "offset_hz": -1230}));
    let rig = sim.snapshot().unwrap();
    assert_eq!((rig.xit_on, rig.rit_hz, rig.rit_on), (true, -1230, false));
    event(&mut ws, "xit_changed", json!({"on": true}));
    let s = state(a);
    assert_eq!(
        (&s["xit"], &s["ritOffsetHz"]),
        (&json!(true), &json!(-1230))
    );
    // RIT on the same offset, then the clear
    ok(&ws.cmd("2", "set_rit", json!({"on": true})));
    ok(&ws.cmd("3", "set_rit", json!({"offset_hz": 0})));
    let rig = settled(sim, |r| r.rit_hz == 0);
    assert_eq!((rig.rit_on, rig.xit_on), (true, true));
    event(&mut ws, "rit_offset_changed", json!({"offset_hz": 0}));
    assert_eq!(state(a)["ritOffsetHz"], 0);
    ok(&ws.cmd("4", "set_xit", json!({"on": false})));
    settled(sim, |r| !r.xit_on);
    // bad input
    let r = ws.cmd("5", "set_xit", json!({}));
    assert_eq!(r["error"], "invalid_param", "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("at least one"),
        "{r}"
    );
    let r = ws.cmd("6", "set_xit", json!({"offset_hz": 10000}));
    assert!(
        r["message"].as_str().unwrap().contains("-9999..9999"),
        "{r}"
    );
    let r = ws.cmd("7", "set_xit", json!({"on": "yes"}));
    assert_eq!(r["error"], "invalid_param", "{r}");
    assert_eq!(shown(a, "set_xit"), Some(("XIT".into(), "vfo".into())));
    srv.shutdown();
}

#[test]
fn antenna_digisel_ip_plus_and_apf_reach_each_receiver() {
    let srv = start_server(serve_config("ic7610", None), Default::default());
    let a = srv.addr();
    let sim = srv.sim.as_ref().unwrap();
    let mut ws = Ws::control(a);
    ws.subscribe(&["events"]);
    let s = state(a);
    assert_eq!(
        (&s["main"]["antenna"], &s["main"]["digisel"]),
        (&Value::Null, &json!(false)),
        "the antenna is never polled (spec pitfall 23); DIGI-SEL is"
    );
    let r = ok(&ws.cmd(
        "1",
        "set_antenna",
        json!({"ant": 2, "rx_ant": true, "vfo": "SUB"}),
    ))
    .clone();
    assert_eq!(r, json!({"receiver": 1, "ant": 2, "rx_ant": true}));
    let rig = sim.snapshot().unwrap();
    assert_eq!(
        (rig.receivers[1].antenna, rig.receivers[1].rx_antenna),
        (1, true),
        "12 01 01 to SUB (command 29)"
    );
    assert_eq!(rig.receivers[0].antenna, 0, "MAIN untouched");
    event(&mut ws, "antenna_changed", json!({"receiver": 1, "ant": 2}));
    let s = state(a);
    assert_eq!(
        (&s["sub"]["antenna"], &s["sub"]["rxAntenna"]),
        (&json!(2), &json!(true))
    );
    // rx_ant absent: the radio keeps its RX antenna
    ok(&ws.cmd("2", "set_antenna", json!({"ant": 1, "vfo": "SUB"})));
    let rig = settled(sim, |r| r.receivers[1].antenna == 0);
    assert!(rig.receivers[1].rx_antenna, "kept");
    assert!(wait_for(
        Duration::from_secs(5),
        || state(a)["sub"]["antenna"] == 1
    ));

    ok(&ws.cmd("3", "set_digisel", json!({"on": true, "vfo": "SUB"})));
    ok(&ws.cmd("4", "set_ip_plus", json!({"on": true})));
    ok(&ws.cmd("5", "set_apf", json!({"on": true, "vfo": "MAIN"})));
    let rig = sim.snapshot().unwrap();
    assert_eq!(rig.receivers[1].functions.get(&0x4E), Some(&1), "16 4E SUB");
    assert_eq!(rig.receivers[0].functions.get(&0x4E), Some(&0), "MAIN off");
    assert_eq!(rig.receivers[0].functions.get(&0x65), Some(&1), "16 65");
    assert_eq!(rig.receivers[0].functions.get(&0x32), Some(&1), "16 32");
    event(&mut ws, "apf_changed", json!({"receiver": 0, "on": true}));
    let s = state(a);
    assert_eq!(
        (
            &s["sub"]["digisel"],
            &s["main"]["ipPlus"],
            &s["main"]["apf"]
        ),
        (&json!(true), &json!(true), &json!(true))
    );

    // bad input
    let r = ws.cmd("6", "set_antenna", json!({"ant": 3}));
    assert!(r["message"].as_str().unwrap().contains("1..2"), "{r}");
    let r = ws.cmd("7", "set_antenna", json!({"rx_ant": true}));
    assert_eq!(r["error"], "invalid_param", "ant is required: {r}");
    let r = ws.cmd("8", "set_digisel", json!({"on": 1}));
    assert_eq!(r["error"], "invalid_param", "{r}");

    // a refusing radio: the error, and the state stays what the radio last said (past
    // the rate window of the commands above, so that these are not merged into them)
    std::thread::sleep(Duration::from_millis(200));
    sim.set_faults(FaultConfig {
        nak: 1.0,
        ..FaultConfig::default()
    });
    let r = ws.cmd("9", "set_digisel", json!({"on": false, "vfo": "SUB"}));
    assert_eq!(r["error"], "radio_rejected", "{r}");
    let r = ws.cmd("10", "set_antenna", json!({"ant": 2}));
    assert_eq!(r["error"], "radio_rejected", "{r}");
    sim.set_faults(FaultConfig::default());
    let s = state(a);
    assert_eq!(
        (&s["sub"]["digisel"], &s["main"]["antenna"]),
        (&json!(true), &Value::Null)
    );

    for (name, label, group) in [
        ("set_antenna", "Antenna", "rx"),
        ("set_digisel", "DIGI-SEL", "rx"),
        ("set_ip_plus", "IP+", "rx"),
        ("set_apf", "APF", "cw"),
    ] {
        assert_eq!(shown(a, name), Some((label.into(), group.into())), "{name}");
    }
    let cat = get(a, "/api/v1/commands").json();
    let antenna = cat["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "set_antenna")
        .unwrap()
        .clone();
    assert_eq!(antenna["params"][0]["labels"], json!(["ANT1", "ANT2"]));
    assert_eq!(
        antenna["state"],
        json!({"ant": "antenna", "rx_ant": "rxAntenna"})
    );
    srv.shutdown();
}

#[test]
fn vox_and_monitor_switch_beside_their_levels() {
    let srv = start_server(serve_config("ic705", None), Default::default());
    let a = srv.addr();
    let sim = srv.sim.as_ref().unwrap();
    let mut ws = Ws::control(a);
    ws.subscribe(&["events"]);
    assert_eq!(
        (&state(a)["vox"], &state(a)["monitor"]),
        (&json!(false), &json!(false)),
        "read by the fetch"
    );
    assert_eq!(
        ok(&ws.cmd("1", "set_vox", json!({"on": true}))),
        &json!({"on": true})
    );
    ok(&ws.cmd("2", "set_monitor", json!({"on": true})));
    let rig = sim.snapshot().unwrap();
    assert_eq!(
        (rig.functions.get(&0x46), rig.functions.get(&0x45)),
        (Some(&1), Some(&1)),
        "16 46 and 16 45"
    );
    event(&mut ws, "monitor_changed", json!({"on": true}));
    assert_eq!(
        (&state(a)["vox"], &state(a)["monitor"]),
        (&json!(true), &json!(true))
    );
    let r = ws.cmd("3", "set_vox", json!({}));
    assert_eq!(r["error"], "invalid_param", "{r}");
    let r = ws.cmd("4", "set_monitor", json!({"on": true, "level": 3}));
    assert!(
        r["message"].as_str().unwrap().contains("unknown parameter"),
        "{r}"
    );
    for name in ["set_vox", "set_vox_gain", "set_monitor", "set_monitor_gain"] {
        assert_eq!(shown(a, name).unwrap().1, "tx", "{name} in the TX panel");
    }
    // the IC-705 has XIT and APF but no antenna selection, DIGI-SEL, IP+ or memories
    ok(&ws.cmd("5", "set_xit", json!({"on": true})));
    ok(&ws.cmd("6", "set_apf", json!({"on": true})));
    for name in ["set_antenna", "set_digisel", "set_ip_plus", "list_memories"] {
        let r = ws.cmd("7", name, json!({}));
        assert_eq!(r["error"], "not_supported", "{name}: {r}");
        assert_eq!(shown(a, name), None, "{name} is not in the catalogue");
    }
    srv.shutdown();
}

#[test]
fn the_ic7100_lists_only_what_it_has() {
    let srv = start_server(serve_config("ic7100", None), Default::default());
    let a = srv.addr();
    let mut ws = Ws::control(a);
    for name in [
        "set_xit",
        "set_antenna",
        "set_digisel",
        "set_ip_plus",
        "set_apf",
        "list_memories",
        "recall_memory",
        "store_memory",
    ] {
        let r = ws.cmd("1", name, json!({}));
        assert_eq!(r["error"], "not_supported", "{name}: {r}");
        assert_eq!(shown(a, name), None, "{name}");
    }
    ok(&ws.cmd("2", "set_vox", json!({"on": true})));
    ok(&ws.cmd("3", "set_rit", json!({"offset_hz": 0})));
    srv.shutdown();
}
