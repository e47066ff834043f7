//! Fairness and the rate limit over loopback (issue 15 item 3): one client floods, the
//! others are still served; a throttled value is sent only when its own window ends; an
//! unkey goes first.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::wait_for;
use common::web::*;
use rigweb::app::{Running, Tuning};
use serde_json::json;

fn server() -> Running {
    start_server(serve_config("ic7610", None), Tuning::default())
}

/// A client writing `vfo_swap` commands back to back (raw frames, no waiting for the
/// answers, which a second thread reads and counts).
struct Flood {
    stop: Arc<AtomicBool>,
    busy: Arc<AtomicU64>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Flood {
    fn start(addr: SocketAddr) -> Flood {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(&upgrade_request("/api/v1/ws")).unwrap();
        let mut reader = s.try_clone().unwrap();
        reader
            .set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let (stop, busy) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicU64::new(0)),
        );
        let payload = br#"{"type":"cmd","id":"f","name":"vfo_swap"}"#;
        let mut frame = vec![0x81, 0x80 | payload.len() as u8, 0, 0, 0, 0];
        frame.extend_from_slice(payload);
        let batch = frame.repeat(32);
        let w = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                s.set_write_timeout(Some(Duration::from_millis(200)))
                    .unwrap();
                while !stop.load(Ordering::Relaxed) {
                    let _ = s.write_all(&batch);
                }
                let _ = s.shutdown(std::net::Shutdown::Both);
            })
        };
        let r = {
            let (stop, busy) = (stop.clone(), busy.clone());
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 1 << 16];
                while !stop.load(Ordering::Relaxed) {
                    if let Ok(n @ 1..) = reader.read(&mut buf) {
                        let hits = buf[..n].windows(10).filter(|w| w == b"radio_busy");
                        busy.fetch_add(hits.count() as u64, Ordering::Relaxed);
                    }
                }
            })
        };
        let f = Flood {
            stop,
            busy,
            threads: vec![w, r],
        };
        // flooding for real: its own queue is full
        assert!(
            wait_for(Duration::from_secs(10), || f.busy.load(Ordering::Relaxed)
                > 0),
            "the flooding client gets radio_busy"
        );
        f
    }

    fn stop(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            t.join().unwrap();
        }
    }
}

fn sim_ptt(srv: &Running) -> bool {
    srv.sim.as_ref().unwrap().snapshot().unwrap().ptt
}

#[test]
fn a_flooding_client_does_not_lock_the_others_out() {
    // issue 15: one client sent 96,436 vfo_swap in 6 s and another client's
    // set_af_gain got radio_busy (one queue of 256 for everybody)
    let srv = server();
    let mut other = Ws::control(srv.addr());
    let flood = Flood::start(srv.addr());
    let mut slowest = Duration::ZERO;
    for i in 0..50u64 {
        std::thread::sleep(Duration::from_millis(60));
        let t = Instant::now();
        let r = other.cmd(&format!("af{i}"), "set_af_gain", json!({"level": 100 + i}));
        slowest = slowest.max(t.elapsed());
        assert_eq!(r["ok"], true, "command {i} under the flood: {r}");
        assert_ne!(r["result"]["throttled"], true, "{r}");
    }
    eprintln!("slowest set_af_gain under the flood: {slowest:?}");
    let snap = srv.sim.as_ref().unwrap().snapshot().unwrap();
    flood.stop();
    assert_eq!(
        snap.receivers[0].levels.get(&0x01),
        Some(&149),
        "the radio has the last level"
    );
    srv.shutdown();
}

#[test]
fn a_waiting_frequency_is_sent_only_when_its_own_window_ends() {
    // issue 15: 200 set_freq + vfo_equalize pairs put 401 frequency frames on the wire
    // in 0.26 s while 199 answers said throttled (each vfo_equalize flushed the waiting
    // frequency out early)
    let srv = server();
    let sim = srv.sim.as_ref().unwrap();
    let mut ws = Ws::control(srv.addr());
    let before = sim.stats().freq_sets_in;
    let t = Instant::now();
    let last = 14_000_000 + 199 * 100;
    for i in 0..200u64 {
        ws.send(&json!({"type": "cmd", "id": format!("f{i}"), "name": "set_freq", "params": {"freq": 14_000_000 + i * 100}}));
        ws.send(&json!({"type": "cmd", "id": format!("e{i}"), "name": "vfo_equalize"}));
    }
    let (mut throttled, mut busy) = (0, 0);
    for _ in 0..400 {
        let r = ws
            .until(Duration::from_secs(30), |v| v["type"] == "response")
            .expect("a response per command");
        match (r["ok"].as_bool(), r["error"].as_str()) {
            (Some(true), _) if r["result"]["throttled"] == true => throttled += 1,
            (Some(true), _) => {}
            (_, Some("radio_busy")) => busy += 1,
            _ => panic!("{r}"),
        }
    }
    assert!(
        wait_for(Duration::from_secs(10), || common::sim_vfo(
            &sim.snapshot().unwrap(),
            0
        )
        .freq_hz
            == last),
        "ends at the last frequency"
    );
    let frames = sim.stats().freq_sets_in - before;
    let elapsed = t.elapsed();
    eprintln!("{frames} frequency frames in {elapsed:?}; {throttled} throttled, {busy} radio_busy");
    assert!(throttled > 100, "{throttled} throttled");
    // frames of one slot are at least a window (50 ms) apart: the n-th one is sent no
    // sooner than (n - 1) windows after the first
    assert!(
        Duration::from_millis(50) * (frames as u32).saturating_sub(1) <= elapsed,
        "{frames} frequency frames in {elapsed:?}"
    );
    srv.shutdown();
}

#[test]
fn an_unkey_goes_first_under_a_flood() {
    // issue 15: an unkey took 214 ms to get out under a flood (behind up to 256 queued
    // commands), or was refused with radio_busy
    let srv = server();
    let mut owner = Ws::control(srv.addr());
    for i in 0..3 {
        let r = owner.cmd(&format!("k{i}"), "ptt", json!({"state": true}));
        assert_eq!(r["ok"], true, "{r}");
        assert!(sim_ptt(&srv));
        let flood = Flood::start(srv.addr());
        let t = Instant::now();
        let r = owner.cmd(&format!("u{i}"), "ptt", json!({"state": false}));
        let answered = t.elapsed();
        assert_eq!(r["ok"], true, "the unkey under a flood: {r}");
        assert!(
            wait_for(Duration::from_secs(2), || !sim_ptt(&srv)),
            "unkeyed"
        );
        eprintln!("unkey under a flood answered after {answered:?}");
        flood.stop();
    }
    srv.shutdown();
}
