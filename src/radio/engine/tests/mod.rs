//! The engine in virtual time against the simulator's rig, in memory: the harness
//! ([`Pair`], after quinn-proto's `tests/util.rs`) moves CI-V frames between the two with
//! a latency, can lose, delay or refuse them, and steps a virtual clock from one timer
//! to the next. No sockets, no sleeps: every run is deterministic.

mod commands;
mod link;
mod memory;
mod ptt_truth;
mod safety;
mod vfo;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::radio::table::answer::Answer;
use parking_lot::Mutex;

use super::{CommandResult, Engine, EngineConfig, EngineEvent, Job};
use crate::lan::session::link_state::{LinkEvent, LinkState};
use crate::profile::ProfileRegistry;
use crate::radio::shell::service::initial_content;
use crate::radio::state::StateContent;
use crate::radio::state::events::RadioEvent;
use crate::radio::table::command::Command;
use crate::sim::{PanelAction, SimRig, SimRigConfig};
use crate::wire::civ::{self, Frame, cmd};

/// What happens to a frame on its way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Delivered after the latency.
    Deliver,
    /// Lost.
    Drop,
    /// Delivered after this extra delay.
    Delay(Duration),
    /// The radio answers NAK instead (requests only).
    Nak,
    /// The radio acts on the request and answers NAK all the same: a reply that lies
    /// (requests only; `rigweb sim --nak` does this).
    Lie,
}

/// Decides the fate of the n-th frame (counted per direction) and the frame itself.
type Rule = Box<dyn FnMut(usize, &Frame) -> Fate + Send>;

/// Events the engine's state updates raised, for assertions.
#[derive(Default)]
pub struct Events(Vec<RadioEvent>);

impl Events {
    /// Names of the events so far.
    pub fn names(&self) -> Vec<&'static str> {
        self.0.iter().map(|e| e.name()).collect()
    }
}

/// The engine and a simulated radio, with a virtual clock.
pub struct Pair {
    pub engine: Engine,
    pub rig: SimRig,
    pub events: Events,
    t0: Instant,
    pub now: Instant,
    latency: Duration,
    /// Requests on their way, with whether the radio's answer lies.
    to_rig: VecDeque<(Instant, Frame, bool)>,
    to_engine: VecDeque<(Instant, Frame)>,
    /// Rule for requests (engine → radio).
    pub requests: Rule,
    /// Rule for answers and transceive frames (radio → engine).
    pub answers: Rule,
    n_requests: usize,
    n_answers: usize,
    /// Every request the engine sent.
    pub sent: Vec<Frame>,
    results: Arc<Mutex<Vec<(u32, CommandResult)>>>,
    next_id: u32,
    /// Commands waiting in front of the engine, handed over as the executor does: one at
    /// a time, only while the engine wants one.
    waiting: VecDeque<Job>,
    /// The link's CI-V data watchdog, modelled (see [`Pair::watch_civ`]).
    civ_watch: Option<CivWatch>,
}

/// The link's CI-V data watchdog as the engine sees it: a radio in standby sends nothing
/// on the CI-V port (a powered radio sends at least idles), so the link reports
/// `CivRecovering` once the radio has been silent for the watchdog plus its quiet
/// re-open, and `CivRecovered` when data flows again.
#[derive(Default)]
struct CivWatch {
    silent_since: Option<Instant>,
    reported: bool,
}

/// Test engine settings: the defaults (1.5 s timeout, 2 s probe, 250 ms..5 s release).
pub fn cfg() -> EngineConfig {
    EngineConfig {
        tx_timeout: Duration::from_secs(10),
        ..EngineConfig::default()
    }
}

impl Pair {
    /// A pair for `model`, link not up yet.
    pub fn new(model: &str, cfg: EngineConfig) -> Pair {
        let p = ProfileRegistry::embedded().get(model).expect("profile");
        let content = initial_content(&p);
        let engine = Engine::new(cfg, p.clone(), ProfileRegistry::embedded(), content);
        let rig = SimRig::new(p, SimRigConfig::default());
        let t0 = Instant::now();
        Pair {
            engine,
            rig,
            events: Events::default(),
            t0,
            now: t0,
            latency: Duration::from_millis(2),
            to_rig: VecDeque::new(),
            to_engine: VecDeque::new(),
            requests: Box::new(|_, _| Fate::Deliver),
            answers: Box::new(|_, _| Fate::Deliver),
            n_requests: 0,
            n_answers: 0,
            sent: Vec::new(),
            results: Arc::new(Mutex::new(Vec::new())),
            next_id: 0,
            waiting: VecDeque::new(),
            civ_watch: None,
        }
    }

    /// A pair for `model` with its link up and its state read.
    pub fn ready(model: &str) -> Pair {
        let mut p = Pair::new(model, cfg());
        p.link(LinkState::Ready);
        p.run_for(Duration::from_secs(30));
        assert!(
            p.content().connection.radio_ready,
            "{:?}",
            p.content().detail
        );
        p
    }

    /// Models the link's CI-V data watchdog from now on (see [`CivWatch`]).
    pub fn watch_civ(&mut self) {
        self.civ_watch = Some(CivWatch::default());
    }

    /// How long the radio is silent before the link says so.
    fn civ_silent_after() -> Duration {
        let c = crate::lan::civ_client::CivClientConfig::default();
        c.data_watchdog + c.quiet_recovery
    }

    /// Runs the modelled CI-V watchdog at `now`; true if it reported anything.
    fn civ_watchdog(&mut self, now: Instant) -> bool {
        let powered = self.rig.powered();
        let Some(w) = self.civ_watch.as_mut() else {
            return false;
        };
        let event = if powered {
            w.silent_since = None;
            std::mem::take(&mut w.reported).then_some(LinkEvent::CivRecovered)
        } else {
            let since = *w.silent_since.get_or_insert(now);
            (!w.reported && now >= since + Self::civ_silent_after()).then(|| {
                w.reported = true;
                LinkEvent::CivRecovering
            })
        };
        let Some(ev) = event else {
            return false;
        };
        self.engine.handle_link(ev, now);
        true
    }

    /// When the modelled watchdog next reports silence.
    fn civ_watchdog_due(&self) -> Option<Instant> {
        let w = self.civ_watch.as_ref()?;
        w.silent_since
            .filter(|_| !w.reported)
            .map(|t| t + Self::civ_silent_after())
    }

    /// Sets the latency each way.
    pub fn set_latency(&mut self, d: Duration) {
        self.latency = d;
    }

    /// The state now.
    pub fn content(&self) -> StateContent {
        self.engine.state().clone()
    }

    /// The rig's time.
    fn rig_now(&self) -> Duration {
        self.now - self.t0
    }

    /// A link event now.
    pub fn link(&mut self, st: LinkState) {
        self.engine.handle_link(LinkEvent::State(st), self.now);
    }

    fn job(&mut self, cmd: Command) -> (u32, Job) {
        let id = self.next_id;
        self.next_id += 1;
        let results = self.results.clone();
        let job = Job {
            cmd,
            reply: Box::new(move |r| results.lock().push((id, r))),
        };
        (id, job)
    }

    /// Submits `cmd` (user lane) at once; returns its id for [`Pair::result`].
    pub fn submit(&mut self, cmd: Command) -> u32 {
        let (id, job) = self.job(cmd);
        self.engine.submit(job, self.now);
        id
    }

    /// Queues `cmd` in front of the engine the way the executor does: it is handed over
    /// only while the engine wants a job ([`Engine::wants_job`]), so an engine that is
    /// never idle never gets it. Returns its id for [`Pair::result`].
    pub fn offer(&mut self, cmd: Command) -> u32 {
        let (id, job) = self.job(cmd);
        self.waiting.push_back(job);
        id
    }

    /// Runs `cmd` to its end through [`Pair::offer`] (at most a minute of virtual time).
    pub fn exec_offered(&mut self, cmd: Command) -> CommandResult {
        let id = self.offer(cmd);
        let end = self.now + Duration::from_secs(60);
        self.run_until(end, |p| p.result(id).is_some());
        self.result(id)
            .expect("the command was handed over and ended within a minute")
    }

    /// The result of command `id`, once it is there.
    pub fn result(&self, id: u32) -> Option<CommandResult> {
        self.results
            .lock()
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, r)| r.clone())
    }

    /// Runs `cmd` to its end (at most a minute of virtual time).
    pub fn exec(&mut self, cmd: Command) -> CommandResult {
        let id = self.submit(cmd);
        let end = self.now + Duration::from_secs(60);
        self.run_until(end, |p| p.result(id).is_some());
        self.result(id).expect("the command ended within a minute")
    }

    /// A front-panel operation on the radio now.
    pub fn panel(&mut self, action: PanelAction) {
        let frames = self.rig.panel(action, self.rig_now());
        for f in frames {
            self.radio_sent(f);
        }
    }

    fn radio_sent(&mut self, f: Frame) {
        if f.cmd == cmd::SCOPE && f.data.first() == Some(&cmd::scope::WAVE) {
            return; // sweeps go to the scope pump, not the engine
        }
        let n = self.n_answers;
        self.n_answers += 1;
        match (self.answers)(n, &f) {
            Fate::Deliver | Fate::Nak | Fate::Lie => {
                self.to_engine.push_back((self.now + self.latency, f))
            }
            Fate::Drop => {}
            Fate::Delay(d) => self.to_engine.push_back((self.now + self.latency + d, f)),
        }
    }

    /// Takes what the engine sends and reports; true if there was anything.
    fn engine_output(&mut self) -> bool {
        let mut any = false;
        while let Some(bytes) = self.engine.poll_transmit() {
            any = true;
            for f in civ::split_frames(&bytes).flatten() {
                self.sent.push(f.clone());
                let n = self.n_requests;
                self.n_requests += 1;
                let fate = (self.requests)(n, &f);
                match fate {
                    Fate::Deliver => self.to_rig.push_back((self.now + self.latency, f, false)),
                    Fate::Lie => self.to_rig.push_back((self.now + self.latency, f, true)),
                    Fate::Delay(d) => {
                        self.to_rig
                            .push_back((self.now + self.latency + d, f, false))
                    }
                    Fate::Drop => {}
                    Fate::Nak => {
                        let nak = Frame::new(f.from, f.to, civ::NAK, &[]);
                        self.to_engine.push_back((self.now + 2 * self.latency, nak));
                    }
                }
            }
        }
        while let Some(ev) = self.engine.poll_event() {
            any = true;
            match ev {
                EngineEvent::State(u) => self.events.0.extend(u.events().iter().cloned()),
                EngineEvent::Completed(reply, r) => reply(r),
                EngineEvent::ProfileChanged(_) => {}
            }
        }
        any
    }

    /// Moves frames and time until `done` holds or `end` is reached.
    pub fn run_until(&mut self, end: Instant, mut done: impl FnMut(&Pair) -> bool) {
        loop {
            self.engine_output();
            if done(self) {
                return;
            }
            let now = self.now;
            if self.engine.wants_job()
                && let Some(job) = self.waiting.pop_front()
            {
                self.engine.submit(job, now);
                continue;
            }
            // what is due now
            let mut worked = false;
            self.to_rig.make_contiguous().sort_by_key(|(t, _, _)| *t);
            while self.to_rig.front().is_some_and(|(t, _, _)| *t <= now) {
                let (_, f, lie) = self.to_rig.pop_front().expect("front");
                let replies = self.rig.handle(&f, self.rig_now());
                if lie && !replies.is_empty() {
                    // acted on, and answered NAK all the same
                    let nak = Frame::new(f.from, f.to, civ::NAK, &[]);
                    self.radio_sent(nak);
                } else {
                    for r in replies {
                        self.radio_sent(r);
                    }
                }
                worked = true;
            }
            for f in self.rig.poll(self.rig_now()) {
                self.radio_sent(f);
            }
            self.to_engine.make_contiguous().sort_by_key(|(t, _)| *t);
            while self.to_engine.front().is_some_and(|(t, _)| *t <= now) {
                let (_, f) = self.to_engine.pop_front().expect("front");
                self.engine.handle_frame(f, now);
                worked = true;
            }
            worked |= self.civ_watchdog(now);
            self.engine.handle_timeout(now);
            if worked || self.engine_output() {
                continue;
            }
            // after its timers ran, the engine never asks to be woken for a time that
            // has come: a shell would spin on it
            if let Some(t) = self.engine.poll_timeout() {
                let e = &self.engine;
                assert!(
                    t > now,
                    "poll_timeout() {:?} before now: timers {:?} running {:?} idle {}",
                    now - t,
                    e.timers,
                    e.running.as_ref().map(|r| r.pending.is_some()),
                    e.idle(),
                );
            }
            // the next instant anything happens
            let next = [
                self.engine.poll_timeout(),
                self.to_rig.front().map(|(t, _, _)| *t),
                self.to_engine.front().map(|(t, _)| *t),
                self.rig.next_due().map(|d| self.t0 + d),
                self.civ_watchdog_due(),
            ]
            .into_iter()
            .flatten()
            .filter(|t| *t > now)
            .min();
            match next {
                Some(t) if t <= end => self.now = t,
                _ => {
                    self.now = end.max(now);
                    return;
                }
            }
        }
    }

    /// Runs for `d` of virtual time.
    pub fn run_for(&mut self, d: Duration) {
        let end = self.now + d;
        self.run_until(end, |_| false);
    }

    /// Requests sent whose command byte and data start with `prefix` (`cmd` first).
    pub fn sent_count(&self, prefix: &[u8]) -> usize {
        self.sent
            .iter()
            .filter(|f| {
                let mut b = vec![f.cmd];
                b.extend(&f.data);
                b.starts_with(prefix)
            })
            .count()
    }
}

/// The error code of a failed result.
pub fn code(r: &CommandResult) -> &'static str {
    match r {
        Ok(_) => "ok",
        Err(e) => e.code.as_str(),
    }
}

/// A result's answer, for assertions.
pub fn ok(r: CommandResult) -> Answer {
    r.unwrap_or_else(|e| panic!("expected success, got {e}"))
}
