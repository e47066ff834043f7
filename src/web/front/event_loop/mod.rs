//! The front door's thread: one `poll(2)` loop over the listening sockets, every client
//! connection that has not been handed on, the connections to tiny_http and a waker.
//! The HTTP logic is in [`Session`] (pure); this file only moves bytes and decides where
//! a complete request goes.

use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustls::ServerConnection;

use super::backend::{self, Backend, Job, ResponseReader};
use super::caps::{ConnCaps, ConnSlot, OverCap};
use super::reply::{self, Refusal};
use super::session::{Event, Request, Session};
use super::{FrontConfig, PortRole};
use crate::net::poll::{Interest, Ready, poll};
use crate::net::transport::Transport;
use crate::net::waker::WakeReceiver;
use crate::web::context::AppCtx;
use crate::web::ws::{self, WsRoute};

mod relay;

/// Descriptors kept free for everything but new connections (threads' wakers, the
/// radio, tiny_http's accepts): a connection that would leave fewer is refused.
const FD_RESERVE: u64 = 64;
/// How long a refused or finished connection is drained before it is closed (so that
/// the client reads the answer instead of a reset).
const LINGER: Duration = Duration::from_secs(2);
/// Most bytes drained from such a connection.
const LINGER_BYTES: usize = 256 * 1024;
/// Most connections accepted per wake-up.
const ACCEPT_BATCH: usize = 128;
/// Pause of accepting after the process ran out of descriptors (doubles to 1 s).
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

struct Port {
    listener: TcpListener,
    role: PortRole,
    local: SocketAddr,
}

/// A connection being served.
struct Client {
    generation: u64,
    transport: Transport,
    /// TLS port: the first byte has not been looked at yet.
    tls_pending: Option<Arc<rustls::ServerConfig>>,
    /// A TLS port that got plain HTTP.
    plain_on_tls: bool,
    peer: SocketAddr,
    port: usize,
    session: Session,
    out: Vec<u8>,
    written: usize,
    /// Keep-alive of the request being answered.
    keep_alive: bool,
    /// Draining before close: until when, and how much was read.
    closing: Option<(Instant, usize)>,
    shut: bool,
    slot: ConnSlot,
}

/// Where a polled descriptor belongs.
#[derive(Clone, Copy)]
enum Target {
    Wake,
    Port(usize),
    Client(usize),
    Backend(usize),
}

pub(super) struct Loop {
    app: Arc<AppCtx>,
    ports: Vec<Port>,
    clients: Vec<Option<Client>>,
    free: Vec<usize>,
    next_generation: u64,
    backend: Backend,
    caps: ConnCaps,
    cfg: FrontConfig,
    wake: WakeReceiver,
    stop: Arc<AtomicBool>,
    accept_paused: Option<Instant>,
    pause: Duration,
}

fn fd_limit() -> u64 {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into a valid rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } == 0 {
        r.rlim_cur
    } else {
        1024
    }
}

/// Writes a short answer to a connection that is not kept, as far as the socket takes
/// it at once (it is tiny: the socket always does).
fn answer_and_drop(mut sock: TcpStream, bytes: &[u8]) {
    let _ = sock.write(bytes);
    let _ = sock.shutdown(Shutdown::Write);
}

impl Loop {
    pub(super) fn new(
        ports: Vec<(TcpListener, PortRole)>,
        cfg: FrontConfig,
        app: Arc<AppCtx>,
        wake: WakeReceiver,
        stop: Arc<AtomicBool>,
    ) -> io::Result<Loop> {
        let ports = ports
            .into_iter()
            .map(|(listener, role)| {
                listener.set_nonblocking(true)?;
                let local = listener.local_addr()?;
                Ok(Port {
                    listener,
                    role,
                    local,
                })
            })
            .collect::<io::Result<Vec<_>>>()?;
        Ok(Loop {
            backend: Backend {
                addr: cfg.backend,
                secret: cfg.secret.clone(),
                conns: Vec::new(),
                queue: Default::default(),
                max_conns: cfg.backend_connections.max(1),
                timeout: cfg.backend_timeout,
            },
            caps: ConnCaps::new(cfg.max_connections, cfg.max_connections_per_client),
            cfg,
            app,
            ports,
            clients: Vec::new(),
            free: Vec::new(),
            next_generation: 1,
            wake,
            stop,
            accept_paused: None,
            pause: ACCEPT_PAUSE,
        })
    }

    pub(super) fn run(&mut self) {
        let mut buf = vec![0u8; 16 * 1024];
        while !self.stop.load(Ordering::SeqCst) {
            let (interests, targets) = self.interests();
            let deadline = self.next_deadline();
            let ready = match poll(&interests, deadline) {
                Ok(r) => r,
                Err(e) => {
                    log::error!("front door: poll failed: {e}");
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                }
            };
            let now = Instant::now();
            for (r, t) in ready.iter().zip(&targets) {
                if !(r.readable || r.writable || r.error) {
                    continue;
                }
                match *t {
                    Target::Wake => self.wake.clear(),
                    Target::Port(i) => self.accept(i, now),
                    Target::Client(i) => self.client_ready(i, *r, &mut buf, now),
                    Target::Backend(i) => self.backend_ready(i, now),
                }
            }
            self.timers(now);
            self.dispatch(now);
        }
        log::debug!("front door stopping");
    }

    fn interests(&self) -> (Vec<Interest>, Vec<Target>) {
        let mut i = vec![Interest::read(self.wake.fd())];
        let mut t = vec![Target::Wake];
        if self.accept_paused.is_none() {
            for (n, p) in self.ports.iter().enumerate() {
                i.push(Interest::read(p.listener.as_raw_fd()));
                t.push(Target::Port(n));
            }
        }
        for (n, c) in self.clients.iter().enumerate() {
            let Some(c) = c else { continue };
            let read = c.closing.is_some() || c.session.wants_input();
            let write = c.written < c.out.len() || c.transport.wants_write();
            if read || write {
                i.push(Interest {
                    fd: c.transport.fd(),
                    read,
                    write,
                });
                t.push(Target::Client(n));
            }
        }
        for (n, b) in self.backend.conns.iter().enumerate() {
            i.push(Interest {
                fd: b.stream.as_raw_fd(),
                read: true,
                write: b.wants_write(),
            });
            t.push(Target::Backend(n));
        }
        (i, t)
    }

    fn next_deadline(&self) -> Option<Instant> {
        let mut d = self.accept_paused;
        let mut take = |x: Option<Instant>| {
            if let Some(x) = x {
                d = Some(d.map_or(x, |d: Instant| d.min(x)));
            }
        };
        for c in self.clients.iter().flatten() {
            take(c.closing.map(|(t, _)| t));
            take(c.session.poll_timeout());
        }
        take(self.backend.next_deadline());
        for p in &self.ports {
            if let PortRole::Api(Some(tls)) = &p.role {
                take(tls.next_check());
            }
        }
        d
    }

    // ----- accepting ---------------------------------------------------------------

    fn accept(&mut self, port: usize, now: Instant) {
        for _ in 0..ACCEPT_BATCH {
            match self.ports[port].listener.accept() {
                Ok((sock, peer)) => {
                    self.pause = ACCEPT_PAUSE;
                    self.admit(sock, peer, port, now);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::Interrupted | ErrorKind::ConnectionAborted
                    ) || e.raw_os_error() == Some(libc::EPROTO) =>
                {
                    continue;
                }
                Err(e) => {
                    // out of descriptors or memory: the clients wait in the backlog
                    log::warn!(
                        "accept failed ({e}); pausing accepting for {:?}",
                        self.pause
                    );
                    self.accept_paused = Some(now + self.pause);
                    self.pause = (self.pause * 2).min(Duration::from_secs(1));
                    return;
                }
            }
        }
    }

    fn admit(&mut self, sock: TcpStream, peer: SocketAddr, port: usize, now: Instant) {
        let _ = sock.set_nodelay(true);
        if sock.set_nonblocking(true).is_err() {
            return;
        }
        if sock.as_raw_fd() as u64 + FD_RESERVE >= fd_limit() {
            let r = Refusal::new(
                503,
                "server_busy",
                "the server is out of connections for the moment; try again shortly",
            )
            .with_header("Retry-After", "5");
            return answer_and_drop(sock, &r.to_bytes(true));
        }
        let slot = match self.caps.admit(peer.ip()) {
            Ok(s) => s,
            Err(over) => {
                let message = match over {
                    OverCap::Total { max } => {
                        format!("the server holds {max} connections (its limit); try again shortly")
                    }
                    OverCap::PerClient { max } => format!(
                        "{} holds {max} connections to this server (the limit per client); close some",
                        peer.ip()
                    ),
                };
                log::debug!("refused a connection from {peer}: {message}");
                let r = Refusal::new(503, "too_many_connections", message)
                    .with_header("Retry-After", "5");
                return answer_and_drop(sock, &r.to_bytes(true));
            }
        };
        let tls_pending = match &self.ports[port].role {
            PortRole::Api(Some(tls)) => Some(tls.config()),
            _ => None,
        };
        let generation = self.next_generation;
        self.next_generation += 1;
        let client = Client {
            generation,
            transport: Transport::Plain(sock),
            tls_pending,
            plain_on_tls: false,
            peer,
            port,
            session: Session::new(self.cfg.limits.clone(), now),
            out: Vec::new(),
            written: 0,
            keep_alive: true,
            closing: None,
            shut: false,
            slot,
        };
        match self.free.pop() {
            Some(i) => self.clients[i] = Some(client),
            None => self.clients.push(Some(client)),
        }
    }

    // ----- client I/O --------------------------------------------------------------

    fn client_ready(&mut self, i: usize, r: Ready, buf: &mut [u8], now: Instant) {
        if r.readable || r.error {
            self.client_read(i, buf, now);
        }
        self.flush(i);
    }

    /// Looks at the first byte on a TLS port: a handshake starts TLS, anything else is
    /// plain HTTP that gets a redirect. `Ok(false)`: nothing to look at yet.
    fn sniff(mut c: Client) -> (Client, io::Result<bool>) {
        let Some(cfg) = c.tls_pending.clone() else {
            return (c, Ok(true));
        };
        let mut first = [0u8; 1];
        match c.transport.tcp().peek(&mut first) {
            Ok(0) => return (c, Err(ErrorKind::UnexpectedEof.into())),
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => return (c, Ok(false)),
            Err(e) => return (c, Err(e)),
        }
        c.tls_pending = None;
        if first[0] != 0x16 {
            c.plain_on_tls = true;
            return (c, Ok(true));
        }
        match ServerConnection::new(cfg) {
            Ok(conn) => {
                c.transport = c.transport.start_tls(conn);
                (c, Ok(true))
            }
            Err(e) => (c, Err(io::Error::other(e))),
        }
    }

    fn client_read(&mut self, i: usize, buf: &mut [u8], now: Instant) {
        if self.clients[i]
            .as_ref()
            .is_some_and(|c| c.tls_pending.is_some())
        {
            let Some(c) = self.clients[i].take() else {
                return;
            };
            let (c, sniffed) = Self::sniff(c);
            self.clients[i] = Some(c);
            match sniffed {
                Ok(true) => {}
                Ok(false) => return,
                Err(_) => return self.drop_client(i),
            }
        }
        let Some(c) = self.clients[i].as_mut() else {
            return;
        };
        loop {
            if c.closing.is_none() && !c.session.wants_input() {
                break;
            }
            match c.transport.read(buf) {
                Ok(0) => {
                    if c.closing.is_some() {
                        return self.drop_client(i);
                    }
                    c.session.peer_closed(now);
                    break;
                }
                Ok(n) => match c.closing.as_mut() {
                    Some((_, drained)) => {
                        *drained += n;
                        if *drained > LINGER_BYTES {
                            return self.drop_client(i);
                        }
                    }
                    None => c.session.input(&buf[..n], now),
                },
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => {
                    log::debug!("connection from {}: {e}", c.peer);
                    let _ = c.transport.flush();
                    return self.drop_client(i);
                }
            }
        }
        self.process(i, now);
    }

    /// Writes what is pending; a connection that is closing is half-closed once its
    /// answer is out, and dropped at once if the peer has gone.
    fn flush(&mut self, i: usize) {
        let Some(c) = self.clients[i].as_mut() else {
            return;
        };
        while c.written < c.out.len() {
            match c.transport.write(&c.out[c.written..]) {
                Ok(0) => return self.drop_client(i),
                Ok(n) => c.written += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return self.drop_client(i),
            }
        }
        match c.transport.flush() {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            Err(_) => return self.drop_client(i),
        }
        if c.written == c.out.len() {
            c.out.clear();
            c.written = 0;
            if c.out.capacity() > 64 * 1024 {
                c.out = Vec::new();
            }
            if c.closing.is_some() && !c.shut && !c.transport.wants_write() {
                c.transport.close_write();
                c.shut = true;
            }
        }
    }

    fn drop_client(&mut self, i: usize) {
        if let Some(c) = self.clients[i].take() {
            let me = Some((i, c.generation));
            self.backend.queue.retain(|j| j.client != me);
            self.free.push(i);
        }
    }

    fn start_closing(&mut self, i: usize, now: Instant) {
        if let Some(c) = self.clients[i].as_mut()
            && c.closing.is_none()
        {
            c.closing = Some((now + LINGER, 0));
        }
    }

    // ----- requests ----------------------------------------------------------------

    /// Acts on what the session asks for.
    fn process(&mut self, i: usize, now: Instant) {
        loop {
            let Some(c) = self.clients[i].as_mut() else {
                return;
            };
            let Some(ev) = c.session.poll_event() else {
                break;
            };
            match ev {
                Event::Continue => c.out.extend_from_slice(reply::CONTINUE),
                Event::Refuse(r) => {
                    log::debug!("{} refused: {} {}", c.peer, r.status, r.message);
                    c.out.extend_from_slice(&r.to_bytes(true));
                    self.start_closing(i, now);
                }
                Event::Close => self.start_closing(i, now),
                Event::Request(req) => self.serve(i, req, now),
            }
        }
        self.flush(i);
    }

    fn serve(&mut self, i: usize, req: Request, now: Instant) {
        let Some(c) = self.clients[i].as_mut() else {
            return;
        };
        c.keep_alive = req.head.keep_alive();
        let local = self.ports[c.port].local;
        if c.plain_on_tls {
            let location = format!(
                "https://{}{}",
                req.head.header("Host").unwrap_or("localhost"),
                req.head.target
            );
            let r = Refusal::new(
                308,
                "https_required",
                format!("this port speaks HTTPS: {location}"),
            )
            .with_header("Location", location);
            c.out.extend_from_slice(&r.to_bytes(true));
            c.session.response_done(false, now);
            return;
        }
        if let PortRole::Onboarding(o) = &self.ports[c.port].role {
            let bytes = o.respond(&req.head, local, !c.keep_alive);
            c.out.extend_from_slice(&bytes);
            let keep = c.keep_alive;
            c.session.response_done(keep, now);
            return;
        }
        if let Some(route) = WsRoute::from_path(req.head.path()) {
            return self.upgrade(i, req, route, now);
        }
        let job = Job {
            client: Some((i, c.generation)),
            bytes: backend::encode_request(&req, &self.backend.secret, c.peer),
            reader: ResponseReader::new(req.head.method == "HEAD", !c.keep_alive),
        };
        self.backend.queue.push_back(job);
    }

    fn upgrade(&mut self, i: usize, req: Request, route: WsRoute, now: Instant) {
        let Some(c) = self.clients[i].as_mut() else {
            return;
        };
        let secure = c.transport.is_tls();
        let accepted = match ws::check(&req.head, route, &self.app, secure) {
            Ok(a) => a,
            Err(r) => {
                log::debug!(
                    "upgrade from {} to {} refused: {} {}",
                    c.peer,
                    route.path(),
                    r.status,
                    r.message
                );
                c.out.extend_from_slice(&r.to_bytes(true));
                c.session.response_done(false, now);
                return;
            }
        };
        let Some(mut c) = self.clients[i].take() else {
            return;
        };
        self.free.push(i);
        let leftover = c.session.take_buffer();
        // answers to earlier pipelined requests go out before the 101
        let pending = c.out.split_off(c.written);
        if let Err(e) = ws::spawn(accepted, c.transport, pending, leftover, c.slot, &self.app) {
            log::error!("cannot start a thread for a WebSocket client: {e}");
        }
    }

    // ----- time --------------------------------------------------------------------

    fn timers(&mut self, now: Instant) {
        if self.accept_paused.is_some_and(|t| now >= t) {
            self.accept_paused = None;
        }
        for p in &self.ports {
            if let PortRole::Api(Some(tls)) = &p.role {
                tls.maintain(now);
            }
        }
        for i in 0..self.clients.len() {
            let Some(c) = self.clients[i].as_mut() else {
                continue;
            };
            if c.closing.is_some_and(|(t, _)| now >= t) {
                self.drop_client(i);
                continue;
            }
            if c.session.poll_timeout().is_some_and(|t| now >= t) {
                c.session.handle_timeout(now);
                self.process(i, now);
            }
        }
        let mut b = 0;
        while b < self.backend.conns.len() {
            let late = self.backend.conns[b]
                .busy
                .as_ref()
                .filter(|f| now >= f.deadline)
                .map(|f| (f.job.client, f.job.reader.started()));
            match late {
                Some((client, started)) => {
                    log::warn!("the REST backend did not answer in time");
                    self.backend.conns.remove(b);
                    let owner = self.client_of(client);
                    self.backend_failed(owner, !started, 504, now);
                }
                None => b += 1,
            }
        }
    }
}
