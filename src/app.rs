//! Wiring: configuration -> simulated radio (when no real one is given) -> radio
//! service -> meter pump -> web server, audio bridge, rigctld; then wait for SIGINT /
//! SIGTERM and shut down in order (PTT released, web and rigctld clients closed, bridge
//! stopped, clean radio logout, simulator stopped).

use std::error::Error;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::bridge::AudioBridge;
use crate::config::{RadioTarget, ServeConfig, SimCliConfig};
use crate::lan::control::ControlConfig;
use crate::lan::link::LinkConfig;
use crate::radio::executor::ExecutorConfig;
use crate::radio::meter_pump::MeterPump;
use crate::radio::service::{Radio, RadioConfig};
use crate::rigctld::RigctldServer;
use crate::rigctld::web_rules::Station;
use crate::sim::rig::SimRigConfig;
use crate::sim::server::{self as sim_server, SimConfig, SimHandle};
use crate::web::auth::Auth;
use crate::web::context::{AppCtx, WebConfig};
use crate::web::ptt_watch::{PttWatcher, unkey_for_shutdown};
use crate::web::server::{Ports, WebServer};
use crate::web::tls::TlsProvider;

/// Everything `serve` starts, for tests that run the server in-process.
pub struct Running {
    /// The web server.
    pub web: WebServer,
    /// The shared context.
    pub app: Arc<AppCtx>,
    /// The built-in simulated radio, if used.
    pub sim: Option<SimHandle>,
    /// The rigctld server (`--rigctld`).
    pub rigctld: Option<RigctldServer>,
}

impl Running {
    /// Where the web server listens.
    pub fn addr(&self) -> SocketAddr {
        self.web.addr()
    }

    /// The audio bridge.
    pub fn bridge(&self) -> Option<&Arc<AudioBridge>> {
        self.app.bridge.get()
    }

    /// Shuts everything down in order: the transmitter unkeyed (confirmed by the radio,
    /// or [`UNKEY_WAIT`] passed), then the web and rigctld clients closed and the bridge
    /// stopped, then the radio logged out.
    pub fn shutdown(self) {
        let Running {
            web,
            app,
            sim,
            rigctld,
        } = self;
        unkey_for_shutdown(&app, UNKEY_WAIT);
        web.shutdown();
        if let Some(r) = rigctld {
            r.shutdown();
        }
        if let Some(b) = app.bridge.get() {
            let _ = b.stop();
        }
        app.station.stop();
        app.meters.stop();
        app.radio.shutdown();
        if let Some(s) = sim {
            s.shutdown();
        }
    }
}

/// Longest wait at shutdown for the radio to confirm the unkey before the clients are
/// closed (the release goes on meanwhile, and until the executor stops).
pub const UNKEY_WAIT: Duration = Duration::from_secs(3);

/// Most commands one client may have waiting for the radio (more are refused with
/// `radio_busy`, for that client only): at one action per 50 ms window, 1.6 s of them.
const COMMANDS_PER_CLIENT: usize = 32;

/// Knobs that the command line does not expose, for tests and benchmarks.
#[derive(Debug, Clone, Default)]
pub struct Tuning {
    /// Web settings (auth and max clients still come from the configuration).
    pub web: Option<WebConfig>,
    /// Link settings applied over the defaults.
    pub link: Option<fn(&mut LinkConfig)>,
    /// Executor settings (the transmit timeout still comes from the configuration).
    pub executor: Option<ExecutorConfig>,
    /// Simulator settings applied over the defaults.
    pub sim: Option<fn(&mut SimConfig)>,
}

/// Starts the whole server (without waiting for a signal).
pub fn start(cfg: &ServeConfig) -> Result<Running, Box<dyn Error>> {
    start_with(cfg, Tuning::default())
}

/// [`start`] with extra knobs.
pub fn start_with(cfg: &ServeConfig, tuning: Tuning) -> Result<Running, Box<dyn Error>> {
    crate::signals::raise_fd_limit();
    // first: its only failure (a bad band-plan region) leaves nothing else running
    let station = crate::station::Station::start(&cfg.station)?;
    let (sim, radio_addr, user, password, profile) = match &cfg.radio {
        RadioTarget::Simulated { profile } => {
            let user = "rigweb".to_string();
            let password = format!("{:08x}", std::process::id() ^ 0x5A5A_A5A5);
            let mut sc = SimConfig::new(profile.clone());
            sc.listen = SocketAddr::from(([127, 0, 0, 1], 0));
            sc.user = user.clone();
            sc.password = password.clone();
            if let Some(f) = tuning.sim {
                f(&mut sc);
            }
            let sim = sim_server::start(sc)?;
            let addr = sim.addrs().control;
            log::info!(
                "no --radio given: serving the built-in simulated {} (LAN protocol on {addr})",
                profile.model()
            );
            (Some(sim), addr, user, password, profile.clone())
        }
        RadioTarget::Lan {
            addr,
            user,
            password,
        } => {
            let profile = match &cfg.profile {
                Some(p) => p.clone(),
                None => {
                    let p = cfg
                        .registry
                        .get("ic7610")
                        .ok_or("the ic7610 profile is missing")?;
                    log::info!(
                        "no --profile: starting with {} until the radio identifies itself",
                        p.id()
                    );
                    p
                }
            };
            (
                None,
                *addr,
                user.clone(),
                password.expose().to_string(),
                profile,
            )
        }
    };
    let control = ControlConfig {
        user,
        password: crate::util::Secret(password),
        rx_codec: profile.rx_codec_byte(),
        tx_codec: profile.tx_codec_byte(),
        sample_rate: profile.audio.sample_rate,
        ..ControlConfig::default()
    };
    let mut link = LinkConfig::new(radio_addr, control);
    if let Some(f) = tuning.link {
        f(&mut link);
    }
    let rate_window = tuning
        .web
        .as_ref()
        .map_or(WebConfig::default().rate_window, |w| w.rate_window);
    let radio = Arc::new(Radio::start(RadioConfig {
        link,
        profile,
        registry: cfg.registry.clone(),
        executor: ExecutorConfig {
            tx_timeout: cfg.tx_timeout,
            ..tuning.executor.unwrap_or_default()
        },
        queue: COMMANDS_PER_CLIENT,
        rate_window,
    })?);
    let meters = MeterPump::start(&radio);
    let mut web_cfg = WebConfig {
        auth: Auth::new(cfg.auth_token.as_ref().map(|t| t.expose().to_string())),
        max_clients: cfg.max_clients,
        max_connections: cfg.max_connections,
        max_connections_per_client: cfg.max_connections_per_client,
        origins: cfg.allowed_origins.clone(),
        tx_timeout: cfg.tx_timeout,
        ..tuning.web.unwrap_or_default()
    };
    web_cfg.services.bridge = true;
    let tls = cfg
        .tls
        .clone()
        .map(TlsProvider::new)
        .transpose()?
        .map(Arc::new);
    if web_cfg.auth.enabled() {
        log::info!("bearer-token authentication is on for /api/*");
    }
    let mut ctx = AppCtx::new(radio.clone(), meters, web_cfg);
    ctx.station = station;
    let app = Arc::new(ctx);
    radio.watch(Arc::new(PttWatcher(Arc::downgrade(&app))));
    // the bridge's TX audio switches the MOD input to LAN as web TX audio does
    let weak = Arc::downgrade(&app);
    let bridge = Arc::new(AudioBridge::new(
        radio.clone(),
        cfg.bridge.device.clone(),
        Arc::new(move || {
            if let Some(app) = weak.upgrade() {
                crate::web::ptt_watch::mod_input_tx_started(&app);
            }
        }),
    ));
    let _ = app.bridge.set(bridge.clone());
    radio.store().subscribe(app.metrics.tx.clone());
    let ports = Ports {
        listen: cfg.listen,
        tls,
        onboarding: cfg.onboarding_listen,
    };
    let web = WebServer::start(ports, app.clone())?;
    let rigctld = cfg
        .rigctld
        .as_ref()
        .map(|r| RigctldServer::start(r, Station::new(app.clone())))
        .transpose()?;
    if cfg.bridge.start
        && let Err(e) = bridge.start()
    {
        log::warn!("the audio bridge did not start: {}", e.message);
    }
    Ok(Running {
        web,
        app,
        sim,
        rigctld,
    })
}

/// `rigweb`: serves until SIGINT / SIGTERM. Under systemd it says when it is ready,
/// sends the watchdog keep-alives and says when it stops (`sd_notify.rs`).
pub fn serve(cfg: ServeConfig) -> Result<(), Box<dyn Error>> {
    crate::signals::block()?;
    let running = start(&cfg)?;
    log::info!("{}", startup_line(&cfg, &running));
    crate::sd_notify::notify("READY=1\nSTATUS=serving");
    // the keep-alive stops if the radio state cannot be read (a deadlocked store)
    let app = running.app.clone();
    let watchdog = crate::sd_notify::watchdog_interval_from_env()
        .map(|every| {
            crate::sd_notify::Watchdog::start(every, move || {
                let _ = app.radio.store().revision();
            })
        })
        .transpose()?;
    let sig = crate::signals::wait()?;
    crate::sd_notify::notify("STOPPING=1");
    log::info!("{sig}: shutting down");
    drop(watchdog);
    running.shutdown();
    log::info!("stopped");
    Ok(())
}

/// The one line that says what this server is: its URL(s), the radio, the profile, TLS
/// and authentication.
pub fn startup_line(cfg: &ServeConfig, running: &Running) -> String {
    let scheme = if running.web.is_tls() {
        "https"
    } else {
        "http"
    };
    let mut urls = format!("{scheme}://{}/", running.addr());
    if let Some(o) = running.web.onboarding_addr() {
        urls.push_str(&format!(" (CA onboarding http://{o}/)"));
    }
    let radio = match &cfg.radio {
        RadioTarget::Simulated { profile } => format!("built-in simulated {}", profile.model()),
        RadioTarget::Lan { addr, user, .. } => format!("{addr} as {user:?}"),
    };
    let profile = match &cfg.profile {
        Some(p) => p.id().to_string(),
        None if matches!(cfg.radio, RadioTarget::Simulated { .. }) => "of the simulator".into(),
        None => "from the radio's reply".into(),
    };
    let tls = match &cfg.tls {
        None => "off",
        Some(crate::web::tls::TlsSource::Auto { .. }) => "on (local CA)",
        Some(crate::web::tls::TlsSource::Files { .. }) => "on (certificate files)",
    };
    let auth = if cfg.auth_token.is_some() {
        "on"
    } else {
        "off"
    };
    format!(
        "rigweb {} serving {urls}; radio: {radio}; profile: {profile}; TLS: {tls}; auth: {auth}",
        crate::web::context::VERSION
    )
}

/// `rigweb sim`: runs the simulated radio until SIGINT / SIGTERM.
pub fn sim(cfg: SimCliConfig) -> Result<(), Box<dyn Error>> {
    crate::signals::block()?;
    let mut sc = SimConfig::new(cfg.profile.clone());
    sc.listen = cfg.listen;
    sc.user = cfg.user;
    sc.password = cfg.password.expose().to_string();
    sc.seed = cfg.seed;
    sc.rig = SimRigConfig {
        seed: cfg.seed,
        sweep_rate_hz: cfg.sweep_rate,
        start_in_standby: cfg.standby,
        boot_time: cfg.boot,
        ..SimRigConfig::default()
    };
    sc.faults = cfg.faults;
    sc.audio_rate = cfg.audio_rate;
    sc.audio_speed = cfg.audio_speed;
    sc.cooldown = cfg.cooldown;
    let sim = sim_server::start(sc)?;
    let sig = crate::signals::wait()?;
    log::info!("{sig}: stopping the simulated radio");
    sim.shutdown();
    Ok(())
}
