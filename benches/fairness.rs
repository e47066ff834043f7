//! Fairness figures (issue 15 item 3): one client floods `vfo_swap` as fast as its socket
//! takes them while another client's commands are timed — `set_af_gain` latency (p50,
//! p99, max, refusals) idle and under the flood, the time an unkey takes to be answered
//! under the flood, and how many CI-V frames per second the flood puts on the wire.
//!
//! `cargo bench --bench fairness -- [--model ic7610] [--cmds N] [--unkeys N]`
//! (defaults: 200 timed commands, one every 60 ms; 10 unkeys). The server and its
//! simulator run in this process; only public APIs are used, so the same file measures
//! any revision.

#[path = "support/mod.rs"]
mod support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rigweb::app::{Running, Tuning};
use rigweb::config::ServeConfig;
use serde_json::{Value, json};
use support::*;
use tungstenite::{Message, WebSocket};

fn serve(model: &str) -> Running {
    let cfg = ServeConfig {
        log_level: log::LevelFilter::Error,
        ..ServeConfig::loopback_simulator(model)
    };
    let r = rigweb::app::start_with(&cfg, Tuning::default()).expect("server starts");
    let end = Instant::now() + Duration::from_secs(20);
    while !r.app.radio.store().read(|c| c.connection.radio_ready) {
        assert!(Instant::now() < end, "radio ready");
        std::thread::sleep(Duration::from_millis(20));
    }
    r
}

fn ws(addr: SocketAddr) -> WebSocket<TcpStream> {
    let s = TcpStream::connect(addr).unwrap();
    s.set_nodelay(true).unwrap();
    let (mut w, _) = tungstenite::client(format!("ws://{addr}/api/v1/ws"), s).unwrap();
    let _hello = w.read().unwrap();
    w
}

/// Sends `name` and waits for its response; returns it and the round trip.
fn timed_cmd(
    w: &mut WebSocket<TcpStream>,
    id: &str,
    name: &str,
    params: Value,
) -> (Value, Duration) {
    let msg = json!({"type": "cmd", "id": id, "name": name, "params": params}).to_string();
    let t = Instant::now();
    w.send(Message::Text(msg.into()))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    loop {
        let m = w.read().unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Message::Close(c) = &m {
            panic!("{name}: closed by the server: {c:?}");
        }
        if let Message::Text(t2) = m {
            let v: Value = serde_json::from_str(t2.as_str()).unwrap();
            if v["type"] == "response" && v["id"] == id {
                return (v, t.elapsed());
            }
        }
    }
}

/// A raw WebSocket (upgrade written and read by hand), for the flooding client.
fn raw_ws(addr: SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_nodelay(true).unwrap();
    s.write_all(
        b"GET /api/v1/ws HTTP/1.1\r\nHost: b\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .unwrap();
    let mut buf = [0u8; 1024];
    let n = s.read(&mut buf).unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 101"));
    s
}

/// A client text frame (masked with a zero key, as clients must mask).
fn masked_text(payload: &[u8]) -> Vec<u8> {
    assert!(payload.len() < 126);
    let mut f = vec![0x81, 0x80 | payload.len() as u8, 0, 0, 0, 0];
    f.extend_from_slice(payload);
    f
}

/// The flooding client: writes `vfo_swap` commands back to back while `on` is set, and
/// reads (and counts) what comes back. Ended with a reset, so that what it wrote and the
/// server has not read yet is dropped instead of flooding on.
struct Flood {
    socket: TcpStream,
    on: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    sent: Arc<AtomicU64>,
    busy: Arc<AtomicU64>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Flood {
    fn start(addr: SocketAddr) -> Flood {
        let s = raw_ws(addr);
        let socket = s.try_clone().unwrap();
        let mut reader = s.try_clone().unwrap();
        let (on, stop) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let (sent, busy) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let w = {
            let (on, stop, sent) = (on.clone(), stop.clone(), sent.clone());
            let mut s = s;
            std::thread::spawn(move || {
                let batch: Vec<u8> = (0..32)
                    .flat_map(|_| masked_text(br#"{"type":"cmd","id":"f","name":"vfo_swap"}"#))
                    .collect();
                while !stop.load(Ordering::Relaxed) {
                    if !on.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(2));
                        continue;
                    }
                    if s.write_all(&batch).is_err() {
                        return;
                    }
                    sent.fetch_add(32, Ordering::Relaxed);
                }
            })
        };
        let r = {
            let (stop, busy) = (stop.clone(), busy.clone());
            reader
                .set_read_timeout(Some(Duration::from_millis(100)))
                .unwrap();
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 1 << 16];
                let needle = b"radio_busy";
                while !stop.load(Ordering::Relaxed) {
                    match reader.read(&mut buf) {
                        Ok(0) => return,
                        Ok(n) => {
                            let hits = buf[..n].windows(needle.len()).filter(|w| w == needle);
                            busy.fetch_add(hits.count() as u64, Ordering::Relaxed);
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                        Err(_) => return,
                    }
                }
            })
        };
        Flood {
            socket,
            on,
            stop,
            sent,
            busy,
            threads: vec![w, r],
        }
    }

    fn set(&self, on: bool) {
        self.on.store(on, Ordering::Relaxed);
    }

    /// Stops and resets the connection.
    fn abort(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let linger = libc::linger {
            l_onoff: 1,
            l_linger: 0,
        };
        // SAFETY: a valid socket and a linger struct of the size given.
        unsafe {
            libc::setsockopt(
                std::os::fd::AsRawFd::as_raw_fd(&self.socket),
                libc::SOL_SOCKET,
                libc::SO_LINGER,
                (&linger as *const libc::linger).cast(),
                std::mem::size_of::<libc::linger>() as libc::socklen_t,
            );
        }
        let _ = self.socket.shutdown(std::net::Shutdown::Both);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// `n` `set_af_gain` commands, each sent `every` after the one before it was sent;
/// returns the round trips of those that ran, and the others: refused (by code) or
/// answered `throttled` (the one before reached the radio less than a window before this
/// one came, having waited in a queue).
fn af_gain_latencies(
    w: &mut WebSocket<TcpStream>,
    n: usize,
    every: Duration,
    tag: &str,
) -> (Vec<Duration>, Vec<String>) {
    let (mut ok, mut refused) = (Vec::new(), Vec::new());
    let mut next = Instant::now();
    for i in 0..n {
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        next = Instant::now() + every;
        let (v, d) = timed_cmd(
            w,
            &format!("{tag}{i}"),
            "set_af_gain",
            json!({"level": 100 + (i % 50)}),
        );
        if v["result"]["throttled"] == true {
            refused.push("throttled".to_string());
        } else if v["ok"] == true {
            ok.push(d);
        } else {
            refused.push(v["error"].as_str().unwrap_or("?").to_string());
        }
    }
    (ok, refused)
}

/// Unkeys (sending `ptt false` again while it is refused, as a client would) and returns
/// when the radio stopped transmitting, when an unkey was answered ok, and how many were
/// refused.
fn unkey(
    w: &mut WebSocket<TcpStream>,
    sim: &rigweb::sim::server::SimHandle,
    i: usize,
) -> (Duration, Duration, usize) {
    let t = Instant::now();
    let limit = Duration::from_secs(20);
    let send = |w: &mut WebSocket<TcpStream>, n: usize| {
        let id = format!("u{i}-{n}");
        let msg = json!({"type": "cmd", "id": id, "name": "ptt", "params": {"state": false}});
        w.send(Message::Text(msg.to_string().into())).unwrap();
        id
    };
    let mut refusals = 0;
    let mut id = send(w, 0);
    let (mut gone, mut answered) = (None, None);
    w.get_ref()
        .set_read_timeout(Some(Duration::from_millis(2)))
        .unwrap();
    while (gone.is_none() || answered.is_none()) && t.elapsed() < limit {
        if gone.is_none() && sim.snapshot().is_some_and(|s| !s.ptt) {
            gone = Some(t.elapsed());
        }
        if answered.is_some() {
            continue;
        }
        match w.read() {
            Ok(Message::Text(text)) => {
                let v: Value = serde_json::from_str(text.as_str()).unwrap();
                if v["type"] == "response" && v["id"] == id.as_str() {
                    if v["ok"] == true {
                        answered = Some(t.elapsed());
                    } else {
                        refusals += 1;
                        id = send(w, refusals);
                    }
                }
            }
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => panic!("unkey: {e}"),
        }
    }
    w.get_ref().set_read_timeout(None).unwrap();
    (gone.unwrap_or(limit), answered.unwrap_or(limit), refusals)
}

fn report(label: &str, mut samples: Vec<Duration>, refused: &[String]) {
    samples.sort();
    if samples.is_empty() {
        println!(
            "{label}: no command answered ok ({} refused)",
            refused.len()
        );
        return;
    }
    println!(
        "{label}: p50 {}  p99 {}  max {}  ran {}  radio_busy {}  throttled {}",
        ms(percentile(&samples, 50.0)),
        ms(percentile(&samples, 99.0)),
        ms(*samples.last().unwrap()),
        samples.len(),
        refused.iter().filter(|e| *e == "radio_busy").count(),
        refused.iter().filter(|e| *e == "throttled").count(),
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let model = arg_str("--model").unwrap_or_else(|| "ic7610".into());
    let n = arg("--cmds", 200) as usize;
    let unkeys = arg("--unkeys", 10) as usize;
    let every = Duration::from_millis(60);
    println!("rigweb fairness benchmark ({model} simulator in-process, loopback)");
    let srv = serve(&model);
    let addr = srv.addr();
    let sim = srv.sim.as_ref().expect("simulated radio");
    let mut other = ws(addr);

    let (idle, refused) = af_gain_latencies(&mut other, n, every, "i");
    report("set_af_gain, idle         ", idle, &refused);

    let flood = Flood::start(addr);
    flood.set(true);
    std::thread::sleep(Duration::from_millis(500));
    let civ0 = sim.stats().civ_frames_in;
    let t0 = Instant::now();
    let (busy, refused) = af_gain_latencies(&mut other, n, every, "b");
    let wall = t0.elapsed();
    let civ = sim.stats().civ_frames_in - civ0;
    report("set_af_gain, under a flood", busy, &refused);
    println!(
        "flood: {} vfo_swap written, {} answered radio_busy; {:.0} CI-V frames/s reached the radio",
        flood.sent.load(Ordering::Relaxed),
        flood.busy.load(Ordering::Relaxed),
        civ as f64 / wall.as_secs_f64()
    );
    flood.abort();

    let mut answered = Vec::new();
    let mut on_air = Vec::new();
    let mut refused_unkeys = 0;
    for i in 0..unkeys {
        std::thread::sleep(Duration::from_millis(500));
        let flood = Flood::start(addr);
        let (v, _) = timed_cmd(&mut other, &format!("k{i}"), "ptt", json!({"state": true}));
        if v["ok"] != true {
            println!("key {i} refused: {v}");
            flood.abort();
            continue;
        }
        flood.set(true);
        std::thread::sleep(Duration::from_millis(400));
        let (gone, ok, refusals) = unkey(&mut other, sim, i);
        on_air.push(gone);
        answered.push(ok);
        refused_unkeys += refusals;
        flood.abort();
    }
    answered.sort();
    on_air.sort();
    if !answered.is_empty() {
        println!(
            "unkey under the flood ({} runs, {} unkeys refused and sent again): radio unkeyed after p50 {} max {}; answered ok after p50 {} max {}",
            answered.len(),
            refused_unkeys,
            ms(percentile(&on_air, 50.0)),
            ms(*on_air.last().unwrap()),
            ms(percentile(&answered, 50.0)),
            ms(*answered.last().unwrap()),
        );
    }
    drop(other);
    srv.shutdown();
}
