//! Wiring: configuration -> simulated radio (when no real one is given) -> radio
//! service -> meter pump -> web server; then wait for SIGINT / SIGTERM and shut down in
//! order (web clients closed, PTT released, clean radio logout, simulator stopped).

use std::error::Error;
use std::net::SocketAddr;
use std::sync::Arc;

use crate::config::{RadioTarget, ServeConfig, SimCliConfig};
use crate::lan::control::ControlConfig;
use crate::lan::link::LinkConfig;
use crate::radio::executor::ExecutorConfig;
use crate::radio::meter_pump::MeterPump;
use crate::radio::service::{Radio, RadioConfig};
use crate::sim::rig::SimRigConfig;
use crate::sim::server::{self as sim_server, SimConfig, SimHandle};
use crate::web::auth::Auth;
use crate::web::context::{AppCtx, WebConfig};
use crate::web::ptt_watch::PttWatcher;
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
}

impl Running {
    /// Where the web server listens.
    pub fn addr(&self) -> SocketAddr {
        self.web.addr()
    }

    /// Shuts everything down in order.
    pub fn shutdown(self) {
        let Running { web, app, sim } = self;
        web.shutdown();
        app.meters.stop();
        app.radio.shutdown();
        if let Some(s) = sim {
            s.shutdown();
        }
    }
}

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
    let radio = Arc::new(Radio::start(RadioConfig {
        link,
        profile,
        registry: cfg.registry.clone(),
        executor: ExecutorConfig {
            tx_timeout: cfg.tx_timeout,
            ..tuning.executor.unwrap_or_default()
        },
        queue: 256,
    })?);
    let meters = MeterPump::start(radio.clone())?;
    let web_cfg = WebConfig {
        auth: Auth::new(cfg.auth_token.as_ref().map(|t| t.expose().to_string())),
        max_clients: cfg.max_clients,
        max_connections: cfg.max_connections,
        max_connections_per_client: cfg.max_connections_per_client,
        origins: cfg.allowed_origins.clone(),
        tx_timeout: cfg.tx_timeout,
        ..tuning.web.unwrap_or_default()
    };
    let tls = cfg
        .tls
        .clone()
        .map(TlsProvider::new)
        .transpose()?
        .map(Arc::new);
    if web_cfg.auth.enabled() {
        log::info!("bearer-token authentication is on for /api/*");
    }
    let app = Arc::new(AppCtx::new(radio.clone(), meters, web_cfg));
    radio
        .store()
        .subscribe(Arc::new(PttWatcher(Arc::downgrade(&app))));
    let ports = Ports {
        listen: cfg.listen,
        tls,
        onboarding: cfg.onboarding_listen,
    };
    let web = WebServer::start(ports, app.clone())?;
    Ok(Running { web, app, sim })
}

/// `rigweb`: serves until SIGINT / SIGTERM.
pub fn serve(cfg: ServeConfig) -> Result<(), Box<dyn Error>> {
    crate::signals::block()?;
    let running = start(&cfg)?;
    let sig = crate::signals::wait()?;
    log::info!("{sig}: shutting down");
    running.shutdown();
    log::info!("stopped");
    Ok(())
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
