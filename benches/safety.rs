//! Safety figures (issue 15): how long a power-on takes after the radio has been off for
//! 1, 3, 10 and 60 s (`POST /api/v1/radio/power {"state":"on"}` -> 200, and -> the state
//! shows `powerOn: true`), and how long it takes from a refused key to the read-back of
//! PTT under `rigweb sim --nak 0.5` (a radio that acts and answers NAK).
//!
//! `cargo bench --bench safety -- [--runs N] [--keys N] [--skip-60]` (defaults: 3 runs
//! per wait, 200 keys). The server and its simulator run in this process with their
//! default timing (CI-V data watchdog 2 s, request timeout 1.5 s, ...), over loopback.

#[path = "support/mod.rs"]
mod support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use rigweb::app::{Running, Tuning};
use rigweb::config::ServeConfig;
use rigweb::radio::answer::Answer;
use rigweb::radio::command::Command;
use rigweb::radio::events::RadioEvent;
use rigweb::radio::state_store::{StateChange, StateSink};
use rigweb::sim::faults::FaultConfig;
use support::*;

fn server() -> Running {
    let cfg = ServeConfig {
        ..ServeConfig::loopback_simulator("ic7610")
    };
    let r = rigweb::app::start_with(&cfg, Tuning::default()).expect("server starts");
    wait(Duration::from_secs(15), || ready(&r));
    r
}

fn ready(r: &Running) -> bool {
    r.app.radio.store().read(|c| c.connection.radio_ready)
}

fn wait(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    false
}

/// `POST path` with a JSON body on a fresh connection: status and body.
fn post(addr: SocketAddr, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_nodelay(true).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out[9..12].parse().unwrap_or(0);
    let body = out.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

/// When the state store last reported each event of interest.
#[derive(Default)]
struct Stamps {
    power_on: Option<Instant>,
    /// PTT became unknown (a refused key, read back next), then known again.
    ptt_unknown: Option<Instant>,
    read_backs: Vec<Duration>,
}

struct Watch(Arc<Mutex<Stamps>>);

impl StateSink for Watch {
    fn on_change(&self, change: &Arc<StateChange>) {
        let now = Instant::now();
        let mut s = self.0.lock();
        for e in &change.events {
            match e {
                RadioEvent::PowerState(true) => s.power_on = Some(now),
                RadioEvent::Ptt(None) => s.ptt_unknown = Some(now),
                RadioEvent::Ptt(Some(_)) => {
                    if let Some(t) = s.ptt_unknown.take() {
                        s.read_backs.push(now - t);
                    }
                }
                _ => {}
            }
        }
    }
}

fn summary(label: &str, mut v: Vec<Duration>) {
    v.sort();
    if v.is_empty() {
        println!("{label}: no samples");
        return;
    }
    println!(
        "{label}: n={} min {} p50 {} p90 {} max {}",
        v.len(),
        ms(v[0]),
        ms(percentile(&v, 50.0)),
        ms(percentile(&v, 90.0)),
        ms(*v.last().unwrap())
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let runs = arg("--runs", 3) as usize;
    let keys = arg("--keys", 200) as usize;
    let skip_60 = std::env::args().any(|a| a == "--skip-60");
    println!("rigweb safety benchmark (IC-7610 simulator in this process, loopback)");
    let r = server();
    let addr = r.addr();
    let stamps = Arc::new(Mutex::new(Stamps::default()));
    r.app
        .radio
        .store()
        .subscribe(Arc::new(Watch(stamps.clone())));

    // 1. power-on after power-off
    let waits: &[u64] = if skip_60 {
        &[1, 3, 10]
    } else {
        &[1, 3, 10, 60]
    };
    for &w in waits {
        let mut to_200 = Vec::new();
        let mut to_on = Vec::new();
        let mut to_ready = Vec::new();
        for _ in 0..runs {
            let (st, body) = post(addr, "/api/v1/radio/power", r#"{"state":"off"}"#);
            assert_eq!(st, 200, "{body}");
            std::thread::sleep(Duration::from_secs(w));
            stamps.lock().power_on = None;
            let t = Instant::now();
            let (st, body) = post(addr, "/api/v1/radio/power", r#"{"state":"on"}"#);
            to_200.push(t.elapsed());
            assert_eq!(st, 200, "power on after {w} s: {body}");
            assert!(wait(Duration::from_secs(30), || stamps
                .lock()
                .power_on
                .is_some()));
            to_on.push(stamps.lock().power_on.unwrap() - t);
            assert!(wait(Duration::from_secs(30), || ready(&r)), "ready again");
            to_ready.push(t.elapsed());
        }
        summary(&format!("off {w:>2} s: POST on -> 200"), to_200);
        summary(&format!("off {w:>2} s: POST on -> powerOn true"), to_on);
        summary(
            &format!("off {w:>2} s: POST on -> radioReady (state read)"),
            to_ready,
        );
    }

    // 2. a refused key to the read-back of PTT
    let sim = r.sim.as_ref().expect("built-in simulator");
    let mut plain = Vec::new();
    let mut confirmed = 0;
    let mut refused = 0;
    for _ in 0..keys {
        sim.set_faults(FaultConfig {
            nak: 0.5,
            ..FaultConfig::default()
        });
        let t = Instant::now();
        let res = r.app.radio.execute(Command::Ptt(true));
        let took = t.elapsed();
        match &res {
            Ok(Answer::Ptt {
                read_back: Some(_), ..
            }) => confirmed += 1,
            Ok(_) => plain.push(took),
            Err(_) => refused += 1,
        }
        // unkeyed for sure before the next key
        sim.set_faults(FaultConfig::default());
        let _ = r.app.radio.execute(Command::Ptt(false));
        assert!(wait(Duration::from_secs(30), || {
            r.app.radio.store().read(|c| c.radio.ptt) == Some(false)
                && !sim.snapshot().is_some_and(|s| s.ptt)
        }));
    }
    let read_backs = std::mem::take(&mut stamps.lock().read_backs);
    println!(
        "--nak 0.5, {keys} keys: {} answered FB, {confirmed} NAK but read back keyed (ok, readBack), {refused} failed",
        plain.len()
    );
    summary("key answered FB: ptt true -> ok", plain);
    summary(
        "refused key (NAK) -> PTT read back (state null -> known)",
        read_backs,
    );
    r.shutdown();
}
