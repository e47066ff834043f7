//! The stream channels over loopback: /api/v1/scope and /api/v1/meters against the
//! built-in simulator (layouts byte-exact, rates within ±20 %, wrapping sequences, bad
//! input, meters following PTT, a stalled client that neither slows the others nor
//! makes the server grow, and the radio's scope output following the viewers).

#[macro_use]
mod common;

use std::time::Duration;

use common::web::*;
use rigweb::app::Tuning;
use rigweb::web::context::WebConfig;
use rigweb::wire::web::{MeterFrame, ScopeFrame};
use serde_json::{Value, json};

const T: Duration = Duration::from_secs(10);

fn server(model: &str) -> rigweb::app::Running {
    start_server(serve_config(model, None), Tuning::default())
}

fn seqs(frames: &[Vec<u8>], at: usize) -> Vec<u16> {
    frames
        .iter()
        .map(|f| u16::from_le_bytes([f[at], f[at + 1]]))
        .collect()
}

fn fps(frames: usize, dur: Duration) -> f64 {
    frames as f64 / dur.as_secs_f64()
}

fn assert_rate(got: f64, want: f64, what: &str) {
    assert!(
        (want * 0.8..=want * 1.2).contains(&got),
        "{what}: {got:.1} fps, expected {want} ± 20 %"
    );
}

/// Sweeps per second the simulator sent during `f` (a loaded machine may sweep slower
/// than 30/s; a client can never get more than the radio sweeps).
fn source_rate<T>(srv: &rigweb::app::Running, f: impl FnOnce() -> T) -> (T, f64) {
    let sim = srv.sim.as_ref().unwrap();
    let (n0, t0) = (sim.stats().scope_sweeps, std::time::Instant::now());
    let out = f();
    let n = sim.stats().scope_sweeps - n0;
    (out, n as f64 / t0.elapsed().as_secs_f64())
}

fn check_scope_frame(f: &[u8], receiver: u8) -> ScopeFrame {
    let s = ScopeFrame::parse(f).expect("a scope frame");
    assert_eq!(s.emit(), f, "byte-exact");
    assert_eq!(f[0], 0x01);
    assert_eq!(f[1], receiver);
    assert_eq!(
        u32::from_le_bytes(f[3..7].try_into().unwrap()),
        s.start_freq
    );
    assert_eq!(u32::from_le_bytes(f[7..11].try_into().unwrap()), s.end_freq);
    let n = usize::from(u16::from_le_bytes([f[14], f[15]]));
    assert_eq!(f.len(), 16 + n);
    assert!(s.pixels.iter().all(|p| *p <= 160), "pixels on 0..160");
    assert!(s.start_freq < s.end_freq);
    s
}

both_ways!(scope_frames_are_byte_exact_and_arrive_at_the_asked_rate);
fn scope_frames_are_byte_exact_and_arrive_at_the_asked_rate() {
    let srv = server("ic7610");
    let a = srv.addr();
    let mut full = Ws::connect(a, "/api/v1/scope", &[]).unwrap();
    let mut half = Ws::connect(a, "/api/v1/scope?fps=15&receiver=0", &[]).unwrap();
    // settle: the radio's scope output is switched on by the first viewer
    full.binaries_for(Duration::from_millis(800));
    half.binaries_for(Duration::from_millis(10));
    let dur = Duration::from_secs(3);
    let ((f30, f15), swept) = source_rate(&srv, || {
        std::thread::scope(|sc| {
            let h = sc.spawn(|| half.binaries_for(dur));
            (full.binaries_for(dur), h.join().unwrap())
        })
    });
    for f in f30.iter().chain(&f15) {
        let s = check_scope_frame(f, 0);
        assert_eq!(s.pixels.len(), 689, "the IC-7610's sweep");
    }
    assert_rate(fps(f30.len(), dur), swept.min(30.0), "default");
    assert_rate(fps(f15.len(), dur), swept.min(15.0), "?fps=15");
    let s = seqs(&f30, 11);
    assert!(s.windows(2).all(|w| w[1] == w[0].wrapping_add(1)), "{s:?}");
    // a subscribe message changes the rate
    full.send(&json!({"type": "subscribe", "id": "r", "scope_fps": 20}));
    let r = full
        .until(T, |v| v["type"] == "response")
        .expect("response");
    assert_eq!(
        r,
        json!({"type":"response","id":"r","ok":true,"result":{"scope_fps":20,"scope_receiver":0}})
    );
    full.binaries_for(Duration::from_millis(300));
    let (f20, swept) = source_rate(&srv, || full.binaries_for(dur));
    assert_rate(fps(f20.len(), dur), swept.min(20.0), "scope_fps 20");
    // SUB frames for receiver 1 (the dual scope is switched on)
    let mut sub = Ws::connect(a, "/api/v1/scope?receiver=1", &[]).unwrap();
    sub.binaries_for(Duration::from_millis(800));
    let fsub = sub.binaries_for(Duration::from_secs(1));
    assert!(fsub.len() > 15, "{}", fsub.len());
    for f in &fsub {
        check_scope_frame(f, 1);
    }
    // the counts of the state resource
    let state = get(a, "/api/v1/state").json();
    assert_eq!(state["wsClients"]["scope"], 3, "{}", state["wsClients"]);
    srv.shutdown();
}

both_ways!(scope_channel_bad_input);
fn scope_channel_bad_input() {
    let srv = server("ic7610");
    let a = srv.addr();
    for q in ["fps=60", "fps=14", "fps=x", "receiver=2", "receiver=-1"] {
        let e = Ws::connect(a, &format!("/api/v1/scope?{q}"), &[])
            .err()
            .expect(q);
        assert_eq!(e.status, 400, "{q}");
        let v: Value = serde_json::from_str(&e.body).unwrap();
        assert_eq!(v["error"], "invalid_param", "{q}: {v}");
    }
    let mut w = Ws::connect(a, "/api/v1/scope", &[]).unwrap();
    w.send(&json!({"type": "subscribe", "id": 7, "scope_fps": 100}));
    let r = w.until(T, |v| v["type"] == "response").unwrap();
    assert_eq!((r["ok"].clone(), r["id"].clone()), (json!(false), json!(7)));
    assert_eq!(r["error"], "invalid_param");
    w.send(&json!({"type": "subscribe", "scope_receiver": "1"}));
    let r = w.until(T, |v| v["type"] == "error").unwrap();
    assert_eq!(r["error"], "invalid_param");
    w.ws.send(tungstenite::Message::Text("{not json".into()))
        .unwrap();
    assert_eq!(
        w.until(T, |v| v["type"] == "error").unwrap()["error"],
        "invalid_json"
    );
    w.send(&json!({"type": "dance"}));
    let r = w.until(T, |v| v["type"] == "error").unwrap();
    assert!(r["message"].as_str().unwrap().contains("subscribe"), "{r}");
    w.send_binary(vec![1, 2, 3]);
    assert_eq!(
        w.until(T, |v| v["type"] == "error").unwrap()["error"],
        "invalid_json"
    );
    // still serving frames
    assert!(!w.binaries_for(Duration::from_millis(800)).is_empty());
    srv.shutdown();
}

both_ways!(sequences_wrap);
fn sequences_wrap() {
    let tuning = Tuning {
        web: Some(WebConfig {
            first_sequence: 65_530,
            ..WebConfig::default()
        }),
        ..Tuning::default()
    };
    let srv = start_server(serve_config("ic7610", None), tuning);
    let a = srv.addr();
    let mut scope = Ws::connect(a, "/api/v1/scope", &[]).unwrap();
    let mut meters = Ws::connect(a, "/api/v1/meters", &[]).unwrap();
    meters.send(&json!({"type": "meters_start", "meters": ["smeter"], "fps": 20}));
    let sf = scope.binaries_for(Duration::from_millis(1_500));
    let mf = meters.binaries_for(Duration::from_millis(1_000));
    let s = seqs(&sf, 11);
    let m = seqs(&mf, 1);
    for (name, s) in [("scope", &s), ("meters", &m)] {
        assert!(s.len() > 8, "{name}: {s:?}");
        assert_eq!(s[0], 65_530, "{name}: {s:?}");
        assert!(
            s.windows(2).all(|w| w[1] == w[0].wrapping_add(1)),
            "{name}: {s:?}"
        );
        assert!(s.contains(&65_535) && s.contains(&0), "{name} wraps: {s:?}");
    }
    srv.shutdown();
}

fn meter_values(f: &[u8]) -> Vec<(u8, u16)> {
    let m = MeterFrame::parse(f).expect("a meter frame");
    assert_eq!(m.emit(), f, "byte-exact");
    assert_eq!(f[0], 0x20);
    assert_eq!(usize::from(f[3]) * 3 + 4, f.len());
    m.readings
}

both_ways!(meters_start_stop_rate_and_ptt);
fn meters_start_stop_rate_and_ptt() {
    let srv = server("ic7610");
    let a = srv.addr();
    let mut ctl = Ws::control(a);
    ctl.subscribe(&["events"]);
    assert_eq!(
        ctl.cmd("f", "set_freq", json!({"freq": 14_100_000}))["ok"],
        true
    );
    let mut m = Ws::connect(a, "/api/v1/meters", &[]).unwrap();
    assert!(
        m.binaries_for(Duration::from_millis(600)).is_empty(),
        "nothing before meters_start"
    );
    // bad input: nothing starts
    m.send(&json!({"type": "meters_start", "meters": ["smeter", "volts"]}));
    let e = m.until(T, |v| v["type"] == "error").unwrap();
    assert_eq!(e["error"], "invalid_param");
    assert!(e["message"].as_str().unwrap().contains("volts"), "{e}");
    m.send(&json!({"type": "meters_start", "fps": 0, "id": "z"}));
    let e = m.until(T, |v| v["type"] == "error").unwrap();
    assert_eq!(
        (e["error"].as_str(), e["id"].as_str()),
        (Some("invalid_param"), Some("z"))
    );
    assert!(m.binaries_for(Duration::from_millis(400)).is_empty());
    // start: the profile's meters in id order, fps clamped
    m.send(&json!({"type": "meters_start", "meters": ["swr", "power", "smeter", "temp", "alc"], "fps": 25}));
    let started = m.until(T, |v| v["type"] == "meters_started").unwrap();
    assert_eq!(
        started,
        json!({"type": "meters_started", "meters": ["smeter", "power", "swr", "alc"], "fps": 20})
    );
    m.binaries_for(Duration::from_millis(300));
    let dur = Duration::from_secs(2);
    let rx = m.binaries_for(dur);
    assert_rate(fps(rx.len(), dur), 20.0, "meters at 20");
    for f in &rx {
        let ids: Vec<u8> = meter_values(f).iter().map(|r| r.0).collect();
        assert_eq!(ids, vec![0x01], "RX: the S-meter only (asked, receiving)");
    }
    // transmitting: Po, SWR and ALC, no S-meter
    assert_eq!(ctl.cmd("k", "ptt", json!({"state": true}))["ok"], true);
    m.binaries_for(Duration::from_millis(300));
    let tx = m.binaries_for(Duration::from_millis(800));
    assert!(tx.len() > 8, "{}", tx.len());
    let last = meter_values(tx.last().unwrap());
    let ids: Vec<u8> = last.iter().map(|r| r.0).collect();
    assert_eq!(ids, vec![0x03, 0x04, 0x05], "{last:?}");
    assert!(last[0].1 > 0, "Po while transmitting: {last:?}");
    assert_eq!(ctl.cmd("u", "ptt", json!({"state": false}))["ok"], true);
    m.binaries_for(Duration::from_millis(300));
    let back = m.binaries_for(Duration::from_millis(500));
    assert!(back.iter().all(|f| meter_values(f)[0].0 == 0x01));
    // stop
    m.send(&json!({"type": "meters_stop", "id": 3}));
    let stopped = m.until(T, |v| v["type"] == "meters_stopped").unwrap();
    assert_eq!(stopped["id"], 3);
    m.binaries_for(Duration::from_millis(200));
    assert!(
        m.binaries_for(Duration::from_millis(600)).is_empty(),
        "stopped"
    );
    srv.shutdown();
}

both_ways!(hello_carries_a_fresh_session);
fn hello_carries_a_fresh_session() {
    let srv = server("ic705");
    let a = srv.addr();
    let hello = |a| {
        let mut w = Ws::control(a);
        w.next(T).unwrap()
    };
    let (h1, h2) = (hello(a), hello(a));
    for h in [&h1, &h2] {
        let s = h["session"].as_str().unwrap();
        assert_eq!(s.len(), 32);
        assert!(
            s.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
    }
    assert_ne!(h1["session"], h2["session"]);
    srv.shutdown();
}

/// Meter reads (`15 xx`, plain or through command 29) the simulator has answered.
fn meter_reads(srv: &rigweb::app::Running) -> u64 {
    let s = srv.sim.as_ref().unwrap().snapshot().unwrap();
    s.meter_reads.values().sum()
}

fn meters_start(w: &mut Ws, meters: &[&str], fps: u32) {
    w.send(&json!({"type": "meters_start", "meters": meters, "fps": fps}));
    let r = w.until(T, |v| v["type"] == "meters_started").unwrap();
    assert_eq!(r["fps"], fps, "{r}");
}

#[test]
fn a_meters_start_flood_does_not_raise_the_poll_rate() {
    // review: every meters_start woke the meter pump for an extra round at once, so a
    // client repeating it made the server poll the radio back to back
    let srv = server("ic7610");
    let a = srv.addr();
    let mut m = Ws::connect(a, "/api/v1/meters", &[]).unwrap();
    meters_start(&mut m, &["smeter"], 20);
    m.binaries_for(Duration::from_millis(500));
    let dur = Duration::from_secs(2);
    let r0 = meter_reads(&srv);
    let frames = m.binaries_for(dur);
    let base = (meter_reads(&srv) - r0) as f64 / dur.as_secs_f64();
    assert!(base <= 20.0 * 1.2, "{base} reads/s at 20 fps");
    assert_rate(fps(frames.len(), dur), 20.0, "meters at 20");
    // another client repeats meters_start as fast as it can
    let mut flood = Ws::connect(a, "/api/v1/meters", &[]).unwrap();
    let (r0, t0) = (meter_reads(&srv), std::time::Instant::now());
    let mut sent = 0;
    while t0.elapsed() < dur {
        flood.send(&json!({"type": "meters_start", "meters": ["smeter"], "fps": 20}));
        sent += 1;
        std::thread::sleep(Duration::from_millis(2));
    }
    let rate = (meter_reads(&srv) - r0) as f64 / t0.elapsed().as_secs_f64();
    assert!(sent > 200, "{sent} meters_start sent");
    assert!(
        rate <= 20.0 * 1.2,
        "{rate} meter reads/s during a flood of {sent} meters_start: the poll rate rose"
    );
    // the flooding client is served at its own rate all the same
    let frames = flood.binaries_for(Duration::from_secs(1));
    assert!(!frames.is_empty());
    srv.shutdown();
}

#[test]
fn the_pa_voltage_is_read_at_most_twice_a_second() {
    // Vd does not move quickly: one CI-V round trip a round was spent on it
    let srv = server("ic7610");
    let mut m = Ws::connect(srv.addr(), "/api/v1/meters", &[]).unwrap();
    meters_start(&mut m, &["smeter", "vd"], 20);
    m.binaries_for(Duration::from_millis(500));
    let reads = |sub: u8| {
        let s = srv.sim.as_ref().unwrap().snapshot().unwrap();
        s.meter_reads
            .iter()
            .filter(|((_, m), _)| *m == sub)
            .map(|(_, n)| n)
            .sum::<u64>()
    };
    let (s0, v0) = (reads(0x02), reads(0x15));
    let dur = Duration::from_secs(2);
    let frames = m.binaries_for(dur);
    let (s1, v1) = (reads(0x02), reads(0x15));
    assert!(s1 - s0 >= 30, "the S-meter at 20 fps: {}", s1 - s0);
    assert!(
        (2..=5).contains(&(v1 - v0)),
        "Vd twice a second: {}",
        v1 - v0
    );
    let with_vd = frames
        .iter()
        .filter(|f| meter_values(f).iter().any(|r| r.0 == 0x08))
        .count();
    assert!((2..=5).contains(&with_vd), "{with_vd} frames with Vd");
    srv.shutdown();
}

#[test]
fn meters_clients_at_5_and_20_fps_each_get_their_own_rate() {
    let srv = server("ic7610");
    let a = srv.addr();
    let mut slow = Ws::connect(a, "/api/v1/meters", &[]).unwrap();
    let mut fast = Ws::connect(a, "/api/v1/meters", &[]).unwrap();
    meters_start(&mut slow, &["smeter"], 5);
    meters_start(&mut fast, &["smeter", "smeter_sub"], 20);
    slow.binaries_for(Duration::from_millis(500));
    fast.binaries_for(Duration::from_millis(10));
    let dur = Duration::from_secs(3);
    let (fs, ff) = std::thread::scope(|sc| {
        let h = sc.spawn(|| slow.binaries_for(dur));
        let ff = fast.binaries_for(dur);
        (h.join().unwrap(), ff)
    });
    assert_rate(fps(fs.len(), dur), 5.0, "the 5 fps client");
    assert_rate(fps(ff.len(), dur), 20.0, "the 20 fps client");
    for f in &fs {
        let ids: Vec<u8> = meter_values(f).iter().map(|r| r.0).collect();
        assert_eq!(ids, vec![0x01], "its own meters only");
    }
    for f in &ff {
        let ids: Vec<u8> = meter_values(f).iter().map(|r| r.0).collect();
        assert_eq!(ids, vec![0x01, 0x02]);
    }
    for (name, frames) in [("slow", &fs), ("fast", &ff)] {
        let s = seqs(frames, 1);
        assert!(
            s.windows(2).all(|w| w[1] == w[0].wrapping_add(1)),
            "{name}: {s:?}"
        );
    }
    srv.shutdown();
}

/// The latest `(smeter, smeter_sub)` of a meters client.
fn smeters(m: &mut Ws) -> (u16, u16) {
    m.binaries_for(Duration::from_millis(400));
    let frames = m.binaries_for(Duration::from_millis(300));
    let last = meter_values(frames.last().expect("meter frames"));
    let get = |id| last.iter().find(|r| r.0 == id).map(|r| r.1).unwrap();
    (get(0x01), get(0x02))
}

#[test]
fn main_and_sub_s_meters_are_each_receivers_own_reading() {
    // review: both S-meters were the selected receiver's reading (plain 15 02)
    let srv = server("ic7610");
    let a = srv.addr();
    let mut ctl = Ws::control(a);
    let tune = |ctl: &mut Ws, rx: u8, hz: u64| {
        let r = ctl.cmd("t", "set_freq", json!({"freq": hz, "receiver": rx}));
        assert_eq!(r["ok"], true, "{r}");
    };
    // the simulator's 10 MHz carrier on MAIN, a quiet spot on SUB
    let (carrier, quiet) = (10_000_000, 10_037_000);
    tune(&mut ctl, 0, carrier);
    tune(&mut ctl, 1, quiet);
    let mut m = Ws::connect(a, "/api/v1/meters", &[]).unwrap();
    meters_start(&mut m, &["smeter", "smeter_sub"], 20);
    let (main, sub) = smeters(&mut m);
    assert!(
        main > sub + 20,
        "MAIN on the carrier {main}, SUB quiet {sub}"
    );
    // swapped: the readings follow the receivers, not the selected one
    tune(&mut ctl, 0, quiet);
    tune(&mut ctl, 1, carrier);
    let (main, sub) = smeters(&mut m);
    assert!(
        sub > main + 20,
        "SUB on the carrier {sub}, MAIN quiet {main}"
    );
    // what the radio saw: command 29 per receiver (29 00 15 02, 29 01 15 02), never a
    // plain 15 02 (which reads the selected receiver)
    let reads = srv.sim.as_ref().unwrap().snapshot().unwrap().meter_reads;
    let n = |k| reads.get(&k).copied().unwrap_or(0);
    assert!(n((Some(0), 0x02)) >= 10, "{reads:?}");
    assert!(n((Some(1), 0x02)) >= 10, "{reads:?}");
    assert_eq!(n((None, 0x02)), 0, "{reads:?}");
    srv.shutdown();
}

#[test]
fn the_radio_sends_wave_data_only_while_somebody_watches() {
    let srv = server("ic7610");
    let a = srv.addr();
    let sim = srv.sim.as_ref().unwrap();
    let output = || sim.snapshot().unwrap().scope.output;
    assert!(
        common::wait_for(T, || !output()),
        "off while nobody watches"
    );
    let first = Ws::connect(a, "/api/v1/scope", &[]).unwrap();
    assert!(common::wait_for(T, output), "on with the first viewer");
    drop(first);
    // a viewer back within the 2 s grace keeps it on (a page reload)
    std::thread::sleep(Duration::from_millis(500));
    let mut again = Ws::connect(a, "/api/v1/scope", &[]).unwrap();
    assert!(!again.binaries_for(Duration::from_millis(2_500)).is_empty());
    assert!(output(), "still on 3 s after the first viewer left");
    drop(again);
    let left = std::time::Instant::now();
    assert!(
        common::wait_for(T, || !output()),
        "off after the last viewer left"
    );
    assert!(
        left.elapsed() >= Duration::from_millis(1_800),
        "not before the grace: {:?}",
        left.elapsed()
    );
    srv.shutdown();
}
