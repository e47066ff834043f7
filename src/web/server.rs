//! The HTTP server: a pool of tiny_http worker threads for REST, WebSocket upgrades
//! handed to per-client threads, one public port for both. Every failure is answered
//! with a JSON error; nothing ends in a silently closed connection.
//!
//! Requests that may carry a body or wait for the radio (everything but GET and HEAD)
//! run in a second pool of their own, so that slow uploads or a radio command never
//! hold up `GET /api/v1/state`, the health checks or WebSocket upgrades.

use std::io::{self, ErrorKind, Read};
use std::net::{SocketAddr, TcpListener};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError, bounded};
use serde_json::Value;
use tiny_http::{Method, Request};

use super::auth::redact;
use super::context::AppCtx;
use super::intake::Intake;
use super::response::{self, Reply};
use super::routes;
use super::ws::{self, WsRoute};

/// A running web server.
pub struct WebServer {
    intake: Intake,
    workers: Vec<JoinHandle<()>>,
    addr: SocketAddr,
    app: Arc<AppCtx>,
}

fn set_timeout(fd: i32, opt: libc::c_int, d: Duration) -> io::Result<()> {
    let tv = libc::timeval {
        tv_sec: d.as_secs() as libc::time_t,
        tv_usec: d.subsec_micros() as libc::suseconds_t,
    };
    // SAFETY: `tv` is a valid timeval and its size is passed.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            opt,
            &tv as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

impl WebServer {
    /// Binds `listen` and starts the workers.
    pub fn start(listen: SocketAddr, app: Arc<AppCtx>) -> io::Result<WebServer> {
        let listener = TcpListener::bind(listen)?;
        // a deeper accept queue than std's default, so that a burst of connections (a page
        // load, many idle sockets) never makes a client wait for a SYN retransmission
        // SAFETY: listen(2) on our own bound socket; calling it again updates the backlog.
        if unsafe { libc::listen(listener.as_raw_fd(), 1024) } != 0 {
            log::debug!("listen backlog: {}", io::Error::last_os_error());
        }
        // accepted sockets inherit these (Linux): idle keep-alive connections, half-sent
        // requests and stalled bodies release their thread after the timeout (the receive
        // timeout also ends tiny_http's accept thread after a quiet spell: see intake.rs)
        set_timeout(
            listener.as_raw_fd(),
            libc::SO_RCVTIMEO,
            app.cfg.http_timeout,
        )?;
        set_timeout(
            listener.as_raw_fd(),
            libc::SO_SNDTIMEO,
            app.cfg.http_timeout,
        )?;
        let addr = listener.local_addr()?;
        // a replaced acceptor's connections have all timed out by then, and no handler
        // takes anywhere near the extra 30 s
        let quiet = app.cfg.http_timeout * 2 + Duration::from_secs(30);
        let (intake, requests) = Intake::start(listener, quiet)?;
        let (slow_tx, slow_rx) = bounded::<Request>(SLOW_QUEUE);
        let mut workers = Vec::new();
        for i in 0..app.cfg.workers.max(1) {
            let (r, a) = (slow_rx.clone(), app.clone());
            workers.push(
                std::thread::Builder::new()
                    .name(format!("http-post-{i}"))
                    .spawn(move || slow_worker(&r, &a, addr.port()))?,
            );
        }
        for i in 0..app.cfg.workers.max(1) {
            let (r, a, slow) = (requests.clone(), app.clone(), slow_tx.clone());
            workers.push(
                std::thread::Builder::new()
                    .name(format!("http-{i}"))
                    .spawn(move || worker(&r, &slow, &a, addr.port()))?,
            );
        }
        log::info!("serving http://{addr}/ (REST and WebSockets on one port)");
        Ok(WebServer {
            intake,
            workers,
            addr,
            app,
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// How many tiny_http acceptors have run so far (see `intake.rs`): one more after
    /// every quiet spell as long as the receive timeout and after every accept error.
    pub fn acceptor_generations(&self) -> u64 {
        self.intake.generations()
    }

    /// Stops accepting, closes WebSocket clients (1001) and joins the workers.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if self.workers.is_empty() {
            return;
        }
        self.intake.stop();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        self.app.ws.close_all(Duration::from_secs(2));
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Requests with a body waiting for a `http-post` worker; more are answered 503.
const SLOW_QUEUE: usize = 32;

fn worker(requests: &Receiver<Request>, slow: &Sender<Request>, app: &Arc<AppCtx>, port: u16) {
    for req in requests {
        if matches!(req.method(), Method::Get | Method::Head) {
            handle(req, app, port);
            continue;
        }
        match slow.try_send(req) {
            Ok(()) => {}
            Err(TrySendError::Full(req)) => {
                let reply = response::error(
                    503,
                    "server_busy",
                    "too many requests with a body are being served; try again shortly",
                );
                if let Err(e) = req.respond(reply) {
                    log::debug!("answering 503 failed: {e}");
                }
            }
            Err(TrySendError::Disconnected(req)) => handle(req, app, port),
        }
    }
    log::debug!("http worker stopping");
}

/// Serves the requests that may carry a body or wait for the radio.
fn slow_worker(requests: &Receiver<Request>, app: &Arc<AppCtx>, port: u16) {
    for req in requests {
        handle(req, app, port);
    }
}

fn header<'a>(req: &'a Request, name: &str) -> Option<&'a str> {
    super::request_header(req, name)
}

fn query_param<'a>(url: &'a str, name: &str) -> Option<&'a str> {
    let q = url.split_once('?')?.1;
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (k == name && !v.is_empty()).then_some(v)
    })
}

/// Routes: path -> allowed methods.
const ROUTES: &[(&str, &[&str])] = &[
    ("/", &["GET", "HEAD"]),
    ("/index.html", &["GET", "HEAD"]),
    ("/healthz", &["GET", "HEAD"]),
    ("/readyz", &["GET", "HEAD"]),
    ("/api/v1/info", &["GET", "HEAD"]),
    ("/api/v1/state", &["GET", "HEAD"]),
    ("/api/v1/capabilities", &["GET", "HEAD"]),
    ("/api/v1/radio/connect", &["POST"]),
    ("/api/v1/radio/disconnect", &["POST"]),
    ("/api/v1/radio/power", &["POST"]),
    ("/api/v1/ws", &["GET"]),
    ("/api/v1/scope", &["GET"]),
    ("/api/v1/meters", &["GET"]),
    ("/api/v1/audio", &["GET"]),
    ("/api/v1/dx/spots", &["GET", "HEAD"]),
    ("/api/v1/bridge", &["GET", "HEAD", "POST", "DELETE"]),
    ("/api/v1/band-plan/config", &["GET", "HEAD", "POST"]),
    ("/api/v1/band-plan/layers", &["GET", "HEAD"]),
    ("/api/v1/band-plan/segments", &["GET", "HEAD"]),
    ("/api/v1/eibi/status", &["GET", "HEAD"]),
    ("/api/v1/eibi/stations", &["GET", "HEAD"]),
    ("/api/v1/eibi/segments", &["GET", "HEAD"]),
    ("/api/v1/eibi/identify", &["GET", "HEAD"]),
    ("/api/v1/eibi/bands", &["GET", "HEAD"]),
    ("/api/v1/eibi/fetch", &["POST"]),
];

fn handle(req: Request, app: &Arc<AppCtx>, port: u16) {
    let started = Instant::now();
    let method = req.method().as_str().to_string();
    let url = req.url().to_string();
    let path = url.split('?').next().unwrap_or("/").to_string();
    let (reply, req) = route(req, app, port, &method, &url, &path);
    let (Some(reply), Some(req)) = (reply, req) else {
        log::debug!(
            "{method} {} -> upgraded or answered ({:?})",
            redact(&url),
            started.elapsed()
        );
        return;
    };
    let status = reply.status_code().0;
    if let Err(e) = req.respond(reply) {
        log::debug!(
            "{method} {}: writing the response failed: {e}",
            redact(&url)
        );
    }
    log::debug!(
        "{method} {} -> {status} ({:?})",
        redact(&url),
        started.elapsed()
    );
}

/// Returns the reply to send, or `None` when the request was consumed (upgrade).
fn route(
    mut req: Request,
    app: &Arc<AppCtx>,
    port: u16,
    method: &str,
    url: &str,
    path: &str,
) -> (Option<Reply>, Option<Request>) {
    let is_api = path.starts_with("/api/");
    if is_api {
        let ws = matches!(
            path,
            "/api/v1/ws" | "/api/v1/scope" | "/api/v1/meters" | "/api/v1/audio"
        );
        let query_token = if ws { query_param(url, "token") } else { None };
        if !app
            .cfg
            .auth
            .check(header(&req, "Authorization"), query_token)
        {
            return (Some(response::unauthorized()), Some(req));
        }
    }
    let Some((_, allowed)) = ROUTES.iter().find(|(p, _)| *p == path) else {
        return (Some(response::not_found(method, path)), Some(req));
    };
    if !allowed.contains(&method) {
        return (
            Some(response::method_not_allowed(method, path, allowed)),
            Some(req),
        );
    }
    let reply = match path {
        "/" | "/index.html" => routes::root(header(&req, "Accept-Encoding")),
        "/healthz" => routes::healthz(app),
        "/readyz" => routes::readyz(app),
        "/api/v1/info" => routes::info(app),
        "/api/v1/state" => routes::state(app, header(&req, "If-None-Match")),
        "/api/v1/capabilities" => routes::capabilities(app),
        "/api/v1/ws" | "/api/v1/scope" | "/api/v1/meters" | "/api/v1/audio" => {
            let r = match path {
                "/api/v1/ws" => WsRoute::Control,
                "/api/v1/scope" => WsRoute::Scope,
                "/api/v1/meters" => WsRoute::Meters,
                _ => WsRoute::Audio,
            };
            return (ws::accept(req, r, app, port), None);
        }
        "/api/v1/radio/connect" | "/api/v1/radio/disconnect" | "/api/v1/radio/power" => {
            let body = match read_body(&mut req, app.cfg.max_body, path == "/api/v1/radio/power") {
                Ok(b) => b,
                Err(reply) => return (Some(reply), Some(req)),
            };
            match path {
                "/api/v1/radio/connect" => routes::connect(app),
                "/api/v1/radio/disconnect" => routes::disconnect(app),
                _ => routes::power(app, &body),
            }
        }
        other => routes::planned(other),
    };
    (Some(reply), Some(req))
}

/// Reads a JSON body: refused before reading when larger than `max` (413), or of another
/// content type (415); `required` bodies must be present.
fn read_body(req: &mut Request, max: usize, required: bool) -> Result<Value, Reply> {
    if let Some(len) = req.body_length()
        && len > max
    {
        return Err(response::error(
            413,
            "request_too_large",
            format!("the body is {len} bytes; the limit is {max}"),
        ));
    }
    let has_body =
        req.body_length().is_some_and(|l| l > 0) || header(req, "Transfer-Encoding").is_some();
    if !has_body {
        return if required {
            Err(response::error(
                400,
                "invalid_json",
                "a JSON body is required",
            ))
        } else {
            Ok(Value::Null)
        };
    }
    let ctype = header(req, "Content-Type").unwrap_or("");
    if !ctype.to_ascii_lowercase().starts_with("application/json") {
        return Err(response::error(
            415,
            "unsupported_media_type",
            format!("Content-Type {ctype:?} is not accepted; send application/json"),
        ));
    }
    let mut buf = Vec::new();
    let mut limited = req.as_reader().take(max as u64 + 1);
    if let Err(e) = limited.read_to_end(&mut buf) {
        // the listener's receive timeout surfaces as EAGAIN (WouldBlock) on Linux
        if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) {
            return Err(response::error(
                408,
                "request_timeout",
                "the request body did not arrive in time; send the whole body at once",
            ));
        }
        return Err(response::error(
            400,
            "invalid_json",
            format!("the body could not be read: {e}"),
        ));
    }
    if buf.len() > max {
        return Err(response::error(
            413,
            "request_too_large",
            format!("the body is larger than {max} bytes"),
        ));
    }
    serde_json::from_slice(&buf).map_err(|e| {
        response::error(
            400,
            "invalid_json",
            format!("the body is not valid JSON: {e}"),
        )
    })
}

/// The method as tiny_http names it (kept for handlers that need it).
pub fn is_head(m: &Method) -> bool {
    *m == Method::Head
}
