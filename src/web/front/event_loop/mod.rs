//! The front door's thread: one `poll(2)` loop over the listening sockets, every client
//! connection that has not been handed on, the connections to tiny_http and a waker.
//! The HTTP logic is in [`Session`] (pure); this file only moves bytes and decides where
//! a complete request goes.

use std::io::{self, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::backend::Backend;
use super::caps::{ConnCaps, ConnSlot};
use super::session::Session;
use super::{FrontConfig, PortRole};
use crate::net::poll::{Interest, poll};
use crate::net::transport::Transport;
use crate::net::waker::WakeReceiver;
use crate::util::log_limit::{DEFAULT_BURST, DEFAULT_INTERVAL, LogLimiter};
use crate::web::context::AppCtx;

mod accept;
mod client_io;
mod relay;
mod requests;
#[cfg(test)]
mod tests;

/// Descriptors kept free for everything but new connections (threads' wakers, the
/// radio, tiny_http's accepts): a connection that would leave fewer is refused.
const FD_RESERVE: u64 = 64;
/// "The REST backend did not answer in time", limited server-wide.
static BACKEND_LATE: LogLimiter = LogLimiter::new(DEFAULT_BURST, DEFAULT_INTERVAL);
/// How long a refused or finished connection is drained before it is closed (so that
/// the client reads the answer instead of a reset).
const LINGER: Duration = Duration::from_secs(2);
/// Most bytes drained from such a connection.
const LINGER_BYTES: usize = 256 * 1024;
/// Most connections accepted per wake-up.
const ACCEPT_BATCH: usize = 128;
/// Pause of accepting after the process ran out of descriptors (doubles to 1 s).
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);
/// Unsent output above which a connection is not read from and its next (pipelined)
/// request waits: a client that sends requests without reading the answers stops
/// costing anything once this much waits for it.
const OUT_HIGH: usize = 64 * 1024;
/// Unsent output above which tiny_http's response is not read further (the connection
/// to tiny_http waits): more than any response the server makes, so that a client that
/// does not read never holds one of the few connections to tiny_http in practice.
const OUT_MAX: usize = 256 * 1024;

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
    /// Since when unsent output has waited for the socket without any of it going out
    /// (a client that reads nothing for the idle timeout is dropped).
    write_wait: Option<Instant>,
}

impl Client {
    /// Bytes of answers not written to the socket yet.
    fn unsent(&self) -> usize {
        self.out.len() - self.written
    }

    /// True while the connection should be read from.
    fn wants_read(&self) -> bool {
        self.closing.is_some() || self.session.wants_input() && self.unsent() < OUT_HIGH
    }
}

/// Where a polled descriptor belongs.
#[derive(Clone, Copy)]
enum Target {
    Wake,
    Port(usize),
    Client(usize),
    /// A connection to tiny_http, by id.
    Backend(u64),
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
        // rlim_t is 32 bits wide on 32-bit ARM
        #[allow(clippy::unnecessary_cast)]
        let cur = r.rlim_cur as u64;
        cur
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
                next_id: 0,
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
            self.turn(&mut buf, None);
        }
        log::debug!("front door stopping");
    }

    /// One wait for the descriptors (at most until `until`, when given) and what follows.
    fn turn(&mut self, buf: &mut [u8], until: Option<Instant>) {
        let (interests, targets) = self.interests();
        // TLS plaintext already decrypted but not read (the session did not want it
        // then) makes the socket look idle: it is read without waiting
        let buffered: Vec<usize> = (0..self.clients.len())
            .filter(|&i| {
                self.clients[i]
                    .as_mut()
                    .is_some_and(|c| c.wants_read() && c.transport.buffered_input())
            })
            .collect();
        let deadline = match (self.next_deadline(), until) {
            (Some(d), Some(u)) => Some(d.min(u)),
            (d, u) => d.or(u),
        };
        let deadline = if buffered.is_empty() {
            deadline
        } else {
            Some(Instant::now())
        };
        let ready = match poll(&interests, deadline) {
            Ok(r) => r,
            Err(e) => {
                log::error!("front door: poll failed: {e}");
                std::thread::sleep(Duration::from_millis(100));
                return;
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
                Target::Client(i) => self.client_ready(i, *r, buf, now),
                Target::Backend(i) => self.backend_ready(i, now),
            }
        }
        for i in buffered {
            if self.clients[i].as_ref().is_some_and(Client::wants_read) {
                self.client_read(i, buf, now);
            }
        }
        self.timers(now);
        self.dispatch(now);
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
            let read = c.wants_read();
            let write = c.unsent() > 0 || c.transport.wants_write();
            if read || write {
                i.push(Interest {
                    fd: c.transport.fd(),
                    read,
                    write,
                });
                t.push(Target::Client(n));
            }
        }
        for b in &self.backend.conns {
            // a response is not read further while its client has too much unsent
            let owner = b.busy.as_ref().and_then(|f| self.client_of(f.job.client));
            let paused = owner
                .and_then(|n| self.clients[n].as_ref())
                .is_some_and(|c| c.unsent() >= OUT_MAX);
            if paused && !b.wants_write() {
                // not polled at all: a hang-up would be reported again and again
                continue;
            }
            i.push(Interest {
                fd: b.stream.as_raw_fd(),
                read: !paused,
                write: b.wants_write(),
            });
            t.push(Target::Backend(b.id));
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
        let stall = self.cfg.limits.idle_timeout;
        for c in self.clients.iter().flatten() {
            take(c.closing.map(|(t, _)| t));
            take(c.session.poll_timeout());
            take(c.write_wait.map(|t| t + stall));
        }
        take(self.backend.next_deadline());
        for p in &self.ports {
            if let PortRole::Api(Some(tls)) = &p.role {
                take(tls.next_check());
            }
        }
        d
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
            if c.write_wait
                .is_some_and(|t| now >= t + self.cfg.limits.idle_timeout)
            {
                log::debug!("{} read nothing of its answers for too long", c.peer);
                self.drop_client(i);
                continue;
            }
            if c.session.poll_timeout().is_some_and(|t| now >= t) {
                c.session.handle_timeout(now);
                self.process(i, now);
            }
        }
        let late: Vec<u64> = self
            .backend
            .conns
            .iter()
            .filter(|c| c.busy.as_ref().is_some_and(|f| now >= f.deadline))
            .map(|c| c.id)
            .collect();
        for id in late {
            // answering a client may act on other connections: look each one up again
            let Some(b) = self.backend.position(id) else {
                continue;
            };
            let conn = self.backend.conns.remove(b);
            crate::log_limited!(
                BACKEND_LATE,
                log::Level::Warn,
                "the REST backend did not answer in time"
            );
            if let Some(f) = conn.busy {
                let owner = self.client_of(f.job.client);
                self.backend_failed(owner, !f.job.reader.started(), 504, now);
            }
        }
    }
}
