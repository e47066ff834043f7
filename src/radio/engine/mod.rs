//! The command engine: the single owner of CI-V traffic as a sans-IO state machine, in
//! the style of quinn-proto's `Connection`. It is fed commands ([`Engine::submit`]),
//! frames from the radio ([`Engine::handle_frame`]), link events
//! ([`Engine::handle_link`]) and time ([`Engine::handle_timeout`]); it hands out CI-V
//! bytes to send ([`Engine::poll_transmit`]), the next instant it needs to run
//! ([`Engine::poll_timeout`]) and finished commands ([`Engine::poll_event`]). It never
//! sleeps, reads a clock or touches a socket; the executor (run on the link's CI-V
//! thread) is a thin shell around it, and the tests drive it in virtual time against
//! the simulator's rig.
//!
//! ```text
//!            submit ─► queue ─► procedure ─► step ─► Send ─► in flight ─► answer/NAK/timeout
//!                                   ▲                            │ (retry once; after an
//!                                   └──────── outcome ◄──────────┘  answered retry the other
//!                                                                   answer is set aside)
//!  timers: request deadline · pacing · late-answer window · TX timeout · power probe ·
//!          release backoff (an unkey that must succeed)
//! ```
//!
//! One request is in flight at a time. A command is a [`proc::Procedure`]: a small state
//! machine asked for its next request with the outcome of the previous one. Internal
//! work (the state fetch after every (re)connect or power-on, the scope output after a
//! reconnect, the power probe, the release of the transmitter) runs through the same
//! pipeline, before user commands; the release goes out between any two requests.

mod antenna;
mod band;
mod commands;
mod drive;
mod fetch;
mod link;
pub use link::unknown_radio;
mod memory;
pub mod meter_rounds;
mod meters;
mod mod_input;
mod power;
pub mod proc;
mod safety;
mod send_cw;
mod timers;
mod tuning;
mod vfo;

pub mod request;
pub mod scope;
pub mod scope_output;
pub mod tx_audio;

#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::radio::table::answer::Answer;

use self::proc::{Outcome, Procedure};
use self::safety::Release;
use self::timers::{Timer, Timers};
use crate::lan::session::link_state::LinkState;
use crate::profile::{Profile, ProfileRegistry};
use crate::radio::engine::request::{CivRequest, Match};
use crate::radio::engine::scope::SweepEdges;
use crate::radio::engine::tx_audio::TxAudio;
use crate::radio::state::apply::{apply_frame, mode_frame_receiver};
use crate::radio::state::{RadioStatus, StateContent, StateUpdate, TrackedState};
use crate::radio::table::command::Command;
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::wire::civ::{BROADCAST, CONTROLLER, Frame, Receiver, cmd};

/// What a finished command reports.
pub type CommandResult = Result<Answer, CommandError>;

/// Receives a command's result, exactly once.
pub type Reply = Box<dyn FnOnce(CommandResult) + Send>;

/// A command with the code that receives its result.
pub struct Job {
    /// The command.
    pub cmd: Command,
    /// Called exactly once with the result.
    pub reply: Reply,
}

/// Engine settings.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// How long a request waits for its answer.
    pub timeout: Duration,
    /// Least time between two requests sent (0: as fast as answers come).
    pub pacing: Duration,
    /// Longest transmission before PTT is released automatically.
    pub tx_timeout: Duration,
    /// Period of the power probe while the radio is silent though it should be on.
    pub probe_interval: Duration,
    /// After the radio reported itself off, its power is asked once more this much later
    /// unless the link has found it silent (standby) meanwhile, so that a radio switched
    /// on again at once (at its front panel, without a word) is found. Longer than the
    /// link takes to report a silent radio (2.5 s), so a radio in standby is not asked.
    pub off_probe_after: Duration,
    /// First pause before an unkey that failed is tried again (doubling).
    pub release_backoff_min: Duration,
    /// Longest pause between two attempts of an unkey.
    pub release_backoff_max: Duration,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            timeout: Duration::from_millis(1500),
            pacing: Duration::ZERO,
            tx_timeout: Duration::from_secs(180),
            probe_interval: Duration::from_secs(2),
            off_probe_after: Duration::from_secs(4),
            release_backoff_min: Duration::from_millis(250),
            release_backoff_max: Duration::from_secs(5),
        }
    }
}

/// Counters of the engine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineStats {
    /// Requests sent (retries included).
    pub sent: u64,
    /// Requests answered OK.
    pub ok: u64,
    /// Requests answered NAK.
    pub naks: u64,
    /// Requests that timed out.
    pub timeouts: u64,
    /// Retries after a timeout.
    pub retries: u64,
    /// Unsolicited frames applied (transceive).
    pub unsolicited: u64,
    /// Frames that matched nothing.
    pub unmatched: u64,
    /// Late answers to a request already answered (after a retry), set aside.
    pub late: u64,
    /// Unkey attempts of the release that failed.
    pub release_failures: u64,
}

/// What the engine reports to its shell, in the order it happened.
pub enum EngineEvent {
    /// The state changed (or raised an event): publish it.
    State(StateUpdate),
    /// A command finished: call the reply with the result.
    Completed(Reply, CommandResult),
    /// The radio identified itself as another model: this profile applies now.
    ProfileChanged(Arc<Profile>),
}

/// Work the engine does on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Internal {
    /// Read the whole state.
    Fetch,
    /// Switch the scope output back on after a reconnect.
    ScopeRestore,
    /// Ask a silent or switched-off radio for its power state.
    Probe,
    /// Read the IF filter width of this receiver again (its mode or filter changed).
    WidthRefresh(Receiver),
    /// Read the scope settings again (the scope shows the other receiver now).
    ScopeRefresh,
}

/// Who waits for a procedure.
enum Origin {
    /// A client (user or background lane).
    Client(Option<Reply>),
    /// The engine itself.
    Internal(Internal),
}

/// The procedure being run.
struct Running {
    proc: Box<dyn Procedure>,
    origin: Origin,
    /// The request it wants to send next (waiting for pacing or a late answer).
    pending: Option<(CivRequest, bool)>,
    /// The outcome of its last request, not yet handed to it.
    last: Option<Outcome>,
}

/// The one request on the wire.
struct InFlight {
    req: CivRequest,
    retry: bool,
    attempt: u8,
    first_sent: Instant,
    /// An attempt of the release (its outcome goes there, not to the procedure).
    release: bool,
}

/// Late answers to a settled request: they must not answer the next one (an ACK or a
/// NAK says nothing of what it answers).
struct LateAnswers {
    req: CivRequest,
    /// How many may still come (until [`Timer::LateAnswers`]).
    count: u8,
}

/// See the module docs.
pub struct Engine {
    cfg: EngineConfig,
    profile: Arc<Profile>,
    registry: ProfileRegistry,
    /// The radio's state: the engine is its one writer; each change goes out as an
    /// [`EngineEvent::State`].
    state: TrackedState,
    link: LinkState,
    civ_recovering: bool,
    /// The radio sends no CI-V since the stream opened (standby).
    standby: bool,
    fetched: bool,
    /// Scope output wanted (restored after a reconnect).
    scope_output: bool,
    internal: VecDeque<Internal>,
    user: VecDeque<Job>,
    background: VecDeque<Job>,
    running: Option<Running>,
    inflight: Option<InFlight>,
    /// Answers still expected to a request already settled (answered on its retry, or
    /// given up after a timeout): set aside, and nothing new is sent, until
    /// [`Timer::LateAnswers`].
    absorb: Option<LateAnswers>,
    /// Every deadline of the engine.
    timers: Timers,
    /// Transceive frames applied while the current procedure runs.
    transceive: Vec<Frame>,
    probe_timeouts: u32,
    release: Option<Release>,
    /// Web TX audio: stopped by any unkey, let through when the transmitter is keyed.
    tx_audio: TxAudio,
    transmit: VecDeque<Vec<u8>>,
    events: VecDeque<EngineEvent>,
    stats: EngineStats,
}

/// Transceive frames kept for a running fetch, at most.
const TRANSCEIVE_LOG: usize = 256;

impl Engine {
    /// An engine for a radio described by `profile` (replaced when the radio reports
    /// another model found in `registry`), starting from the state `content`.
    pub fn new(
        cfg: EngineConfig,
        profile: Arc<Profile>,
        registry: ProfileRegistry,
        content: StateContent,
    ) -> Engine {
        Engine {
            cfg,
            profile,
            registry,
            state: TrackedState::new(content),
            link: LinkState::Idle,
            civ_recovering: false,
            standby: false,
            fetched: false,
            scope_output: false,
            internal: VecDeque::new(),
            user: VecDeque::new(),
            background: VecDeque::new(),
            running: None,
            inflight: None,
            absorb: None,
            timers: Timers::default(),
            transceive: Vec::new(),
            probe_timeouts: 0,
            release: None,
            tx_audio: TxAudio::default(),
            transmit: VecDeque::new(),
            events: VecDeque::new(),
            stats: EngineStats::default(),
        }
    }

    /// The profile in use.
    pub fn profile(&self) -> &Arc<Profile> {
        &self.profile
    }

    /// The state as the engine knows it (its changes go out as events).
    pub fn state(&self) -> &StateContent {
        self.state.content()
    }

    /// Counters.
    pub fn stats(&self) -> EngineStats {
        self.stats
    }

    /// True while the engine lets web TX audio through (see [`TxAudio`]).
    pub fn tx_audio_open(&self) -> bool {
        self.tx_audio.is_open()
    }

    /// Whether TX audio may flow, when the engine decided it since the last call: the
    /// shell applies it to its senders' gate before it sends anything else the engine
    /// has out.
    pub fn poll_tx_audio(&mut self) -> Option<bool> {
        self.tx_audio.take()
    }

    /// True when the engine can take a command now (nothing queued, nothing running):
    /// the shell keeps the rest in its bounded channel, where a full queue is refused.
    pub fn wants_job(&self) -> bool {
        self.running.is_none() && self.user.is_empty() && self.background.is_empty()
    }

    /// True when nothing is on the wire and no unkey is outstanding.
    pub fn is_settled(&self) -> bool {
        self.inflight.is_none() && self.release.is_none()
    }

    /// A user command.
    pub fn submit(&mut self, job: Job, now: Instant) {
        if let Some(job) = self.admit(job, now) {
            self.user.push_back(job);
        }
        self.drive(now);
    }

    /// A background command (meter polls): served when no user command waits.
    pub fn submit_background(&mut self, job: Job, now: Instant) {
        if let Some(job) = self.admit(job, now) {
            self.background.push_back(job);
        }
        self.drive(now);
    }

    fn complete(&mut self, reply: Reply, r: CommandResult) {
        self.emit(EngineEvent::Completed(reply, r));
    }

    /// Queues `ev` after the state updates made before it.
    fn emit(&mut self, ev: EngineEvent) {
        self.take_updates();
        self.events.push_back(ev);
    }

    fn take_updates(&mut self) {
        while let Some(u) = self.state.poll_update() {
            self.events.push_back(EngineEvent::State(u));
        }
    }

    /// Answers at once what cannot run now; returns the job when it can.
    fn admit(&mut self, job: Job, now: Instant) -> Option<Job> {
        let (ptt, power_on) = self.state.read(|c| (c.radio.ptt, c.radio.power_on));
        if job.cmd.unkeys() {
            // TX audio stops now, not when the radio confirms
            self.tx_audio.close();
        }
        if let Command::ScopeOutput(on) = job.cmd {
            // what the viewers want holds even when it cannot be sent now (link down,
            // radio off): the fetch after the next (re)connect restores it
            self.scope_output = on;
        }
        match &job.cmd {
            Command::Ptt(false) | Command::Release if power_on == Some(false) => {
                // switched off: so is the transmitter
                let r = Ok(Answer::Ptt {
                    on: false,
                    read_back: None,
                });
                self.complete(job.reply, r);
                return None;
            }
            Command::Release => {
                self.start_release(safety::Reason::Requested, Some(job.reply), now);
                return None;
            }
            Command::Ptt(false)
                if self.release.is_some() || ptt.is_none() && self.link != LinkState::Ready =>
            {
                // an unkey is already on its way (or PTT is in doubt): answer when it is confirmed
                self.start_release(safety::Reason::Requested, Some(job.reply), now);
                return None;
            }
            Command::Ptt(true) if self.release.is_some() => {
                let e = CommandError::new(
                    ErrorCode::PttBusy,
                    "the transmitter is being unkeyed and the radio has not confirmed it yet; try again when it has",
                );
                self.complete(job.reply, Err(e));
                return None;
            }
            _ => {}
        }
        if self.link != LinkState::Ready {
            let status = self.state.read(|c| c.detail.status);
            let e = CommandError::new(
                ErrorCode::RadioUnavailable,
                format!(
                    "the radio is not connected (link {}); the command was not sent",
                    status.name()
                ),
            );
            self.complete(job.reply, Err(e));
            return None;
        }
        if job.cmd.needs_power()
            && self.state.read(|c| c.detail.status) == RadioStatus::NotResponding
        {
            // it would only time out: the probe is asking meanwhile
            let e = CommandError::new(
                ErrorCode::RadioUnavailable,
                "the radio does not answer CI-V (switched off without telling, or busy); the command was not sent. A radio in standby wakes with POST /api/v1/radio/power {\"state\":\"on\"}",
            );
            self.complete(job.reply, Err(e));
            return None;
        }
        if job.cmd.needs_power() && power_on == Some(false) {
            let e = CommandError::new(
                ErrorCode::RadioUnavailable,
                "the radio is switched off; switch it on first (POST /api/v1/radio/power {\"state\":\"on\"})",
            );
            self.complete(job.reply, Err(e));
            return None;
        }
        Some(job)
    }

    /// A frame from the radio (a reply or a transceive update).
    pub fn handle_frame(&mut self, f: Frame, now: Instant) {
        let addr = self.profile.radio.civ_addr;
        if f.from != addr || !(f.to == CONTROLLER || f.to == BROADCAST) {
            self.stats.unmatched += 1;
            return;
        }
        if f.to == CONTROLLER
            && let Some(inf) = &self.inflight
        {
            let m = inf.req.matches(&f);
            if m != Match::No {
                let inf = self.inflight.take().expect("checked above");
                self.timers.stop(Timer::Request);
                if inf.attempt > 1 {
                    // the other attempt's answer may still come: it must not answer the next
                    self.absorb = Some(LateAnswers {
                        req: inf.req.clone(),
                        count: 1,
                    });
                    self.timers
                        .set(Timer::LateAnswers, inf.first_sent + self.cfg.timeout * 3);
                }
                let outcome = if m == Match::Ok {
                    self.stats.ok += 1;
                    Ok(f)
                } else {
                    self.stats.naks += 1;
                    Err(CommandError::new(
                        ErrorCode::RadioRejected,
                        format!(
                            "the radio refused the command (NAK to CI-V {})",
                            hex(&inf.req.frame)
                        ),
                    ))
                };
                self.deliver(inf.release, outcome, now);
                self.drive(now);
                return;
            }
        }
        if f.to == CONTROLLER
            && let Some(late) = self.absorb.as_mut()
            && late.req.matches(&f) != Match::No
        {
            self.stats.late += 1;
            log::debug!("CI-V {:02X}: late answer set aside", late.req.frame.cmd);
            late.count -= 1;
            if late.count == 0 {
                self.absorb = None;
                self.timers.stop(Timer::LateAnswers);
            }
            self.drive(now);
            return;
        }
        self.unsolicited(f, now);
        self.drive(now);
    }

    /// A frame nobody waits for: transceive updates and late replies.
    fn unsolicited(&mut self, f: Frame, now: Instant) {
        let profile = self.profile.clone();
        let applied = self.state.modify(|c| apply_frame(c, &profile, &f));
        if !applied {
            self.stats.unmatched += 1;
            return;
        }
        self.stats.unsolicited += 1;
        if self.running.is_some() && self.transceive.len() < TRANSCEIVE_LOG {
            self.transceive.push(f.clone());
        }
        if f.cmd == cmd::SCOPE
            && f.data.first() == Some(&cmd::scope::RECEIVER)
            && self
                .state
                .read(|c| c.radio.scope.settings.span_hz.is_none())
            && !self.internal.contains(&Internal::ScopeRefresh)
        {
            self.internal.push_back(Internal::ScopeRefresh);
        }
        let scheme = profile.vfo.scheme;
        if let Some(rx) = self
            .state
            .read(|c| mode_frame_receiver(&c.radio, scheme, &f))
        {
            self.width_stale(rx);
        }
        if f.cmd == cmd::POWER {
            self.after_power_report(now);
        }
        self.track_ptt(now);
    }

    /// The edges of a sweep of the scope (the scope stream's): shown when the scope
    /// shows that receiver.
    pub fn handle_sweep_edges(&mut self, e: SweepEdges) {
        self.state.modify(|c| {
            let s = &mut c.radio.scope;
            if s.receiver == e.receiver {
                s.settings.mode = Some(e.mode);
                s.start_freq = e.start_hz;
                s.end_freq = e.end_hz;
                s.out_of_range = e.out_of_range;
            }
        });
    }

    /// Hands the outcome of the request in flight to whoever sent it.
    fn deliver(&mut self, release: bool, outcome: Outcome, now: Instant) {
        if release {
            self.release_outcome(outcome, now);
        } else if let Some(r) = self.running.as_mut() {
            r.last = Some(outcome);
            r.pending = None;
        }
    }

    /// CI-V bytes (one frame) to send to the radio.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmit.pop_front()
    }

    /// The next state update, finished command or profile change, in order.
    pub fn poll_event(&mut self) -> Option<EngineEvent> {
        self.take_updates();
        self.events.pop_front()
    }

    fn send_bytes(&mut self, bytes: Vec<u8>, now: Instant) {
        self.transmit.push_back(bytes);
        if !self.cfg.pacing.is_zero() {
            self.timers.set(Timer::Pacing, now + self.cfg.pacing);
        }
        self.stats.sent += 1;
    }

    fn send(&mut self, req: CivRequest, retry: bool, release: bool, now: Instant) {
        self.send_bytes(req.frame.emit(), now);
        self.inflight = Some(InFlight {
            req,
            retry,
            attempt: 1,
            first_sent: now,
            release,
        });
        self.timers.set(Timer::Request, now + self.cfg.timeout);
    }
}

/// The frame as hex, for messages.
pub fn hex(f: &Frame) -> String {
    let mut s = format!("{:02X}", f.cmd);
    for b in &f.data {
        s.push_str(&format!(" {b:02X}"));
    }
    s
}
