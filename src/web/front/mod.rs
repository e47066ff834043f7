//! The front door (DESIGN.md §3, shape b): one thread that owns the public port(s).
//!
//! It accepts connections under the caps (in total and per client address; over a cap
//! a 503 before anything is read), sets `TCP_NODELAY`, terminates TLS (rustls, sans-IO,
//! driven by the same `poll(2)` loop), reads and checks every request head and body
//! within limits ([`session`]), and then
//! * hands a WebSocket upgrade, after the Origin/token/cap checks, to a thread of its
//!   own that runs tungstenite on the connection's stream (plain or TLS);
//! * passes any other request to tiny_http on an internal listener ([`backend`]) and
//!   relays the response;
//! * on the onboarding port, answers itself ([`onboarding`]).
//!
//! Slow or hostile clients cost a buffer in this one thread, never a thread of their
//! own; every refusal is a status with a JSON body.

pub mod backend;
pub mod caps;
pub mod chunked;
mod event_loop;
pub mod head;
pub mod onboarding;
pub mod reply;
pub mod session;

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use self::onboarding::Onboarding;
use self::session::SessionLimits;
use super::context::AppCtx;
use super::tls::TlsProvider;
use crate::net::waker::{self, Waker};

/// What a listening port serves.
#[derive(Debug, Clone)]
pub enum PortRole {
    /// REST and WebSockets, over TLS when a provider is given.
    Api(Option<Arc<TlsProvider>>),
    /// The plain-HTTP onboarding port.
    Onboarding(Arc<Onboarding>),
}

/// Settings of the front door.
#[derive(Debug, Clone)]
pub struct FrontConfig {
    /// Limits of each connection.
    pub limits: SessionLimits,
    /// Most connections in total.
    pub max_connections: usize,
    /// Most connections from one client address.
    pub max_connections_per_client: usize,
    /// tiny_http's internal address.
    pub backend: SocketAddr,
    /// The secret the backend checks.
    pub secret: String,
    /// Most connections to tiny_http.
    pub backend_connections: usize,
    /// Time tiny_http has for a response (504 after).
    pub backend_timeout: Duration,
}

/// The running front door.
pub struct FrontDoor {
    stop: Arc<AtomicBool>,
    waker: Waker,
    thread: Option<JoinHandle<()>>,
}

impl FrontDoor {
    /// Starts serving `ports` (bound listeners and what they serve).
    pub fn start(
        ports: Vec<(TcpListener, PortRole)>,
        cfg: FrontConfig,
        app: Arc<AppCtx>,
    ) -> io::Result<FrontDoor> {
        let (waker, wake_rx) = waker::pair()?;
        let stop = Arc::new(AtomicBool::new(false));
        let mut lp = event_loop::Loop::new(ports, cfg, app, wake_rx, stop.clone())?;
        let thread = std::thread::Builder::new()
            .name("http-front".into())
            .spawn(move || lp.run())?;
        Ok(FrontDoor {
            stop,
            waker,
            thread: Some(thread),
        })
    }

    /// Stops accepting and closes every connection it holds (upgraded WebSockets run
    /// on; the registry closes them).
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.waker.wake();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for FrontDoor {
    fn drop(&mut self) {
        self.stop();
    }
}
