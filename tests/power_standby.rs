//! Power-on after power-off over real sockets (issue 15.1): the whole server against its
//! simulator on 127.0.0.1, `POST /api/v1/radio/power`, WebSocket commands while the
//! radio is off. The radio in standby (CI-V silent) is a normal state: power-on works at
//! any time after power-off and answers at once; other commands are refused at once.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::web::*;
use common::*;
use rigweb::app::Tuning;
use serde_json::json;

fn power(addr: SocketAddr, state: &str) -> (u16, serde_json::Value, Duration) {
    let t = Instant::now();
    let r = post_json(addr, "/api/v1/radio/power", &json!({ "state": state }));
    (r.status, r.json(), t.elapsed())
}

fn state(addr: SocketAddr) -> serde_json::Value {
    get(addr, "/api/v1/state").json()
}

/// Switches off, waits `wait`, checks the radio is shown off and commands are refused at
/// once, switches on and checks the radio comes back.
fn off_wait_on(addr: SocketAddr, ws: &mut Ws, wait: Duration, freq: u64) {
    let label = format!("after {wait:?} off");
    let (status, body, _) = power(addr, "off");
    assert_eq!((status, &body), (200, &json!({"state": "off"})), "{label}");
    std::thread::sleep(wait);
    let s = state(addr);
    assert_eq!(s["powerOn"], false, "{label}: {s}");
    assert_eq!(s["radioDetail"]["status"], "powered_off", "{label}: {s}");
    assert_eq!(s["ptt"], false, "{label}");
    assert_eq!(
        s["connection"]["rigConnected"], true,
        "{label}: the link stays up"
    );
    // a command that needs the radio on gets a clear error, not a hang
    let r = ws.cmd("f", "set_freq", json!({ "freq": freq }));
    assert_eq!(r["ok"], false, "{label}: {r}");
    assert_eq!(r["error"], "radio_unavailable", "{label}: {r}");
    assert!(
        r["message"].as_str().unwrap().contains("switched off"),
        "{label}: {r}"
    );
    let (status, body, took) = power(addr, "on");
    assert_eq!(
        (status, &body),
        (200, &json!({"state": "on"})),
        "{label} ({took:?})"
    );
    assert!(
        wait_for(Duration::from_secs(15), || {
            let s = state(addr);
            s["powerOn"] == true && s["connection"]["radioReady"] == true
        }),
        "{label}: {}",
        state(addr)
    );
    let r = ws.cmd("f2", "set_freq", json!({ "freq": freq }));
    assert_eq!(r["ok"], true, "{label}: {r}");
}

#[test]
fn power_on_works_1_3_and_10_seconds_after_power_off() {
    // regression (issue 15.1): with 3 s or more between them, the power-on answered 504
    // radio_timeout after 60 s, WebSocket commands got no answer, the radio stayed off
    let server = start_server(serve_config("ic7610", None), Tuning::default());
    let addr = server.addr();
    let mut ws = Ws::control(addr);
    for wait_s in [1, 3, 10] {
        off_wait_on(addr, &mut ws, Duration::from_secs(wait_s), 7_050_000);
    }
    server.shutdown();
}

#[test]
fn power_on_works_after_a_long_standby_with_shortened_link_timing() {
    // the 60 s case, ten times faster: the CI-V data watchdog (2 s + 0.5 s) and the
    // token renewal (60 s) run at a tenth of their periods, and the radio stays off for
    // 6 s: a dozen silent watchdog periods and several token renewals in standby
    let tuning = Tuning {
        link: Some(|l| {
            l.civ.data_watchdog = Duration::from_millis(200);
            l.civ.quiet_recovery = Duration::from_millis(50);
            l.civ.fast_recovery = Duration::from_millis(200);
            l.control.token_renewal = Duration::from_secs(1);
        }),
        ..Tuning::default()
    };
    let server = start_server(serve_config("ic9700", None), tuning);
    let addr = server.addr();
    let mut ws = Ws::control(addr);
    off_wait_on(addr, &mut ws, Duration::from_secs(6), 145_500_000);
    server.shutdown();
}
