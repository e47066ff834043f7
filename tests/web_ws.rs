//! The control WebSocket against the running server: hello, subscribe and snapshots,
//! deltas that rebuild the state, events, every command, validation, rate limiting,
//! PTT ownership and release, several clients, front-panel changes, streams.

#[macro_use]
mod common;

use std::time::{Duration, Instant};

use common::wait_for;
use common::web::*;
use rigweb::app::Tuning;
use rigweb::sim::rig::PanelAction;
use rigweb::util::json_diff;
use serde_json::{Map, Value, json};

fn server(model: &str) -> rigweb::app::Running {
    start_server(serve_config(model, None), Tuning::default())
}

both_ways!(hello_then_subscribe_gives_state_and_full_snapshot);
fn hello_then_subscribe_gives_state_and_full_snapshot() {
    let srv = server("ic7610");
    let mut ws = Ws::control(srv.addr());
    let hello = ws.next(Duration::from_secs(5)).unwrap();
    assert_eq!(hello["type"], "hello");
    assert_eq!(
        (hello["proto"].as_u64(), hello["radio"].as_str()),
        (Some(1), Some("IC-7610"))
    );
    assert!(hello["version"].is_string() && hello["server"] == "rigweb");
    assert!(
        hello["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "tx")
    );
    assert!(
        ws.next(Duration::from_millis(300)).is_none(),
        "nothing before subscribe"
    );
    ws.send(&json!({"type": "subscribe", "id": "s1", "streams": ["events"]}));
    let state = ws.next(Duration::from_secs(5)).unwrap();
    assert_eq!(state["type"], "state");
    for k in [
        "freq_a", "freq_b", "mode", "filter", "ptt", "power", "smeter", "swr", "scope",
    ] {
        assert!(state["data"].get(k).is_some(), "state.data.{k}");
    }
    assert!(state["data"]["filter"].as_str().unwrap().starts_with("FIL"));
    let full = ws.next(Duration::from_secs(5)).unwrap();
    assert_eq!(
        (full["type"].as_str(), full["data"]["type"].as_str()),
        (Some("state_update"), Some("full"))
    );
    assert_eq!(full["data"]["revision"], full["data"]["data"]["revision"]);
    let ack = ws
        .until(Duration::from_secs(5), |v| v["type"] == "response")
        .unwrap();
    assert_eq!(
        (ack["id"].as_str(), ack["ok"].as_bool()),
        (Some("s1"), Some(true))
    );
    // every subscribe gets a fresh snapshot
    let again = ws.subscribe(&["events"]);
    assert_eq!(again["data"]["type"], "full");
    srv.shutdown();
}

both_ways!(deltas_applied_to_the_first_snapshot_reproduce_the_state_resource);
fn deltas_applied_to_the_first_snapshot_reproduce_the_state_resource() {
    let srv = server("ic7610");
    let a = srv.addr();
    let mut ws = Ws::control(a);
    let full = ws.subscribe(&["events"]);
    let mut doc: Map<String, Value> = full["data"]["data"].as_object().unwrap().clone();
    let mut rev = full["data"]["revision"].as_u64().unwrap();
    let mut other = Ws::control(a);
    for (i, (name, params)) in [
        ("set_freq", json!({"freq": 14_070_000})),
        ("set_mode", json!({"mode": "CW"})),
        ("set_freq", json!({"vfo": "SUB", "freq": 7_030_000})),
        ("set_att", json!({"db": 6})),
        ("set_power", json!({"level": 99})),
        ("vfo_swap", json!({})),
    ]
    .into_iter()
    .enumerate()
    {
        let r = other.cmd(&format!("c{i}"), name, params);
        assert_eq!(r["ok"], true, "{r}");
    }
    srv.sim.as_ref().unwrap().panel(PanelAction::SetFreq {
        receiver: 0,
        hz: 7_012_000,
    });
    other.ws.close(None).unwrap();
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(2) {
        let Some(m) = ws.next(Duration::from_millis(300)) else {
            break;
        };
        if m["type"] == "state_update" && m["data"]["type"] == "delta" {
            let d = &m["data"];
            let r = d["revision"].as_u64().unwrap();
            assert!(r > rev, "revisions increase");
            rev = r;
            let removed: Vec<String> = d["removed"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().into())
                .collect();
            json_diff::apply(&mut doc, d["changed"].as_object().unwrap(), &removed);
        }
    }
    let now = get(a, "/api/v1/state").json();
    assert_eq!(Value::Object(doc), now, "deltas rebuild GET /api/v1/state");
    srv.shutdown();
}

both_ways!(deltas_carry_only_changed_leaves);
fn deltas_carry_only_changed_leaves() {
    let srv = server("ic7610");
    let mut ws = Ws::control(srv.addr());
    ws.subscribe(&[]);
    srv.app
        .radio
        .execute(rigweb::radio::command::Command::write(
            rigweb::radio::table::settings::SettingId::Power,
            rigweb::wire::civ::Receiver::Main,
            i64::from(42),
        ))
        .unwrap();
    let d = ws
        .until(Duration::from_secs(3), |v| {
            v["type"] == "state_update" && v["data"]["changed"].get("power").is_some()
        })
        .unwrap();
    let changed = d["data"]["changed"].as_object().unwrap();
    assert!(
        changed.contains_key("power") && changed.contains_key("revision"),
        "{changed:?}"
    );
    assert!(
        changed
            .keys()
            .all(|k| ["power", "revision", "updatedAt"].contains(&k.as_str())),
        "{changed:?}"
    );
    srv.shutdown();
}

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

both_ways!(ptt_belongs_to_its_owner_and_is_released_when_it_vanishes);
fn ptt_belongs_to_its_owner_and_is_released_when_it_vanishes() {
    let srv = server("ic7610");
    let a = srv.addr();
    let mut owner = Ws::control(a);
    let mut other = Ws::control(a);
    assert_eq!(owner.cmd("k", "ptt", json!({"state": true}))["ok"], true);
    let r = other.cmd("k2", "ptt", json!({"state": true}));
    assert_eq!(
        (r["ok"].as_bool(), r["error"].as_str()),
        (Some(false), Some("ptt_busy"))
    );
    // the owner vanishes without unkeying
    drop(owner);
    let t = Instant::now();
    assert!(
        wait_for(Duration::from_secs(1), || !sim_ptt(&srv)),
        "released within 1 s"
    );
    eprintln!("PTT released {:?} after the owner vanished", t.elapsed());
    assert!(wait_for(Duration::from_secs(1), || get(a, "/api/v1/state")
        .json()["ptt"]
        == false));
    // now the other client may key, and anyone may unkey
    assert_eq!(other.cmd("k3", "ptt", json!({"state": true}))["ok"], true);
    let mut third = Ws::control(a);
    assert_eq!(third.cmd("u", "ptt", json!({"state": false}))["ok"], true);
    srv.shutdown();
}

both_ways!(transmit_timeout_releases_ptt_and_raises_an_event);
fn transmit_timeout_releases_ptt_and_raises_an_event() {
    let mut cfg = serve_config("ic7610", None);
    cfg.tx_timeout = Duration::from_secs(1);
    let srv = start_server(cfg, Tuning::default());
    let mut ws = Ws::control(srv.addr());
    ws.subscribe(&["events"]);
    assert_eq!(ws.cmd("k", "ptt", json!({"state": true}))["ok"], true);
    let e = ws
        .until(Duration::from_secs(3), |v| {
            v["type"] == "event" && v["name"] == "tx_timeout"
        })
        .unwrap();
    assert_eq!(e["data"]["released"], true);
    assert!(!sim_ptt(&srv));
    srv.shutdown();
}

both_ways!(two_clients_see_each_others_changes_and_front_panel_changes);
fn two_clients_see_each_others_changes_and_front_panel_changes() {
    let srv = server("ic7610");
    let a = srv.addr();
    let mut x = Ws::control(a);
    let mut y = Ws::control(a);
    x.subscribe(&["events"]);
    y.subscribe(&["events"]);
    assert_eq!(
        x.cmd("x1", "set_freq", json!({"freq": 21_074_000}))["ok"],
        true
    );
    let e = y
        .until(Duration::from_secs(2), |v| {
            v["type"] == "event" && v["name"] == "freq_changed"
        })
        .unwrap();
    assert_eq!(e["data"]["freq"], 21_074_000);
    let t = Instant::now();
    srv.sim.as_ref().unwrap().panel(PanelAction::SetFreq {
        receiver: 0,
        hz: 21_080_000,
    });
    for c in [&mut x, &mut y] {
        let e = c
            .until(Duration::from_millis(100), |v| {
                v["type"] == "event"
                    && v["name"] == "freq_changed"
                    && v["data"]["freq"] == 21_080_000
            })
            .expect("front-panel change within 100 ms");
        assert_eq!(e["data"]["vfo"], "MAIN");
    }
    eprintln!("front panel -> both clients: {:?}", t.elapsed());
    srv.sim.as_ref().unwrap().panel(PanelAction::SetMode {
        receiver: 0,
        mode: 0x03,
        filter: 2,
    });
    let d = x
        .until(Duration::from_millis(100), |v| {
            v["type"] == "state_update" && v["data"]["changed"]["main"]["mode"] == "CW"
        })
        .expect("mode delta within 100 ms");
    assert_eq!(d["data"]["type"], "delta");
    srv.shutdown();
}

both_ways!(smeter_events_and_scope_frames_on_the_control_socket);
fn smeter_events_and_scope_frames_on_the_control_socket() {
    let srv = server("ic7610");
    let mut ws = Ws::control(srv.addr());
    ws.send(&json!({"type": "subscribe", "streams": ["events", "scope"], "scope_fps": 10, "scope_receiver": 0}));
    let e = ws
        .until(Duration::from_secs(5), |v| {
            v["type"] == "event" && v["name"] == "smeter"
        })
        .expect("smeter event");
    assert!(e["data"]["value"].is_u64());
    let t = Instant::now();
    while ws.binaries.len() < 5 && t.elapsed() < Duration::from_secs(5) {
        ws.next(Duration::from_millis(200));
    }
    assert!(ws.binaries.len() >= 5, "scope frames arrive");
    let f = rigweb::wire::web::ScopeFrame::parse(&ws.binaries[0]).expect("a valid scope frame");
    assert_eq!((f.receiver, f.pixels.len()), (0, 689));
    let e = ws.until(Duration::from_secs(2), |v| {
        v["type"] == "event" && v["name"] == "scope_meta"
    });
    let _ = e; // scope_meta is sent when the edges change, which the first sweeps did before
    let n0 = ws.binaries.len();
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(1) {
        ws.next(Duration::from_millis(100));
    }
    let per_s = ws.binaries.len() - n0;
    assert!(
        (5..=13).contains(&per_s),
        "scope_fps 10 honoured: {per_s}/s"
    );
    ws.send(&json!({"type": "unsubscribe", "id": "u", "streams": ["scope"]}));
    ws.until(Duration::from_secs(2), |v| {
        v["type"] == "response" && v["id"] == "u"
    })
    .unwrap();
    srv.shutdown();
}

both_ways!(subscriptions_do_not_survive_a_reconnect);
fn subscriptions_do_not_survive_a_reconnect() {
    let srv = server("ic7610");
    let mut ws = Ws::control(srv.addr());
    ws.subscribe(&["events"]);
    drop(ws);
    let mut ws = Ws::control(srv.addr());
    ws.next(Duration::from_secs(2)); // hello
    srv.app
        .radio
        .execute(rigweb::radio::command::Command::write(
            rigweb::radio::table::settings::SettingId::Power,
            rigweb::wire::civ::Receiver::Main,
            i64::from(7),
        ))
        .unwrap();
    assert!(
        ws.next(Duration::from_millis(500)).is_none(),
        "no updates before subscribe"
    );
    srv.shutdown();
}

both_ways!(a_half_open_ptt_owner_is_noticed_within_seconds);
fn a_half_open_ptt_owner_is_noticed_within_seconds() {
    use std::io::{Read, Write};
    let srv = server("ic7610");
    let a = srv.addr();
    let mut s = connect(a);
    s.write_all(
        b"GET /api/v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .unwrap();
    let mut buf = [0u8; 4096];
    let n = s.read(&mut buf).unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 101"));
    // a masked text frame with PTT on, then silence: no pongs, no close (like a dropped link)
    let payload = br#"{"type":"cmd","id":"k","name":"ptt","params":{"state":true}}"#;
    let mut f = vec![0x81, 0x80 | payload.len() as u8, 0, 0, 0, 0];
    f.extend_from_slice(payload);
    s.write_all(&f).unwrap();
    let sim = srv.sim.as_ref().unwrap();
    assert!(
        wait_for(Duration::from_secs(2), || sim.snapshot().unwrap().ptt),
        "keyed"
    );
    let t = Instant::now();
    assert!(
        wait_for(Duration::from_secs(8), || !sim.snapshot().unwrap().ptt),
        "released"
    );
    eprintln!("a silent PTT owner was released after {:?}", t.elapsed());
    assert!(t.elapsed() < Duration::from_secs(6));
    drop(s);
    srv.shutdown();
}

/// Whether the simulated radio transmits.
fn sim_ptt(srv: &rigweb::app::Running) -> bool {
    srv.sim.as_ref().unwrap().snapshot().unwrap().ptt
}

/// The simulated radio's frequency of receiver `r` (its active VFO).
fn sim_freq(srv: &rigweb::app::Running, r: usize) -> u64 {
    let snap = srv.sim.as_ref().unwrap().snapshot().unwrap();
    let rx = &snap.receivers[r];
    rx.vfo[usize::from(rx.active_vfo)].freq_hz
}

/// Reads responses until every id in `ids` has one; returns them by id.
fn responses(ws: &mut Ws, ids: &[&str]) -> Map<String, Value> {
    let mut got = Map::new();
    while got.len() < ids.len() {
        let r = ws
            .until(Duration::from_secs(10), |v| v["type"] == "response")
            .expect("a response per command");
        got.insert(r["id"].as_str().unwrap().to_string(), r);
    }
    got
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

both_ways!(only_one_of_two_clients_keying_together_gets_ptt_and_its_leaving_unkeys);
fn only_one_of_two_clients_keying_together_gets_ptt_and_its_leaving_unkeys() {
    // review: two `ptt true` back to back both got ok, and when the first owner left
    // PTT stayed on; an owner that left before its queued key ran left the radio keyed
    let srv = server("ic7610");
    let a = srv.addr();
    let mut one = Ws::control(a);
    let mut two = Ws::control(a);
    for i in 0..6 {
        one.send(&json!({"type": "cmd", "id": format!("s{i}"), "name": "vfo_swap"}));
    }
    one.send(&json!({"type": "cmd", "id": "k1", "name": "ptt", "params": {"state": true}}));
    std::thread::sleep(Duration::from_millis(2));
    two.send(&json!({"type": "cmd", "id": "k2", "name": "ptt", "params": {"state": true}}));
    let r2 = two
        .until(Duration::from_secs(10), |v| v["id"] == "k2")
        .unwrap();
    let r1 = one
        .until(Duration::from_secs(10), |v| v["id"] == "k1")
        .unwrap();
    // whichever claim the server saw first wins; the other is refused
    let oks = [&r1, &r2].iter().filter(|r| r["ok"] == true).count();
    assert_eq!(oks, 1, "exactly one keys: {r1} / {r2}");
    let (owner, mut two) = if r1["ok"] == true {
        assert_eq!(r2["error"], "ptt_busy", "{r2}");
        (one, two)
    } else {
        assert_eq!(r1["error"], "ptt_busy", "{r1}");
        (two, one)
    };
    assert!(sim_ptt(&srv));
    drop(owner);
    assert!(
        wait_for(Duration::from_secs(2), || !sim_ptt(&srv)),
        "the owner's leaving unkeys"
    );
    // an owner that leaves while its key is still queued
    let mut three = Ws::control(a);
    for i in 0..6 {
        three.send(&json!({"type": "cmd", "id": format!("t{i}"), "name": "vfo_swap"}));
    }
    three.send(&json!({"type": "cmd", "id": "k3", "name": "ptt", "params": {"state": true}}));
    std::thread::sleep(Duration::from_millis(5));
    drop(three);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!sim_ptt(&srv), "not left keyed");
    assert_eq!(two.cmd("k4", "ptt", json!({"state": true}))["ok"], true);
    assert_eq!(two.cmd("u4", "ptt", json!({"state": false}))["ok"], true);
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

both_ways!(a_sub_scope_subscriber_gets_sub_sweeps);
fn a_sub_scope_subscriber_gets_sub_sweeps() {
    // review: `scope_receiver: 1` was accepted but no frame ever came (the radio only
    // sweeps SUB while its scope shows both receivers)
    let srv = server("ic7610");
    let mut ws = Ws::control(srv.addr());
    ws.send(&json!({"type": "subscribe", "id": "s", "streams": ["scope"], "scope_fps": 30, "scope_receiver": 1}));
    let r = ws
        .until(Duration::from_secs(5), |v| v["id"] == "s")
        .unwrap();
    assert_eq!(r["ok"], true, "{r}");
    let t = Instant::now();
    while ws.binaries.len() < 3 && t.elapsed() < Duration::from_secs(5) {
        ws.next(Duration::from_millis(100));
    }
    assert!(ws.binaries.len() >= 3, "SUB sweeps arrive");
    for b in &ws.binaries {
        let f = rigweb::wire::web::ScopeFrame::parse(b).expect("a valid scope frame");
        assert_eq!(f.receiver, 1);
    }
    assert_eq!(
        get(srv.addr(), "/api/v1/state").json()["scope"]["dual"],
        true
    );
    srv.shutdown();
}

#[test]
fn a_vanished_owner_is_unkeyed_even_when_the_radio_refuses_often() {
    // the issue's reproduction: `rigweb sim --nak 0.4`, `--tx-timeout 10`, key, close
    // the socket. The unkey used to be tried once; NAKed, the transmitter stayed keyed
    // for good (21 minutes). Now it is tried again until the radio confirms.
    let mut cfg = serve_config("ic7610", None);
    cfg.tx_timeout = Duration::from_secs(10);
    let tuning = Tuning {
        sim: Some(|s| s.faults.nak = 0.4),
        ..Tuning::default()
    };
    let srv = start_server(cfg, tuning);
    let a = srv.addr();
    for round in 0..3 {
        let mut owner = Ws::control(a);
        let keyed = (0..20)
            .any(|i| owner.cmd(&format!("k{i}"), "ptt", json!({"state": true}))["ok"] == true);
        assert!(keyed, "keyed in the end (round {round})");
        assert!(wait_for(Duration::from_secs(2), || sim_ptt(&srv)));
        drop(owner);
        assert!(
            wait_for(Duration::from_secs(8), || !sim_ptt(&srv)),
            "unkeyed by the release, before the transmit timeout (round {round})"
        );
        // the radio may refuse several attempts in a row (each is also applied, as
        // this simulator's NAKs are): PTT shows off once one is confirmed
        assert!(
            wait_for(
                Duration::from_secs(25),
                || get(a, "/api/v1/state").json()["ptt"] == false
            ),
            "{}",
            get(a, "/api/v1/state").json()
        );
    }
    srv.shutdown();
}
