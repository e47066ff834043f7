//! The single owner of CI-V traffic: one thread takes commands from a bounded queue
//! (user commands before background polls), keeps exactly one request in flight,
//! matches ACK / NAK / data replies (command-29 included), applies timeouts, retries
//! idempotent commands once, paces sends, applies transceive updates and link events
//! to the state, probes a silent radio for power-off, and unkeys a transmitter that
//! has been keyed too long.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, select};
use parking_lot::RwLock;
use serde_json::{Value, json};

use super::apply::apply_frame;
use super::command::Command;
use super::error::{CommandError, ErrorCode};
use super::request::{CivRequest, Match};
use super::state::{StateEvent, StateStore};
use crate::lan::link::{LinkEvent, LinkState, RadioLink};
use crate::profile::{Profile, ProfileRegistry};
use crate::wire::civ::{BROADCAST, CONTROLLER, Frame};

/// What a finished command reports.
pub type CommandResult = Result<Value, CommandError>;

/// A command with the code that receives its result.
pub struct Job {
    /// The command.
    pub cmd: Command,
    /// Called exactly once with the result.
    pub reply: Box<dyn FnOnce(CommandResult) + Send>,
}

/// Executor settings.
#[derive(Debug, Clone)]
pub struct ExecutorConfig {
    /// How long a request waits for its answer.
    pub timeout: Duration,
    /// Least time between two requests sent (0: as fast as answers come).
    pub pacing: Duration,
    /// Longest transmission before PTT is released automatically.
    pub tx_timeout: Duration,
    /// Period of the power probe while the radio is silent or off.
    pub probe_interval: Duration,
}

impl Default for ExecutorConfig {
    fn default() -> Self {
        ExecutorConfig {
            timeout: Duration::from_millis(1500),
            pacing: Duration::ZERO,
            tx_timeout: Duration::from_secs(180),
            probe_interval: Duration::from_secs(2),
        }
    }
}

/// Counters of the executor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExecutorStats {
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
}

/// The executor's state; runs on its own thread via [`Executor::run`].
pub struct Executor {
    pub(super) cfg: ExecutorConfig,
    pub(super) profile: Arc<RwLock<Arc<Profile>>>,
    pub(super) registry: ProfileRegistry,
    pub(super) link: Arc<RadioLink>,
    pub(super) store: Arc<StateStore>,
    civ_rx: Receiver<Frame>,
    link_rx: Receiver<LinkEvent>,
    jobs: Receiver<Job>,
    polls: Receiver<Job>,
    stop: Receiver<()>,
    pub(super) link_state: LinkState,
    pub(super) civ_recovering: bool,
    pub(super) fetched: bool,
    /// A state fetch is running (frames handled meanwhile must not start another).
    fetching: bool,
    pub(super) scope_wanted: Arc<std::sync::atomic::AtomicBool>,
    last_send: Option<Instant>,
    ptt_since: Option<Instant>,
    next_probe: Option<Instant>,
    pub(super) probe_timeouts: u32,
    pub(super) stats: Arc<parking_lot::Mutex<ExecutorStats>>,
}

/// Where the executor gets its input.
pub struct ExecutorInputs {
    /// CI-V frames from the link (scope sweeps excluded).
    pub civ: Receiver<Frame>,
    /// Link events.
    pub link: Receiver<LinkEvent>,
    /// User commands.
    pub jobs: Receiver<Job>,
    /// Background polls (meters), served when no user command waits.
    pub polls: Receiver<Job>,
    /// Closed (sender dropped) to stop the executor.
    pub stop: Receiver<()>,
}

impl Executor {
    /// An executor driving `link` and writing `store`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cfg: ExecutorConfig,
        profile: Arc<RwLock<Arc<Profile>>>,
        registry: ProfileRegistry,
        link: Arc<RadioLink>,
        store: Arc<StateStore>,
        inputs: ExecutorInputs,
        scope_wanted: Arc<std::sync::atomic::AtomicBool>,
        stats: Arc<parking_lot::Mutex<ExecutorStats>>,
    ) -> Executor {
        Executor {
            cfg,
            profile,
            registry,
            link,
            store,
            civ_rx: inputs.civ,
            link_rx: inputs.link,
            jobs: inputs.jobs,
            polls: inputs.polls,
            stop: inputs.stop,
            link_state: LinkState::Idle,
            civ_recovering: false,
            fetched: false,
            fetching: false,
            scope_wanted,
            last_send: None,
            ptt_since: None,
            next_probe: None,
            probe_timeouts: 0,
            stats,
        }
    }

    /// The current profile.
    pub(super) fn profile(&self) -> Arc<Profile> {
        self.profile.read().clone()
    }

    /// The radio's CI-V address.
    pub(super) fn addr(&self) -> u8 {
        self.profile.read().radio.civ_addr
    }

    /// Runs until stopped, then releases PTT if it is keyed.
    pub fn run(&mut self) {
        loop {
            let timeout = self
                .next_timer()
                .map(|t| t.saturating_duration_since(Instant::now()));
            let timeout = timeout.unwrap_or(Duration::from_secs(3600));
            select! {
                recv(self.stop) -> _ => break,
                recv(self.link_rx) -> ev => match ev {
                    Ok(ev) => self.on_link(ev),
                    Err(_) => break,
                },
                recv(self.civ_rx) -> f => match f {
                    Ok(f) => self.on_unsolicited(&f),
                    Err(_) => break,
                },
                recv(self.jobs) -> job => match job {
                    Ok(job) => self.run_job(job),
                    Err(_) => break,
                },
                recv(self.polls) -> job => match job {
                    Ok(job) => {
                        while let Ok(j) = self.jobs.try_recv() {
                            self.run_job(j);
                        }
                        self.run_job(job);
                    }
                    Err(_) => break,
                },
                default(timeout) => {}
            }
            self.timers();
        }
        if self.store.read(|c| c.radio.ptt) && self.link_state == LinkState::Ready {
            log::info!("shutting down while transmitting: releasing PTT");
            let _ = self.perform(&Command::Ptt(false));
        }
    }

    fn next_timer(&self) -> Option<Instant> {
        let tx = self.ptt_since.map(|t| t + self.cfg.tx_timeout);
        crate::net::poll::earliest(tx, self.next_probe)
    }

    fn timers(&mut self) {
        let now = Instant::now();
        if let Some(since) = self.ptt_since
            && now >= since + self.cfg.tx_timeout
        {
            log::warn!(
                "transmit timeout ({:?}): releasing PTT",
                self.cfg.tx_timeout
            );
            self.ptt_since = None;
            let ok = self.perform(&Command::Ptt(false)).is_ok();
            self.store.notify(StateEvent {
                name: "tx_timeout",
                data: json!({"released": ok, "after_s": self.cfg.tx_timeout.as_secs()}),
            });
        }
        if self.next_probe.is_some_and(|t| now >= t) {
            self.next_probe = Some(now + self.cfg.probe_interval);
            self.probe_power();
        }
    }

    /// Runs one job and replies.
    fn run_job(&mut self, job: Job) {
        let r = self
            .check_ready(&job.cmd)
            .and_then(|_| self.perform(&job.cmd));
        self.track_ptt();
        (job.reply)(r);
    }

    fn check_ready(&self, cmd: &Command) -> Result<(), CommandError> {
        if self.link_state != LinkState::Ready {
            let status = self.store.read(|c| c.detail.status.clone());
            return Err(CommandError::new(
                ErrorCode::RadioUnavailable,
                format!("the radio is not connected (link {status}); the command was not sent"),
            ));
        }
        if cmd.needs_power()
            && !matches!(cmd, Command::Refresh)
            && !self.store.read(|c| c.radio.power_on)
        {
            return Err(CommandError::new(
                ErrorCode::RadioUnavailable,
                "the radio is switched off; switch it on first (POST /api/v1/radio/power {\"state\":\"on\"})",
            ));
        }
        Ok(())
    }

    fn track_ptt(&mut self) {
        let ptt = self.store.read(|c| c.radio.ptt);
        match (ptt, self.ptt_since) {
            (true, None) => self.ptt_since = Some(Instant::now()),
            (false, Some(_)) => self.ptt_since = None,
            _ => {}
        }
    }

    /// Sends `req` and waits for its answer; retries once on timeout when `retry`.
    pub(super) fn transact_retry(
        &mut self,
        req: &CivRequest,
        retry: bool,
    ) -> Result<Frame, CommandError> {
        let first_sent = Instant::now();
        match self.transact(req) {
            Err(e)
                if e.code == ErrorCode::RadioTimeout
                    && retry
                    && self.link_state == LinkState::Ready =>
            {
                self.stats.lock().retries += 1;
                log::debug!("CI-V {:02X}: no answer, retrying once", req.frame.cmd);
                // an answer to either attempt that takes less than two timeouts is
                // still on time for the retry
                let r = self.transact(req);
                if r.is_ok() {
                    self.absorb_late_answer(req, first_sent + self.cfg.timeout * 3);
                }
                r
            }
            r => r,
        }
    }

    /// After a retry was answered, the first attempt's answer may still be on its way
    /// (or was the one taken, and the retry's is): waits for it, until `deadline`, so
    /// that it cannot be taken for the answer to the next request (an ACK answers any
    /// set). Everything else that arrives meanwhile is handled as usual.
    fn absorb_late_answer(&mut self, req: &CivRequest, deadline: Instant) {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            select! {
                recv(self.civ_rx) -> f => {
                    let Ok(f) = f else { return };
                    if self.is_radio_frame(&f) && f.to == CONTROLLER && req.matches(&f) != Match::No {
                        self.stats.lock().late += 1;
                        log::debug!("CI-V {:02X}: late answer set aside", req.frame.cmd);
                        return;
                    }
                    self.on_unsolicited(&f);
                }
                recv(self.link_rx) -> ev => {
                    let Ok(ev) = ev else { return };
                    self.on_link(ev);
                    if self.link_state != LinkState::Ready {
                        return;
                    }
                }
                default(left) => return,
            }
        }
    }

    /// Sends `req` and waits for its answer, handling everything else that arrives meanwhile.
    pub(super) fn transact(&mut self, req: &CivRequest) -> Result<Frame, CommandError> {
        if let Some(last) = self.last_send {
            let gap = last.elapsed();
            if gap < self.cfg.pacing {
                std::thread::sleep(self.cfg.pacing - gap);
            }
        }
        self.link.send_civ(req.frame.emit());
        self.last_send = Some(Instant::now());
        self.stats.lock().sent += 1;
        let deadline = Instant::now() + self.cfg.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            select! {
                recv(self.civ_rx) -> f => {
                    let Ok(f) = f else { break };
                    if !self.is_radio_frame(&f) {
                        continue;
                    }
                    if f.to == CONTROLLER {
                        match req.matches(&f) {
                            Match::Ok => {
                                self.stats.lock().ok += 1;
                                return Ok(f);
                            }
                            Match::Nak => {
                                self.stats.lock().naks += 1;
                                return Err(CommandError::new(
                                    ErrorCode::RadioRejected,
                                    format!("the radio refused the command (NAK to CI-V {})", hex(&req.frame)),
                                ));
                            }
                            Match::No => {}
                        }
                    }
                    self.on_unsolicited(&f);
                }
                recv(self.link_rx) -> ev => {
                    let Ok(ev) = ev else { break };
                    self.on_link(ev);
                    if self.link_state != LinkState::Ready {
                        return Err(CommandError::new(ErrorCode::RadioUnavailable, "the radio link went down during the command"));
                    }
                }
                default(left) => break,
            }
        }
        self.stats.lock().timeouts += 1;
        Err(CommandError::new(
            ErrorCode::RadioTimeout,
            format!(
                "the radio did not answer CI-V {} within {:?}",
                hex(&req.frame),
                self.cfg.timeout
            ),
        ))
    }

    fn is_radio_frame(&self, f: &Frame) -> bool {
        f.from == self.addr() && (f.to == CONTROLLER || f.to == BROADCAST)
    }

    /// A frame nobody waits for: transceive updates and late replies.
    fn on_unsolicited(&mut self, f: &Frame) {
        if !self.is_radio_frame(f) {
            self.stats.lock().unmatched += 1;
            return;
        }
        let profile = self.profile();
        let applied = self.store.modify(|c| apply_frame(c, &profile, f));
        let mut s = self.stats.lock();
        if applied {
            s.unsolicited += 1;
        } else {
            s.unmatched += 1;
        }
        drop(s);
        if applied && f.cmd == 0x18 {
            self.after_power_report();
        }
        self.track_ptt();
    }

    fn on_link(&mut self, ev: LinkEvent) {
        match ev {
            LinkEvent::State(st) => {
                let was_ready = self.link_state == LinkState::Ready;
                self.link_state = st.clone();
                if st == LinkState::Ready && !was_ready {
                    self.civ_recovering = false;
                    self.fetched = false;
                    self.update_connection();
                    self.fetch();
                } else {
                    if st != LinkState::Ready {
                        self.fetched = false;
                        self.next_probe = None;
                        self.ptt_since = None;
                    }
                    self.update_connection();
                }
            }
            LinkEvent::RadioInfo { name, civ_addr } => self.identify(&name, civ_addr),
            LinkEvent::CivRecovering => {
                self.civ_recovering = true;
                self.next_probe = Some(Instant::now());
                self.update_connection();
            }
            LinkEvent::CivRecovered => {
                self.civ_recovering = false;
                if !self.fetched && self.link_state == LinkState::Ready {
                    self.fetch();
                }
                self.update_connection();
            }
            LinkEvent::AudioReady => {}
            LinkEvent::Failed { message, permanent } => {
                self.store.modify(|c| {
                    c.detail.message = Some(message.clone());
                    if permanent {
                        c.detail.status = "failed".into();
                    }
                });
            }
        }
    }

    /// Switches profile when the radio reports a model other than the configured one.
    fn identify(&mut self, name: &str, civ_addr: Option<u8>) {
        let current = self.profile();
        if current.model().eq_ignore_ascii_case(name) || name.is_empty() {
            return;
        }
        match self.registry.find(name, civ_addr) {
            Some(p) if p.id() != current.id() => {
                log::info!(
                    "the radio reports itself as {name}: using profile {}",
                    p.id()
                );
                *self.profile.write() = p.clone();
                let fresh = super::state::initial_content(&p).radio;
                self.store.modify(|c| {
                    c.radio = fresh;
                    c.detail.model = p.model().to_string();
                });
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
        let (state, recovering, fetched) =
            (self.link_state.clone(), self.civ_recovering, self.fetched);
        let timeouts = self.probe_timeouts;
        self.store.modify(|c| {
            let power_on = c.radio.power_on;
            c.connection.control_connected =
                matches!(state, LinkState::Connected | LinkState::Ready);
            c.connection.rig_connected = state == LinkState::Ready;
            c.connection.radio_ready =
                state == LinkState::Ready && !recovering && power_on && fetched;
            let status = match &state {
                LinkState::Ready if !power_on => "powered_off",
                LinkState::Ready if recovering && timeouts >= 3 => "not_responding",
                LinkState::Ready if recovering => "recovering",
                other => other.as_str(),
            };
            c.detail.status = status.to_string();
            if c.connection.radio_ready {
                c.detail.message = None;
            } else if status == "not_responding" {
                c.detail.message = Some(
                    "the radio does not answer CI-V: it is probably switched off or busy".into(),
                );
            }
            if !c.connection.rig_connected {
                c.radio.ptt = false;
            }
        });
    }

    /// Reads the power state of a silent or switched-off radio.
    fn probe_power(&mut self) {
        if self.link_state != LinkState::Ready {
            self.next_probe = None;
            return;
        }
        let req = CivRequest::read(self.addr(), 0x18, &[]);
        match self.transact(&req) {
            Ok(f) => {
                self.probe_timeouts = 0;
                let profile = self.profile();
                self.store.modify(|c| apply_frame(c, &profile, &f));
                self.after_power_report();
            }
            Err(e) if e.code == ErrorCode::RadioTimeout => {
                self.probe_timeouts += 1;
                self.update_connection();
            }
            Err(_) => {}
        }
    }

    /// Follows a power report (`18 00` / `18 01`).
    pub(super) fn after_power_report(&mut self) {
        let on = self.store.read(|c| c.radio.power_on);
        if on && !self.fetched && self.link_state == LinkState::Ready {
            self.fetch();
        }
        if !on {
            self.next_probe
                .get_or_insert(Instant::now() + self.cfg.probe_interval);
        } else if !self.civ_recovering {
            self.next_probe = None;
        }
        self.update_connection();
    }

    /// Reads the whole state and marks the radio ready (see `fetch.rs`).
    pub(super) fn fetch(&mut self) {
        // a power report or a recovery seen while fetching would start the fetch again
        // from inside itself (without end when replies come late)
        if self.fetching {
            return;
        }
        self.fetching = true;
        let fetched = self.fetch_state();
        self.fetching = false;
        match fetched {
            Ok(()) => {
                self.fetched = true;
                self.probe_timeouts = 0;
                if self.scope_wanted.load(std::sync::atomic::Ordering::Acquire) {
                    let _ = self.perform(&Command::ScopeOutput(true));
                }
                if self.store.read(|c| c.radio.ptt) {
                    log::warn!(
                        "the radio is transmitting after (re)connecting and nobody owns PTT: releasing it"
                    );
                    let _ = self.perform(&Command::Ptt(false));
                }
            }
            Err(e) => {
                log::warn!("reading the radio's state failed: {e}");
                self.next_probe = Some(Instant::now() + self.cfg.probe_interval);
            }
        }
        self.track_ptt();
        self.update_connection();
    }
}

/// The frame as hex, for messages.
pub(super) fn hex(f: &Frame) -> String {
    let mut s = format!("{:02X}", f.cmd);
    for b in &f.data {
        s.push_str(&format!(" {b:02X}"));
    }
    s
}
