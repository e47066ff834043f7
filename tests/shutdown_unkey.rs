//! SIGTERM unkeys at once (issue 15.5): the real `rigweb` process against a simulator
//! on 127.0.0.1, a raw WebSocket client that keys and then never answers the close
//! frame, and a real signal. The transmitter goes off before the clients are closed, not
//! after the close wait.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};
use tungstenite::Message;

/// Reads server frames (unmasked) from raw bytes: true once a close frame (opcode 8)
/// has been seen in `buf`.
fn has_close_frame(buf: &[u8]) -> bool {
    let mut i = 0;
    while i + 2 <= buf.len() {
        let opcode = buf[i] & 0x0F;
        let (len, head) = match buf[i + 1] & 0x7F {
            126 if i + 4 <= buf.len() => (u16::from_be_bytes([buf[i + 2], buf[i + 3]]) as usize, 4),
            127 if i + 10 <= buf.len() => {
                let mut b = [0u8; 8];
                b.copy_from_slice(&buf[i + 2..i + 10]);
                (u64::from_be_bytes(b) as usize, 10)
            }
            126 | 127 => return false,
            n => (n as usize, 2),
        };
        if opcode == 8 {
            return true;
        }
        i += head + len;
    }
    false
}

#[test]
fn sigterm_unkeys_before_closing_a_client_that_never_answers_the_close() {
    // regression (issue 15.5): the owner's unkey went out only after the 2 s close wait
    let sim = start_sim("ic7610");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rigweb"))
        .args([
            "--radio",
            "127.0.0.1",
            "--radio-port",
            &sim.addrs().control.port().to_string(),
            "--radio-user",
            "tester",
            "--profile",
            "ic7610",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--log-level",
            "info",
        ])
        .env("RIGWEB_RADIO_PASSWORD", "s3cret")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let log = Arc::new(Mutex::new(String::new()));
    let reader = {
        let (log, stderr) = (log.clone(), child.stderr.take().unwrap());
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut l = log.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        })
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let ready = wait_for(Duration::from_secs(20), || {
        TcpStream::connect(addr).is_ok()
            && common::web::get(addr, "/api/v1/state").json()["connection"]["radioReady"] == true
    });
    assert!(ready, "server ready:\n{}", log.lock().unwrap());

    // the raw client keys
    let tcp = TcpStream::connect(addr).unwrap();
    let (mut ws, _) = tungstenite::client(format!("ws://{addr}/api/v1/ws"), tcp).unwrap();
    ws.send(Message::Text(
        json!({"type":"cmd","id":"k","name":"ptt","params":{"state":true}})
            .to_string()
            .into(),
    ))
    .unwrap();
    ws.get_mut()
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    loop {
        let m = ws.read().expect("the key's response");
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v["type"] == "response" && v["id"] == "k" {
                assert_eq!(v["ok"], true, "{v}");
                break;
            }
        }
    }
    assert!(wait_for(Duration::from_secs(5), || sim
        .snapshot()
        .is_some_and(|s| s.ptt)));
    // take what the server sent so far (events), so that the raw reads below start at a
    // frame boundary
    ws.get_mut()
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    while ws.read().is_ok() {}

    // SIGTERM; the client never reads again through tungstenite, so the close frame is
    // never answered; its socket is read raw (which answers nothing)
    let t0 = Instant::now();
    // SAFETY: signalling our own child process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let mut raw = ws.into_inner();
    raw.set_read_timeout(Some(Duration::from_millis(2)))
        .unwrap();
    let mut bytes = Vec::new();
    let (mut close_seen, mut cut) = (None, None);
    let mut unkey = None;
    let deadline = t0 + Duration::from_secs(20);
    while Instant::now() < deadline && (cut.is_none() || unkey.is_none()) {
        if unkey.is_none() && sim.snapshot().is_some_and(|s| !s.ptt) {
            unkey = Some(t0.elapsed());
        }
        if cut.is_none() {
            let mut buf = [0u8; 4096];
            match raw.read(&mut buf) {
                Ok(0) => cut = Some(t0.elapsed()),
                Ok(n) => {
                    bytes.extend_from_slice(&buf[..n]);
                    if close_seen.is_none() && has_close_frame(&bytes) {
                        close_seen = Some(t0.elapsed());
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => cut = Some(t0.elapsed()),
            }
        }
    }
    let status = child.wait().unwrap();
    reader.join().unwrap();
    let log = log.lock().unwrap().clone();
    println!(
        "SIGTERM -> unkey seen by the radio {unkey:?}, close frame {close_seen:?}, socket closed {cut:?}"
    );
    let unkey = unkey.unwrap_or_else(|| panic!("the radio was never unkeyed:\n{log}"));
    let cut = cut.unwrap_or_else(|| panic!("the client was never cut:\n{log}"));
    assert!(close_seen.is_some(), "a close frame was sent:\n{log}");
    assert!(
        unkey < cut,
        "the unkey ({unkey:?}) comes before the close wait ends ({cut:?}):\n{log}"
    );
    assert!(
        log.contains("stopping: PTT released"),
        "confirmed by the radio before the clients were closed:\n{log}"
    );
    assert!(status.success(), "clean exit on SIGTERM: {status:?}\n{log}");
    assert_eq!(sim.stats().clean_logouts, 1, "clean radio logout:\n{log}");
}
