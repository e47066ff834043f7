//! The executor thread: a thin shell around the [`Engine`]. It waits on the link's
//! events and CI-V frames, the command queue's doorbell, the background lane and the
//! next timer (the engine's, and the end of a rate-limit window a queued command waits
//! for), feeds what arrives to the engine, sends the CI-V bytes the engine hands out and
//! calls the replies of finished commands. Commands are handed over one at a time, only
//! while the engine is idle, so that the fair queue in front of it
//! ([`SharedQueue`](super::dispatch::SharedQueue): a queue per client, served in turn,
//! unkeys first) decides who goes next; background polls go when no command may.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, never, select};
use parking_lot::{Mutex, RwLock};

use super::dispatch::SharedQueue;
use super::engine::{Engine, EngineEvent, EngineStats};
use crate::lan::link::{LinkEvent, RadioLink};
use crate::profile::Profile;
use crate::wire::civ::Frame;

pub use super::engine::{
    CommandResult, EngineConfig as ExecutorConfig, EngineStats as ExecutorStats, Job,
};

/// Where the executor gets its input.
pub struct ExecutorInputs {
    /// CI-V frames from the link (scope sweeps excluded).
    pub civ: Receiver<Frame>,
    /// Link events.
    pub link: Receiver<LinkEvent>,
    /// Client commands (the fair queue).
    pub queue: Arc<SharedQueue>,
    /// Rings when a command was queued.
    pub doorbell: Receiver<()>,
    /// Background polls (meters), served when no client command may go.
    pub polls: Receiver<Job>,
    /// Closed (sender dropped) to stop the executor.
    pub stop: Receiver<()>,
}

/// Longest wait for the transmitter to be released when stopping.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

fn flush(
    engine: &mut Engine,
    link: &RadioLink,
    profile: &RwLock<Arc<Profile>>,
    stats: &Mutex<EngineStats>,
) {
    while let Some(bytes) = engine.poll_transmit() {
        link.send_civ(bytes);
    }
    while let Some(ev) = engine.poll_event() {
        match ev {
            EngineEvent::Completed(reply, result) => reply(result),
            EngineEvent::ProfileChanged(p) => *profile.write() = p,
        }
    }
    *stats.lock() = engine.stats();
}

/// Hands the engine what may go now while it takes commands: the next client command
/// (unkeys first, clients in turn), else a background poll. True if it handed anything.
fn hand_over(engine: &mut Engine, inputs: &ExecutorInputs, now: Instant) -> bool {
    let mut any = false;
    while engine.wants_job() {
        if let Some(job) = inputs.queue.next(now) {
            engine.submit(job, now);
        } else if let Ok(job) = inputs.polls.try_recv() {
            engine.submit_background(job, now);
        } else {
            break;
        }
        any = true;
    }
    any
}

/// Runs `engine` until stopped, then releases PTT if it may be keyed.
pub fn run(
    mut engine: Engine,
    inputs: ExecutorInputs,
    link: Arc<RadioLink>,
    profile: Arc<RwLock<Arc<Profile>>>,
    stats: Arc<Mutex<EngineStats>>,
) {
    let mut stopping: Option<Instant> = None;
    loop {
        let now = Instant::now();
        if stopping.is_none() && hand_over(&mut engine, &inputs, now) {
            flush(&mut engine, &link, &profile, &stats);
        }
        let wants = stopping.is_none() && engine.wants_job();
        let mut next = engine.poll_timeout();
        if wants && let Some(t) = inputs.queue.poll_timeout(now) {
            next = Some(next.map_or(t, |n| n.min(t)));
        }
        let mut timeout = next
            .map(|t| t.saturating_duration_since(now))
            .unwrap_or(Duration::from_secs(3600));
        if let Some(t) = stopping {
            timeout = timeout.min((t + SHUTDOWN_GRACE).saturating_duration_since(now));
        }
        let polls = if wants { inputs.polls.clone() } else { never() };
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
            recv(inputs.doorbell) -> _ => {},
            recv(polls) -> job => {
                if let Ok(job) = job {
                    // a client command that may go goes first
                    match inputs.queue.next(Instant::now()) {
                        Some(client) => {
                            engine.submit(client, Instant::now());
                            engine.submit_background(job, Instant::now());
                        }
                        None => engine.submit_background(job, Instant::now()),
                    }
                }
            },
            default(timeout) => {}
        }
        engine.handle_timeout(Instant::now());
        flush(&mut engine, &link, &profile, &stats);
        if let Some(t) = stopping
            && (engine.is_settled() || Instant::now() >= t + SHUTDOWN_GRACE)
        {
            break;
        }
    }
}
