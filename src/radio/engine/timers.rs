//! The engine's timers: what is due at `now` ([`Engine::handle_timeout`]), the next
//! instant anything is ([`Engine::poll_timeout`]), and when a request may go on the wire
//! (one in flight, pacing, the late-answer window).

use std::time::Instant;

use super::safety;
use super::{Engine, Internal, LateAnswers, hex};
use crate::lan::link::LinkState;
use crate::radio::error::{CommandError, ErrorCode};

impl Engine {
    /// Time passed: runs every timer that is due.
    pub fn handle_timeout(&mut self, now: Instant) {
        if let Some(inf) = &self.inflight
            && now >= inf.deadline
        {
            let mut inf = self.inflight.take().expect("checked above");
            if inf.retry && inf.attempt == 1 && self.link == LinkState::Ready {
                self.stats.retries += 1;
                log::debug!("CI-V {}: no answer, retrying once", hex(&inf.req.frame));
                inf.attempt = 2;
                inf.deadline = now + self.cfg.timeout;
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
                    until: now + self.cfg.timeout,
                });
                self.deliver(inf.release, Err(e), now);
            }
        }
        if self.absorb.as_ref().is_some_and(|l| now >= l.until) {
            self.absorb = None;
        }
        if let Some(r) = self.running.as_mut()
            && r.sleep_until.is_some_and(|t| now >= t)
        {
            r.sleep_until = None;
        }
        if self
            .tx_since
            .is_some_and(|t| now >= t + self.cfg.tx_timeout)
        {
            log::warn!(
                "transmit timeout ({:?}): releasing PTT",
                self.cfg.tx_timeout
            );
            self.tx_since = None;
            self.start_release(safety::Reason::TxTimeout, None, now);
        }
        // what ended above may leave the engine idle with the probe due
        self.drive(now);
        if self.next_probe.is_some_and(|t| now >= t) && self.idle() {
            self.next_probe = Some(now + self.cfg.probe_interval);
            if self.link == LinkState::Ready {
                self.internal.push_back(Internal::Probe);
            } else {
                self.next_probe = None;
            }
            self.drive(now);
        }
    }

    /// The next instant [`Engine::handle_timeout`] has work (`None`: only input will).
    pub fn poll_timeout(&self) -> Option<Instant> {
        let mut t: Option<Instant> = None;
        let mut at = |x: Option<Instant>| {
            if let Some(x) = x {
                t = Some(t.map_or(x, |t| t.min(x)));
            }
        };
        at(self.inflight.as_ref().map(|i| i.deadline));
        at(self.absorb.as_ref().map(|l| l.until));
        at(self.tx_since.map(|s| s + self.cfg.tx_timeout));
        if let Some(r) = &self.running {
            at(r.sleep_until);
            if r.pending.is_some() && self.inflight.is_none() {
                at(self.send_allowed_at());
            }
        }
        if self.idle() {
            at(self.next_probe);
        }
        if self.inflight.is_none() && self.link == LinkState::Ready {
            // due, but it waits for the wire like any request (never a time in the past
            // that nothing can act on: the shell would spin)
            at(self.release.as_ref().map(|r| {
                self.send_allowed_at()
                    .map_or(r.next_at, |a| a.max(r.next_at))
            }));
        }
        t
    }

    /// The instant the wire allows the next request, when something holds it back
    /// (pacing, a late answer still expected); `None`: nothing does.
    fn send_allowed_at(&self) -> Option<Instant> {
        let absorb = self.absorb.as_ref().map(|l| l.until);
        match (absorb, self.next_send_at()) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    pub(super) fn idle(&self) -> bool {
        self.running.is_none() && self.inflight.is_none()
    }

    pub(super) fn next_send_at(&self) -> Option<Instant> {
        self.last_send
            .filter(|_| !self.cfg.pacing.is_zero())
            .map(|t| t + self.cfg.pacing)
    }

    /// True when a new request may go on the wire at `now`.
    pub(super) fn may_send(&self, now: Instant) -> bool {
        self.inflight.is_none()
            && self.link == LinkState::Ready
            && self.absorb.as_ref().is_none_or(|l| now >= l.until)
            && self.next_send_at().is_none_or(|t| now >= t)
    }
}
