//! The connected WebSocket clients, per route: counts for the per-channel cap and
//! handles for closing everybody at shutdown.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::conn::{ClientHandle, Outbound};

/// Connected clients, per route.
#[derive(Default)]
pub struct WsRegistry {
    pub(super) counts: [AtomicUsize; 4],
    pub(super) clients: Mutex<HashMap<u64, Arc<ClientHandle>>>,
}

impl WsRegistry {
    /// Clients on `route` now.
    pub fn count(&self, route: super::WsRoute) -> usize {
        self.counts[route.index()].load(Ordering::Acquire)
    }

    /// Asks every client to close (server shutting down) and waits up to `wait` for them.
    pub fn close_all(&self, wait: Duration) {
        let handles: Vec<_> = self.clients.lock().values().cloned().collect();
        for h in &handles {
            h.send(Outbound::Close(1001, "the server is shutting down".into()));
        }
        let deadline = Instant::now() + wait;
        while Instant::now() < deadline && !self.clients.lock().is_empty() {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
