//! The radio as the rest of the program sees it: starts the link (with the scope and RX
//! audio producers as its sinks and the executor on its CI-V thread) and the threads
//! that follow who listens to the streams; takes commands (each client through its own
//! [`RadioClient`]: its own queue and rate limits, served in turn with the others);
//! exposes the state store and the stream fan-outs; shuts everything down in order (PTT
//! released, clean logout).

use std::io;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use parking_lot::{Mutex, RwLock};

use crate::hub::{Discard, Fanout, Subscription};
use crate::lan::link::{LinkConfig, LinkSinks, LinkStatus, RadioLink};
use crate::net::waker::{self, Waker, waking_channel};
use crate::profile::{Profile, ProfileRegistry};
use crate::radio::dispatch::{ClientId, FailureSink};
use crate::radio::engine::Engine;
use crate::radio::engine::tx_audio::TxFramer;
use crate::radio::engine::unknown_radio;
use crate::radio::shell::audio_dsp::{AudioOut, DspCounters, DspOutputs, DspStats, RxStreams};
use crate::radio::shell::audio_pump::{self, PcmBlock};
use crate::radio::shell::audio_rx::{self, RxAudio};
use crate::radio::shell::dispatch_shared::SharedQueue;
use crate::radio::shell::executor::{
    CommandResult, EventWatcher, Executor, ExecutorConfig, ExecutorInputs, ExecutorOutputs,
    ExecutorStats, PollSource, PollSources, SHUTDOWN_GRACE, Watchers,
};
use crate::radio::shell::scope_pump::{self, ScopeOut, SweepPublisher};
use crate::radio::shell::state_store::StateStore;
use crate::radio::shell::tx_audio_gate::TxAudioGate;
use crate::radio::state::StateContent;
use crate::radio::table::command::{Command, RateClass};
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::wire::web::AudioCodec;

/// Settings of the radio service.
#[derive(Debug, Clone)]
pub struct RadioConfig {
    /// The LAN link.
    pub link: LinkConfig,
    /// The profile to start with (replaced if the radio reports another model).
    pub profile: Arc<Profile>,
    /// All profiles, for identifying the radio.
    pub registry: ProfileRegistry,
    /// Executor settings.
    pub executor: ExecutorConfig,
    /// Most commands one client may have waiting for the radio (more: `radio_busy`).
    pub queue: usize,
    /// The rate-limit window: per client, at most one command of each name and target
    /// per window reaches the radio (unkeys excepted).
    pub rate_window: Duration,
}

/// A running radio service.
pub struct Radio {
    profile: Arc<RwLock<Arc<Profile>>>,
    store: Arc<StateStore>,
    watchers: Watchers,
    queue: Arc<SharedQueue>,
    polls: PollSources,
    /// Dropped (and the executor woken) to stop the executor.
    stop: Mutex<Option<Sender<()>>>,
    /// Wakes the link's CI-V thread, where the executor runs.
    exec_waker: Waker,
    /// Closed once the executor has stopped.
    executor_stopped: Receiver<()>,
    link: Arc<RadioLink>,
    scope: Arc<Fanout<ScopeOut>>,
    audio: Arc<Fanout<PcmBlock>>,
    rx_streams: Arc<RxStreams>,
    /// Dropped to stop the `scope-output` and `audio-control` threads.
    pumps_stop: Mutex<Option<Sender<()>>>,
    dsp_counters: Arc<DspCounters>,
    sample_rate: u32,
    exec_stats: Arc<Mutex<ExecutorStats>>,
    pumps: Mutex<Vec<JoinHandle<()>>>,
    tx_audio: Arc<TxAudioGate>,
}

/// The state a profile starts with before the radio has been read: its shape, nothing
/// known, status "connecting".
pub fn initial_content(p: &Profile) -> StateContent {
    StateContent::connecting(unknown_radio(p), p.model())
}

impl Radio {
    /// Starts the link and the threads around it.
    pub fn start(cfg: RadioConfig) -> io::Result<Radio> {
        // the executor runs on the link's CI-V thread: what other threads hand it wakes it
        let (exec_waker, civ_wake) = waker::pair()?;
        let sample_rate = cfg.link.control.sample_rate;
        let store = Arc::new(StateStore::new(initial_content(&cfg.profile)));
        let profile = Arc::new(RwLock::new(cfg.profile));
        // the stream sinks run on the link's threads (sweeps on lan-civ, RX audio on
        // lan-audio); the threads below only follow who listens
        let scope: Arc<Fanout<ScopeOut>> = Fanout::new();
        let audio: Arc<Fanout<PcmBlock>> = Fanout::new();
        let (listeners_tx, listeners) = crossbeam_channel::unbounded();
        let rx_streams = Arc::new(RxStreams::new(&listeners_tx));
        scope.on_count_change(move |_| {
            let _ = listeners_tx.send(());
        });
        let dsp_counters = Arc::new(DspCounters::default());
        // the scope edges the sweeps show go to the engine, the state's one writer
        let (edges_tx, edges_rx) = waking_channel(exec_waker.clone());
        let rx_audio = RxAudio::new(
            cfg.link.control.rx_codec,
            sample_rate,
            audio.clone(),
            DspOutputs {
                streams: rx_streams.clone(),
                scope: scope.clone(),
                profile: profile.clone(),
                store: store.clone(),
                edges: edges_tx.clone(),
                counters: dsp_counters.clone(),
            },
        );
        let sweeps = SweepPublisher::new(profile.clone(), store.clone(), edges_tx, scope.clone());
        let queue = Arc::new(SharedQueue::new(
            cfg.rate_window,
            cfg.queue,
            exec_waker.clone(),
        ));
        let polls = PollSources::default();
        let (stop_tx, stop_rx) = crossbeam_channel::bounded(1);
        let (running, stopped) = crossbeam_channel::bounded(1);
        let exec_stats = Arc::new(Mutex::new(ExecutorStats::default()));
        let engine = Engine::new(
            cfg.executor,
            profile.read().clone(),
            cfg.registry,
            initial_content(&profile.read()),
        );
        let tx_audio = Arc::new(TxAudioGate::default());
        let watchers = Watchers::default();
        let inputs = ExecutorInputs {
            sweeps: edges_rx,
            queue: queue.clone(),
            polls: polls.clone(),
            stop: stop_rx,
        };
        let outputs = ExecutorOutputs {
            store: store.clone(),
            watchers: watchers.clone(),
            profile: profile.clone(),
            stats: exec_stats.clone(),
            tx_audio: tx_audio.clone(),
        };
        let executor = Executor::new(engine, inputs, outputs, running);
        let link = Arc::new(RadioLink::start(
            cfg.link,
            LinkSinks {
                scope: Arc::new(sweeps),
                audio: rx_audio.clone(),
            },
            Box::new(executor),
            (exec_waker.clone(), civ_wake),
        )?);
        rx_audio.attach(&link);
        let (pumps_stop_tx, pumps_stop) = crossbeam_channel::bounded::<()>(1);
        let scope_thread = {
            let (p, j, counts) = (
                profile.clone(),
                queue.clone(),
                scope_pump::count_channel(&scope),
            );
            let stop = pumps_stop.clone();
            std::thread::Builder::new()
                .name("scope-output".into())
                .spawn(move || scope_pump::run(p, j, counts, stop))?
        };
        let audio_thread = {
            let (rx, l, counts) = (rx_audio, link.clone(), audio_pump::count_channel(&audio));
            std::thread::Builder::new()
                .name("audio-control".into())
                .spawn(move || audio_rx::run(rx, l, counts, listeners, pumps_stop))?
        };
        Ok(Radio {
            profile,
            store,
            watchers,
            queue,
            polls,
            stop: Mutex::new(Some(stop_tx)),
            exec_waker,
            executor_stopped: stopped,
            link,
            scope,
            audio,
            rx_streams,
            pumps_stop: Mutex::new(Some(pumps_stop_tx)),
            dsp_counters,
            sample_rate,
            exec_stats,
            pumps: Mutex::new(vec![scope_thread, audio_thread]),
            tx_audio,
        })
    }

    /// The current profile.
    pub fn profile(&self) -> Arc<Profile> {
        self.profile.read().clone()
    }

    /// The state store.
    pub fn store(&self) -> &Arc<StateStore> {
        &self.store
    }

    /// Has `watcher` told of the radio's events, in the executor (on the link's CI-V
    /// thread), before each change is published.
    pub fn watch(&self, watcher: Arc<dyn EventWatcher>) {
        self.watchers.write().push(watcher);
    }

    /// Scope sweeps, for subscribers (subscribing turns the radio's scope output on).
    pub fn scope(&self) -> &Arc<Fanout<ScopeOut>> {
        &self.scope
    }

    /// Decoded RX audio, for subscribers (subscribing opens the radio's audio stream).
    pub fn audio(&self) -> &Arc<Fanout<PcmBlock>> {
        &self.audio
    }

    /// A web RX audio stream (48 kHz, 20 ms frames) of `codec` with `channels` (1 or 2);
    /// subscribing starts the radio's audio and the stream's encoder.
    pub fn rx_audio(&self, codec: AudioCodec, channels: u8) -> Option<&Arc<Fanout<AudioOut>>> {
        self.rx_streams.get(codec, channels)
    }

    /// What the RX audio DSP has done (Opus frames, audio-FFT sweeps, blocks dropped
    /// ahead of real time, ...).
    pub fn dsp_stats(&self) -> DspStats {
        self.dsp_counters.stats()
    }

    /// Keeps the radio's audio stream open (for TX audio) while the guard lives.
    pub fn hold_audio(&self) -> Subscription<PcmBlock> {
        self.audio.subscribe_with(Arc::new(Discard))
    }

    /// Channels of the radio's RX audio (its negotiated codec).
    pub fn rx_channels(&self) -> u8 {
        crate::wire::lan::codec::channels(self.link.status().rx_codec).unwrap_or(1)
    }

    /// Sample rate of the radio's TX audio, Hz.
    pub fn tx_sample_rate(&self) -> u32 {
        self.sample_rate
    }

    /// The link's status.
    pub fn link_status(&self) -> LinkStatus {
        self.link.status()
    }

    /// Executor counters.
    pub fn executor_stats(&self) -> ExecutorStats {
        *self.exec_stats.lock()
    }

    /// (Re)connects the radio link.
    pub fn connect(&self) {
        self.link.connect();
    }

    /// Logs out and stays disconnected (TX audio stops at once).
    pub fn disconnect(&self) {
        self.tx_audio.close();
        self.link.disconnect();
    }

    /// A client of the radio: its commands queue apart from other clients' and are rate
    /// limited (see [`RadioClient::submit`]); failures of its throttled commands go to
    /// `failures` while it lives.
    pub fn client(&self, failures: FailureSink) -> RadioClient {
        RadioClient {
            id: self.queue.join(failures),
            queue: self.queue.clone(),
            tx_audio: self.tx_audio.clone(),
        }
    }

    /// Queues a command of the server itself (not rate limited, but in turn with the
    /// clients); `reply` is called exactly once with its result (unless the queue
    /// refuses it, in which case the error is returned here). A command that takes the
    /// transmitter off the air stops TX audio here and goes before everything else.
    pub fn submit(
        &self,
        cmd: Command,
        reply: impl FnOnce(CommandResult) + Send + 'static,
    ) -> Result<(), CommandError> {
        if cmd.unkeys() {
            self.tx_audio.close();
        }
        self.queue.submit_server(cmd, Box::new(reply))
    }

    /// Has the executor take `source`'s polls (served when no user command may go)
    /// until the server stops.
    pub fn add_poll_source(&self, source: Arc<dyn PollSource>) {
        self.polls.write().push(source);
        self.queue.ring();
    }

    /// Wakes the executor: what a poll source asks changed.
    pub fn wake_polls(&self) {
        self.queue.ring();
    }

    /// Runs a user command and waits for its result.
    pub fn execute(&self, cmd: Command) -> CommandResult {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.submit(cmd, move |r| {
            let _ = tx.send(r);
        })?;
        rx.recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| {
                Err(CommandError::new(
                    ErrorCode::RadioTimeout,
                    "no result from the executor",
                ))
            })
    }

    /// Starts a transmission's audio: the TX audio sequence restarts at 0.
    pub fn start_tx_audio(&self) {
        self.tx_audio.lock().framer = None;
        self.link.start_tx_audio();
    }

    /// True while TX audio may reach the radio: it transmits and no unkey was asked for
    /// since it was keyed.
    pub fn tx_audio_open(&self) -> bool {
        self.tx_audio.is_open() && self.store.read(|c| c.radio.transmitting())
    }

    /// Sends mono TX audio samples (any count: they are cut into 20 ms blocks of the TX
    /// codec, each sent in packets of at most 1364 bytes). Only while
    /// [`Radio::tx_audio_open`]; the audio stream must be open (somebody listens to RX
    /// audio). Returns the number of blocks sent.
    pub fn send_tx_audio(&self, samples: &[i16]) -> Result<usize, CommandError> {
        let mut gate = self.tx_audio.lock();
        if !(gate.open && self.store.read(|c| c.radio.transmitting())) {
            return Err(CommandError::new(
                ErrorCode::PttRequired,
                "TX audio is sent only while transmitting: key PTT first",
            ));
        }
        let p = self.profile();
        let framer = gate
            .framer
            .get_or_insert_with(|| TxFramer::new(p.tx_codec_byte(), p.audio.sample_rate));
        let blocks = framer.push(samples);
        let n = blocks.len();
        // under the lock: once the gate is closed, nothing more is handed to the link
        for b in blocks {
            self.link.send_tx_audio(b);
        }
        Ok(n)
    }

    /// Stops everything: the executor (releasing PTT), then the link (clean logout), then
    /// the pumps. Later calls do nothing.
    pub fn shutdown(&self) {
        self.tx_audio.close();
        self.queue.close();
        self.polls.write().clear();
        self.stop.lock().take();
        self.exec_waker.wake();
        // it releases PTT on the link's CI-V thread, giving up after SHUTDOWN_GRACE
        let _ = self
            .executor_stopped
            .recv_timeout(SHUTDOWN_GRACE + Duration::from_secs(1));
        self.link.shutdown();
        self.pumps_stop.lock().take();
        for t in self.pumps.lock().drain(..) {
            let _ = t.join();
        }
    }
}

/// One client of the radio (a WebSocket control channel, later a rigctld connection):
/// its own command queue and rate limits, served in turn with the other clients. When it
/// is dropped, what it queued is still sent, each command in its window.
pub struct RadioClient {
    id: ClientId,
    queue: Arc<SharedQueue>,
    tx_audio: Arc<TxAudioGate>,
}

impl RadioClient {
    /// Queues `cmd`, row `name` of the command table, rate limited as `class` for this
    /// client. `reply` is called exactly once, unless this returns an error (the
    /// client's queue is full: `radio_busy`; shutting down): with the result when the
    /// command ran, or at once with `{"throttled":true}` when a newer value of the same
    /// slot supersedes it (the merged command's failure then goes to the client's
    /// failure sink), or `ptt_busy` when an unkey cancelled a queued key. An unkey stops
    /// TX audio here and goes before everything else.
    pub fn submit(
        &self,
        name: &'static str,
        class: RateClass,
        cmd: Command,
        reply: impl FnOnce(CommandResult) + Send + 'static,
    ) -> Result<(), CommandError> {
        if cmd.unkeys() {
            self.tx_audio.close();
        }
        self.queue
            .submit(self.id, name, class, cmd, Box::new(reply))
    }
}

impl Drop for RadioClient {
    fn drop(&mut self) {
        self.queue.leave(self.id);
    }
}

impl Drop for Radio {
    fn drop(&mut self) {
        self.shutdown();
    }
}
