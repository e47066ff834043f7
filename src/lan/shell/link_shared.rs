//! What the link's threads share: the supervisor's commands and the state its threads
//! read and write (status, when CI-V was last heard).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use parking_lot::Mutex;

use crate::lan::session::link_state::{LinkStatus, PortReport};
use crate::lan::session::recovery::{LanPort, RecoveryTally};
use crate::lan::session::stream::StreamStats;

/// Commands to the supervisor (control thread).
#[derive(Debug)]
pub(in crate::lan) enum CtlCmd {
    Connect,
    Disconnect,
    Audio(bool),
    Port(PortReport),
    Shutdown,
}

/// State shared between the link threads.
#[derive(Debug)]
pub(in crate::lan) struct LinkShared {
    pub epoch: Instant,
    /// When the CI-V thread last received anything, ms since `epoch`.
    pub civ_last_rx_ms: AtomicU64,
    pub status: Mutex<LinkStatus>,
}

impl LinkShared {
    pub fn civ_last_rx(&self) -> Instant {
        self.epoch + Duration::from_millis(self.civ_last_rx_ms.load(Ordering::Relaxed))
    }

    pub fn touch_civ(&self, now: Instant) {
        let ms = now.saturating_duration_since(self.epoch).as_millis() as u64;
        self.civ_last_rx_ms.store(ms, Ordering::Relaxed);
    }

    /// Adds what `port`'s packet recovery grew by since `tally` last looked (the status
    /// lock is taken only when something grew).
    pub fn tally_recovery(
        &self,
        port: LanPort,
        tally: &mut RecoveryTally,
        now: Option<&StreamStats>,
    ) {
        if let Some(grown) = tally.growth(now) {
            self.status.lock().recovery[port.index()].add(grown);
        }
    }
}

/// Our id for a socket bound to `port` (as the reference client does: 0x0001_0000 | port).
pub(in crate::lan) fn id_for_port(port: u16) -> u32 {
    0x0001_0000 | u32::from(port)
}

/// Receives every queued item of `rx` without blocking.
pub(in crate::lan) fn drain<T>(rx: &Receiver<T>) -> Vec<T> {
    rx.try_iter().collect()
}
