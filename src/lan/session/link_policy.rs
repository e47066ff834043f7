//! The supervisor's policy as a sans-IO machine: when to open a session, when the link
//! is up, ready, in standby or lost, how long to back off before the next attempt, when
//! to ask for the streams again, and when to open or close the audio stream. Fed
//! `(input, now)`; answers with [`Action`]s the control thread carries out and with
//! [`LinkPolicy::poll_timeout`]; no socket, thread or clock in here.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::link_state::{LinkEvent, LinkState, PortReport};
use crate::net::poll::earliest;

/// The timing the policy follows (from `LinkConfig`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::lan) struct PolicyTiming {
    /// Nothing heard on control and CI-V for this long while up: the link is lost.
    pub link_timeout: Duration,
    /// First reconnect delay; doubles per failure up to `backoff_max`.
    pub backoff_min: Duration,
    /// Longest reconnect delay.
    pub backoff_max: Duration,
    /// Pause before asking for the streams again after the radio closed them.
    pub streams_retry: Duration,
}

/// What the policy is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::lan) enum Input {
    /// Connect (again), resetting the back-off.
    Connect,
    /// Log out and stay idle.
    Disconnect,
    /// Audio wanted or not.
    Audio(bool),
    /// A report of a port thread.
    Port(PortReport),
    /// The session granted the streams on these radio ports (CI-V, audio).
    StreamsGranted {
        /// The radio's CI-V port.
        civ_port: u16,
        /// The radio's audio port.
        audio_port: u16,
    },
    /// The radio closed the streams.
    StreamsClosed,
    /// The session failed.
    SessionFailed {
        /// Why, for users.
        message: String,
        /// Retrying cannot fix it (wrong credentials).
        permanent: bool,
    },
}

/// What the control thread does for the policy, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::lan) enum Action {
    /// Start a new control session.
    StartSession,
    /// Close the audio stream (if `audio`), then CI-V, then log the session out.
    Teardown {
        /// The audio stream is open.
        audio: bool,
    },
    /// Open CI-V on the radio's port.
    OpenCiv(u16),
    /// Close CI-V (the session stays).
    CloseCiv,
    /// Open audio on the radio's port.
    OpenAudio(u16),
    /// Close audio.
    CloseAudio,
    /// Ask the session for the streams again.
    RequestStreams,
    /// The link's state is now this.
    State(LinkState),
    /// Tell the radio layer.
    Emit(LinkEvent),
    /// One more successful connection (status).
    Connected,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Idle,
    Connecting,
    Up,
    Backoff { until: Instant },
    Failed,
}

/// The supervisor's policy.
#[derive(Debug)]
pub(in crate::lan) struct LinkPolicy {
    timing: PolicyTiming,
    phase: Phase,
    state: LinkState,
    attempt: u32,
    want_audio: bool,
    audio_open: bool,
    ports: (u16, u16),
    up_at: Option<Instant>,
    streams_retry_at: Option<Instant>,
    actions: VecDeque<Action>,
}

impl LinkPolicy {
    /// An idle link.
    pub fn new(timing: PolicyTiming) -> LinkPolicy {
        LinkPolicy {
            timing,
            phase: Phase::Idle,
            state: LinkState::Idle,
            attempt: 0,
            want_audio: false,
            audio_open: false,
            ports: (0, 0),
            up_at: None,
            streams_retry_at: None,
            actions: VecDeque::new(),
        }
    }

    /// The next action to carry out.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// When the policy next needs [`LinkPolicy::handle_timeout`], given when the radio
    /// was last heard on control or CI-V.
    pub fn poll_timeout(&self, last_heard: Instant) -> Option<Instant> {
        let own = match self.phase {
            Phase::Backoff { until } => Some(until),
            Phase::Up => Some(self.heard(last_heard) + self.timing.link_timeout),
            Phase::Idle | Phase::Connecting | Phase::Failed => None,
        };
        earliest(own, self.streams_retry_at)
    }

    /// Time passed: the next attempt after a back-off, a silent link lost, the streams
    /// asked for again.
    pub fn handle_timeout(&mut self, now: Instant, last_heard: Instant) {
        match self.phase {
            Phase::Backoff { until } if now >= until => self.start_attempt(),
            Phase::Up
                if now.saturating_duration_since(self.heard(last_heard))
                    >= self.timing.link_timeout =>
            {
                let secs = self.timing.link_timeout.as_secs_f32();
                self.lost(&format!("no answer from the radio for {secs:.1} s"), now);
                return;
            }
            _ => {}
        }
        if self.streams_retry_at.is_some_and(|t| now >= t) {
            self.streams_retry_at = None;
            self.actions.push_back(Action::RequestStreams);
        }
    }

    /// Handles `input` at `now`.
    pub fn handle(&mut self, input: Input, now: Instant) {
        match input {
            Input::Connect => {
                if matches!(
                    self.phase,
                    Phase::Idle | Phase::Failed | Phase::Backoff { .. }
                ) {
                    self.attempt = 0;
                    self.start_attempt();
                }
            }
            Input::Disconnect => {
                self.teardown();
                self.phase = Phase::Idle;
                self.set_state(LinkState::Idle);
            }
            Input::Audio(on) => {
                self.want_audio = on;
                if self.phase == Phase::Up {
                    self.sync_audio();
                }
            }
            Input::Port(r) => self.port_report(r, now),
            Input::StreamsGranted {
                civ_port,
                audio_port,
            } => {
                self.ports = (civ_port, audio_port);
                self.phase = Phase::Up;
                self.up_at = Some(now);
                self.set_state(LinkState::Connected);
                self.actions.push_back(Action::OpenCiv(civ_port));
                self.audio_open = false;
                self.sync_audio();
            }
            Input::StreamsClosed => {
                self.actions.push_back(Action::CloseCiv);
                if self.audio_open {
                    self.audio_open = false;
                    self.actions.push_back(Action::CloseAudio);
                }
                self.set_state(LinkState::Connected);
                self.streams_retry_at = Some(now + self.timing.streams_retry);
                self.phase = Phase::Connecting;
            }
            Input::SessionFailed { message, permanent } => {
                self.actions
                    .push_back(Action::Emit(LinkEvent::Failed { message, permanent }));
                self.teardown();
                if permanent {
                    self.phase = Phase::Failed;
                    self.set_state(LinkState::Failed);
                } else {
                    self.backoff(now);
                }
            }
        }
    }

    /// When the radio was last heard, counting the moment the streams were granted (an
    /// older CI-V datagram belongs to an earlier session).
    fn heard(&self, last_heard: Instant) -> Instant {
        self.up_at.map_or(last_heard, |t| t.max(last_heard))
    }

    fn set_state(&mut self, state: LinkState) {
        if self.state != state {
            self.state = state.clone();
            self.actions.push_back(Action::State(state));
        }
    }

    fn emit(&mut self, e: LinkEvent) {
        self.actions.push_back(Action::Emit(e));
    }

    fn sync_audio(&mut self) {
        if self.want_audio && !self.audio_open {
            self.audio_open = true;
            self.actions.push_back(Action::OpenAudio(self.ports.1));
        } else if !self.want_audio && self.audio_open {
            self.audio_open = false;
            self.actions.push_back(Action::CloseAudio);
        }
    }

    fn start_attempt(&mut self) {
        self.actions.push_back(Action::StartSession);
        self.phase = Phase::Connecting;
        self.set_state(LinkState::Connecting);
    }

    fn teardown(&mut self) {
        self.actions.push_back(Action::Teardown {
            audio: self.audio_open,
        });
        self.audio_open = false;
        self.streams_retry_at = None;
        self.up_at = None;
    }

    fn backoff(&mut self, now: Instant) {
        self.attempt += 1;
        let factor = 1u32 << (self.attempt - 1).min(16);
        let delay = self
            .timing
            .backoff_min
            .saturating_mul(factor)
            .min(self.timing.backoff_max);
        self.phase = Phase::Backoff { until: now + delay };
        self.set_state(LinkState::Reconnecting {
            attempt: self.attempt,
            retry_in: delay,
        });
        log::info!(
            "radio link: next attempt in {delay:?} (attempt {})",
            self.attempt
        );
    }

    fn lost(&mut self, why: &str, now: Instant) {
        log::warn!("radio link lost: {why}");
        self.emit(LinkEvent::Failed {
            message: why.to_string(),
            permanent: false,
        });
        self.teardown();
        self.backoff(now);
    }

    /// The link works (`standby`: the radio is silent): the back-off starts over.
    fn ready(&mut self, standby: bool) {
        self.attempt = 0;
        self.actions.push_back(Action::Connected);
        if standby {
            self.emit(LinkEvent::Standby);
        }
        self.set_state(LinkState::Ready);
    }

    fn port_report(&mut self, r: PortReport, now: Instant) {
        let up = self.phase == Phase::Up;
        match r {
            // data after a silent start (the radio was switched on)
            PortReport::CivOpened if up && self.state == LinkState::Ready => {
                self.emit(LinkEvent::CivRecovered)
            }
            PortReport::CivOpened if up => {
                self.ready(false);
                log::info!("radio link ready");
            }
            // the radio grants the streams but says nothing: it is in standby. The link
            // is usable (a power-on can be sent); data will follow.
            PortReport::CivSilent if up => {
                self.ready(true);
                log::info!("radio link ready; the radio is silent (standby)");
            }
            PortReport::CivRecovering => self.emit(LinkEvent::CivRecovering),
            PortReport::CivRecovered => self.emit(LinkEvent::CivRecovered),
            PortReport::CivLost if up => {
                self.lost("the radio does not answer on its CI-V port", now)
            }
            PortReport::AudioReady => self.emit(LinkEvent::AudioReady),
            PortReport::AudioLost => {
                log::warn!("radio link: the audio port does not answer");
                self.audio_open = false;
            }
            PortReport::CivOpened
            | PortReport::CivSilent
            | PortReport::CivLost
            | PortReport::Malformed(_) => {}
        }
    }
}

#[cfg(test)]
#[path = "link_policy_tests.rs"]
mod tests;
