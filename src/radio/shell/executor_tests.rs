//! The executor as the CI-V thread runs it, in virtual time against the simulator's rig
//! in memory: commands from the fair queue reach the radio and their answers are
//! published; a stop releases a keyed transmitter before the executor lets go, and gives
//! up after the grace when the radio never answers.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TryRecvError};
use parking_lot::{Mutex, RwLock};

use super::{Executor, ExecutorInputs, ExecutorOutputs, PollSources, SHUTDOWN_GRACE, Watchers};
use crate::lan::link::{CivEndpoint, LinkEvent, LinkState};
use crate::net::poll::{Interest, poll};
use crate::net::waker::{self, WakeReceiver, Waker, waking_channel};
use crate::profile::ProfileRegistry;
use crate::radio::engine::{CommandResult, Engine, EngineConfig};
use crate::radio::shell::dispatch_shared::SharedQueue;
use crate::radio::shell::service::initial_content;
use crate::radio::shell::state_store::StateStore;
use crate::radio::shell::tx_audio_gate::TxAudioGate;
use crate::radio::table::command::Command;
use crate::sim::rig::{SimRig, SimRigConfig};
use crate::wire::civ::{Frame, cmd, split_frames};

/// Virtual time per turn of the CI-V thread.
const STEP: Duration = Duration::from_millis(5);

/// The executor, the radio, and what the rest of the server would hold.
struct Shell {
    exec: Executor,
    rig: SimRig,
    t0: Instant,
    now: Instant,
    queue: Arc<SharedQueue>,
    store: Arc<StateStore>,
    waker: Waker,
    /// The CI-V thread's side of the waker.
    wake: WakeReceiver,
    stop: Option<Sender<()>>,
    stopped: Receiver<()>,
    /// False: the radio hears nothing (and so answers nothing).
    radio_hears: bool,
    /// Every frame the executor sent.
    sent: Vec<Frame>,
    /// The gate of web TX audio the executor applies the engine's decisions to.
    gate: Arc<TxAudioGate>,
}

impl Shell {
    /// An IC-7610 with its link ready and its state read.
    fn ready() -> Shell {
        let profile = ProfileRegistry::embedded().get("ic7610").unwrap();
        let (waker, wake) = waker::pair().unwrap();
        let (_, sweeps) = waking_channel(waker.clone());
        let queue = Arc::new(SharedQueue::new(
            Duration::from_millis(50),
            32,
            waker.clone(),
        ));
        let store = Arc::new(StateStore::new(initial_content(&profile)));
        let (stop, stop_rx) = crossbeam_channel::bounded(1);
        let (running, stopped) = crossbeam_channel::bounded(1);
        let cfg = EngineConfig {
            tx_timeout: Duration::from_secs(600),
            ..EngineConfig::default()
        };
        let engine = Engine::new(
            cfg,
            profile.clone(),
            ProfileRegistry::embedded(),
            initial_content(&profile),
        );
        let gate = Arc::new(TxAudioGate::default());
        let inputs = ExecutorInputs {
            sweeps,
            queue: queue.clone(),
            polls: PollSources::default(),
            stop: stop_rx,
        };
        let out = ExecutorOutputs {
            store: store.clone(),
            watchers: Watchers::default(),
            profile: Arc::new(RwLock::new(profile.clone())),
            stats: Arc::new(Mutex::new(Default::default())),
            tx_audio: gate.clone(),
        };
        let t0 = Instant::now();
        let mut s = Shell {
            gate,
            exec: Executor::new(engine, inputs, out, running),
            rig: SimRig::new(profile, SimRigConfig::default()),
            t0,
            now: t0,
            queue,
            store,
            waker,
            wake,
            stop: Some(stop),
            stopped,
            radio_hears: true,
            sent: Vec::new(),
        };
        s.exec.link(LinkEvent::State(LinkState::Ready), s.now);
        s.run_until(Duration::from_secs(30), |s| {
            s.store.read(|c| c.connection.radio_ready)
        });
        s
    }

    /// One turn of the CI-V thread: its wake taken, the executor's turn, then what it
    /// sent goes to the radio and the radio's answers straight back; the clock moves on
    /// a step.
    fn turn(&mut self) {
        self.wake.clear();
        let rig_now = self.now - self.t0;
        let mut out = Vec::new();
        self.exec.turn(self.now, &mut out);
        let mut answers = self.rig.poll(rig_now);
        for bytes in out {
            for f in split_frames(&bytes).flatten() {
                if self.radio_hears {
                    answers.extend(self.rig.handle(&f, rig_now));
                }
                self.sent.push(f);
            }
        }
        for f in answers {
            self.exec.frame(f, self.now);
        }
        self.now += STEP;
    }

    /// Turns until `done`, at most `limit` of virtual time.
    fn run_until(&mut self, limit: Duration, done: impl Fn(&Shell) -> bool) {
        let end = self.now + limit;
        while !done(self) {
            assert!(self.now < end, "not done within {limit:?}");
            self.turn();
        }
    }

    /// Queues `cmd` as the server; its result arrives on the receiver.
    fn submit(&self, cmd: Command) -> Receiver<CommandResult> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.queue
            .submit_server(
                cmd,
                Box::new(move |r| {
                    let _ = tx.send(r);
                }),
            )
            .unwrap();
        rx
    }

    /// Runs `cmd` through the queue to its end.
    fn exec(&mut self, cmd: Command) -> CommandResult {
        let rx = self.submit(cmd);
        self.run_until(Duration::from_secs(10), |_| !rx.is_empty());
        rx.try_recv().unwrap()
    }

    fn woken(&self) -> bool {
        let ready = poll(&[Interest::read(self.wake.fd())], Some(Instant::now())).unwrap();
        ready[0].readable
    }

    fn unkeys_sent(&self) -> usize {
        let unkey = [cmd::tx::PTT, 0x00];
        self.sent
            .iter()
            .filter(|f| f.cmd == cmd::TX && f.data == unkey)
            .count()
    }

    /// Tells the executor to stop, as `Radio::shutdown` does.
    fn stop(&mut self) {
        self.stop.take();
        self.waker.wake();
    }
}

#[test]
fn commands_from_the_queue_reach_the_radio_and_their_answers_are_published() {
    let mut s = Shell::ready();
    s.turn();
    assert!(!s.woken(), "nothing queued: nothing rings");
    let before = s.store.revision();
    let rx = s.submit(Command::Ptt(true));
    assert!(s.woken(), "queueing a command wakes the CI-V thread");
    s.run_until(Duration::from_secs(5), |_| !rx.is_empty());
    assert!(rx.try_recv().unwrap().is_ok());
    assert!(s.rig.ptt(), "the radio keyed");
    assert_eq!(s.store.read(|c| c.radio.ptt), Some(true), "and it shows");
    assert!(s.store.revision() > before);
    assert!(s.exec(Command::Ptt(false)).is_ok());
    assert!(!s.rig.ptt());
    assert_eq!(s.store.read(|c| c.radio.ptt), Some(false));
}

#[test]
fn the_tx_audio_gate_follows_the_engine_and_closes_with_the_unkey_it_sends() {
    let mut s = Shell::ready();
    assert!(!s.gate.is_open(), "closed before any transmission");
    assert!(s.exec(Command::Ptt(true)).is_ok());
    assert!(s.gate.is_open(), "open once the radio keyed");
    let rx = s.submit(Command::Ptt(false));
    let before = s.unkeys_sent();
    s.run_until(Duration::from_secs(1), |s| s.unkeys_sent() > before);
    assert!(!s.gate.is_open(), "closed by the turn that sent the unkey");
    s.run_until(Duration::from_secs(5), |_| !rx.is_empty());
    assert!(!s.rig.ptt() && !s.gate.is_open());
    assert!(s.exec(Command::Ptt(true)).is_ok());
    assert!(s.gate.is_open(), "a new transmission opens it again");
    assert!(s.exec(Command::Ptt(false)).is_ok());
}

#[test]
fn a_stop_releases_a_keyed_transmitter_before_the_executor_lets_go() {
    let mut s = Shell::ready();
    assert!(s.exec(Command::Ptt(true)).is_ok());
    s.stop();
    s.turn();
    assert_eq!(s.unkeys_sent(), 1, "the release goes at once");
    assert_eq!(
        s.stopped.try_recv(),
        Err(TryRecvError::Empty),
        "still running until the radio confirms"
    );
    s.turn();
    assert!(!s.rig.ptt(), "released");
    assert_eq!(s.stopped.try_recv(), Err(TryRecvError::Disconnected));
    // stopped: nothing more goes to the radio, not even a command still queued
    let late = s.submit(Command::Ptt(true));
    let sent = s.sent.len();
    for _ in 0..100 {
        s.turn();
    }
    assert_eq!(s.sent.len(), sent);
    assert!(late.is_empty() && !s.rig.ptt());
    assert_eq!(s.exec.poll_timeout(s.now), None, "and no timer");
}

#[test]
fn a_stop_gives_up_after_the_grace_when_the_radio_never_answers() {
    let mut s = Shell::ready();
    assert!(s.exec(Command::Ptt(true)).is_ok());
    s.radio_hears = false;
    let stopped_at = s.now;
    s.stop();
    s.turn();
    let deadline = s.exec.poll_timeout(s.now).expect("a timer while stopping");
    assert!(deadline <= stopped_at + SHUTDOWN_GRACE);
    while s.stopped.try_recv() == Err(TryRecvError::Empty) {
        assert!(
            s.now <= stopped_at + SHUTDOWN_GRACE + STEP,
            "let go after the grace"
        );
        s.turn();
    }
    assert!(
        s.now >= stopped_at + SHUTDOWN_GRACE,
        "not before the grace ended ({:?})",
        s.now - stopped_at
    );
    assert!(s.unkeys_sent() >= 1, "the release went out");
    assert!(
        s.rig.ptt(),
        "the radio heard nothing, so it still transmits"
    );
}
