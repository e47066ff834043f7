//! Transmitter safety: the release, an unkey that must succeed. It is started by the
//! transmit timeout, by a client that leaves while owning PTT, by a `ptt false` after
//! which the radio still reads back keyed, by PTT in doubt (a failed PTT command whose
//! read-back failed too), by a transmitter found keyed after a reconnect, and at
//! shutdown. It goes out between any two requests, without retry of its own. When the
//! radio refuses it or does not answer, PTT is read back (`1C 00`; a refused read is
//! asked again, up to three reads): a radio that says it is not transmitting ends the
//! release (a NAK that lies, a lost ACK, or a radio that refused a key and never
//! transmitted); one that says it is, or cannot be read, gets the unkey again after
//! 250 ms, doubling up to 5 s, for as long as it takes, and each such failure raises
//! `unkey_failed` and shows in `radioDetail.message`. While the link is down it waits,
//! and goes out first thing after the reconnect.

use std::time::Instant;

use crate::lan::session::link_state::LinkState;
use crate::radio::engine::power::{ptt_read, ptt_reply, ptt_set, read_again};
use crate::radio::engine::proc::Outcome;
use crate::radio::engine::timers::Timer;
use crate::radio::engine::{Engine, Job, Reply};
use crate::radio::state::events::RadioEvent;
use crate::radio::table::answer::Answer;
use crate::radio::table::error::{CommandError, ErrorCode};

/// Why the transmitter is being released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// A client asked (`ptt false` joining a release, or the PTT owner left).
    Requested,
    /// The transmit timeout.
    TxTimeout,
    /// PTT is in doubt, or an unkey failed.
    InDoubt,
    /// Keyed when the link was lost (it goes out first thing after the reconnect), or
    /// found keyed after a reconnect with nobody owning it.
    Reconnect,
    /// The server is stopping.
    Shutdown,
}

/// An outstanding release.
pub struct Release {
    /// Why (the first reason).
    pub reason: Reason,
    /// Attempts so far (the next one is due at `Timer::Release`).
    pub attempts: u32,
    /// Waiting for the confirmation.
    pub waiters: Vec<Reply>,
    /// The last unkey failed: PTT is read back before the next one.
    pub check: Option<Check>,
}

/// Reading PTT back after an unkey that failed.
pub struct Check {
    /// Why the unkey failed.
    pub error: CommandError,
    /// Reads sent so far.
    pub reads: u32,
}

impl Engine {
    /// Starts a release (joins the outstanding one, adding `waiter`); TX audio stops at
    /// once.
    pub(super) fn start_release(&mut self, reason: Reason, waiter: Option<Reply>, now: Instant) {
        self.tx_audio.close();
        let r = self.release.get_or_insert(Release {
            reason,
            attempts: 0,
            waiters: Vec::new(),
            check: None,
        });
        r.waiters.extend(waiter);
        if r.attempts == 0 {
            let at = self.timers.get(Timer::Release).map_or(now, |t| t.min(now));
            self.timers.set(Timer::Release, at);
        }
        self.drive(now);
    }

    /// True when the release should go on the wire now.
    pub(super) fn release_due(&self, now: Instant) -> bool {
        self.link == LinkState::Ready
            && self.release.is_some()
            && self.timers.is_expired(Timer::Release, now)
    }

    /// Sends the release's next request: the unkey, or the read-back after a failed one.
    pub(super) fn send_release(&mut self, now: Instant) {
        let addr = self.profile.radio.civ_addr;
        let Some(r) = self.release.as_mut() else {
            return;
        };
        let req = match r.check.as_mut() {
            Some(check) => {
                check.reads += 1;
                ptt_read(addr)
            }
            None => {
                r.attempts += 1;
                ptt_set(addr, false)
            }
        };
        self.send(req, false, true, now);
    }

    /// The outcome of one request of the release.
    pub(super) fn release_outcome(&mut self, outcome: Outcome, now: Instant) {
        let Some(mut r) = self.release.take() else {
            return;
        };
        let Some(mut check) = r.check.take() else {
            // an unkey
            match outcome {
                Ok(_) => {
                    log::info!("PTT released ({:?}, attempt {})", r.reason, r.attempts);
                    self.released(r);
                }
                Err(error) => {
                    // the radio may have unkeyed all the same: ask it before trying again
                    log::debug!("release: the unkey failed ({error}); reading PTT back");
                    self.state.modify(|c| c.radio.ptt = None);
                    r.check = Some(Check { error, reads: 0 });
                    self.timers.set(Timer::Release, now);
                    self.release = Some(r);
                }
            }
            return;
        };
        match outcome.as_ref().ok().and_then(ptt_reply) {
            Some(false) => {
                log::info!(
                    "PTT released ({:?}, attempt {}): the unkey was answered \"{}\" but the radio reads back not transmitting",
                    r.reason,
                    r.attempts,
                    check.error
                );
                self.released(r);
            }
            Some(true) => {
                self.state.modify(|c| c.radio.ptt = Some(true));
                self.unkey_failed(r, check.error, now);
            }
            None if read_again(Some(&outcome), check.reads) => {
                r.check = Some(check);
                self.timers.set(Timer::Release, now);
                self.release = Some(r);
            }
            None => {
                check.error.message =
                    format!("{}; PTT could not be read back either", check.error.message);
                self.unkey_failed(r, check.error, now);
            }
        }
    }

    /// The radio confirmed that it does not transmit.
    fn released(&mut self, r: Release) {
        self.timers.stop(Timer::Release);
        self.state.modify(|c| c.radio.ptt = Some(false));
        self.timers.stop(Timer::TxTimeout);
        if r.reason == Reason::TxTimeout && r.attempts == 1 {
            self.tx_timeout_event(true);
        }
        for w in r.waiters {
            self.complete(
                w,
                Ok(Answer::Ptt {
                    on: false,
                    read_back: None,
                }),
            );
        }
        self.update_connection();
    }

    /// An unkey failed and the radio did not say it is off: the next attempt after the
    /// backoff.
    fn unkey_failed(&mut self, r: Release, e: CommandError, now: Instant) {
        self.stats.release_failures += 1;
        let exp = r.attempts.saturating_sub(1).min(16);
        let backoff =
            (self.cfg.release_backoff_min * 2u32.pow(exp)).min(self.cfg.release_backoff_max);
        self.timers.set(Timer::Release, now + backoff);
        log::error!(
            "unkeying the transmitter failed (attempt {}): {e}; trying again in {backoff:?}",
            r.attempts
        );
        if r.reason == Reason::TxTimeout && r.attempts == 1 {
            self.tx_timeout_event(false);
        }
        self.state.notify(RadioEvent::UnkeyFailed {
            attempts: r.attempts,
            message: e.message.clone(),
            retry_in_ms: backoff.as_millis() as u64,
        });
        let attempts = r.attempts;
        self.release = Some(r);
        self.state.modify(|c| {
            c.detail.message = Some(format!(
                "the transmitter could not be unkeyed yet ({attempts} attempts): retrying until the radio confirms"
            ))
        });
    }

    /// The radio reports itself switched off (or in standby): so is its transmitter, and
    /// an outstanding release has nothing left to do.
    pub(super) fn release_moot(&mut self) {
        let Some(r) = self.release.take() else {
            return;
        };
        self.timers.stop(Timer::Release);
        log::info!(
            "PTT release ({:?}) ends: the radio is switched off",
            r.reason
        );
        for w in r.waiters {
            self.complete(
                w,
                Ok(Answer::Ptt {
                    on: false,
                    read_back: None,
                }),
            );
        }
        self.update_connection();
    }

    /// Starts (or restarts) the transmit timer from the state; a transmitter keyed with
    /// no release outstanding opens the gate of TX audio.
    pub(super) fn track_ptt(&mut self, now: Instant) {
        let ptt = self.state.read(|c| c.radio.transmitting());
        match (ptt, self.timers.is_set(Timer::TxTimeout)) {
            (true, false) => {
                self.timers.set(Timer::TxTimeout, now + self.cfg.tx_timeout);
                if self.release.is_none() {
                    self.tx_audio.open();
                }
            }
            // unknown (a read-back on its way) is not "off": the timer keeps running
            (false, true) if self.state.read(|c| c.radio.ptt) == Some(false) => {
                self.timers.stop(Timer::TxTimeout)
            }
            _ => {}
        }
    }

    /// The transmitter has been keyed for the longest transmission allowed.
    pub(super) fn tx_timed_out(&mut self, now: Instant) {
        log::warn!(
            "transmit timeout ({:?}): releasing PTT",
            self.cfg.tx_timeout
        );
        self.start_release(Reason::TxTimeout, None, now);
    }

    /// Shutting down: unkeys the transmitter if it may be keyed (the shell keeps driving
    /// until [`Engine::is_settled`] or its deadline).
    pub fn shutdown(&mut self, now: Instant) {
        self.tx_audio.close();
        let ptt = self.state.read(|c| c.radio.ptt);
        if ptt != Some(false) && self.link == LinkState::Ready {
            log::info!("shutting down while the transmitter may be keyed: releasing PTT");
            self.start_release(Reason::Shutdown, None, now);
        }
        let queued: Vec<Job> = self
            .user
            .drain(..)
            .chain(self.background.drain(..))
            .collect();
        for job in queued {
            let e = CommandError::new(
                ErrorCode::RadioUnavailable,
                "the server is shutting down; the command was not sent",
            );
            self.complete(job.reply, Err(e));
        }
        self.drive(now);
    }

    fn tx_timeout_event(&mut self, released: bool) {
        self.state.notify(RadioEvent::TxTimeout {
            released,
            after_s: self.cfg.tx_timeout.as_secs(),
        });
    }
}
