//! The executor: a thin shell around the [`Engine`], run on the link's CI-V thread as
//! its [`CivEndpoint`] (the one owner of CI-V traffic sits beside the socket, so that a
//! reply and the next request cross no thread). It takes the radio's CI-V frames and
//! the link's events as they arrive there; the scope stream's sweep edges, queued
//! commands, a change of what the background polls ask and the stop ring that thread's
//! waker. On a turn of that thread (when it has input or a timer has come) it feeds the
//! engine, runs the timers (the engine's, the end of a rate-limit window a queued
//! command waits for, the next background poll), publishes the engine's state updates
//! to the store (stamping `updatedAt`; the [`EventWatcher`]s see each update's events
//! first), calls the replies of finished commands and hands the CI-V bytes the engine
//! sends to the session. Commands are handed over one at a time, only while the engine
//! is idle, so that the fair queue in front of it
//! ([`SharedQueue`](crate::radio::shell::dispatch_shared::SharedQueue): a queue per
//! client, served in turn, unkeys first) decides who goes next; background polls
//! ([`PollSource`]s: the meter schedule) go when no command may.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crossbeam_channel::{Receiver, Sender, TryRecvError};
use parking_lot::{Mutex, RwLock};

use crate::lan::link::{CivEndpoint, LinkEvent};
use crate::net::poll::earliest;
use crate::profile::Profile;
use crate::radio::engine::scope::SweepEdges;
use crate::radio::engine::{Engine, EngineEvent, EngineStats};
use crate::radio::shell::dispatch_shared::SharedQueue;
use crate::radio::shell::state_store::StateStore;
use crate::radio::shell::tx_audio_gate::TxAudioGate;
use crate::radio::state::events::RadioEvent;
use crate::wire::civ::Frame;

pub use crate::radio::engine::{
    CommandResult, EngineConfig as ExecutorConfig, EngineStats as ExecutorStats, Job,
};

/// Where the executor gets its input from other threads (the radio's frames and the
/// link's events come through [`CivEndpoint`]); each of them rings the CI-V thread's
/// waker.
pub struct ExecutorInputs {
    /// The edges of the scope's sweeps, as they change.
    pub sweeps: Receiver<SweepEdges>,
    /// Client commands (the fair queue); queueing one rings the waker.
    pub queue: Arc<SharedQueue>,
    /// Background polls (meters), served when no client command may go; a change of
    /// what they ask rings the waker.
    pub polls: PollSources,
    /// Closed (sender dropped, then the waker rung) to stop the executor.
    pub stop: Receiver<()>,
}

/// Something that acts on the radio's events (PTT dropped, ...): called on the executor
/// thread with each update's events before the update is published, outside every lock;
/// it must not block (it may queue commands).
pub trait EventWatcher: Send + Sync {
    /// The events of one update.
    fn on_events(&self, events: &[RadioEvent]);
}

/// The watchers, registered while the executor runs.
pub type Watchers = Arc<RwLock<Vec<Arc<dyn EventWatcher>>>>;

/// Polls the server makes of its own accord (the meters), in the executor: it asks for
/// one whenever the engine may take a job and no client command may go, and wakes when
/// the next is due. A change of what is asked must ring the command queue's doorbell
/// (the CI-V thread's waker). Neither call may block.
pub trait PollSource: Send + Sync {
    /// When the next poll is due at `now` (`None`: nothing is asked).
    fn poll_due(&self, now: Instant) -> Option<Instant>;
    /// The poll due at `now`, if any; `state` and `profile` are the published state and
    /// the current profile.
    fn take_poll(&self, now: Instant, state: &StateStore, profile: &Profile) -> Option<Job>;
}

/// The poll sources, registered while the executor runs.
pub type PollSources = Arc<RwLock<Vec<Arc<dyn PollSource>>>>;

/// Where the executor puts what the engine hands out (its CI-V bytes go to the link's
/// session, through [`CivEndpoint::turn`]).
pub struct ExecutorOutputs {
    /// The state resource (the engine's updates are published there).
    pub store: Arc<StateStore>,
    /// Told of every update's events.
    pub watchers: Watchers,
    /// The current profile (the engine's, when the radio reports another model).
    pub profile: Arc<RwLock<Arc<Profile>>>,
    /// The engine's counters.
    pub stats: Arc<Mutex<EngineStats>>,
    /// The gate of web TX audio (the engine decides, the executor applies).
    pub tx_audio: Arc<TxAudioGate>,
}

/// Longest wait for the transmitter to be released when stopping.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// The executor: see the module docs.
pub struct Executor {
    engine: Engine,
    inputs: ExecutorInputs,
    out: ExecutorOutputs,
    /// The scope stream may end first: then its channel is not read any more.
    sweeps_open: bool,
    /// When it was told to stop.
    stopping: Option<Instant>,
    /// Dropped once it has stopped (it does nothing more then).
    running: Option<Sender<()>>,
}

impl Executor {
    /// An executor of `engine`, fed by `inputs`, publishing to `out`. It drops `running`
    /// once it has stopped: the transmitter released, or the grace to release it over.
    pub fn new(
        engine: Engine,
        inputs: ExecutorInputs,
        out: ExecutorOutputs,
        running: Sender<()>,
    ) -> Executor {
        Executor {
            engine,
            inputs,
            out,
            sweeps_open: true,
            stopping: None,
            running: Some(running),
        }
    }

    fn stopped(&self) -> bool {
        self.running.is_none()
    }

    /// Hands what the engine has out: whether TX audio may flow to the gate (first, so
    /// that the gate is closed before an unkey is on the wire), its CI-V bytes to `send`,
    /// its state updates to the store (the watchers first), its results to their replies.
    fn flush(&mut self, send: &mut Vec<Vec<u8>>) {
        let (engine, out) = (&mut self.engine, &self.out);
        match engine.poll_tx_audio() {
            Some(true) => out.tx_audio.open(),
            Some(false) => out.tx_audio.close(),
            None => {}
        }
        while let Some(bytes) = engine.poll_transmit() {
            send.push(bytes);
        }
        while let Some(ev) = engine.poll_event() {
            match ev {
                EngineEvent::State(update) => {
                    let watchers = out.watchers.read().clone();
                    for w in &watchers {
                        w.on_events(update.events());
                    }
                    out.store.publish(update, SystemTime::now());
                }
                EngineEvent::Completed(reply, result) => reply(result),
                EngineEvent::ProfileChanged(p) => *out.profile.write() = p,
            }
        }
        *out.stats.lock() = engine.stats();
    }

    /// The background poll due at `now`, if any.
    fn due_poll(&self, now: Instant) -> Option<Job> {
        let profile = self.out.profile.read().clone();
        self.inputs
            .polls
            .read()
            .iter()
            .find_map(|s| s.take_poll(now, &self.out.store, &profile))
    }

    /// Hands the engine what may go now while it takes commands: the next client
    /// command (unkeys first, clients in turn), else a background poll that is due.
    fn hand_over(&mut self, now: Instant) {
        while self.engine.wants_job() {
            if let Some(job) = self.inputs.queue.next(now) {
                self.engine.submit(job, now);
            } else if let Some(job) = self.due_poll(now) {
                self.engine.submit_background(job, now);
            } else {
                break;
            }
        }
    }

    /// Takes what other threads sent: a stop, the sweeps' edges.
    fn take_inputs(&mut self, now: Instant) {
        if self.stopping.is_none()
            && matches!(
                self.inputs.stop.try_recv(),
                Ok(()) | Err(TryRecvError::Disconnected)
            )
        {
            self.stopping = Some(now);
            self.engine.shutdown(now);
        }
        while self.sweeps_open {
            match self.inputs.sweeps.try_recv() {
                Ok(e) => self.engine.handle_sweep_edges(e),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => self.sweeps_open = false,
            }
        }
    }
}

impl CivEndpoint for Executor {
    fn frame(&mut self, frame: Frame, now: Instant) {
        if !self.stopped() {
            self.engine.handle_frame(frame, now);
        }
    }

    fn link(&mut self, event: LinkEvent, now: Instant) {
        if !self.stopped() {
            self.engine.handle_link(event, now);
        }
    }

    fn turn(&mut self, now: Instant, send: &mut Vec<Vec<u8>>) {
        if self.stopped() {
            return;
        }
        self.take_inputs(now);
        self.engine.handle_timeout(now);
        // published before a poll is chosen: the meters asked depend on the state
        self.flush(send);
        if self.stopping.is_none() {
            self.hand_over(now);
            self.flush(send);
        }
        if let Some(t) = self.stopping
            && (self.engine.is_settled() || now >= t + SHUTDOWN_GRACE)
        {
            self.running = None;
        }
    }

    fn poll_timeout(&self, now: Instant) -> Option<Instant> {
        if self.stopped() {
            return None;
        }
        let mut next = self.engine.poll_timeout();
        if self.stopping.is_none() && self.engine.wants_job() {
            let polls = self.inputs.polls.read();
            let due = polls.iter().filter_map(|s| s.poll_due(now));
            for t in due.chain(self.inputs.queue.poll_timeout(now)) {
                next = earliest(next, Some(t));
            }
        }
        earliest(next, self.stopping.map(|t| t + SHUTDOWN_GRACE))
    }
}

#[cfg(test)]
#[path = "executor_tests.rs"]
mod tests;
