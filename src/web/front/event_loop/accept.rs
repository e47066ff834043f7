//! Accepting connections: the caps (in total, per client address, descriptors left),
//! each refusal a 503 with a JSON body before anything is read.

use std::io::ErrorKind;
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::{ACCEPT_BATCH, ACCEPT_PAUSE, Client, FD_RESERVE, Loop, answer_and_drop, fd_limit};
use crate::net::transport::Transport;
use crate::util::log_limit::{DEFAULT_INTERVAL, LogLimiter};
use crate::web::front::PortRole;
use crate::web::front::caps::OverCap;
use crate::web::front::reply::Refusal;
use crate::web::front::session::Session;

/// "Accept failed", limited (it repeats while descriptors run out).
static ACCEPT_FAILED: LogLimiter = LogLimiter::new(3, DEFAULT_INTERVAL);

impl Loop {
    pub(super) fn accept(&mut self, port: usize, now: Instant) {
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
                    crate::log_limited!(
                        ACCEPT_FAILED,
                        log::Level::Warn,
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

    pub(super) fn admit(&mut self, sock: TcpStream, peer: SocketAddr, port: usize, now: Instant) {
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
            write_wait: None,
        };
        match self.free.pop() {
            Some(i) => self.clients[i] = Some(client),
            None => self.clients.push(Some(client)),
        }
    }
}
