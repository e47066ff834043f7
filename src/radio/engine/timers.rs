//! The engine's timers, as data: one [`TimerTable`] slot per [`Timer`]. What is due at
//! `now` ([`Engine::handle_timeout`]), the next instant anything is
//! ([`Engine::poll_timeout`]), and when a request may go on the wire (one in flight,
//! pacing, the late-answer window).

use std::time::Instant;

use crate::lan::session::link_state::LinkState;
use crate::radio::engine::{Engine, Internal, LateAnswers, hex};
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::util::timer_table::TimerTable;

/// The engine's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Timer {
    /// The request in flight is retried or given up on.
    Request,
    /// Late answers to a settled request are no longer expected (nothing new is sent
    /// until then).
    LateAnswers,
    /// The least time between two requests has passed (pacing).
    Pacing,
    /// The running procedure's pause ends.
    Sleep,
    /// The transmitter has been keyed for the longest transmission allowed (armed while
    /// it is keyed, or may be: its being armed is what "keyed" means to the engine).
    TxTimeout,
    /// The power probe of a silent or switched-off radio is due (it goes while idle).
    Probe,
    /// The release's next attempt is due (it goes when the wire allows).
    Release,
}

impl Timer {
    /// How many there are.
    pub(super) const COUNT: usize = 7;
}

impl From<Timer> for usize {
    fn from(t: Timer) -> usize {
        t as usize
    }
}

/// The engine's timer table.
pub(super) type Timers = TimerTable<Timer, { Timer::COUNT }>;

impl Engine {
    /// Time passed: runs every timer that is due.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.timers.expire(Timer::Request, now)
            && let Some(mut inf) = self.inflight.take()
        {
            if inf.retry && inf.attempt == 1 && self.link == LinkState::Ready {
                self.stats.retries += 1;
                log::debug!("CI-V {}: no answer, retrying once", hex(&inf.req.frame));
                inf.attempt = 2;
                self.timers.set(Timer::Request, now + self.cfg.timeout);
                self.send_bytes(inf.req.frame.emit(), now);
                self.inflight = Some(inf);
            } else {
                self.stats.timeouts += 1;
                let e = CommandError::new(
                    ErrorCode::RadioTimeout,
                    format!(
                        "the radio did not answer CI-V {} within {:?}",
                        hex(&inf.req.frame),
                        self.cfg.timeout
                    ),
                );
                // the answers of its attempts may still come, late: they must not answer
                // the next request
                self.absorb = Some(LateAnswers {
                    req: inf.req.clone(),
                    count: inf.attempt,
                });
                self.timers.set(Timer::LateAnswers, now + self.cfg.timeout);
                self.deliver(inf.release, Err(e), now);
            }
        }
        if self.timers.expire(Timer::LateAnswers, now) {
            self.absorb = None;
        }
        self.timers.expire(Timer::Pacing, now);
        self.timers.expire(Timer::Sleep, now);
        if self.timers.expire(Timer::TxTimeout, now) {
            self.tx_timed_out(now);
        }
        // what ended above may leave the engine idle with the probe due
        self.drive(now);
        if self.timers.is_expired(Timer::Probe, now) && self.idle() {
            if self.link == LinkState::Ready {
                self.timers.set(Timer::Probe, now + self.cfg.probe_interval);
                self.internal.push_back(Internal::Probe);
            } else {
                self.timers.stop(Timer::Probe);
            }
            self.drive(now);
        }
    }

    /// The next instant [`Engine::handle_timeout`] has work (`None`: only input will).
    /// Never an instant that has passed: what is due but held back by the wire (a
    /// request or the release waiting for pacing or the late-answer window) is reported
    /// at the instant the wire allows it, and the probe only while the engine is idle.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let t = &self.timers;
        let mut next = t.next_of(&[
            Timer::Request,
            Timer::LateAnswers,
            Timer::Sleep,
            Timer::TxTimeout,
        ]);
        let mut at = |x: Option<Instant>| {
            if let Some(x) = x {
                next = Some(next.map_or(x, |n| n.min(x)));
            }
        };
        if self.idle() {
            at(t.get(Timer::Probe));
        }
        if self.inflight.is_none() {
            let wire = self.send_allowed_at();
            if self.running.as_ref().is_some_and(|r| r.pending.is_some()) {
                at(wire);
            }
            if self.link == LinkState::Ready {
                at(t.get(Timer::Release).map(|r| wire.map_or(r, |w| w.max(r))));
            }
        }
        next
    }

    /// The instant the wire allows the next request, when something holds it back
    /// (pacing, a late answer still expected); `None`: nothing does.
    fn send_allowed_at(&self) -> Option<Instant> {
        match (
            self.timers.get(Timer::LateAnswers),
            self.timers.get(Timer::Pacing),
        ) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    pub(super) fn idle(&self) -> bool {
        self.running.is_none() && self.inflight.is_none()
    }

    /// True when a new request may go on the wire at `now`.
    pub(super) fn may_send(&self, now: Instant) -> bool {
        self.inflight.is_none()
            && self.link == LinkState::Ready
            && self.send_allowed_at().is_none_or(|t| now >= t)
    }
}
