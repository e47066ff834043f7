//! The front door's flow control, plain and over TLS: pipelined requests beyond what
//! one read takes, the caps in total, and clients that half-close or leave early.

#[macro_use]
mod common;

use std::io::{Read, Write};
use std::time::Duration;

use common::web::*;
use rigweb::app::{Running, Tuning};
use rigweb::web::context::WebConfig;

fn server_with(web: WebConfig) -> Running {
    start_server(
        serve_config("ic7610", None),
        Tuning {
            web: Some(web),
            ..Tuning::default()
        },
    )
}

/// Reads until `n` answers (`HTTP/1.1 200`) came, the connection ends or nothing comes
/// for the read timeout; returns how many came.
fn count_answers(s: &mut impl Read, n: usize) -> usize {
    const MARK: &[u8] = b"HTTP/1.1 200 ";
    let (mut seen, mut tail, mut buf) = (0, Vec::new(), vec![0u8; 16 * 1024]);
    while seen < n {
        let got = match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(k) => k,
        };
        tail.extend_from_slice(&buf[..got]);
        seen += tail.windows(MARK.len()).filter(|w| *w == MARK).count();
        let keep = tail.len().saturating_sub(MARK.len() - 1);
        tail.drain(..keep);
    }
    seen
}

both_ways!(pipelined_requests_beyond_one_read_are_all_answered);
fn pipelined_requests_beyond_one_read_are_all_answered() {
    // review: over TLS, plaintext rustls had decrypted beyond the 16 KiB the session
    // takes at a time stayed there (the socket looked idle) until the idle timeout
    let srv = server_with(WebConfig::default());
    let mut s = connect(srv.addr());
    let n = 1000;
    s.write_all(&b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".repeat(n))
        .unwrap();
    s.flush().unwrap();
    s.set_read_timeout(Some(Duration::from_secs(8))).unwrap();
    assert_eq!(count_answers(&mut s, n), n);
    srv.shutdown();
}
