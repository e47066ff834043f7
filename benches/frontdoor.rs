//! Front-door figures (issue 10): memory and threads under hostile clients (1,000
//! slowloris connections; 6 clients sending 64 MB heads), `GET /api/v1/state` rate and
//! `cmd` -> `response` latency through the front door, plain and over TLS, the TLS cost
//! of a scope client at 30 frames/s, and the TLS handshake rate.
//!
//! `cargo bench --bench frontdoor -- [--seconds S] [--cmds N]` (defaults 5 s, 3000).
//! Servers and simulators run in this process on 127.0.0.1; slowloris clients come
//! from 127.0.0.2..11 (the per-client cap counts per address).

#[path = "support/mod.rs"]
mod support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rigweb::app::{Running, Tuning};
use rigweb::config::ServeConfig;
use rigweb::web::context::WebConfig;
use rigweb::web::tls::TlsSource;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};
use support::*;
use tungstenite::{Message, WebSocket};

/// A stream to a benchmark server.
enum Conn {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

impl Read for Conn {
    fn read(&mut self, b: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Conn::Plain(s) => s.read(b),
            Conn::Tls(s) => s.read(b),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        match self {
            Conn::Plain(s) => s.write(b),
            Conn::Tls(s) => s.write(b),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Conn::Plain(s) => s.flush(),
            Conn::Tls(s) => s.flush(),
        }
    }
}

#[derive(Clone)]
struct Target {
    addr: SocketAddr,
    tls: Option<Arc<rustls::ClientConfig>>,
}

impl Target {
    fn connect(&self) -> Conn {
        let s = TcpStream::connect(self.addr).unwrap();
        s.set_nodelay(true).unwrap();
        match &self.tls {
            None => Conn::Plain(s),
            Some(cfg) => {
                let name = ServerName::from(self.addr.ip());
                let c = rustls::ClientConnection::new(cfg.clone(), name).unwrap();
                Conn::Tls(Box::new(rustls::StreamOwned::new(c, s)))
            }
        }
    }

    fn label(&self) -> &'static str {
        if self.tls.is_some() { "TLS" } else { "plain" }
    }
}

fn serve(tls: bool) -> (Running, Target) {
    let data_dir = std::env::temp_dir().join(format!("rigweb-bench-{}", std::process::id()));
    let cfg = ServeConfig {
        tls: tls.then_some(TlsSource::Auto { data_dir }),
        max_connections_per_client: 128,
        max_clients: 128,
        ..ServeConfig::loopback_simulator("ic7610")
    };
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
    let t = Instant::now();
    while !srv.app.radio.store().read(|c| c.connection.radio_ready) {
        assert!(t.elapsed() < Duration::from_secs(10), "radio ready");
        std::thread::sleep(Duration::from_millis(10));
    }
    let tls = srv.web.ca_pem().map(|pem| {
        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_slice_iter(pem.as_bytes()) {
            roots.add(c.unwrap()).unwrap();
        }
        Arc::new(
            rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth(),
        )
    });
    let target = Target {
        addr: srv.addr(),
        tls,
    };
    (srv, target)
}

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|d| d.count())
        .unwrap_or(0)
}

/// CPU time (nanosecond resolution: `schedstat`) of this process's threads whose name
/// passes `keep`.
fn threads_cpu(keep: impl Fn(&str) -> bool) -> Duration {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return Duration::ZERO;
    };
    dir.filter_map(|e| e.ok())
        .filter(|e| {
            std::fs::read_to_string(e.path().join("comm")).is_ok_and(|c| keep(c.trim_end()))
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("schedstat")).ok())
        .filter_map(|s| {
            s.split_whitespace()
                .next()
                .and_then(|n| n.parse::<u64>().ok())
        })
        .map(Duration::from_nanos)
        .sum()
}

/// CPU time of this process's threads whose name starts with `prefix`.
fn thread_cpu(prefix: &str) -> Duration {
    threads_cpu(|c| c.starts_with(prefix))
}

/// CPU time of the server side: every named thread (the servers, their pumps, link
/// threads and simulators), not the benchmark's own unnamed client threads (they carry
/// the process's name).
fn server_cpu() -> Duration {
    let me = std::fs::read_to_string("/proc/self/comm").unwrap_or_default();
    let me = me.trim_end().to_string();
    threads_cpu(|c| c != me)
}

/// Peak RSS and thread count while `work` runs (sampled every 20 ms).
fn peak_while(work: impl FnOnce()) -> (u64, usize) {
    let stop = Arc::new(AtomicBool::new(false));
    let peak_rss = Arc::new(AtomicU64::new(0));
    let peak_threads = Arc::new(AtomicU64::new(0));
    let sampler = {
        let (stop, rss, thr) = (stop.clone(), peak_rss.clone(), peak_threads.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                rss.fetch_max(status_kb("self", "VmRSS"), Ordering::Relaxed);
                // the sampler itself is not counted
                thr.fetch_max(threads() as u64 - 1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    work();
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    (
        peak_rss.load(Ordering::Relaxed),
        peak_threads.load(Ordering::Relaxed) as usize,
    )
}

/// A TCP connection from `local` (a loopback address) to `addr`.
fn connect_from(local: [u8; 4], addr: SocketAddr) -> Option<TcpStream> {
    use std::os::fd::FromRawFd;
    let SocketAddr::V4(to) = addr else {
        return None;
    };
    // SAFETY: plain socket calls on a descriptor owned here until it becomes the stream.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return None;
        }
        let s = TcpStream::from_raw_fd(fd);
        let mut sa: libc::sockaddr_in = std::mem::zeroed();
        sa.sin_family = libc::AF_INET as libc::sa_family_t;
        sa.sin_addr.s_addr = u32::from_ne_bytes(local);
        let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        if libc::bind(fd, &sa as *const _ as *const libc::sockaddr, len) != 0 {
            return None;
        }
        sa.sin_addr.s_addr = u32::from_ne_bytes(to.ip().octets());
        sa.sin_port = to.port().to_be();
        if libc::connect(fd, &sa as *const _ as *const libc::sockaddr, len) != 0 {
            return None;
        }
        Some(s)
    }
}

/// 1,000 connections that send a head a line at a time, one line a second (and come
/// back when answered), for `secs`.
fn slowloris(addr: SocketAddr, secs: u64) -> (usize, usize) {
    let open = |i: usize| {
        let mut s = connect_from([127, 0, 0, 2 + (i % 10) as u8], addr)?;
        s.write_all(b"GET /api/v1/state HTTP/1.1\r\nHost: x\r\n")
            .ok()?;
        s.set_nonblocking(true).ok()?;
        Some(s)
    };
    let mut conns: Vec<Option<TcpStream>> = (0..1000).map(open).collect();
    let (mut refused, mut answered) = (0, 0);
    let end = Instant::now() + Duration::from_secs(secs);
    let mut buf = [0u8; 4096];
    while Instant::now() < end {
        for (i, c) in conns.iter_mut().enumerate() {
            let alive = match c {
                Some(s) => match s.read(&mut buf) {
                    Ok(n) if n > 0 => {
                        if buf.starts_with(b"HTTP/1.1 503") {
                            refused += 1;
                        } else {
                            answered += 1;
                        }
                        false
                    }
                    Ok(_) => false,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        s.write_all(b"X-a: b\r\n").is_ok()
                    }
                    Err(_) => false,
                },
                None => false,
            };
            if !alive {
                *c = open(i);
            }
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    (refused, answered)
}

/// A client sending a 64 MB head.
fn huge_head(addr: SocketAddr) -> u16 {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return 0;
    };
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let _ = s.write_all(b"GET /api/v1/state HTTP/1.1\r\nHost: x\r\nX-Big: ");
    let chunk = vec![b'a'; 64 * 1024];
    for _ in 0..1024 {
        if s.write_all(&chunk).is_err() {
            break;
        }
    }
    let mut buf = [0u8; 512];
    match s.read(&mut buf) {
        Ok(n) if n >= 12 => std::str::from_utf8(&buf[9..12])
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(0),
        _ => 0,
    }
}

fn read_json<S: Read + Write>(w: &mut WebSocket<S>) -> Value {
    loop {
        if let Message::Text(t) = w.read().unwrap() {
            return serde_json::from_str(t.as_str()).unwrap();
        }
    }
}

fn command_latencies(t: &Target, n: usize, seed: u64) -> Vec<Duration> {
    let (mut w, _) =
        tungstenite::client(format!("ws://{}/api/v1/ws", t.addr), t.connect()).unwrap();
    let _hello = w.read().unwrap();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let id = format!("{seed}-{i}");
        let hz = 14_000_000 + ((seed * 7919 + i as u64) % 300_000);
        let msg = json!({"type": "cmd", "id": id, "name": "set_freq", "params": {"freq": hz}});
        let start = Instant::now();
        w.send(Message::Text(msg.to_string().into())).unwrap();
        loop {
            let v = read_json(&mut w);
            if v["type"] == "response" && v["id"] == id.as_str() {
                break;
            }
        }
        out.push(start.elapsed());
    }
    out
}

fn state_rate(t: &Target, conns: usize, secs: u64) -> f64 {
    let end = Instant::now() + Duration::from_secs(secs);
    let handles: Vec<_> = (0..conns)
        .map(|_| {
            let t = t.clone();
            std::thread::spawn(move || {
                let mut s = t.connect();
                let mut buf = vec![0u8; 65536];
                let mut n = 0u64;
                while Instant::now() < end {
                    s.write_all(b"GET /api/v1/state HTTP/1.1\r\nHost: b\r\n\r\n")
                        .unwrap();
                    let mut have = 0;
                    let (head_end, len) = loop {
                        let r = s.read(&mut buf[have..]).unwrap();
                        assert!(r > 0, "closed");
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

/// New connections per second, each with one `GET /healthz` (and a handshake on TLS).
fn connection_rate(t: &Target, threads: usize, secs: u64) -> f64 {
    let end = Instant::now() + Duration::from_secs(secs);
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let t = t.clone();
            std::thread::spawn(move || {
                let mut n = 0u64;
                let mut buf = [0u8; 4096];
                while Instant::now() < end {
                    let mut s = t.connect();
                    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n")
                        .unwrap();
                    while let Ok(r) = s.read(&mut buf) {
                        if r == 0 {
                            break;
                        }
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

/// Server CPU per `/api/v1/scope` client (30 sweeps/s) over `secs`: the CPU of all
/// server-side threads with `clients` clients less that with none, per client.
fn scope_cost(t: &Target, clients: usize, secs: u64) -> (Duration, f64) {
    let c0 = server_cpu();
    std::thread::sleep(Duration::from_secs(secs));
    let idle = server_cpu() - c0;
    let stop = Arc::new(AtomicBool::new(false));
    let frames = Arc::new(AtomicU64::new(0));
    let handles: Vec<_> = (0..clients)
        .map(|_| {
            let (t, stop, frames) = (t.clone(), stop.clone(), frames.clone());
            std::thread::spawn(move || {
                let (mut w, _) =
                    tungstenite::client(format!("ws://{}/api/v1/scope", t.addr), t.connect())
                        .unwrap();
                while !stop.load(Ordering::Relaxed) {
                    if let Ok(Message::Binary(_)) = w.read() {
                        frames.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(2));
    let (c0, f0) = (server_cpu(), frames.load(Ordering::Relaxed));
    std::thread::sleep(Duration::from_secs(secs));
    let cpu = (server_cpu() - c0).saturating_sub(idle);
    let fps = (frames.load(Ordering::Relaxed) - f0) as f64 / secs as f64 / clients as f64;
    stop.store(true, Ordering::Relaxed);
    drop(handles);
    (cpu / clients as u32, fps)
}

fn report(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "{label}: p50 {}  p99 {}  max {}",
        ms(percentile(&samples, 50.0)),
        ms(percentile(&samples, 99.0)),
        ms(*samples.last().unwrap())
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let secs = arg("--seconds", 5);
    let cmds = arg("--cmds", 3000) as usize;
    signals_raise();
    println!("rigweb front-door benchmark (servers + simulated IC-7610 in this process, loopback)");
    let (plain_srv, plain) = serve(false);
    let (tls_srv, tls) = serve(true);
    std::thread::sleep(Duration::from_millis(500));
    println!(
        "idle: RSS {} kB, {} threads (two servers with their simulators)",
        status_kb("self", "VmRSS"),
        threads()
    );

    // hostile clients
    let (rss, thr) = peak_while(|| {
        let (refused, answered) = slowloris(plain.addr, 12);
        println!(
            "1,000 slowloris connections for 12 s: {answered} answered 408 and came back, {refused} refused 503"
        );
    });
    let t = Instant::now();
    let ok = raw_get(plain.addr);
    println!(
        "  peak RSS {rss} kB, peak {thr} threads; GET /healthz meanwhile: {ok} in {}",
        ms(t.elapsed())
    );
    let (rss, thr) = peak_while(|| {
        let hs: Vec<_> = (0..6)
            .map(|_| std::thread::spawn(move || huge_head(plain.addr)))
            .collect();
        let codes: Vec<u16> = hs.into_iter().map(|h| h.join().unwrap()).collect();
        println!("6 clients sending 64 MB heads: answered {codes:?}");
    });
    println!("  peak RSS {rss} kB, peak {thr} threads");

    // throughput and latency, plain and TLS
    for t in [&plain, &tls] {
        let one = command_latencies(t, cmds, 1);
        report(
            &format!("cmd -> response ({}), 1 client, {cmds} set_freq", t.label()),
            one,
        );
        let tt = t.clone();
        let hs: Vec<_> = (0..8u64)
            .map(|c| {
                let t = tt.clone();
                std::thread::spawn(move || command_latencies(&t, cmds / 8, c + 10))
            })
            .collect();
        let all: Vec<Duration> = hs.into_iter().flat_map(|h| h.join().unwrap()).collect();
        report(
            &format!(
                "cmd -> response ({}), 8 clients, {} each",
                t.label(),
                cmds / 8
            ),
            all,
        );
        for conns in [1, 4] {
            println!(
                "GET /api/v1/state 200 ({}): {:.0} requests/s ({conns} keep-alive connection(s))",
                t.label(),
                state_rate(t, conns, secs)
            );
        }
    }

    // TLS costs
    let front0 = thread_cpu("http-front");
    for t in [&plain, &tls] {
        let c0 = thread_cpu("http-front");
        let rate = connection_rate(t, 2, secs);
        let cpu = thread_cpu("http-front") - c0;
        println!(
            "new connections ({}): {rate:.0}/s with one GET each; front-door CPU {:.0} µs per connection",
            t.label(),
            cpu.as_secs_f64() * 1e6 / (rate * secs as f64)
        );
    }
    let _ = front0;
    for t in [&plain, &tls] {
        let (cpu, fps) = scope_cost(t, 10, secs);
        println!(
            "scope client ({}) on /api/v1/scope: {fps:.1} frames/s each; server CPU {:.3} % of a core per client",
            t.label(),
            cpu.as_secs_f64() * 100.0 / secs as f64
        );
    }
    tls_srv.shutdown();
    plain_srv.shutdown();
}

fn raw_get(addr: SocketAddr) -> String {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return "connect failed".into();
    };
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let _ = s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out.lines().next().unwrap_or("no answer").to_string()
}

/// Enough descriptors for 1,000 client and 1,000 server sockets in one process.
fn signals_raise() {
    rigweb::signals::raise_fd_limit();
}
