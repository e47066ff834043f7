//! The executor thread: a thin shell around the [`Engine`]. It waits on the link's
//! events and CI-V frames, the scope stream's sweep edges, the command queue's doorbell
//! and the next timer (the engine's, the end of a rate-limit window a queued command
//! waits for, the next background poll), feeds what arrives to the engine, sends the
//! CI-V bytes the engine hands out, publishes its state updates to the store
//! (stamping `updatedAt`; the [`EventWatcher`]s see each update's events first) and
//! calls the replies of finished commands. Commands are handed over one at a time, only
//! while the engine is idle, so that the fair queue in front of it
//! ([`SharedQueue`](crate::radio::shell::dispatch_shared::SharedQueue): a queue per client, served in turn,
//! unkeys first) decides who goes next; background polls ([`PollSource`]s: the meter
//! schedule) go when no command may, their timers kept by this thread.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crossbeam_channel::{Receiver, never, select};
use parking_lot::{Mutex, RwLock};

use crate::lan::link::{LinkEvent, RadioLink};
use crate::profile::Profile;
use crate::radio::engine::scope::SweepEdges;
use crate::radio::engine::{Engine, EngineEvent, EngineStats};
use crate::radio::shell::dispatch_shared::SharedQueue;
use crate::radio::shell::state_store::StateStore;
use crate::radio::state::events::RadioEvent;
use crate::wire::civ::Frame;

pub use crate::radio::engine::{
    CommandResult, EngineConfig as ExecutorConfig, EngineStats as ExecutorStats, Job,
};

/// Where the executor gets its input.
pub struct ExecutorInputs {
    /// CI-V frames from the link (scope sweeps excluded).
    pub civ: Receiver<Frame>,
    /// Link events.
    pub link: Receiver<LinkEvent>,
    /// The edges of the scope's sweeps, as they change.
    pub sweeps: Receiver<SweepEdges>,
    /// Client commands (the fair queue).
    pub queue: Arc<SharedQueue>,
    /// Rings when a command was queued.
    pub doorbell: Receiver<()>,
    /// Background polls (meters), served when no client command may go; a change of
    /// what they ask rings the doorbell.
    pub polls: PollSources,
    /// Closed (sender dropped) to stop the executor.
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

/// Polls the server makes of its own accord (the meters), on the executor's thread: it
/// asks for one whenever the engine may take a job and no client command may go, and
/// wakes when the next is due. A change of what is asked must ring the command queue's
/// doorbell. Neither call may block.
pub trait PollSource: Send + Sync {
    /// When the next poll is due at `now` (`None`: nothing is asked).
    fn poll_due(&self, now: Instant) -> Option<Instant>;
    /// The poll due at `now`, if any; `state` and `profile` are the published state and
    /// the current profile.
    fn take_poll(&self, now: Instant, state: &StateStore, profile: &Profile) -> Option<Job>;
}

/// The poll sources, registered while the executor runs.
pub type PollSources = Arc<RwLock<Vec<Arc<dyn PollSource>>>>;

/// Where the executor puts what the engine hands out.
pub struct ExecutorOutputs {
    /// The link (CI-V bytes go there).
    pub link: Arc<RadioLink>,
    /// The state resource (the engine's updates are published there).
    pub store: Arc<StateStore>,
    /// Told of every update's events.
    pub watchers: Watchers,
    /// The current profile (the engine's, when the radio reports another model).
    pub profile: Arc<RwLock<Arc<Profile>>>,
    /// The engine's counters.
    pub stats: Arc<Mutex<EngineStats>>,
}

/// Longest wait for the transmitter to be released when stopping.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

fn flush(engine: &mut Engine, out: &ExecutorOutputs) {
    while let Some(bytes) = engine.poll_transmit() {
        out.link.send_civ(bytes);
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
fn due_poll(inputs: &ExecutorInputs, out: &ExecutorOutputs, now: Instant) -> Option<Job> {
    let profile = out.profile.read().clone();
    inputs
        .polls
        .read()
        .iter()
        .find_map(|s| s.take_poll(now, &out.store, &profile))
}

/// When the next background poll is due.
fn next_poll(inputs: &ExecutorInputs, now: Instant) -> Option<Instant> {
    inputs
        .polls
        .read()
        .iter()
        .filter_map(|s| s.poll_due(now))
        .min()
}

/// Hands the engine what may go now while it takes commands: the next client command
/// (unkeys first, clients in turn), else a background poll that is due. True if it
/// handed anything.
fn hand_over(
    engine: &mut Engine,
    inputs: &ExecutorInputs,
    out: &ExecutorOutputs,
    now: Instant,
) -> bool {
    let mut any = false;
    while engine.wants_job() {
        if let Some(job) = inputs.queue.next(now) {
            engine.submit(job, now);
        } else if let Some(job) = due_poll(inputs, out, now) {
            engine.submit_background(job, now);
        } else {
            break;
        }
        any = true;
    }
    any
}

/// Runs `engine` until stopped, then releases PTT if it may be keyed.
pub fn run(mut engine: Engine, inputs: ExecutorInputs, out: ExecutorOutputs) {
    let mut stopping: Option<Instant> = None;
    // the scope stream may end first: then its channel is not waited on any more
    let mut sweeps = inputs.sweeps.clone();
    loop {
        let now = Instant::now();
        if stopping.is_none() && hand_over(&mut engine, &inputs, &out, now) {
            flush(&mut engine, &out);
        }
        let wants = stopping.is_none() && engine.wants_job();
        let mut next = engine.poll_timeout();
        if wants {
            for t in [inputs.queue.poll_timeout(now), next_poll(&inputs, now)]
                .into_iter()
                .flatten()
            {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        }
        let mut timeout = next
            .map(|t| t.saturating_duration_since(now))
            .unwrap_or(Duration::from_secs(3600));
        if let Some(t) = stopping {
            timeout = timeout.min((t + SHUTDOWN_GRACE).saturating_duration_since(now));
        }
        let stop = if stopping.is_none() {
            inputs.stop.clone()
        } else {
            never()
        };
        select! {
            recv(stop) -> _ => {
                stopping = Some(Instant::now());
                engine.shutdown(Instant::now());
            },
            recv(inputs.link) -> ev => match ev {
                Ok(ev) => engine.handle_link(ev, Instant::now()),
                Err(_) => break,
            },
            recv(inputs.civ) -> f => match f {
                Ok(f) => engine.handle_frame(f, Instant::now()),
                Err(_) => break,
            },
            recv(sweeps) -> e => match e {
                Ok(e) => engine.handle_sweep_edges(e),
                Err(_) => sweeps = never(),
            },
            recv(inputs.doorbell) -> _ => {},
            default(timeout) => {}
        }
        engine.handle_timeout(Instant::now());
        flush(&mut engine, &out);
        if let Some(t) = stopping
            && (engine.is_settled() || Instant::now() >= t + SHUTDOWN_GRACE)
        {
            break;
        }
    }
}
