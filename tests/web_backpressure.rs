//! Backpressure over loopback (its own test binary, one test at a time, so that the
//! memory measured is one server's alone): a scope, meters or audio client with a small
//! receive buffer stops reading; the other client's rate does not change, the server
//! does not grow, and when the slow client resumes it gets the newest frames, with the
//! dropped ones as gaps in its sequence. The scope case runs plain and over TLS, one
//! after the other.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::rss_kb;
use common::web::*;
use rigweb::app::Tuning;
use serde_json::{Value, json};

/// One test at a time: the memory measured is the whole process's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn assert_rate(got: f64, want: f64, what: &str) {
    assert!(
        (want * 0.8..=want * 1.2).contains(&got),
        "{what}: {got:.1} fps, expected {want} ± 20 %"
    );
}

/// A client of `path` that upgrades by hand with a small receive buffer, sends `start`
/// (if any) and then reads only when told.
fn stalled_client(addr: SocketAddr, path: &str, start: Option<Value>, rcvbuf: i32) -> Conn {
    let mut s = wrap(socket_with_small_rcvbuf(addr, rcvbuf));
    s.write_all(&upgrade_request(path)).unwrap();
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut b).unwrap();
        head.push(b[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 101"));
    if let Some(msg) = start {
        s.write_all(&masked_text(&msg.to_string())).unwrap();
    }
    s
}

/// A client's text frame (masked, as clients must send).
fn masked_text(text: &str) -> Vec<u8> {
    let p = text.as_bytes();
    assert!(p.len() < 126);
    let key = [0x5A, 0xA5, 0x3C, 0xC3];
    let mut out = vec![0x81, 0x80 | p.len() as u8];
    out.extend_from_slice(&key);
    out.extend(p.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    out
}

fn socket_with_small_rcvbuf(addr: std::net::SocketAddr, rcvbuf: i32) -> TcpStream {
    // SAFETY: plain socket calls on a descriptor we own; sizes are passed correctly.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        assert!(fd >= 0);
        let v: libc::c_int = rcvbuf;
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            &v as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
        let std::net::SocketAddr::V4(v4) = addr else {
            panic!("IPv4")
        };
        let sa = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: v4.port().to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from(*v4.ip()).to_be(),
            },
            sin_zero: [0; 8],
        };
        let rc = libc::connect(
            fd,
            &sa as *const _ as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        );
        assert_eq!(rc, 0);
        use std::os::fd::FromRawFd;
        TcpStream::from_raw_fd(fd)
    }
}

/// Reads WebSocket frames (unmasked, server to client) from `s` for `dur`; returns the
/// sequences (u16 LE at `seq_at`) of the binary frames.
fn read_sequences(s: &mut Conn, dur: Duration, seq_at: usize) -> Vec<u16> {
    let end = Instant::now() + dur;
    let mut buf = Vec::new();
    let mut out = Vec::new();
    let mut tmp = vec![0u8; 65_536];
    while Instant::now() < end {
        s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        match s.read(&mut tmp) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&tmp[..n]),
            Err(_) => {}
        }
        loop {
            if buf.len() < 2 {
                break;
            }
            let (op, len7) = (buf[0] & 0x0F, usize::from(buf[1] & 0x7F));
            let (len, hdr) = match len7 {
                126 if buf.len() >= 4 => (usize::from(u16::from_be_bytes([buf[2], buf[3]])), 4),
                127 => panic!("huge frame"),
                126 => break,
                n => (n, 2),
            };
            if buf.len() < hdr + len {
                break;
            }
            let payload: Vec<u8> = buf[hdr..hdr + len].to_vec();
            buf.drain(..hdr + len);
            if op == 2 && payload.len() >= seq_at + 2 {
                out.push(u16::from_le_bytes([payload[seq_at], payload[seq_at + 1]]));
            }
        }
    }
    out
}

/// A stream as the test sees it.
struct Stream {
    path: &'static str,
    /// What starts it (none: frames flow from connect on).
    start: Option<Value>,
    /// Where the sequence is in a frame.
    seq_at: usize,
    /// The stalled client's receive buffer (asked for; Linux doubles it).
    rcvbuf: i32,
    /// How long it stalls.
    stall: Duration,
}

/// `fast` reads along while a stalled client of `stream` reads nothing for
/// `stream.stall`; then the stalled one resumes. `source` is the rate the stream is made at during `f`.
fn stall_and_resume(
    srv: &rigweb::app::Running,
    stream: &Stream,
    fast: &mut Ws,
    source: impl Fn(&mut dyn FnMut()) -> f64,
) {
    let a = srv.addr();
    let mut slow = stalled_client(a, stream.path, stream.start.clone(), stream.rcvbuf);
    let connected = Instant::now();
    fast.binaries_for(Duration::from_millis(800));
    let rss0 = rss_kb();
    let dur = stream.stall;
    let mut frames = Vec::new();
    let rate = source(&mut || frames = fast.binaries_for(dur));
    assert_rate(
        frames.len() as f64 / dur.as_secs_f64(),
        rate,
        &format!("{}: the fast client while another stalls", stream.path),
    );
    let grown = rss_kb().saturating_sub(rss0);
    assert!(grown < 8_192, "the server grew by {grown} kB");
    // it resumes: what was queued in the kernel drains quickly, then the newest frames
    // come, and the sequence shows the frames dropped for it
    let got = read_sequences(&mut slow, Duration::from_secs(3), stream.seq_at);
    let since = connected.elapsed().as_secs_f64();
    assert!(got.len() > 20, "{}: {}", stream.path, got.len());
    let gaps = got
        .windows(2)
        .filter(|w| w[1] != w[0].wrapping_add(1))
        .count();
    assert!(gaps >= 1, "{}: drops show as gaps: {got:?}", stream.path);
    // GET /metrics counts them (every gap is one drop or more)
    let stats = &srv.app.stream_stats;
    let dropped = match stream.path {
        "/api/v1/scope" => &stats.scope_dropped,
        "/api/v1/meters" => &stats.meters_dropped,
        _ => &stats.audio_dropped,
    };
    let dropped = dropped.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        dropped >= gaps as u64,
        "{}: {dropped} dropped, {gaps} gaps",
        stream.path
    );
    let newest = f64::from(*got.last().unwrap());
    assert!(
        newest > since * rate * 0.7,
        "{}: the newest frame is current: seq {newest} after {since:.1} s",
        stream.path
    );
}

#[test]
fn a_stalled_scope_client_neither_slows_others_nor_grows_the_server() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    run_as(Scheme::Plain, stalled_scope_client_case);
    run_as(Scheme::Tls, stalled_scope_client_case);
}

fn stalled_scope_client_case() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let mut fast = Ws::connect(srv.addr(), "/api/v1/scope", &[]).unwrap();
    let sim = srv.sim.as_ref().unwrap();
    let scope = Stream {
        path: "/api/v1/scope",
        start: None,
        seq_at: 11,
        rcvbuf: 4_096,
        stall: Duration::from_secs(4),
    };
    // a loaded machine may sweep slower than 30/s: compare with what the radio sent
    let swept = |f: &mut dyn FnMut()| {
        let (n0, t0) = (sim.stats().scope_sweeps, Instant::now());
        f();
        let n = sim.stats().scope_sweeps - n0;
        (n as f64 / t0.elapsed().as_secs_f64()).min(30.0)
    };
    stall_and_resume(&srv, &scope, &mut fast, swept);
    srv.shutdown();
}

#[test]
fn a_stalled_meters_client_neither_slows_others_nor_grows_the_server() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let start =
        json!({"type": "meters_start", "meters": ["smeter", "smeter_sub", "vd"], "fps": 20});
    let mut fast = Ws::connect(srv.addr(), "/api/v1/meters", &[]).unwrap();
    fast.send(&start);
    let meters = Stream {
        path: "/api/v1/meters",
        start: Some(start),
        seq_at: 1,
        // the smallest, and long enough to fill it: a meter frame is 10 to 30 bytes
        rcvbuf: 1,
        stall: Duration::from_secs(10),
    };
    stall_and_resume(&srv, &meters, &mut fast, |f| {
        f();
        20.0
    });
    srv.shutdown();
}

#[test]
fn a_stalled_audio_client_neither_slows_others_nor_grows_the_server() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let start = json!({"type": "audio_start", "direction": "rx", "codec": "pcm16", "channels": 1});
    let mut fast = Ws::connect(srv.addr(), "/api/v1/audio", &[]).unwrap();
    fast.send(&start);
    let audio = Stream {
        path: "/api/v1/audio",
        start: Some(start),
        seq_at: 2,
        rcvbuf: 4_096,
        stall: Duration::from_secs(4),
    };
    stall_and_resume(&srv, &audio, &mut fast, |f| {
        f();
        50.0
    });
    srv.shutdown();
}
