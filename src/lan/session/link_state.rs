//! The vocabulary of the radio link: settings, states, events, status, where the link
//! delivers, and the ports' reports to the supervisor.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::audio_client::AudioBlock;
use super::civ_client::CivClientConfig;
use super::control::{ControlConfig, ControlEvent};
use super::recovery::Recovery;
use crate::wire::civ::Frame;

/// What the port threads tell the supervisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::lan) enum PortReport {
    CivOpened,
    CivRecovering,
    CivRecovered,
    CivSilent,
    CivLost,
    AudioReady,
    AudioLost,
    Malformed(u64),
}

/// Settings of the link.
#[derive(Debug, Clone)]
pub struct LinkConfig {
    /// The radio's control port.
    pub radio: SocketAddr,
    /// Control session settings (credentials, codecs, timeouts).
    pub control: ControlConfig,
    /// CI-V session settings.
    pub civ: CivClientConfig,
    /// Nothing received on control and CI-V for this long: the link is lost.
    pub link_timeout: Duration,
    /// First reconnect delay; doubles per failure up to `backoff_max`.
    pub backoff_min: Duration,
    /// Longest reconnect delay.
    pub backoff_max: Duration,
    /// Pause before asking for the streams again after the radio closed them.
    pub streams_retry: Duration,
}

impl LinkConfig {
    /// Defaults for a radio at `radio`.
    pub fn new(radio: SocketAddr, control: ControlConfig) -> LinkConfig {
        LinkConfig {
            radio,
            control,
            civ: CivClientConfig::default(),
            link_timeout: Duration::from_secs(5),
            backoff_min: Duration::from_secs(1),
            backoff_max: Duration::from_secs(30),
            streams_retry: Duration::from_secs(1),
        }
    }
}

/// Where the link stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkState {
    /// Not connected and not trying (never started, or disconnected by request).
    Idle,
    /// Connecting (discovery, login, stream request).
    Connecting,
    /// Logged in, streams granted, CI-V not open yet.
    Connected,
    /// CI-V is open: commands can flow.
    Ready,
    /// Lost or failed; the next attempt starts after a pause.
    Reconnecting {
        /// Consecutive failed attempts.
        attempt: u32,
        /// Pause before the next attempt.
        retry_in: Duration,
    },
    /// Given up: a failure retrying cannot fix (wrong credentials).
    Failed,
}

impl LinkState {
    /// A short name for the web interface (`radioDetail.status`).
    pub fn as_str(&self) -> &'static str {
        match self {
            LinkState::Idle => "disconnected",
            LinkState::Connecting => "connecting",
            LinkState::Connected => "connecting",
            LinkState::Ready => "connected",
            LinkState::Reconnecting { .. } => "reconnecting",
            LinkState::Failed => "failed",
        }
    }
}

/// What the link reports to the radio layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkEvent {
    /// The state changed.
    State(LinkState),
    /// The radio identified itself.
    RadioInfo {
        /// Name, e.g. "IC-7610".
        name: String,
        /// CI-V address, when known.
        civ_addr: Option<u8>,
    },
    /// The radio went silent on CI-V after it had sent data (no data for 2 s, nor after
    /// the stream was re-opened): switched off into standby — a normal state, when the
    /// radio is known to be off — or not answering. The link stays up either way.
    CivRecovering,
    /// CI-V data flows again (also: data after a silent start).
    CivRecovered,
    /// The CI-V stream is up but the radio has sent nothing on it: it is in standby.
    Standby,
    /// The audio stream is up.
    AudioReady,
    /// A connection attempt failed; `message` says why in words a user can act on.
    Failed {
        /// What went wrong.
        message: String,
        /// No retry will happen.
        permanent: bool,
    },
}

/// A snapshot of the link for status displays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkStatus {
    /// Current state.
    pub state: LinkState,
    /// Radio name, once known.
    pub radio_name: String,
    /// RX codec granted.
    pub rx_codec: u8,
    /// The last failure, if any.
    pub last_error: Option<String>,
    /// Successful connections so far.
    pub connects: u64,
    /// Datagrams dropped as malformed or foreign, all ports.
    pub malformed: u64,
    /// Packet recovery per port, all sessions (indexed by
    /// [`LanPort::index`](super::recovery::LanPort::index)).
    pub recovery: [Recovery; 3],
}

/// Takes a stream the radio sends, on the port thread that received it (no hand-over
/// to another thread, no wake-up per item). It must never block; what it does costs
/// the port thread its time (bounded: the web streams encode and write there).
pub trait Sink<T>: Send + Sync {
    /// One item.
    fn deliver(&self, item: T);
}

/// The one owner of CI-V traffic (the radio's command executor), run on the CI-V port
/// thread beside the session: the frames the radio sends (scope sweeps excluded) and
/// the link's events reach it there without a hand-over to another thread, and the
/// bytes it sends go straight into the session. Its input from other threads (commands,
/// ...) rings the CI-V thread's waker, the one the link was started with, which the
/// thread polls beside its socket. None of its calls may block.
pub trait CivEndpoint: Send {
    /// A CI-V frame from the radio (not a scope sweep).
    fn frame(&mut self, frame: Frame, now: Instant);
    /// An event of the link.
    fn link(&mut self, event: LinkEvent, now: Instant);
    /// Does what is due at `now` (input from other threads, timers), putting the CI-V
    /// bytes (whole frames) it sends in `send`, in order. Called on a turn of the thread
    /// after the frames and events that arrived, when it got any, when the thread's
    /// waker was rung, or when its [`CivEndpoint::poll_timeout`] has come.
    fn turn(&mut self, now: Instant, send: &mut Vec<Vec<u8>>);
    /// When [`CivEndpoint::turn`] next has work without input (`None`: only input);
    /// asked after each turn, so it may change only with a turn, its input, or a ring
    /// of the waker.
    fn poll_timeout(&self, now: Instant) -> Option<Instant>;
}

/// Where the link delivers what the radio sends.
#[derive(Clone)]
pub struct LinkSinks {
    /// Scope sweep frames (`27 00`), with when their datagram arrived at the socket.
    pub scope: Arc<dyn Sink<(Frame, Instant)>>,
    /// RX audio, one radio block (20 ms, two or three datagrams) at a time.
    pub audio: Arc<dyn Sink<Vec<AudioBlock>>>,
}

/// Events of the control session that the link forwards as they are.
pub(in crate::lan) fn forward(e: &ControlEvent) -> Option<LinkEvent> {
    match e {
        ControlEvent::RadioInfo { name, civ_addr } => Some(LinkEvent::RadioInfo {
            name: name.clone(),
            civ_addr: *civ_addr,
        }),
        _ => None,
    }
}
