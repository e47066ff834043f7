//! The executor thread: a thin shell around the [`Engine`]. It waits on the link's
//! events and CI-V frames, the command lanes and the engine's next timer, feeds what
//! arrives to the engine, sends the CI-V bytes the engine hands out and calls the
//! replies of finished commands. User commands are handed over only while the engine is
//! idle, so that the bounded queue in front of it is where a flood is refused.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, never, select};
use parking_lot::{Mutex, RwLock};

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
    /// User commands.
    pub jobs: Receiver<Job>,
    /// Background polls (meters), served when no user command waits.
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
        let mut timeout = engine
            .poll_timeout()
            .map(|t| t.saturating_duration_since(now))
            .unwrap_or(Duration::from_secs(3600));
        if let Some(t) = stopping {
            timeout = timeout.min((t + SHUTDOWN_GRACE).saturating_duration_since(now));
        }
        let wants = stopping.is_none() && engine.wants_job();
        let (jobs, polls) = if wants {
            (inputs.jobs.clone(), inputs.polls.clone())
        } else {
            (never(), never())
        };
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
            recv(jobs) -> job => {
                if let Ok(job) = job {
                    engine.submit(job, Instant::now());
                }
            },
            recv(polls) -> job => {
                if let Ok(job) = job {
                    // a user command waiting goes first
                    if let Ok(user) = inputs.jobs.try_recv() {
                        engine.submit(user, Instant::now());
                    }
                    engine.submit_background(job, Instant::now());
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
