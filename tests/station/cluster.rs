//! A DX-cluster node on 127.0.0.1 that plays a script per connection and records every
//! byte it receives with the time it came, so tests can say what the client wrote and
//! when.

#![allow(dead_code)]

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// What a connection did: bytes received, with when.
#[derive(Debug, Clone, Default)]
pub struct Heard {
    /// (connection, time since it was accepted, bytes)
    pub chunks: Vec<(usize, Duration, Vec<u8>)>,
}

impl Heard {
    /// Everything connection `conn` received, as text.
    pub fn text(&self, conn: usize) -> String {
        let bytes: Vec<u8> = self
            .chunks
            .iter()
            .filter(|(c, _, _)| *c == conn)
            .flat_map(|(_, _, b)| b.clone())
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// When connection `conn` first received anything.
    pub fn first_at(&self, conn: usize) -> Option<Duration> {
        self.chunks
            .iter()
            .find(|(c, _, _)| *c == conn)
            .map(|(_, t, _)| *t)
    }
}

/// One accepted connection, as the script sees it.
pub struct Conn {
    stream: TcpStream,
    index: usize,
    accepted: Instant,
    heard: Arc<Mutex<Heard>>,
    pending: Vec<u8>,
}

impl Conn {
    /// Sends bytes (errors end the script quietly: the client left).
    pub fn send(&mut self, bytes: &[u8]) -> bool {
        self.stream.write_all(bytes).is_ok()
    }

    /// Reads until a line ends (CR or LF) or `timeout`; None when nothing came.
    pub fn line(&mut self, timeout: Duration) -> Option<String> {
        let end = Instant::now() + timeout;
        loop {
            if let Some(i) = self.pending.iter().position(|&b| b == b'\n' || b == b'\r') {
                let line: Vec<u8> = self.pending.drain(..=i).collect();
                let text = String::from_utf8_lossy(&line).trim().to_string();
                if text.is_empty() {
                    continue;
                }
                return Some(text);
            }
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() || !self.read_some(left) {
                return None;
            }
        }
    }

    /// True if anything arrives within `wait`.
    pub fn hears_within(&mut self, wait: Duration) -> bool {
        !self.pending.is_empty() || self.read_some(wait) && !self.pending.is_empty()
    }

    fn read_some(&mut self, wait: Duration) -> bool {
        let _ = self
            .stream
            .set_read_timeout(Some(wait.max(Duration::from_millis(1))));
        let mut buf = [0u8; 4096];
        match self.stream.read(&mut buf) {
            Ok(0) => false,
            Ok(n) => {
                self.heard.lock().chunks.push((
                    self.index,
                    self.accepted.elapsed(),
                    buf[..n].to_vec(),
                ));
                self.pending.extend_from_slice(&buf[..n]);
                true
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => false,
            Err(_) => false,
        }
    }

    /// Keeps the connection open (recording) until the client closes it or `wait` ends.
    pub fn hold(&mut self, wait: Duration) {
        let end = Instant::now() + wait;
        while Instant::now() < end {
            let left = end.saturating_duration_since(Instant::now());
            let _ = self
                .stream
                .set_read_timeout(Some(left.max(Duration::from_millis(1))));
            let mut buf = [0u8; 4096];
            match self.stream.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => self.heard.lock().chunks.push((
                    self.index,
                    self.accepted.elapsed(),
                    buf[..n].to_vec(),
                )),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(_) => return,
            }
        }
    }
}

/// A script: what the node does on a connection.
pub type Script = Arc<dyn Fn(&mut Conn) + Send + Sync>;

/// See the module docs.
pub struct Node {
    addr: SocketAddr,
    heard: Arc<Mutex<Heard>>,
    accepted: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Node {
    /// A node on a fresh port.
    pub fn start(script: Script) -> Node {
        Node::start_on(SocketAddr::from(([127, 0, 0, 1], 0)), script)
    }

    /// A node on `addr` (to come back on the port of one that went away).
    pub fn start_on(addr: SocketAddr, script: Script) -> Node {
        let listener = TcpListener::bind(addr).expect("bind the node");
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let heard = Arc::new(Mutex::new(Heard::default()));
        let accepted = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (h, n, s) = (heard.clone(), accepted.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut conns = Vec::new();
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream.set_nonblocking(false).unwrap();
                        let index = n.fetch_add(1, Ordering::SeqCst);
                        let (script, heard) = (script.clone(), h.clone());
                        conns.push(std::thread::spawn(move || {
                            let mut c = Conn {
                                stream,
                                index,
                                accepted: Instant::now(),
                                heard,
                                pending: Vec::new(),
                            };
                            script(&mut c);
                            let _ = c.stream.shutdown(std::net::Shutdown::Both);
                        }));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
            drop(listener);
            for c in conns {
                let _ = c.join();
            }
        });
        Node {
            addr,
            heard,
            accepted,
            stop,
            thread: Some(thread),
        }
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// What it received.
    pub fn heard(&self) -> Heard {
        self.heard.lock().clone()
    }

    /// Stops listening (connections end when their scripts do).
    pub fn stop(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// The login dialog of each dialect, written from the cluster programs' behaviour: the
/// banner, the prompt the client must wait for, the greeting after the call.
pub mod dialect {
    /// DXSpider: `login: ` without a newline.
    pub const DXSPIDER_BANNER: &[u8] =
        b"\r\nHello, this is GB7TST in Testville, running DXSpider V1.57 build 582\r\n\r\nlogin: ";
    /// DXSpider after the call, ending in its prompt.
    pub fn dxspider_greeting(call: &str) -> Vec<u8> {
        format!(
            "Hello {call}, this is GB7TST in Testville\r\nrunning DXSpider V1.57 build 582\r\n\
             Capabilities: ve7cc rbn\r\nCluster: 312 nodes, 12 local / 2204 total users  Max users 6000  Uptime 12 13:45\r\n\
             {call} de GB7TST 21-Mar-2024 1530Z dxspider >\r\n"
        )
        .into_bytes()
    }
    /// AR-Cluster: a banner ending in "enter your call".
    pub const AR_BANNER: &[u8] =
        b"\r\nWelcome to the AR-Cluster node K1TST (AR-Cluster Version 6)\r\nTelnet access\r\n\r\nPlease enter your call: ";
    /// CC-Cluster: the prompt on its own line.
    pub const CC_BANNER: &[u8] =
        b"CC-Cluster Version 4.0 - VE7TST-2\r\n\r\nPlease enter your call:\r\n";
    /// The Reverse Beacon Network's telnet server.
    pub const RBN_BANNER: &[u8] =
        b"Welcome to the Reverse Beacon Network.\r\n\r\nPlease enter your call: ";
}
