//! The WebSocket routes and the registry of connected clients: per-route counts under
//! the `--max-clients` cap and the handles used to close everybody at shutdown.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::conn::{ClientHandle, Outbound};

/// A WebSocket route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WsRoute {
    /// `/api/v1/ws`.
    Control,
    /// `/api/v1/scope`.
    Scope,
    /// `/api/v1/meters`.
    Meters,
    /// `/api/v1/audio`.
    Audio,
}

impl WsRoute {
    /// Every route.
    pub const ALL: [WsRoute; 4] = [
        WsRoute::Control,
        WsRoute::Scope,
        WsRoute::Meters,
        WsRoute::Audio,
    ];

    fn index(self) -> usize {
        self as usize
    }

    /// The route's name (`control`, `scope`, ...).
    pub fn name(self) -> &'static str {
        match self {
            WsRoute::Control => "control",
            WsRoute::Scope => "scope",
            WsRoute::Meters => "meters",
            WsRoute::Audio => "audio",
        }
    }

    /// The route's path.
    pub fn path(self) -> &'static str {
        match self {
            WsRoute::Control => "/api/v1/ws",
            WsRoute::Scope => "/api/v1/scope",
            WsRoute::Meters => "/api/v1/meters",
            WsRoute::Audio => "/api/v1/audio",
        }
    }

    /// The route served at `path`, if it is a WebSocket route.
    pub fn from_path(path: &str) -> Option<WsRoute> {
        WsRoute::ALL.into_iter().find(|r| r.path() == path)
    }
}

/// Connected clients, per route.
#[derive(Default)]
pub struct WsRegistry {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    counts: [AtomicUsize; 4],
    clients: Mutex<HashMap<u64, Arc<ClientHandle>>>,
}

/// A client's place in its route's count; gives it back (and forgets the client) when
/// dropped.
pub struct Slot {
    inner: Arc<Inner>,
    route: WsRoute,
    id: u64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.inner.counts[self.route.index()].fetch_sub(1, Ordering::AcqRel);
        self.inner.clients.lock().remove(&self.id);
    }
}

impl WsRegistry {
    /// Clients on `route` now.
    pub fn count(&self, route: WsRoute) -> usize {
        self.inner.counts[route.index()].load(Ordering::Acquire)
    }

    /// Claims a place for client `id` on `route` if fewer than `max` are there;
    /// otherwise returns how many are.
    pub fn claim(&self, route: WsRoute, id: u64, max: usize) -> Result<Slot, usize> {
        let n = self.inner.counts[route.index()].fetch_add(1, Ordering::AcqRel);
        let slot = Slot {
            inner: self.inner.clone(),
            route,
            id,
        };
        if n >= max {
            drop(slot);
            return Err(n);
        }
        Ok(slot)
    }

    /// Records the handle of the client holding `slot` (for [`WsRegistry::close_all`]).
    pub fn register(&self, slot: &Slot, handle: Arc<ClientHandle>) {
        self.inner.clients.lock().insert(slot.id, handle);
    }

    /// Asks every client to close (server shutting down) and waits up to `wait` for them.
    pub fn close_all(&self, wait: Duration) {
        let handles: Vec<_> = self.inner.clients.lock().values().cloned().collect();
        for h in &handles {
            h.send(Outbound::Close(1001, "the server is shutting down".into()));
        }
        let deadline = Instant::now() + wait;
        while Instant::now() < deadline && !self.inner.clients.lock().is_empty() {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
