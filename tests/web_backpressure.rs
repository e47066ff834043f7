//! Backpressure over loopback (its own test binary, so that the memory measured is
//! this server's alone): a scope client with a small receive buffer stops reading; the
//! other client's rate does not change, the server does not grow, and when the slow
//! client resumes it gets the newest frames, with the dropped ones as gaps in its
//! sequence. Plain and over TLS, one after the other (both at once would blur the
//! memory measured).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::web::*;
use rigweb::app::Tuning;

fn assert_rate(got: f64, want: f64, what: &str) {
    assert!(
        (want * 0.8..=want * 1.2).contains(&got),
        "{what}: {got:.1} fps, expected {want} ± 20 %"
    );
}

/// `VmRSS` of this process (server and clients), kB.
fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find(|l| l.starts_with("VmRSS"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// A scope client that upgrades by hand with a small receive buffer and reads only when
/// told.
fn stalled_client(addr: std::net::SocketAddr) -> Conn {
    let mut s = wrap(socket_with_small_rcvbuf(addr));
    s.write_all(
        b"GET /api/v1/scope HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .unwrap();
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut b).unwrap();
        head.push(b[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 101"));
    s
}

fn socket_with_small_rcvbuf(addr: std::net::SocketAddr) -> TcpStream {
    // SAFETY: plain socket calls on a descriptor we own; sizes are passed correctly.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        assert!(fd >= 0);
        let v: libc::c_int = 4_096;
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
/// scope sequences seen.
fn read_scope_sequences(s: &mut Conn, dur: Duration, buf: &mut Vec<u8>) -> Vec<u16> {
    let end = Instant::now() + dur;
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
            if op == 2 && payload.len() >= 16 {
                out.push(u16::from_le_bytes([payload[11], payload[12]]));
            }
        }
    }
    out
}

#[test]
fn a_stalled_client_neither_slows_others_nor_grows_the_server() {
    run_as(Scheme::Plain, stalled_client_case);
    run_as(Scheme::Tls, stalled_client_case);
}

fn stalled_client_case() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    let mut fast = Ws::connect(a, "/api/v1/scope", &[]).unwrap();
    let mut slow = stalled_client(a);
    let connected = Instant::now();
    fast.binaries_for(Duration::from_millis(800));
    let rss0 = rss_kb();
    // the slow client reads nothing for 4 s
    let dur = Duration::from_secs(4);
    let sim = srv.sim.as_ref().unwrap();
    let swept0 = sim.stats().scope_sweeps;
    let frames = fast.binaries_for(dur);
    // a loaded machine may sweep slower than 30/s: compare with what the radio sent
    let swept = (sim.stats().scope_sweeps - swept0) as f64 / dur.as_secs_f64();
    let rate = frames.len() as f64 / dur.as_secs_f64();
    assert_rate(
        rate,
        swept.min(30.0),
        "the fast client while another stalls",
    );
    let grown = rss_kb().saturating_sub(rss0);
    assert!(grown < 8_192, "the server grew by {grown} kB");
    // it resumes: what was queued in the kernel drains quickly, then the newest frames
    // come, and the sequence shows the frames dropped for it
    let mut buf = Vec::new();
    let got = read_scope_sequences(&mut slow, Duration::from_secs(3), &mut buf);
    let since = connected.elapsed().as_secs_f64();
    assert!(got.len() > 20, "{}", got.len());
    let gaps = got
        .windows(2)
        .filter(|w| w[1] != w[0].wrapping_add(1))
        .count();
    assert!(gaps >= 1, "drops show as gaps: {got:?}");
    let newest = f64::from(*got.last().unwrap());
    assert!(
        newest > since * swept.min(30.0) * 0.7,
        "the newest frame is current: seq {newest} after {since:.1} s"
    );
    srv.shutdown();
}
