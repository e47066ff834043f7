//! The loop itself, driven by hand: a real [`AppCtx`] (its radio link points at a UDP
//! socket that never answers) and a fake tiny_http on a local listener.

use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::Loop;
use crate::lan::control::ControlConfig;
use crate::lan::link::LinkConfig;
use crate::profile::ProfileRegistry;
use crate::radio::executor::ExecutorConfig;
use crate::radio::meter_pump::MeterPump;
use crate::radio::service::{Radio, RadioConfig};
use crate::web::context::{AppCtx, WebConfig};
use crate::web::front::FrontConfig;
use crate::web::front::backend::{Job, ResponseReader};
use crate::web::front::session::SessionLimits;

/// What a test loop needs kept alive.
pub(super) struct Harness {
    pub lp: Loop,
    pub app: Arc<AppCtx>,
    _silent_radio: UdpSocket,
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.app.meters.stop();
        self.app.radio.shutdown();
    }
}

/// A loop without listening ports whose tiny_http is at `backend`.
pub(super) fn harness(backend: SocketAddr, backend_connections: usize) -> Harness {
    harness_with(backend, backend_connections, SessionLimits::default())
}

/// [`harness`] with other session limits.
pub(super) fn harness_with(
    backend: SocketAddr,
    backend_connections: usize,
    limits: SessionLimits,
) -> Harness {
    let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
    let registry = ProfileRegistry::embedded();
    let radio = Arc::new(
        Radio::start(RadioConfig {
            link: LinkConfig::new(silent.local_addr().unwrap(), ControlConfig::default()),
            profile: registry.get("ic7610").unwrap(),
            registry,
            executor: ExecutorConfig::default(),
            queue: 16,
            rate_window: Duration::from_millis(50),
        })
        .unwrap(),
    );
    let meters = MeterPump::start(&radio);
    let app = Arc::new(AppCtx::new(radio, meters, WebConfig::default()));
    let cfg = FrontConfig {
        limits,
        max_connections: 64,
        max_connections_per_client: 64,
        backend,
        secret: "s".into(),
        backend_connections,
        backend_timeout: Duration::from_secs(60),
    };
    let (_waker, wake) = crate::net::waker::pair().unwrap();
    let lp = Loop::new(
        Vec::new(),
        cfg,
        app.clone(),
        wake,
        Arc::new(AtomicBool::new(false)),
    )
    .unwrap();
    Harness {
        lp,
        app,
        _silent_radio: silent,
    }
}

fn job() -> Job {
    Job {
        client: None,
        bytes: b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        reader: ResponseReader::new(false, false),
    }
}

#[test]
fn backend_connections_failing_while_requests_are_written_panic_nothing() {
    // review: dispatch walked 0..conns.len() fixed at the start while driving a
    // connection that failed removed it: the next index was out of bounds and the
    // front door's thread died
    let tiny = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut h = harness(tiny.local_addr().unwrap(), 3);
    let now = Instant::now();
    for _ in 0..3 {
        h.lp.backend.queue.push_back(job());
    }
    assert!(h.lp.backend.dispatch(now).is_empty());
    assert_eq!(h.lp.backend.conns.len(), 3);
    assert_eq!(h.lp.backend.writers().len(), 3);
    // tiny_http drops every connection before the requests are written
    for _ in 0..3 {
        drop(tiny.accept().unwrap());
    }
    std::thread::sleep(Duration::from_millis(100));
    h.lp.dispatch(now);
    assert!(
        h.lp.backend.conns.is_empty(),
        "the failed connections are gone"
    );
}

/// The loop with one plain API port; returns it and the port's address.
pub(super) fn harness_with_port(backend: SocketAddr) -> (Harness, SocketAddr) {
    add_port(harness(backend, 2))
}

/// Gives the loop of `h` a plain API port.
fn add_port(mut h: Harness) -> (Harness, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    h.lp.ports.push(super::Port {
        local: addr,
        listener,
        role: crate::web::front::PortRole::Api(None),
    });
    (h, addr)
}

/// Turns the loop for `dur`, each turn waiting at most 20 ms; returns how many turns.
pub(super) fn turn_for(lp: &mut Loop, dur: Duration) -> usize {
    let mut buf = vec![0u8; 16 * 1024];
    let end = Instant::now() + dur;
    let mut turns = 0;
    while Instant::now() < end {
        lp.turn(&mut buf, Some(Instant::now() + Duration::from_millis(20)));
        turns += 1;
    }
    turns
}

#[test]
fn a_half_closed_client_waiting_for_its_response_does_not_spin_the_loop() {
    use std::io::Write;
    // tiny_http takes the request and never answers
    let tiny = TcpListener::bind("127.0.0.1:0").unwrap();
    let (mut h, addr) = harness_with_port(tiny.local_addr().unwrap());
    let mut client = std::net::TcpStream::connect(addr).unwrap();
    client
        .write_all(b"GET /api/v1/state HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    client.shutdown(std::net::Shutdown::Write).unwrap();
    turn_for(&mut h.lp, Duration::from_millis(100));
    let (_held, _) = tiny.accept().unwrap();
    assert_eq!(h.lp.backend.conns.len(), 1, "the request went to tiny_http");
    // at most one turn per 20 ms when nothing happens; the EOF made every poll return
    // at once before (thousands of turns)
    let turns = turn_for(&mut h.lp, Duration::from_millis(400));
    assert!(
        turns <= 40,
        "{turns} turns in 400 ms while nothing happened"
    );
}

/// A stand-in for tiny_http: answers every request on every connection with `size`
/// bytes; counts the requests it read.
fn fake_tiny_http(size: usize) -> (SocketAddr, Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{Read, Write};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let served = Arc::new(AtomicUsize::new(0));
    let counter = served.clone();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { return };
            let counter = counter.clone();
            std::thread::spawn(move || {
                let mut head =
                    format!("HTTP/1.1 200 OK\r\nContent-Length: {size}\r\n\r\n").into_bytes();
                head.resize(head.len() + size, b'x');
                let mut pending = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    let Ok(n) = s.read(&mut buf) else { return };
                    if n == 0 {
                        return;
                    }
                    pending.extend_from_slice(&buf[..n]);
                    while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                        pending.drain(..end + 4);
                        counter.fetch_add(1, Ordering::SeqCst);
                        if s.write_all(&head).is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    (addr, served)
}

#[test]
fn a_client_pipelining_without_reading_costs_a_bounded_buffer() {
    use std::io::{Read, Write};
    use std::sync::atomic::Ordering;
    // review: after each response the next pipelined request was served whether or not
    // the client read anything, and every response was copied whole into the output:
    // a client that never reads grew it without end
    let (tiny, served) = fake_tiny_http(100 * 1024);
    let (mut h, addr) = harness_with_port(tiny);
    let client = std::net::TcpStream::connect(addr).unwrap();
    let mut writer = client.try_clone().unwrap();
    let sender = std::thread::spawn(move || {
        let reqs = b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n".repeat(2000);
        let _ = writer.write_all(&reqs);
    });
    let mut peak = 0;
    let mut buf = vec![0u8; 16 * 1024];
    let end = Instant::now() + Duration::from_millis(1500);
    while Instant::now() < end {
        h.lp.turn(&mut buf, Some(Instant::now() + Duration::from_millis(20)));
        for c in h.lp.clients.iter().flatten() {
            peak = peak.max(c.unsent());
        }
    }
    let stalled = served.load(Ordering::SeqCst);
    turn_for(&mut h.lp, Duration::from_millis(300));
    assert_eq!(
        served.load(Ordering::SeqCst),
        stalled,
        "no more requests go to tiny_http while the client reads nothing"
    );
    assert!(
        stalled < 500,
        "{stalled} responses of 100 KB for a client that reads none"
    );
    assert!(
        peak <= super::OUT_MAX + 16 * 1024 + 256,
        "{peak} bytes unsent for one client"
    );
    let c =
        h.lp.clients
            .iter()
            .flatten()
            .next()
            .expect("still connected");
    assert!(!c.wants_read(), "the client is not read from meanwhile");
    // the client reads: the rest is served
    client.set_nonblocking(true).unwrap();
    let mut reader = client;
    let mut got = 0usize;
    let end = Instant::now() + Duration::from_secs(20);
    while served.load(Ordering::SeqCst) < stalled + 20 && Instant::now() < end {
        h.lp.turn(&mut buf, Some(Instant::now() + Duration::from_millis(5)));
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            got += n;
        }
    }
    assert!(
        served.load(Ordering::SeqCst) >= stalled + 20,
        "serving resumes once the client reads ({got} bytes read)"
    );
    drop(sender);
}

#[test]
fn a_client_that_reads_none_of_its_answers_is_dropped_after_the_idle_timeout() {
    use std::io::Write;
    let (tiny, _served) = fake_tiny_http(100 * 1024);
    let limits = SessionLimits {
        idle_timeout: Duration::from_millis(300),
        ..SessionLimits::default()
    };
    let (mut h, addr) = add_port(harness_with(tiny, 2, limits));
    let mut client = std::net::TcpStream::connect(addr).unwrap();
    client
        .write_all(&b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n".repeat(100))
        .unwrap();
    turn_for(&mut h.lp, Duration::from_millis(200));
    assert_eq!(h.lp.clients.iter().flatten().count(), 1);
    turn_for(&mut h.lp, Duration::from_millis(1500));
    assert_eq!(
        h.lp.clients.iter().flatten().count(),
        0,
        "its place is free again"
    );
}
