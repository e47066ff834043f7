//! What every request handler and WebSocket client shares.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::auth::Auth;
use super::mod_input::ModInputSwitch;
use super::origin::OriginPolicy;
use super::ptt::PttArbiter;
use super::session::SessionRegistry;
use super::stream_stats::StreamStats;
use super::ws::conn::WsLimits;
use super::ws::tx_gate::TxCredits;
use crate::bridge::AudioBridge;
use crate::radio::meter_pump::MeterPump;
use crate::radio::service::Radio;
use crate::station::Station;

pub use super::identity::{PROTO, SERVER_NAME, VERSION};

/// Web server settings.
#[derive(Debug, Clone)]
pub struct WebConfig {
    /// Bearer token (none: auth off).
    pub auth: Auth,
    /// Most clients per WebSocket channel.
    pub max_clients: usize,
    /// WebSocket limits.
    pub ws: WsLimits,
    /// Largest request body.
    pub max_body: usize,
    /// Worker threads for REST.
    pub workers: usize,
    /// The rate-limit window of every client: at most one command of a name and target
    /// per window reaches the radio (the radio service applies it, `radio/dispatch`).
    pub rate_window: Duration,
    /// Idle time of a kept-alive HTTP connection, and the time a request body has to
    /// arrive.
    pub http_timeout: Duration,
    /// First `sequence` of every client's stream frames (tests start near the wrap).
    pub first_sequence: u16,
    /// Time a request head has to arrive (408 after).
    pub head_timeout: Duration,
    /// Largest request head (431 above).
    pub max_head: usize,
    /// Most connections the server holds.
    pub max_connections: usize,
    /// Most connections from one client address.
    pub max_connections_per_client: usize,
    /// Which pages may open WebSockets besides the server's own.
    pub origins: OriginPolicy,
    /// The transmit timeout (`--tx-timeout`), told to clients in `GET /api/v1/info`.
    pub tx_timeout: Duration,
    /// The optional services this server runs.
    pub services: Services,
}

/// Optional services that are not station data (`services` in `GET /api/v1/info`; the
/// station data services are those `AppCtx::station` runs). Off by default (the app
/// turns on the audio bridge); a route of a service that is off answers its error.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Services {
    /// The audio bridge (`/api/v1/bridge`).
    pub bridge: bool,
}

impl Default for WebConfig {
    fn default() -> Self {
        WebConfig {
            auth: Auth::default(),
            max_clients: 64,
            ws: WsLimits::default(),
            max_body: 64 * 1024,
            workers: 4,
            rate_window: Duration::from_millis(50),
            http_timeout: Duration::from_secs(30),
            first_sequence: 0,
            head_timeout: Duration::from_secs(10),
            max_head: 16 * 1024,
            max_connections: 1024,
            max_connections_per_client: 128,
            origins: OriginPolicy::default(),
            tx_timeout: Duration::from_secs(180),
            services: Services::default(),
        }
    }
}

/// Shared state of the web layer.
pub struct AppCtx {
    /// The radio.
    pub radio: Arc<Radio>,
    /// The meter pump.
    pub meters: Arc<MeterPump>,
    /// Settings.
    pub cfg: WebConfig,
    /// PTT ownership.
    pub ptt: PttArbiter,
    /// Process start.
    pub started: Instant,
    /// Connected WebSocket clients.
    pub ws: super::ws::registry::WsRegistry,
    /// `hello.session` secrets of the control clients.
    pub sessions: SessionRegistry,
    /// MOD input switched for web TX audio.
    pub mod_input: Mutex<ModInputSwitch>,
    /// Delivery latency of stream frames.
    pub stream_stats: Arc<StreamStats>,
    /// The audio bridge (`/api/v1/bridge`), set once by the app.
    pub bridge: OnceLock<Arc<AudioBridge>>,
    /// DX spots, band plans, the EiBi schedule (those that run).
    pub station: Station,
    /// Figures kept for `GET /metrics`.
    pub metrics: Arc<crate::metrics::Metrics>,
    /// The real-time TX audio budget of each PTT owner, shared by its audio sockets.
    pub tx_credits: TxCredits,
    next_id: AtomicU64,
}

impl AppCtx {
    /// A context for `radio`.
    pub fn new(radio: Arc<Radio>, meters: Arc<MeterPump>, cfg: WebConfig) -> AppCtx {
        AppCtx {
            radio,
            meters,
            cfg,
            ptt: PttArbiter::default(),
            started: Instant::now(),
            ws: super::ws::registry::WsRegistry::default(),
            sessions: SessionRegistry::default(),
            mod_input: Mutex::new(ModInputSwitch::default()),
            stream_stats: Arc::default(),
            bridge: OnceLock::new(),
            station: Station::default(),
            metrics: Arc::default(),
            tx_credits: TxCredits::default(),
            next_id: AtomicU64::new(1),
        }
    }

    /// A fresh client id.
    pub fn next_client_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }
}
