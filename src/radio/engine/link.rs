//! The engine and the link: link events, the connection flags and status, the model
//! the radio reports, the power state and the probe of a silent or switched-off radio,
//! and what happens after the internal work (fetch, scope restore, probe) ends.

use std::time::Instant;

use crate::lan::session::link_state::{LinkEvent, LinkState};
use crate::profile::{Profile, VfoScheme};
use crate::radio::engine::safety::Reason;
use crate::radio::engine::timers::Timer;
use crate::radio::engine::{CommandResult, Engine, EngineEvent, Internal, Origin};
use crate::radio::state::{RadioState, RadioStatus, ReceiverState};
use crate::radio::table::error::{CommandError, ErrorCode};

/// The radio state a profile starts with: its shape, nothing known.
pub fn unknown_radio(p: &Profile) -> RadioState {
    let ab = p.vfo.scheme == VfoScheme::Ab;
    let sub = (p.is_dual() && !ab).then(|| ReceiverState::unknown(false));
    RadioState::new(ReceiverState::unknown(ab), sub)
}

impl Engine {
    /// A link event.
    pub fn handle_link(&mut self, ev: LinkEvent, now: Instant) {
        match ev {
            LinkEvent::State(st) => {
                let was_ready = self.link == LinkState::Ready;
                self.link = st.clone();
                if st == LinkState::Ready && !was_ready {
                    self.civ_recovering = false;
                    self.fetched = false;
                    if self.standby {
                        // in standby (the link found it so before it was up): so is
                        // the transmitter
                        self.state.modify(|c| c.radio.ptt = Some(false));
                    } else {
                        self.internal.push_back(Internal::Fetch);
                    }
                } else if st != LinkState::Ready {
                    self.link_down(now);
                }
                self.update_connection();
            }
            LinkEvent::RadioInfo { name, civ_addr } => self.identify(&name, civ_addr),
            LinkEvent::CivRecovering if self.state.read(|c| c.radio.power_on) != Some(true) => {
                // a radio switched off (by a command, or its `18 00` report) or whose
                // power-off could not be confirmed goes silent: that is standby, the
                // normal state of a radio that is off, not a fault
                self.enter_standby();
            }
            LinkEvent::CivRecovering => {
                // silent while it should be on: switched off at the front panel without
                // telling, or not answering. Whether it is on is unknown now (so a
                // power-on is sent, not taken as done), the probe asks, and the state is
                // read again once it answers
                self.civ_recovering = true;
                self.fetched = false;
                self.state.modify(|c| c.radio.power_on = None);
                self.timers.set(Timer::Probe, now);
                self.update_connection();
            }
            LinkEvent::Standby => self.enter_standby(),
            LinkEvent::CivRecovered => {
                self.standby = false;
                self.civ_recovering = false;
                if !self.fetched
                    && self.link == LinkState::Ready
                    && !self.internal.contains(&Internal::Fetch)
                    && !self.fetch_running()
                {
                    self.internal.push_back(Internal::Fetch);
                }
                self.update_connection();
            }
            LinkEvent::AudioReady => {}
            LinkEvent::Failed { message, permanent } => {
                self.state.modify(|c| {
                    c.detail.message = Some(message.clone());
                    if permanent {
                        c.detail.status = RadioStatus::Failed;
                    }
                });
            }
        }
        self.drive(now);
    }

    /// The radio grants the streams but sends no CI-V: standby. It is shown switched off
    /// (so is its transmitter), is neither read nor probed, and a power-on can wake it
    /// (its data then brings `CivRecovered`).
    fn enter_standby(&mut self) {
        if !self.standby {
            log::info!("the radio is in standby (switched off, CI-V silent)");
        }
        self.standby = true;
        self.civ_recovering = false;
        self.probe_timeouts = 0;
        self.fetched = false;
        self.internal.retain(|i| *i != Internal::Fetch);
        self.state.modify(|c| {
            c.radio.power_on = Some(false);
            c.radio.ptt = Some(false);
        });
        self.timers.stop(Timer::Probe);
        self.release_moot();
        self.update_connection();
    }

    pub(super) fn fetch_running(&self) -> bool {
        matches!(
            self.running.as_ref().map(|r| &r.origin),
            Some(Origin::Internal(Internal::Fetch))
        )
    }

    /// The link went down: nothing in flight survives; PTT is unknown until the radio is
    /// read again (an outstanding release waits for the reconnect).
    fn link_down(&mut self, now: Instant) {
        // a transmitter keyed when the link went is unkeyed first thing after the reconnect
        let keyed =
            self.timers.is_set(Timer::TxTimeout) || self.state.read(|c| c.radio.ptt) == Some(true);
        self.fetched = false;
        self.standby = false;
        self.inflight = None;
        self.absorb = None;
        for t in [
            Timer::Probe,
            Timer::TxTimeout,
            Timer::Request,
            Timer::LateAnswers,
            Timer::Sleep,
        ] {
            self.timers.stop(t);
        }
        if let Some(r) = self.release.as_mut() {
            // after the reconnect the unkey goes first, not a read-back of the old attempt
            r.check = None;
        }
        if let Some(r) = self.running.take() {
            let e = CommandError::new(
                ErrorCode::RadioUnavailable,
                "the radio link went down during the command",
            );
            if let Origin::Client(Some(reply)) = r.origin {
                self.complete(reply, Err(e));
            }
        }
        self.fail_queued_if_down();
        self.state.modify(|c| c.radio.ptt = None);
        if keyed {
            log::warn!("the radio link went down while transmitting: unkeying after the reconnect");
            self.start_release(Reason::Reconnect, None, now);
        }
    }

    /// Switches profile when the radio reports a model other than the configured one.
    fn identify(&mut self, name: &str, civ_addr: Option<u8>) {
        let current = self.profile.clone();
        if current.model().eq_ignore_ascii_case(name) || name.is_empty() {
            return;
        }
        match self.registry.find(name, civ_addr) {
            Some(p) if p.id() != current.id() => {
                log::info!(
                    "the radio reports itself as {name}: using profile {}",
                    p.id()
                );
                self.profile = p.clone();
                let fresh = unknown_radio(&p);
                self.state.modify(|c| {
                    c.radio = fresh;
                    c.detail.model = p.model().to_string();
                });
                self.emit(EngineEvent::ProfileChanged(p));
            }
            Some(_) => {}
            None => log::warn!(
                "the radio reports itself as {name:?}, which no profile describes; keeping {}",
                current.id()
            ),
        }
    }

    /// Recomputes the connection flags and status from what is known.
    pub(super) fn update_connection(&mut self) {
        let (state, recovering, fetched) = (&self.link, self.civ_recovering, self.fetched);
        let timeouts = self.probe_timeouts;
        let releasing = self.release.is_some();
        let standby = self.standby;
        self.state.modify(|c| {
            let power_on = c.radio.power_on;
            c.connection.control_connected =
                matches!(state, LinkState::Connected | LinkState::Ready);
            c.connection.rig_connected = *state == LinkState::Ready;
            c.connection.radio_ready =
                *state == LinkState::Ready && !recovering && power_on == Some(true) && fetched;
            let status = match state {
                LinkState::Ready if power_on == Some(false) => RadioStatus::PoweredOff,
                LinkState::Ready if recovering && timeouts >= 3 => RadioStatus::NotResponding,
                LinkState::Ready if recovering => RadioStatus::Recovering,
                LinkState::Ready => RadioStatus::Connected,
                LinkState::Idle => RadioStatus::Disconnected,
                LinkState::Connecting | LinkState::Connected => RadioStatus::Connecting,
                LinkState::Reconnecting { .. } => RadioStatus::Reconnecting,
                LinkState::Failed => RadioStatus::Failed,
            };
            c.detail.status = status;
            match status {
                RadioStatus::NotResponding => {
                    c.detail.message = Some(
                        "the radio does not answer CI-V: it is probably switched off or busy"
                            .into(),
                    )
                }
                RadioStatus::PoweredOff if standby => {
                    c.detail.message = Some(
                        "the radio sends no CI-V: it is in standby; switch it on with POST /api/v1/radio/power {\"state\":\"on\"}"
                            .into(),
                    )
                }
                RadioStatus::Connected | RadioStatus::PoweredOff if !releasing => {
                    c.detail.message = None
                }
                _ => {}
            }
            if !c.connection.rig_connected {
                c.radio.ptt = None;
            }
        });
    }

    /// Follows a power report (`18 00` / `18 01`).
    pub(super) fn after_power_report(&mut self, now: Instant) {
        let on = self.state.read(|c| c.radio.power_on);
        if on == Some(true)
            && !self.fetched
            && self.link == LinkState::Ready
            && !self.internal.contains(&Internal::Fetch)
            && !self.fetch_running()
        {
            self.internal.push_back(Internal::Fetch);
        }
        if on == Some(false) {
            // a radio in standby is not probed: when it is switched on again its CI-V
            // data comes back (`CivRecovered`). Until the link finds it silent it is
            // asked once more, later than the link would have (a radio switched on again
            // at once goes on talking and answers at once)
            self.fetched = false;
            self.civ_recovering = false;
            self.release_moot();
            if self.standby {
                self.timers.stop(Timer::Probe);
            } else {
                self.timers
                    .set(Timer::Probe, now + self.cfg.off_probe_after);
            }
        } else if !self.civ_recovering {
            self.timers.stop(Timer::Probe);
        }
        self.update_connection();
    }

    /// Internal work ended.
    pub(super) fn internal_done(&mut self, i: Internal, result: CommandResult, now: Instant) {
        match (i, result) {
            (Internal::Fetch, Ok(_)) => {
                self.probe_timeouts = 0;
                let (on, ptt) = self.state.read(|c| (c.radio.power_on, c.radio.ptt));
                self.fetched = on == Some(true);
                if on == Some(false) {
                    self.after_power_report(now);
                }
                if self.fetched && self.scope_output {
                    self.internal.push_back(Internal::ScopeRestore);
                }
                if ptt == Some(true) {
                    log::warn!(
                        "the radio is transmitting after (re)connecting and nobody owns PTT: releasing it"
                    );
                    self.start_release(Reason::Reconnect, None, now);
                }
            }
            (Internal::Fetch, Err(e)) => {
                log::warn!("reading the radio's state failed: {e}");
                self.timers.set(Timer::Probe, now + self.cfg.probe_interval);
            }
            (Internal::ScopeRestore, Err(e)) => log::debug!("scope output not restored: {e}"),
            (Internal::ScopeRestore, Ok(_)) => {}
            (Internal::WidthRefresh(rx), Err(e)) => {
                log::debug!("filter width of receiver {rx} not read again: {e}")
            }
            (Internal::WidthRefresh(_), Ok(_)) => {}
            (Internal::ScopeRefresh, Err(e)) => log::debug!("scope settings not read again: {e}"),
            (Internal::ScopeRefresh, Ok(_)) => {}
            (Internal::Probe, Ok(_)) => {
                self.probe_timeouts = 0;
                self.after_power_report(now);
            }
            (Internal::Probe, Err(e)) => {
                if e.code == ErrorCode::RadioTimeout {
                    self.probe_timeouts += 1;
                }
                // the next probe one interval after this one ended: a probe that times out
                // holds the engine for longer than the interval, and probes back to back
                // would leave no moment for a client's command (the executor hands one
                // over only while the engine is idle)
                if self.timers.is_set(Timer::Probe) {
                    self.timers.set(Timer::Probe, now + self.cfg.probe_interval);
                }
            }
        }
        self.update_connection();
    }
}
