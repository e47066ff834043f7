//! Web figures (issue 3): `cmd` -> `response` latency through the whole stack to the
//! simulator and back (1 and 8 clients, and 8 clients while 4 scope clients stream at
//! 30 fps: issue 9), `GET /api/v1/state` requests per second (200
//! and 304 paths), and memory with 50 idle control clients.
//!
//! `cargo bench --bench web -- [--cmds N] [--seconds S]` (defaults 5000 commands per
//! run, 5 s per request-rate run). The server and its simulator run in this process.

#[path = "support/mod.rs"]
mod support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rigweb::app::Tuning;
use rigweb::config::ServeConfig;
use rigweb::web::context::WebConfig;
use serde_json::{Value, json};
use support::*;
use tungstenite::{Message, WebSocket};

fn ws(addr: SocketAddr) -> WebSocket<TcpStream> {
    let s = TcpStream::connect(addr).unwrap();
    s.set_nodelay(true).unwrap();
    let (mut w, _) = tungstenite::client(format!("ws://{addr}/api/v1/ws"), s).unwrap();
    let _hello = w.read().unwrap();
    w
}

fn read_json(w: &mut WebSocket<TcpStream>) -> Value {
    loop {
        if let Message::Text(t) = w.read().unwrap() {
            return serde_json::from_str(t.as_str()).unwrap();
        }
    }
}

/// Sequential `set_freq` commands on one socket; returns each round trip.
fn command_latencies(addr: SocketAddr, n: usize, seed: u64) -> Vec<Duration> {
    paced_command_latencies(addr, n, seed, Duration::ZERO)
}

/// `set_freq` commands on one socket, each sent `every` after the one before it was sent
/// (back to back when its answer came later); returns each round trip.
fn paced_command_latencies(
    addr: SocketAddr,
    n: usize,
    seed: u64,
    every: Duration,
) -> Vec<Duration> {
    let mut w = ws(addr);
    let mut out = Vec::with_capacity(n);
    let mut next = Instant::now();
    for i in 0..n {
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        next += every;
        let id = format!("{seed}-{i}");
        let hz = 14_000_000 + ((seed * 7919 + i as u64) % 300_000);
        let msg = json!({"type": "cmd", "id": id, "name": "set_freq", "params": {"freq": hz}})
            .to_string();
        let t = Instant::now();
        w.send(Message::Text(msg.into())).unwrap();
        loop {
            let v = read_json(&mut w);
            if v["type"] == "response" && v["id"] == id.as_str() {
                assert_eq!(v["ok"], true, "{v}");
                break;
            }
        }
        out.push(t.elapsed());
    }
    out
}

/// A WebSocket opened by hand (no client-side buffers): upgrade request, 101 read.
/// Reads `/api/v1/scope` at 30 fps until `streaming` is cleared, counting frames.
fn scope_reader(addr: SocketAddr, streaming: &AtomicBool, frames: &AtomicU64) {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let (mut w, _) =
        tungstenite::client(format!("ws://{addr}/api/v1/scope?fps=30&receiver=0"), s).unwrap();
    while streaming.load(Ordering::Relaxed) {
        match w.read() {
            Ok(Message::Binary(_)) => {
                frames.fetch_add(1, Ordering::Relaxed);
            }
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => panic!("scope client: {e}"),
        }
    }
}

fn raw_ws(addr: SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(
        b"GET /api/v1/ws HTTP/1.1\r\nHost: b\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .unwrap();
    let mut buf = [0u8; 1024];
    let n = s.read(&mut buf).unwrap();
    assert!(
        buf[..n].starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&buf[..n])
    );
    s
}

/// A client text frame (masked with a zero key, as clients must mask).
fn masked_text(payload: &[u8]) -> Vec<u8> {
    assert!(payload.len() < 126);
    let mut f = vec![0x81, 0x80 | payload.len() as u8, 0, 0, 0, 0];
    f.extend_from_slice(payload);
    f
}

fn report(label: &str, mut samples: Vec<Duration>, wall: Duration) {
    samples.sort();
    println!(
        "{label}: p50 {}  p99 {}  max {}  ({:.0} commands/s)",
        ms(percentile(&samples, 50.0)),
        ms(percentile(&samples, 99.0)),
        ms(*samples.last().unwrap()),
        samples.len() as f64 / wall.as_secs_f64()
    );
}

/// Keep-alive GETs of /api/v1/state for `secs` on `threads` connections.
fn state_rate(addr: SocketAddr, threads: usize, secs: u64, etag: Option<String>) -> f64 {
    let end = Instant::now() + Duration::from_secs(secs);
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let etag = etag.clone();
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(addr).unwrap();
                s.set_nodelay(true).unwrap();
                let mut req = String::from("GET /api/v1/state HTTP/1.1\r\nHost: b\r\n");
                if let Some(e) = &etag {
                    req.push_str(&format!("If-None-Match: {e}\r\n"));
                }
                req.push_str("\r\n");
                let mut buf = vec![0u8; 65536];
                let mut n = 0u64;
                while Instant::now() < end {
                    s.write_all(req.as_bytes()).unwrap();
                    // read one response: head, then content-length bytes
                    let mut have = 0;
                    let (head_end, len) = loop {
                        let r = s.read(&mut buf[have..]).unwrap();
                        assert!(r > 0, "server closed the connection");
                        have += r;
                        if let Some(i) = buf[..have].windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
                            let len = head
                                .lines()
                                .find_map(|l| {
                                    l.strip_prefix("content-length:")
                                        .map(|v| v.trim().parse::<usize>().unwrap())
                                })
                                .unwrap_or(0);
                            break (i + 4, len);
                        }
                    };
                    while have < head_end + len {
                        have += s.read(&mut buf[have..]).unwrap();
                    }
                    n += 1;
                }
                n
            })
        })
        .collect();
    let total: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    total as f64 / secs as f64
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let cmds = arg("--cmds", 5000) as usize;
    let secs = arg("--seconds", 5);
    let cfg = ServeConfig {
        max_clients: 128,
        ..ServeConfig::loopback_simulator("ic7610")
    };
    // the rate limit would hold back a benchmark's back-to-back set_freq: switch it off
    let web = WebConfig {
        rate_window: Duration::ZERO,
        ..WebConfig::default()
    };
    let srv = rigweb::app::start_with(
        &cfg,
        Tuning {
            web: Some(web),
            ..Tuning::default()
        },
    )
    .unwrap();
    let addr = srv.addr();
    let t = Instant::now();
    while !srv.app.radio.store().read(|c| c.connection.radio_ready) {
        assert!(t.elapsed() < Duration::from_secs(10), "radio ready");
        std::thread::sleep(Duration::from_millis(10));
    }
    println!("rigweb web benchmark (server + simulated IC-7610 in this process, loopback)");

    let t = Instant::now();
    let one = command_latencies(addr, cmds, 1);
    report(
        &format!("cmd -> response, 1 client, {cmds} set_freq"),
        one,
        t.elapsed(),
    );

    let t = Instant::now();
    let handles: Vec<_> = (0..8u64)
        .map(|c| std::thread::spawn(move || command_latencies(addr, cmds / 8, c + 10)))
        .collect();
    let all: Vec<Duration> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    report(
        &format!("cmd -> response, 8 clients, {} set_freq each", cmds / 8),
        all,
        t.elapsed(),
    );

    // issue 9: the same 8 clients while 4 scope clients stream at 30 fps
    let streaming = Arc::new(AtomicBool::new(true));
    let frames = Arc::new(AtomicU64::new(0));
    let scopes: Vec<_> = (0..4)
        .map(|_| {
            let (streaming, frames) = (streaming.clone(), frames.clone());
            std::thread::spawn(move || scope_reader(addr, &streaming, &frames))
        })
        .collect();
    std::thread::sleep(Duration::from_secs(1));
    let f0 = frames.load(Ordering::Relaxed);
    let t = Instant::now();
    let handles: Vec<_> = (0..8u64)
        .map(|c| std::thread::spawn(move || command_latencies(addr, cmds / 8, c + 20)))
        .collect();
    let all: Vec<Duration> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let wall = t.elapsed();
    let fps = (frames.load(Ordering::Relaxed) - f0) as f64 / wall.as_secs_f64() / 4.0;
    report(
        &format!(
            "cmd -> response, 8 clients back to back, {} set_freq each, while 4 scope clients stream ({fps:.1} fps each)",
            cmds / 8
        ),
        all,
        wall,
    );
    // the same, each client sending a command every 10 ms (800 commands/s in all, the
    // clients' phases spread over the 10 ms)
    let (t, f0) = (Instant::now(), frames.load(Ordering::Relaxed));
    let handles: Vec<_> = (0..8u64)
        .map(|c| {
            std::thread::spawn(move || {
                // spread over the 10 ms, as independent clients are
                std::thread::sleep(Duration::from_micros(1250 * c));
                paced_command_latencies(addr, cmds / 8, c + 30, Duration::from_millis(10))
            })
        })
        .collect();
    let all: Vec<Duration> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let wall = t.elapsed();
    let fps = (frames.load(Ordering::Relaxed) - f0) as f64 / wall.as_secs_f64() / 4.0;
    report(
        &format!(
            "cmd -> response, 8 clients each every 10 ms, {} set_freq each, while 4 scope clients stream ({fps:.1} fps each)",
            cmds / 8
        ),
        all,
        wall,
    );
    streaming.store(false, Ordering::Relaxed);
    for s in scopes {
        s.join().unwrap();
    }

    for threads in [1, 4] {
        let rate = state_rate(addr, threads, secs, None);
        println!(
            "GET /api/v1/state 200: {rate:.0} requests/s ({threads} keep-alive connection(s))"
        );
        let etag = format!("\"{}\"", srv.app.radio.store().revision());
        let rate = state_rate(addr, threads, secs, Some(etag));
        println!(
            "GET /api/v1/state 304: {rate:.0} requests/s ({threads} keep-alive connection(s))"
        );
    }

    std::thread::sleep(Duration::from_millis(500));
    let before = status_kb("self", "VmRSS");
    // raw sockets, so that only the server's memory is counted
    let mut idle: Vec<TcpStream> = (0..50).map(|_| raw_ws(addr)).collect();
    std::thread::sleep(Duration::from_millis(500));
    let connected = status_kb("self", "VmRSS");
    // a masked text frame: {"type":"subscribe","streams":["events"]}
    let sub = masked_text(br#"{"type":"subscribe","streams":["events"]}"#);
    for s in &mut idle {
        s.write_all(&sub).unwrap();
    }
    std::thread::sleep(Duration::from_secs(2));
    let subscribed = status_kb("self", "VmRSS");
    let c0 = cpu_time("self");
    std::thread::sleep(Duration::from_secs(secs));
    let idle_cpu = cpu_time("self") - c0;
    println!(
        "RSS: {before} kB before; {connected} kB with 50 idle control clients (+{} kB); {subscribed} kB once subscribed",
        connected.saturating_sub(before)
    );
    println!(
        "CPU with 50 subscribed idle clients (server + simulator): {:.3} CPU-s/min",
        idle_cpu.as_secs_f64() * 60.0 / secs as f64
    );
    drop(idle);
    srv.shutdown();
}
