//! Web-test helpers: the whole server in-process against its built-in simulator, a raw
//! HTTP/1.1 client (full control over bytes, for hostile tests) and a WebSocket client.
//!
//! Every helper speaks plain TCP or TLS, whichever the server at that address serves:
//! a test wrapped in `both_ways!(name)` runs twice, once against a plain server and once
//! against one with `--tls-auto`, whose local CA is then the clients' only trust root.

#![allow(dead_code)]

use std::cell::Cell;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};

use rigweb::app::{Running, Tuning};
use rigweb::config::ServeConfig;
use serde_json::{Value, json};
use tungstenite::{Message, WebSocket};

/// Server configuration for tests: simulated `model`, ephemeral port, optional token.
pub fn serve_config(model: &str, token: Option<&str>) -> ServeConfig {
    ServeConfig {
        auth_token: token.map(|t| rigweb::config::Secret(t.to_string())),
        ..ServeConfig::loopback_simulator(model)
    }
}

/// Runs `name` twice: against a plain server and against a TLS one.
#[macro_export]
macro_rules! both_ways {
    ($name:ident) => {
        mod $name {
            #[test]
            fn plain() {
                $crate::common::web::run_as($crate::common::web::Scheme::Plain, super::$name)
            }
            #[test]
            fn tls() {
                $crate::common::web::run_as($crate::common::web::Scheme::Tls, super::$name)
            }
        }
    };
}

/// How the servers a test starts serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Plain HTTP.
    Plain,
    /// HTTPS with the automatic local CA.
    Tls,
}

thread_local! {
    static SCHEME: Cell<Scheme> = const { Cell::new(Scheme::Plain) };
}

/// Runs `test` with servers started as `scheme`.
pub fn run_as(scheme: Scheme, test: fn()) {
    SCHEME.with(|s| s.set(scheme));
    test();
}

/// Runs `f` with the servers it starts serving TLS, and returns what it returns.
pub fn run_tls<T>(f: impl FnOnce() -> T) -> T {
    let before = SCHEME.with(Cell::get);
    SCHEME.with(|s| s.set(Scheme::Tls));
    let out = f();
    SCHEME.with(|s| s.set(before));
    out
}

/// TLS client settings per server address (servers started with TLS).
fn tls_clients() -> &'static Mutex<HashMap<SocketAddr, Arc<rustls::ClientConfig>>> {
    static M: OnceLock<Mutex<HashMap<SocketAddr, Arc<rustls::ClientConfig>>>> = OnceLock::new();
    M.get_or_init(Default::default)
}

/// A client configuration that trusts only the CA in `ca_pem`.
pub fn client_config(ca_pem: &str) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        roots.add(c.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Arc::new(
        rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth(),
    )
}

/// A fresh, empty directory for one server's files.
pub fn temp_data_dir() -> std::path::PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "rigweb-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Starts the server (with TLS in a `both_ways!` TLS run) and waits until the radio is
/// ready.
pub fn start_server(mut cfg: ServeConfig, tuning: Tuning) -> Running {
    if SCHEME.with(Cell::get) == Scheme::Tls && cfg.tls.is_none() {
        cfg.tls = Some(rigweb::web::tls::TlsSource::Auto {
            data_dir: temp_data_dir(),
        });
    }
    let r = rigweb::app::start_with(&cfg, tuning).expect("server starts");
    if let Some(ca) = r.web.ca_pem() {
        tls_clients()
            .lock()
            .unwrap()
            .insert(r.addr(), client_config(&ca));
    }
    let ok = super::wait_for(Duration::from_secs(10), || {
        r.app.radio.store().read(|c| c.connection.radio_ready)
    });
    assert!(ok, "radio ready");
    r
}

/// A parsed HTTP response.
#[derive(Debug)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// A header value.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }
}

/// A connection to a test server: plain TCP, or TLS when the server speaks it.
pub enum Conn {
    /// Plain TCP.
    Plain(TcpStream),
    /// TLS.
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

impl Conn {
    /// The socket.
    pub fn tcp(&self) -> &TcpStream {
        match self {
            Conn::Plain(s) => s,
            Conn::Tls(t) => &t.sock,
        }
    }

    /// Sets the socket's read timeout.
    pub fn set_read_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        self.tcp().set_read_timeout(t)
    }

    /// True for TLS.
    pub fn is_tls(&self) -> bool {
        matches!(self, Conn::Tls(_))
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Conn::Plain(s) => s.read(buf),
            Conn::Tls(t) => t.read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Conn::Plain(s) => s.write(buf),
            Conn::Tls(t) => t.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Conn::Plain(s) => s.flush(),
            Conn::Tls(t) => t.flush(),
        }
    }
}

/// Wraps `tcp` in TLS with `cfg` (server name: the address).
pub fn tls_over(tcp: TcpStream, cfg: Arc<rustls::ClientConfig>) -> Conn {
    let name = ServerName::from(tcp.peer_addr().unwrap().ip());
    let conn = rustls::ClientConnection::new(cfg, name).unwrap();
    Conn::Tls(Box::new(rustls::StreamOwned::new(conn, tcp)))
}

/// Wraps a socket connected to a test server as that server expects (TLS or not).
pub fn wrap(tcp: TcpStream) -> Conn {
    let addr = tcp.peer_addr().unwrap();
    let cfg = tls_clients().lock().unwrap().get(&addr).cloned();
    match cfg {
        Some(cfg) => tls_over(tcp, cfg),
        None => Conn::Plain(tcp),
    }
}

/// Connects to `addr` as its server expects (TLS or not).
pub fn connect(addr: SocketAddr) -> Conn {
    let tcp = TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let cfg = tls_clients().lock().unwrap().get(&addr).cloned();
    match cfg {
        Some(cfg) => tls_over(tcp, cfg),
        None => Conn::Plain(tcp),
    }
}

/// A WebSocket upgrade request for `path`, written by hand (RFC 6455's sample key), for
/// tests that drive the socket below the client library.
pub fn upgrade_request(path: &str) -> Vec<u8> {
    format!(
        "GET {path} HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .into_bytes()
}

/// Sends raw bytes and reads one response (the connection is closed after).
pub fn raw(addr: SocketAddr, bytes: &[u8]) -> HttpResponse {
    let mut s = connect(addr);
    s.write_all(bytes).unwrap();
    read_response(&mut s)
}

/// Reads one response from `s`, and not a byte more: pipelined answers that follow it
/// stay in the stream for the next call.
pub fn read_response(s: &mut impl Read) -> HttpResponse {
    let mut buf = Vec::new();
    while !buf.ends_with(b"\r\n\r\n") {
        let Some(b) = read_byte(s, "response head") else {
            panic!(
                "connection closed before a response: {:?}",
                String::from_utf8_lossy(&buf)
            );
        };
        buf.push(b);
    }
    let head = String::from_utf8_lossy(&buf[..buf.len() - 4]).to_string();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: Option<usize> = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok());
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let mut body = Vec::new();
    if chunked {
        // tiny_http sends bodies over 32 KiB chunked
        loop {
            let line = read_line(s);
            let size = usize::from_str_radix(line.split(';').next().unwrap_or("").trim(), 16)
                .unwrap_or_else(|_| panic!("chunk size line {line:?}"));
            if size == 0 {
                // trailers, up to the empty line
                while !read_line(s).is_empty() {}
                break;
            }
            let at = body.len();
            body.resize(at + size, 0);
            s.read_exact(&mut body[at..]).expect("chunk");
            assert_eq!(read_line(s), "", "a chunk ends with CRLF");
        }
    } else if let Some(len) = len {
        // up to its length; a HEAD answer's length has no body, and ends with the stream
        // when the connection closes
        let mut tmp = [0u8; 4096];
        while body.len() < len {
            let want = (len - body.len()).min(tmp.len());
            match s.read(&mut tmp[..want]) {
                Ok(0) => break,
                Ok(n) => body.extend_from_slice(&tmp[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => panic!("body: {e:?}"),
            }
        }
    } else if headers
        .iter()
        .any(|(k, v)| k == "connection" && v.eq_ignore_ascii_case("close"))
    {
        // no length: the body ends with the stream
        s.read_to_end(&mut body).expect("body");
    }
    HttpResponse {
        status,
        headers,
        body,
    }
}

/// One byte, or `None` at the end of the stream.
fn read_byte(s: &mut impl Read, what: &str) -> Option<u8> {
    let mut b = [0u8; 1];
    loop {
        match s.read(&mut b) {
            Ok(0) => return None,
            Ok(_) => return Some(b[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => panic!("{what}: {e:?}"),
        }
    }
}

/// One CRLF-terminated line, without the CRLF.
fn read_line(s: &mut impl Read) -> String {
    let mut line = Vec::new();
    while !line.ends_with(b"\r\n") {
        line.push(read_byte(s, "chunked body").expect("end of stream in a chunked body"));
    }
    line.truncate(line.len() - 2);
    String::from_utf8_lossy(&line).into_owned()
}

/// An HTTP request with `Connection: close`.
pub fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> HttpResponse {
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(b) = body {
        req.push_str(&format!("Content-Length: {}\r\n", b.len()));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    if let Some(b) = body {
        bytes.extend_from_slice(b);
    }
    raw(addr, &bytes)
}

/// `GET path`.
pub fn get(addr: SocketAddr, path: &str) -> HttpResponse {
    http(addr, "GET", path, &[], None)
}

/// `POST path` with a JSON body.
pub fn post_json(addr: SocketAddr, path: &str, body: &Value) -> HttpResponse {
    let b = body.to_string();
    http(
        addr,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        Some(b.as_bytes()),
    )
}

/// A WebSocket client for tests.
pub struct Ws {
    /// The socket.
    pub ws: WebSocket<Conn>,
    /// Binary frames seen while waiting for JSON.
    pub binaries: Vec<Vec<u8>>,
    /// JSON messages read but not yet consumed by [`Ws::until`].
    backlog: std::collections::VecDeque<Value>,
}

/// Why an upgrade failed: the HTTP status and body.
#[derive(Debug)]
pub struct Refused {
    /// Status.
    pub status: u16,
    /// Body.
    pub body: String,
}

impl Ws {
    /// Connects to `path` (with optional extra headers).
    pub fn connect(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Result<Ws, Refused> {
        use tungstenite::client::IntoClientRequest;
        let mut req = format!("ws://{addr}{path}").into_client_request().unwrap();
        for (k, v) in headers {
            req.headers_mut().insert(
                tungstenite::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        let stream = connect(addr);
        match tungstenite::client(req, stream) {
            Ok((ws, _)) => Ok(Ws {
                ws,
                binaries: Vec::new(),
                backlog: Default::default(),
            }),
            Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(resp))) => {
                Err(Refused {
                    status: resp.status().as_u16(),
                    body: String::from_utf8_lossy(resp.body().as_deref().unwrap_or(&[]))
                        .to_string(),
                })
            }
            Err(e) => panic!("handshake: {e}"),
        }
    }

    /// Connects to the control channel.
    pub fn control(addr: SocketAddr) -> Ws {
        Ws::connect(addr, "/api/v1/ws", &[]).expect("upgrade")
    }

    /// Sends a JSON message.
    pub fn send(&mut self, v: &Value) {
        self.ws.send(Message::Text(v.to_string().into())).unwrap();
    }

    /// The next JSON message within `timeout` (binary frames are kept aside).
    pub fn next(&mut self, timeout: Duration) -> Option<Value> {
        if let Some(v) = self.backlog.pop_front() {
            return Some(v);
        }
        self.read_json(timeout)
    }

    fn read_json(&mut self, timeout: Duration) -> Option<Value> {
        let end = Instant::now() + timeout;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            self.ws.get_mut().set_read_timeout(Some(left)).unwrap();
            match self.ws.read() {
                Ok(Message::Text(t)) => {
                    return Some(serde_json::from_str(t.as_str()).expect("server sends JSON"));
                }
                Ok(Message::Binary(b)) => self.binaries.push(b.to_vec()),
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return None;
                }
                Err(e) => panic!("ws read: {e}"),
            }
        }
    }

    /// Waits for a message matching `pred` and returns it; messages that do not match
    /// stay queued (in order) for later calls.
    pub fn until(
        &mut self,
        timeout: Duration,
        mut pred: impl FnMut(&Value) -> bool,
    ) -> Option<Value> {
        if let Some(i) = self.backlog.iter().position(&mut pred) {
            return self.backlog.remove(i);
        }
        let end = Instant::now() + timeout;
        while let Some(v) = self.read_json(end.saturating_duration_since(Instant::now())) {
            if pred(&v) {
                return Some(v);
            }
            self.backlog.push_back(v);
        }
        None
    }

    /// Forgets queued messages.
    pub fn clear(&mut self) {
        self.backlog.clear();
    }

    /// Sends a command and waits for its response.
    pub fn cmd(&mut self, id: &str, name: &str, params: Value) -> Value {
        self.send(&json!({"type": "cmd", "id": id, "name": name, "params": params}));
        self.until(Duration::from_secs(10), |v| {
            v["type"] == "response" && v["id"] == id
        })
        .unwrap_or_else(|| panic!("no response to {id} {name}"))
    }

    /// Subscribes and returns the `state_update` full message.
    pub fn subscribe(&mut self, streams: &[&str]) -> Value {
        self.send(&json!({"type": "subscribe", "streams": streams}));
        self.until(Duration::from_secs(5), |v| {
            v["type"] == "state_update" && v["data"]["type"] == "full"
        })
        .expect("full snapshot")
    }
}

impl Ws {
    /// Reads for `dur`, returning the binary frames (JSON messages go to the backlog).
    pub fn binaries_for(&mut self, dur: Duration) -> Vec<Vec<u8>> {
        let mut out = std::mem::take(&mut self.binaries);
        let end = Instant::now() + dur;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return out;
            }
            self.ws.get_mut().set_read_timeout(Some(left)).unwrap();
            match self.ws.read() {
                Ok(Message::Binary(b)) => out.push(b.to_vec()),
                Ok(Message::Text(t)) => self
                    .backlog
                    .push_back(serde_json::from_str(t.as_str()).expect("server sends JSON")),
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return out;
                }
                Err(e) => panic!("ws read: {e}"),
            }
        }
    }

    /// Sends a binary message.
    pub fn send_binary(&mut self, b: Vec<u8>) {
        self.ws.send(Message::Binary(b.into())).unwrap();
    }
}

/// Server knobs for tests that take the radio link down: the loss is noticed after
/// 1.5 s and the link comes back within half a second.
pub fn quick_reconnect() -> Tuning {
    Tuning {
        link: Some(|l| {
            l.link_timeout = Duration::from_millis(1500);
            l.backoff_min = Duration::from_millis(200);
            l.backoff_max = Duration::from_millis(500);
        }),
        ..Tuning::default()
    }
}

/// The `result` of a command's response, which must be `ok`.
pub fn ok(r: &Value) -> &Value {
    assert_eq!(r["ok"], true, "{r}");
    &r["result"]
}

/// `GET /api/v1/state` of the server at `addr`.
pub fn state(addr: SocketAddr) -> Value {
    get(addr, "/api/v1/state").json()
}
