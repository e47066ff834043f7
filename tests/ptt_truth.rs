//! The radio's PTT is the truth (issue 15.2), over real sockets: the whole server against
//! its simulator with NAK injection (`rigweb sim --nak`: the radio acts on a command and
//! answers NAK all the same). A key the radio took is owned, timed out and released when
//! its owner leaves, whatever the radio answered; the state's `ptt` ends equal to the
//! radio's.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::web::*;
use common::*;
use rigweb::app::{Running, Tuning};
use rigweb::sim::faults::FaultConfig;
use serde_json::{Value, json};

fn nak(server: &Running, p: f64) {
    let sim = server.sim.as_ref().expect("built-in simulator");
    sim.set_faults(FaultConfig {
        nak: p,
        ..FaultConfig::default()
    });
}

fn radio_ptt(server: &Running) -> bool {
    server
        .sim
        .as_ref()
        .and_then(|s| s.snapshot())
        .expect("snapshot")
        .ptt
}

fn state_ptt(addr: SocketAddr) -> Value {
    get(addr, "/api/v1/state").json()["ptt"].clone()
}

/// Waits for `cond` while reading from `ws` (so that it answers the server's pings: a
/// PTT owner that does not is taken for gone).
fn wait_reading(ws: &mut Ws, timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + timeout;
    while std::time::Instant::now() < end {
        if cond() {
            return true;
        }
        ws.next(Duration::from_millis(20));
    }
    cond()
}

/// Keys under `--nak 0.5` until a key is answered NAK and read back keyed (the case
/// that used to leave the transmitter keyed with `ptt: false`); returns its response.
fn key_that_was_answered_nak(server: &Running, ws: &mut Ws) -> Value {
    for i in 0..60 {
        nak(server, 0.5);
        let r = ws.cmd(&format!("k{i}"), "ptt", json!({"state": true}));
        nak(server, 0.0);
        if r["ok"] == true && r["result"]["readBack"] == true {
            return r;
        }
        // not the case looked for: unkeyed for sure before the next try
        ws.cmd(&format!("u{i}"), "ptt", json!({"state": false}));
        assert!(wait_reading(ws, Duration::from_secs(15), || !radio_ptt(
            server
        ) && state_ptt(
            server.addr()
        )
            == false));
    }
    panic!("no key was answered NAK and read back keyed in 60 tries at --nak 0.5");
}

#[test]
fn a_key_the_radio_took_but_answered_nak_is_owned_timed_out_and_released() {
    // regression (issue 15.2): the key answered NAK left the transmitter keyed while the
    // server said `ptt: false`: no transmit timeout, no unkey when the owner left
    let mut cfg = serve_config("ic7610", None);
    cfg.tx_timeout = Duration::from_secs(4);
    let server = start_server(cfg, Tuning::default());
    let addr = server.addr();
    let mut owner = Ws::control(addr);
    let mut other = Ws::control(addr);
    owner.subscribe(&["events"]);

    // 1. the transmit timeout
    let r = key_that_was_answered_nak(&server, &mut owner);
    assert!(r["result"]["note"].as_str().unwrap().contains("NAK"), "{r}");
    assert!(radio_ptt(&server), "the radio transmits");
    assert_eq!(state_ptt(addr), true, "and the state says so");
    let busy = other.cmd("b", "ptt", json!({"state": true}));
    assert_eq!(
        busy["error"], "ptt_busy",
        "the keying client owns it: {busy}"
    );
    assert!(
        wait_reading(&mut owner, Duration::from_secs(15), || !radio_ptt(&server)),
        "the transmit timeout (4 s) unkeyed it"
    );
    assert!(wait_reading(
        &mut owner,
        Duration::from_secs(5),
        || state_ptt(addr) == false
    ));
    assert!(
        owner
            .until(Duration::from_secs(5), |v| v["type"] == "event"
                && v["name"] == "tx_timeout")
            .is_some(),
        "the owner was told"
    );

    // 2. the owner leaves
    key_that_was_answered_nak(&server, &mut owner);
    assert!(radio_ptt(&server));
    drop(owner);
    assert!(
        wait_for(Duration::from_secs(3), || !radio_ptt(&server)),
        "unkeyed when the owner left"
    );
    assert!(wait_for(Duration::from_secs(5), || state_ptt(addr) == false));
    let r = other.cmd("k", "ptt", json!({"state": true}));
    assert_eq!(r["ok"], true, "the next client may key: {r}");
    other.cmd("u", "ptt", json!({"state": false}));
    server.shutdown();
}

#[test]
fn under_nak_injection_the_state_ends_equal_to_the_radio() {
    let server = start_server(serve_config("ic7610", None), Tuning::default());
    let addr = server.addr();
    let mut ws = Ws::control(addr);
    nak(&server, 0.5);
    for i in 0..30 {
        let on = i % 2 == 0;
        let r = ws.cmd(&format!("p{i}"), "ptt", json!({ "state": on }));
        // whatever the answer, once the dust settles (read-backs, a release) the state
        // is what the radio says
        let settled = wait_for(Duration::from_secs(20), || {
            state_ptt(addr) == Value::Bool(radio_ptt(&server))
        });
        assert!(
            settled,
            "ptt {on} answered {r}: state {} radio {}",
            state_ptt(addr),
            radio_ptt(&server)
        );
        if r["ok"] == true {
            assert_eq!(radio_ptt(&server), on, "ok means done: {r}");
        }
    }
    nak(&server, 0.0);
    ws.cmd("off", "ptt", json!({"state": false}));
    assert!(wait_for(Duration::from_secs(10), || !radio_ptt(&server)));
    server.shutdown();
}
