//! The HTTP server: the front door (`front/`) owns the public port(s) and every client
//! connection; tiny_http serves REST behind it on an internal loopback listener, with a
//! pool of worker threads. Every failure is answered with a JSON error; nothing ends in
//! a silently closed connection.
//!
//! The routes are one table (`router.rs`). Requests that may wait for the radio
//! (everything but GET and HEAD) run in a second pool of their own, so that a radio
//! command never holds up `GET /api/v1/state` or the health checks. (Bodies arrive
//! whole: the front door reads them before passing a request on, so a slow upload holds
//! no worker at all.)

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError, bounded};
use tiny_http::{Method, Request, Server};

use super::auth::redact;
use super::context::AppCtx;
use super::front::backend::{FRONT_HEADER, PEER_HEADER};
use super::front::onboarding::Onboarding;
use super::front::session::SessionLimits;
use super::front::{FrontConfig, FrontDoor, PortRole};
use super::response;
use super::router;
use super::tls::TlsProvider;
use crate::util::constant_time_eq;

/// Where the server listens.
#[derive(Debug, Clone)]
pub struct Ports {
    /// The API port (REST and WebSockets).
    pub listen: SocketAddr,
    /// TLS on the API port.
    pub tls: Option<Arc<TlsProvider>>,
    /// The plain-HTTP onboarding port (with TLS only).
    pub onboarding: Option<SocketAddr>,
}

impl Ports {
    /// Plain HTTP on `listen`.
    pub fn plain(listen: SocketAddr) -> Ports {
        Ports {
            listen,
            tls: None,
            onboarding: None,
        }
    }
}

/// A running web server.
pub struct WebServer {
    front: FrontDoor,
    backend: Arc<Server>,
    stopping: Arc<AtomicBool>,
    workers: Vec<JoinHandle<()>>,
    addr: SocketAddr,
    onboarding_addr: Option<SocketAddr>,
    tls: Option<Arc<TlsProvider>>,
    app: Arc<AppCtx>,
}

fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    // "Address already in use" alone does not say which of the ports
    let listener = TcpListener::bind(addr)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {addr}: {e}")))?;
    // a deeper accept queue than std's default, so that a burst of connections (a page
    // load, many idle sockets) never makes a client wait for a SYN retransmission
    // SAFETY: listen(2) on our own bound socket; calling it again updates the backlog.
    if unsafe { libc::listen(listener.as_raw_fd(), 1024) } != 0 {
        log::debug!("listen backlog: {}", io::Error::last_os_error());
    }
    Ok(listener)
}

fn set_nodelay(listener: &TcpListener) {
    let one: libc::c_int = 1;
    // SAFETY: `one` is a valid c_int and its size is passed; the descriptor is open.
    let rc = unsafe {
        libc::setsockopt(
            listener.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            &one as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        log::debug!("TCP_NODELAY: {}", io::Error::last_os_error());
    }
}

impl WebServer {
    /// Binds the ports, starts tiny_http on an internal listener, its workers and the
    /// front door.
    pub fn start(ports: Ports, app: Arc<AppCtx>) -> io::Result<WebServer> {
        let public = bind(ports.listen)?;
        let addr = public.local_addr()?;
        let onboarding = ports.onboarding.map(bind).transpose()?;
        let onboarding_addr = onboarding.as_ref().map(|l| l.local_addr()).transpose()?;
        // accepted sockets inherit TCP_NODELAY from the listener (Linux): tiny_http writes
        // a response's head and body separately, and Nagle would hold the body back
        let internal = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))?;
        set_nodelay(&internal);
        let backend = Arc::new(Server::from_listener(internal, None).map_err(io::Error::other)?);
        let backend_addr = backend
            .server_addr()
            .to_ip()
            .ok_or_else(|| io::Error::other("tiny_http has no TCP address"))?;
        let secret: String = crate::util::random::bytes::<16>()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let secret = Arc::new(secret);
        let stopping = Arc::new(AtomicBool::new(false));
        let (slow_tx, slow_rx) = bounded::<Request>(SLOW_QUEUE);
        let workers_n = app.cfg.workers.max(1);
        let mut workers = Vec::new();
        for i in 0..workers_n {
            let (r, a, k) = (slow_rx.clone(), app.clone(), secret.clone());
            workers.push(
                std::thread::Builder::new()
                    .name(format!("http-post-{i}"))
                    .spawn(move || slow_worker(&r, &a, &k))?,
            );
        }
        for i in 0..workers_n {
            let (srv, a, slow, k, stop) = (
                backend.clone(),
                app.clone(),
                slow_tx.clone(),
                secret.clone(),
                stopping.clone(),
            );
            workers.push(
                std::thread::Builder::new()
                    .name(format!("http-{i}"))
                    .spawn(move || worker(&srv, &slow, &a, &k, &stop))?,
            );
        }
        let cfg = &app.cfg;
        let front_cfg = FrontConfig {
            limits: SessionLimits {
                max_head: cfg.max_head,
                max_body: cfg.max_body,
                head_timeout: cfg.head_timeout,
                body_timeout: cfg.http_timeout,
                idle_timeout: cfg.http_timeout,
            },
            max_connections: cfg.max_connections,
            max_connections_per_client: cfg.max_connections_per_client,
            backend: backend_addr,
            secret: secret.to_string(),
            backend_connections: workers_n * 2,
            backend_timeout: Duration::from_secs(60),
        };
        let mut listeners = vec![(public, PortRole::Api(ports.tls.clone()))];
        if let (Some(l), Some(tls)) = (onboarding, &ports.tls) {
            listeners.push((
                l,
                PortRole::Onboarding(Arc::new(Onboarding {
                    https_port: addr.port(),
                    tls: tls.clone(),
                })),
            ));
        }
        let front = FrontDoor::start(listeners, front_cfg, app.clone())?;
        match (&ports.tls, onboarding_addr) {
            (Some(_), Some(o)) => log::debug!(
                "serving https://{addr}/ (REST and WebSockets); onboarding on http://{o}/"
            ),
            (Some(_), None) => log::debug!("serving https://{addr}/ (REST and WebSockets)"),
            (None, _) => log::debug!("serving http://{addr}/ (REST and WebSockets on one port)"),
        }
        Ok(WebServer {
            front,
            backend,
            stopping,
            workers,
            addr,
            onboarding_addr,
            tls: ports.tls,
            app,
        })
    }

    /// The bound address of the API port.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The bound address of the onboarding port, if there is one.
    pub fn onboarding_addr(&self) -> Option<SocketAddr> {
        self.onboarding_addr
    }

    /// True when the API port speaks TLS.
    pub fn is_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// The local CA (PEM) of `--tls-auto`.
    pub fn ca_pem(&self) -> Option<String> {
        self.tls.as_ref().and_then(|t| t.ca_pem())
    }

    /// The HTTPS configuration, if the API port speaks TLS.
    pub fn tls(&self) -> Option<&Arc<TlsProvider>> {
        self.tls.as_ref()
    }

    /// Stops accepting, closes WebSocket clients (1001) and joins the workers.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if self.workers.is_empty() {
            return;
        }
        self.front.stop();
        self.stopping.store(true, Ordering::SeqCst);
        for _ in 0..self.workers.len() {
            self.backend.unblock();
        }
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

fn worker(
    server: &Server,
    slow: &Sender<Request>,
    app: &Arc<AppCtx>,
    secret: &str,
    stopping: &AtomicBool,
) {
    loop {
        let req = match server.recv() {
            Ok(r) => r,
            Err(_) if stopping.load(Ordering::SeqCst) => break,
            Err(e) => {
                // tiny_http reports a failed accept once (its accept thread ends); the
                // front door's kept-alive connections go on being served
                log::error!("REST server: {e}");
                continue;
            }
        };
        if matches!(req.method(), Method::Get | Method::Head) {
            handle(req, app, secret);
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
            Err(TrySendError::Disconnected(req)) => handle(req, app, secret),
        }
    }
    log::debug!("http worker stopping");
}

/// Serves the requests that may carry a body or wait for the radio.
fn slow_worker(requests: &Receiver<Request>, app: &Arc<AppCtx>, secret: &str) {
    for req in requests {
        handle(req, app, secret);
    }
}

fn header<'a>(req: &'a Request, name: &str) -> Option<&'a str> {
    super::request_header(req, name)
}

fn handle(mut req: Request, app: &Arc<AppCtx>, secret: &str) {
    let started = Instant::now();
    let method = req.method().as_str().to_string();
    let url = req.url().to_string();
    let path = url.split('?').next().unwrap_or("/").to_string();
    let through_front = header(&req, FRONT_HEADER)
        .is_some_and(|v| constant_time_eq(v.as_bytes(), secret.as_bytes()));
    let peer = header(&req, PEER_HEADER).unwrap_or("?").to_string();
    let reply = if through_front {
        router::dispatch(&mut req, app, &path)
    } else {
        response::error(
            403,
            "forbidden",
            "this is the server's internal port; connect to its public port",
        )
    };
    let status = reply.status_code().0;
    if let Err(e) = req.respond(reply) {
        log::debug!(
            "{method} {}: writing the response failed: {e}",
            redact(&url)
        );
    }
    log::debug!(
        "{peer} {method} {} -> {status} ({:?})",
        redact(&url),
        started.elapsed()
    );
}
