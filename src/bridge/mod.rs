//! The audio bridge: the radio's RX audio out to, and TX audio in from, a local ALSA
//! device as 48 kHz mono S16LE, so that WSJT-X, JS8Call or fldigi on the same machine
//! use the radio as a sound card (by default the snd-aloop loopback `hw:Loopback,0`;
//! the programs then open `hw:Loopback,1`).
//!
//! * RX ([`rx`]): one subscription of the RX audio DSP's 48 kHz mono PCM stream (the one
//!   web clients get) into the playback device, at most [`pacing::MAX_QUEUE`] queued.
//! * TX ([`tx`]): the capture device, no faster than real time, to the radio through its
//!   TX audio gate, only while the radio transmits. The bridge never keys PTT.
//! * ALSA ([`alsa`]) is `libasound.so.2` loaded at run time when the bridge starts: no
//!   build-time dependency, no ALSA in the cross sysroots (docs/ARCHITECTURE.md says why).
//! * Start and stop are idempotent; the states are in [`lifecycle`].

pub mod alsa;
pub mod lifecycle;
pub mod pacing;
pub mod rx;
pub mod tx;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;

use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::profile::Feature;
use crate::radio::service::Radio;
use crate::wire::web::AudioCodec;
use alsa::{AlsaError, AlsaErrorKind, Direction, Pcm};
use lifecycle::{BridgeState, Decision, Lifecycle};
use pacing::{DEVICE_BUFFER, LatencyStats, Percentiles, RATE, START_QUEUE, frames};
pub use tx::TxStarted;

/// `--bridge-device`, `--bridge-start`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeConfig {
    /// ALSA device name.
    pub device: String,
    /// Start when the server starts.
    pub start: bool,
}

impl Default for BridgeConfig {
    fn default() -> Self {
        BridgeConfig {
            device: "hw:Loopback,0".into(),
            start: false,
        }
    }
}

/// Why a start or stop did not happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BridgeErrorKind {
    /// No ALSA library on this machine.
    AlsaMissing,
    /// No such device.
    DeviceNotFound,
    /// Another program holds the device.
    DeviceBusy,
    /// The device refused (format, permissions, ...).
    Device,
    /// The radio has no audio.
    NotSupported,
    /// The bridge is in the middle of the opposite change.
    Conflict,
}

/// A refused start or stop, with a message a user can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeError {
    /// Kind.
    pub kind: BridgeErrorKind,
    /// Message.
    pub message: String,
}

impl From<AlsaError> for BridgeError {
    fn from(e: AlsaError) -> BridgeError {
        BridgeError {
            kind: match e.kind {
                AlsaErrorKind::LibraryMissing => BridgeErrorKind::AlsaMissing,
                AlsaErrorKind::NotFound => BridgeErrorKind::DeviceNotFound,
                AlsaErrorKind::Busy => BridgeErrorKind::DeviceBusy,
                AlsaErrorKind::Other => BridgeErrorKind::Device,
            },
            message: e.message,
        }
    }
}

/// What the threads share with the controller.
#[derive(Default)]
pub struct Shared {
    life: Mutex<Lifecycle>,
    stop: AtomicBool,
    rx_frames: AtomicU64,
    tx_frames: AtomicU64,
    rx_drops: AtomicU64,
    latency: Mutex<LatencyStats>,
}

impl Shared {
    /// True once the threads should end.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// A device failed: the bridge is `failed`, both threads end.
    pub fn fail(&self, error: String) {
        log::error!("audio bridge: {error}");
        self.life.lock().failed(error);
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The status record (decisions.md "Station data").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeStatus {
    /// State.
    pub state: BridgeState,
    /// Device.
    pub device: String,
    /// 20 ms frames played (RX).
    pub rx_frames: u64,
    /// 20 ms frames sent to the radio (TX).
    pub tx_frames: u64,
    /// RX frames dropped.
    pub rx_drops: u64,
    /// Seconds running.
    pub uptime_s: u64,
    /// The last error.
    pub error: Option<String>,
}

impl BridgeStatus {
    /// As JSON: `{"running","state","device","rx_frames","tx_frames","rx_drops",
    /// "uptime_s","error"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "running": self.state == BridgeState::Running,
            "state": self.state.as_str(),
            "device": self.device,
            "rx_frames": self.rx_frames,
            "tx_frames": self.tx_frames,
            "rx_drops": self.rx_drops,
            "uptime_s": self.uptime_s,
            "error": self.error,
        })
    }
}

/// See the module docs.
pub struct AudioBridge {
    radio: Arc<Radio>,
    device: String,
    tx_started: TxStarted,
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl AudioBridge {
    /// A stopped bridge for `radio` on `device`; `tx_started` is told when the bridge's
    /// audio starts reaching the radio.
    pub fn new(radio: Arc<Radio>, device: String, tx_started: TxStarted) -> AudioBridge {
        AudioBridge {
            radio,
            device,
            tx_started,
            shared: Arc::default(),
            threads: Mutex::new(Vec::new()),
        }
    }

    /// The status now.
    pub fn status(&self) -> BridgeStatus {
        let s = &self.shared;
        let life = s.life.lock();
        BridgeStatus {
            state: life.state(),
            device: self.device.clone(),
            rx_frames: s.rx_frames.load(Ordering::Relaxed),
            tx_frames: s.tx_frames.load(Ordering::Relaxed),
            rx_drops: s.rx_drops.load(Ordering::Relaxed),
            uptime_s: life.uptime(Instant::now()).as_secs(),
            error: life.error().map(str::to_string),
        }
    }

    /// The RX latency the bridge adds (radio block in → handed to the device, plus what
    /// the device had queued), over the last frames.
    pub fn rx_latency(&self) -> Percentiles {
        self.shared.latency.lock().percentiles()
    }

    fn join_threads(&self) {
        for t in self.threads.lock().drain(..) {
            let _ = t.join();
        }
    }

    /// Starts the bridge (nothing to do if it runs).
    pub fn start(&self) -> Result<BridgeStatus, BridgeError> {
        if !self.radio.profile().has_feature(Feature::Audio) {
            return Err(BridgeError {
                kind: BridgeErrorKind::NotSupported,
                message: format!("the {} has no LAN audio", self.radio.profile().model()),
            });
        }
        let shared = &self.shared;
        let decision = shared.life.lock().start();
        match decision {
            Decision::Proceed => {}
            Decision::AlreadyDone => return Ok(self.status()),
            Decision::Conflict(s) => return Err(conflict(s)),
        }
        // the threads of a run that failed; then a fresh run, counters from zero
        self.join_threads();
        shared.stop.store(false, Ordering::Relaxed);
        for c in [&shared.rx_frames, &shared.tx_frames, &shared.rx_drops] {
            c.store(0, Ordering::Relaxed);
        }
        *shared.latency.lock() = LatencyStats::default();
        let opened = Pcm::open(
            &self.device,
            Direction::Playback,
            RATE,
            DEVICE_BUFFER,
            frames(START_QUEUE),
        )
        .and_then(|play| {
            let capture = Pcm::open(&self.device, Direction::Capture, RATE, DEVICE_BUFFER, 0)?;
            Ok((play, capture))
        });
        let (play, capture) = match opened {
            Ok(p) => p,
            Err(e) => {
                log::warn!("audio bridge: {e}");
                shared
                    .life
                    .lock()
                    .started(Err(e.message.clone()), Instant::now());
                return Err(e.into());
            }
        };
        let spawned = self.spawn(play, capture, shared);
        if let Err(e) = spawned {
            shared.stop.store(true, Ordering::Relaxed);
            self.join_threads();
            let message = format!("the bridge threads could not start: {e}");
            shared
                .life
                .lock()
                .started(Err(message.clone()), Instant::now());
            return Err(BridgeError {
                kind: BridgeErrorKind::Device,
                message,
            });
        }
        shared.life.lock().started(Ok(()), Instant::now());
        log::info!(
            "audio bridge running on {} (48 kHz mono S16LE)",
            self.device
        );
        Ok(self.status())
    }

    fn spawn(&self, play: Pcm, capture: Pcm, shared: &Arc<Shared>) -> std::io::Result<()> {
        let Some(stream) = self.radio.rx_audio(AudioCodec::Pcm16, 1) else {
            return Err(std::io::Error::other("no mono PCM stream"));
        };
        let (tx, rx) = crossbeam_channel::bounded(rx::BACKLOG);
        let sub = stream.subscribe_with(Arc::new(rx::Feed {
            tx,
            shared: shared.clone(),
        }));
        let mut threads = self.threads.lock();
        let s = shared.clone();
        threads.push(
            std::thread::Builder::new()
                .name("bridge-rx".into())
                .spawn(move || {
                    // the subscription (and so the radio's audio) lives as long as the thread
                    let _sub = sub;
                    rx::run(play, rx, s);
                })?,
        );
        let (radio, started, s) = (self.radio.clone(), self.tx_started.clone(), shared.clone());
        threads.push(
            std::thread::Builder::new()
                .name("bridge-tx".into())
                .spawn(move || tx::run(capture, radio, started, s))?,
        );
        Ok(())
    }

    /// Stops the bridge (nothing to do if it is stopped; clears a failure).
    pub fn stop(&self) -> Result<BridgeStatus, BridgeError> {
        let shared = &self.shared;
        let decision = shared.life.lock().stop();
        match decision {
            Decision::Proceed => {}
            Decision::AlreadyDone => {
                self.join_threads();
                return Ok(self.status());
            }
            Decision::Conflict(s) => return Err(conflict(s)),
        }
        shared.stop.store(true, Ordering::Relaxed);
        self.join_threads();
        shared.life.lock().stopped();
        let p = self.rx_latency();
        log::info!(
            "audio bridge stopped; RX latency added p50 {} µs, p99 {} µs over {} frames",
            p.p50,
            p.p99,
            p.count
        );
        Ok(self.status())
    }
}

fn conflict(state: BridgeState) -> BridgeError {
    BridgeError {
        kind: BridgeErrorKind::Conflict,
        message: format!(
            "the bridge is {}; try again when it is done",
            state.as_str()
        ),
    }
}

impl Drop for AudioBridge {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}
