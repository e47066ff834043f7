//! Independent peers: Python programs written straight from the protocol specification
//! (`tests/peers/*.py`, standard library only, none of rigweb's wire code), run as child
//! processes against our client and our simulator.
//!
//! * `anchor_mock.py` is the anchor project's fake radio (spec §7.1) with its quirks:
//!   replies with outer seq 0, no idles or pings, a malformed frame after OpenClose,
//!   NAK for almost everything.  Our client (`Radio`) has to work against it.
//! * `anchor_client.py` goes through a whole session the way the reference client does
//!   (spec §1–§4) against our simulator and prints a JSON summary of what it found.
//!
//! A peer's stderr is printed when a test fails, or always with `PEERS_VERBOSE=1`.
//! See `tests/peers/README.md`.

#[path = "../common/mod.rs"]
mod common;

mod client;
mod mock;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command as Process, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

const READY: Duration = Duration::from_secs(10);

/// A Python peer running as a child process; killed when dropped.
struct Peer {
    name: String,
    child: Child,
    /// Every stdout line that parsed as JSON, in order.
    lines: Arc<Mutex<Vec<Value>>>,
    /// Notified for every such line.
    events: Receiver<Value>,
    /// Everything the peer wrote to stderr (printed if the test fails).
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Peer {
    fn spawn(script: &str, args: &[&str]) -> Peer {
        let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "peers", script]
            .iter()
            .collect();
        let mut child = Process::new("python3")
            .arg(&path)
            .args(args)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (tx, events) = channel();
        let out = child.stdout.take().expect("stdout");
        let sink = lines.clone();
        thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    sink.lock().unwrap().push(v.clone());
                    let _ = tx.send(v);
                }
            }
        });
        let err = child.stderr.take().expect("stderr");
        let sink = stderr.clone();
        thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Peer {
            name: script.into(),
            child,
            lines,
            events,
            stderr,
        }
    }

    /// The next JSON line, waiting at most `timeout`.
    fn next_line(&self, timeout: Duration) -> Option<Value> {
        self.events.recv_timeout(timeout).ok()
    }

    /// Waits for the peer to exit (killing it after `timeout`); its status and last JSON line.
    fn finish(&mut self, timeout: Duration) -> (ExitStatus, Value) {
        let end = Instant::now() + timeout;
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                break s;
            }
            if Instant::now() >= end {
                let _ = self.child.kill();
                panic!(
                    "{} did not finish within {timeout:?}:\n{}",
                    self.name,
                    self.stderr_text()
                );
            }
            thread::sleep(Duration::from_millis(20));
        };
        // the reader thread may still be reading the last line
        let mut summary = Value::Null;
        let _ = wait_for(Duration::from_secs(2), || {
            summary = self
                .lines
                .lock()
                .unwrap()
                .last()
                .cloned()
                .unwrap_or(Value::Null);
            !summary.is_null()
        });
        (status, summary)
    }

    fn stderr_text(&self) -> String {
        self.stderr.lock().unwrap().join("\n")
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if thread::panicking() || std::env::var_os("PEERS_VERBOSE").is_some() {
            eprintln!("---- {} stderr ----\n{}", self.name, self.stderr_text());
        }
    }
}
