//! The bridge's states, sans-IO: `stopped` → `starting` → `running` → `stopping` →
//! `stopped`, and `failed` when the device could not be opened or failed while running.
//! Start and stop are idempotent (starting a running bridge, or stopping a stopped one,
//! changes nothing); a start while it stops, or a stop while it starts, is a conflict
//! (HTTP 409).
//!
//! ```text
//!  stopped ──start──► starting ──ok──► running ──stop──► stopping ──► stopped
//!     ▲                  │ error          │ device error
//!     └──────stop─────── failed ◄─────────┘      (start from failed: starting)
//! ```

use std::time::{Duration, Instant};

/// Where the bridge stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BridgeState {
    /// Not running.
    Stopped,
    /// Opening the device.
    Starting,
    /// Moving audio.
    Running,
    /// Closing the device.
    Stopping,
    /// The device could not be opened, or failed while running (see the error).
    Failed,
}

impl BridgeState {
    /// The name in the status record.
    pub fn as_str(self) -> &'static str {
        match self {
            BridgeState::Stopped => "stopped",
            BridgeState::Starting => "starting",
            BridgeState::Running => "running",
            BridgeState::Stopping => "stopping",
            BridgeState::Failed => "failed",
        }
    }
}

/// What a start or stop request should do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Go ahead (the state moved to `starting` / `stopping`).
    Proceed,
    /// Nothing to do: already there (or on the way).
    AlreadyDone,
    /// Not now: the bridge is in the middle of the opposite change.
    Conflict(BridgeState),
}

/// See the module docs.
#[derive(Debug, Clone)]
pub struct Lifecycle {
    state: BridgeState,
    running_since: Option<Instant>,
    error: Option<String>,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Lifecycle {
            state: BridgeState::Stopped,
            running_since: None,
            error: None,
        }
    }
}

impl Lifecycle {
    /// The state.
    pub fn state(&self) -> BridgeState {
        self.state
    }

    /// The last error (while `failed`).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Time running, at `now`.
    pub fn uptime(&self, now: Instant) -> Duration {
        self.running_since
            .map_or(Duration::ZERO, |t| now.saturating_duration_since(t))
    }

    /// A start is asked for.
    pub fn start(&mut self) -> Decision {
        match self.state {
            BridgeState::Stopped | BridgeState::Failed => {
                self.state = BridgeState::Starting;
                self.error = None;
                Decision::Proceed
            }
            BridgeState::Starting | BridgeState::Running => Decision::AlreadyDone,
            BridgeState::Stopping => Decision::Conflict(self.state),
        }
    }

    /// The start ended: running from `now`, or failed with `error`.
    pub fn started(&mut self, result: Result<(), String>, now: Instant) {
        if self.state != BridgeState::Starting {
            return;
        }
        match result {
            Ok(()) => {
                self.state = BridgeState::Running;
                self.running_since = Some(now);
            }
            Err(e) => {
                self.state = BridgeState::Failed;
                self.error = Some(e);
            }
        }
    }

    /// A stop is asked for (from `failed` it just clears the error).
    pub fn stop(&mut self) -> Decision {
        match self.state {
            BridgeState::Running => {
                self.state = BridgeState::Stopping;
                Decision::Proceed
            }
            BridgeState::Failed => {
                self.state = BridgeState::Stopped;
                self.error = None;
                self.running_since = None;
                Decision::AlreadyDone
            }
            BridgeState::Stopped | BridgeState::Stopping => Decision::AlreadyDone,
            BridgeState::Starting => Decision::Conflict(self.state),
        }
    }

    /// The stop ended.
    pub fn stopped(&mut self) {
        if self.state == BridgeState::Stopping {
            self.state = BridgeState::Stopped;
            self.running_since = None;
        }
    }

    /// The device failed while running.
    pub fn failed(&mut self, error: String) {
        if self.state == BridgeState::Running {
            self.state = BridgeState::Failed;
            self.running_since = None;
            self.error = Some(error);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_and_stop_are_idempotent() {
        let t = Instant::now();
        let mut l = Lifecycle::default();
        assert_eq!(l.stop(), Decision::AlreadyDone);
        assert_eq!(l.start(), Decision::Proceed);
        assert_eq!(l.start(), Decision::AlreadyDone, "starting already");
        l.started(Ok(()), t);
        assert_eq!(l.state(), BridgeState::Running);
        assert_eq!(l.start(), Decision::AlreadyDone);
        assert_eq!(l.uptime(t + Duration::from_secs(3)), Duration::from_secs(3));
        assert_eq!(l.stop(), Decision::Proceed);
        assert_eq!(l.stop(), Decision::AlreadyDone, "stopping already");
        l.stopped();
        assert_eq!(l.state(), BridgeState::Stopped);
        assert_eq!(l.uptime(t + Duration::from_secs(9)), Duration::ZERO);
    }

    #[test]
    fn opposite_changes_conflict() {
        let mut l = Lifecycle::default();
        l.start();
        assert_eq!(l.stop(), Decision::Conflict(BridgeState::Starting));
        l.started(Ok(()), Instant::now());
        l.stop();
        assert_eq!(l.start(), Decision::Conflict(BridgeState::Stopping));
    }

    #[test]
    fn failures_keep_their_error_until_the_next_start_or_stop() {
        let t = Instant::now();
        let mut l = Lifecycle::default();
        l.start();
        l.started(Err("no device".into()), t);
        assert_eq!(
            (l.state(), l.error()),
            (BridgeState::Failed, Some("no device"))
        );
        assert_eq!(l.start(), Decision::Proceed, "a retry");
        assert_eq!(l.error(), None);
        l.started(Ok(()), t);
        l.failed("the device went away".into());
        assert_eq!(l.state(), BridgeState::Failed);
        assert_eq!(l.stop(), Decision::AlreadyDone);
        assert_eq!((l.state(), l.error()), (BridgeState::Stopped, None));
        l.failed("late".into());
        assert_eq!(
            l.state(),
            BridgeState::Stopped,
            "only a running bridge fails"
        );
    }
}
