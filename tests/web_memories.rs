//! Memory channels end to end over the control WebSocket against the simulated IC-7610:
//! list (at most 10 per call), store the VFO, recall a channel into the VFO; bad input
//! and a refusing radio get clear errors and change nothing.

#[macro_use]
mod common;

use std::time::Duration;

use common::wait_for;
use common::web::*;
use rigweb::sim::faults::FaultConfig;
use serde_json::json;

both_ways!(memories_are_listed_stored_and_recalled);
fn memories_are_listed_stored_and_recalled() {
    let srv = start_server(serve_config("ic7610", None), Default::default());
    let a = srv.addr();
    let sim = srv.sim.as_ref().unwrap();
    let mut ws = Ws::control(a);
    let r = ok(&ws.cmd("1", "list_memories", json!({"first": 1, "last": 4}))).clone();
    assert_eq!(
        r,
        json!({"channels": [
            {"channel": 1, "empty": false, "freq": 7_074_000, "mode": "USB", "name": "FT8 40M"},
            {"channel": 2, "empty": false, "freq": 14_060_000, "mode": "CW", "name": "QRP CW 20"},
            {"channel": 3, "empty": false, "freq": 10_000_000, "mode": "AM", "name": "WWV 10"},
            {"channel": 4, "empty": true, "freq": null, "mode": null, "name": null},
        ]})
    );
    // store the VFO in channel 4
    ok(&ws.cmd("2", "set_freq", json!({"freq": 18_100_000})));
    ok(&ws.cmd("3", "set_mode", json!({"mode": "USB"})));
    let r = ok(&ws.cmd("4", "store_memory", json!({"channel": 4}))).clone();
    assert_eq!(
        r,
        json!({"channel": 4, "empty": false, "freq": 18_100_000, "mode": "USB", "name": ""})
    );
    assert_eq!(
        sim.snapshot().unwrap().memory.channels[&4].freq_hz,
        18_100_000
    );
    // recall channel 2 into the VFO: the state follows, the radio stays in VFO mode
    let r = ok(&ws.cmd("5", "recall_memory", json!({"channel": 2}))).clone();
    assert_eq!((&r["freq"], &r["mode"]), (&json!(14_060_000), &json!("CW")));
    assert!(wait_for(Duration::from_secs(5), || {
        let s = state(a);
        s["main"]["freqHz"] == 14_060_000 && s["main"]["mode"] == "CW"
    }));
    let rig = sim.snapshot().unwrap();
    assert!(!rig.memory.memory_mode, "VFO mode");
    let v = rig.receivers[0].vfo[usize::from(rig.receivers[0].active_vfo)];
    assert_eq!(v.freq_hz, 14_060_000);

    // bad input: a clear error, nothing sent
    let r = ws.cmd("6", "list_memories", json!({"first": 1, "last": 20}));
    assert_eq!(r["error"], "invalid_param", "{r}");
    assert!(r["message"].as_str().unwrap().contains("at most 10"), "{r}");
    let r = ws.cmd("7", "recall_memory", json!({"channel": 100}));
    assert!(r["message"].as_str().unwrap().contains("1..99"), "{r}");
    let r = ws.cmd("8", "store_memory", json!({}));
    assert_eq!(r["error"], "invalid_param", "{r}");
    let r = ws.cmd("9", "recall_memory", json!({"channel": 50}));
    assert_eq!(r["error"], "invalid_param", "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("memory channel 50 is empty"),
        "{r}"
    );
    assert_eq!(state(a)["main"]["freqHz"], 14_060_000, "nothing recalled");

    // a radio that refuses: radio_rejected naming the channel, the channel unchanged
    std::thread::sleep(Duration::from_millis(200));
    sim.set_faults(FaultConfig {
        nak: 1.0,
        ..FaultConfig::default()
    });
    let r = ws.cmd("10", "store_memory", json!({"channel": 1}));
    assert_eq!(r["error"], "radio_rejected", "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("memory channel 1"),
        "{r}"
    );
    sim.set_faults(FaultConfig::default());
    assert_eq!(
        sim.snapshot().unwrap().memory.channels[&1].freq_hz,
        7_074_000
    );

    let cat = get(a, "/api/v1/commands").json();
    for name in ["list_memories", "recall_memory", "store_memory"] {
        let c = cat["commands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name} in the catalogue"));
        assert_eq!(c["group"], "memory", "{name}");
        assert_eq!(c["rateClass"], "action", "{name}");
    }
    srv.shutdown();
}
