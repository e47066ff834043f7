//! Validated configuration, built once from the command line and the environment.
//! Every error names the flag and says what is wrong.

use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::bridge::BridgeConfig;
use crate::cli::{Cli, SimArgs};
use crate::profile::{Profile, ProfileRegistry};
use crate::rigctld::{AllowList, RigctldConfig};
use crate::sim::faults::FaultConfig;
use crate::station::StationConfig;
pub use crate::util::Secret;
use crate::web::origin::OriginPolicy;
use crate::web::tls::TlsSource;
use crate::wire::lan::credentials;

/// A configuration error: the flag and the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

fn err(msg: impl Into<String>) -> ConfigError {
    ConfigError(msg.into())
}

/// Where the radio is.
#[derive(Debug, Clone)]
pub enum RadioTarget {
    /// A real radio on the network.
    Lan {
        /// Control port address.
        addr: SocketAddr,
        /// User name.
        user: String,
        /// Password.
        password: Secret,
    },
    /// The built-in simulated radio.
    Simulated {
        /// Model to simulate.
        profile: Arc<Profile>,
    },
}

/// Everything `rigweb` (serve) needs.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The radio.
    pub radio: RadioTarget,
    /// Profile to start with (`None`: identify the radio).
    pub profile: Option<Arc<Profile>>,
    /// All profiles.
    pub registry: ProfileRegistry,
    /// Web listen address.
    pub listen: SocketAddr,
    /// HTTPS on the listen address.
    pub tls: Option<TlsSource>,
    /// The plain-HTTP onboarding port (with TLS).
    pub onboarding_listen: Option<SocketAddr>,
    /// Origins whose pages may open WebSockets besides the server's own.
    pub allowed_origins: OriginPolicy,
    /// Most connections in total.
    pub max_connections: usize,
    /// Most connections per client address.
    pub max_connections_per_client: usize,
    /// Bearer token, when auth is on.
    pub auth_token: Option<Secret>,
    /// Transmit timeout.
    pub tx_timeout: Duration,
    /// Most clients per WebSocket channel.
    pub max_clients: usize,
    /// Log level.
    pub log_level: log::LevelFilter,
    /// The rigctld server (`--rigctld`), off when `None`.
    pub rigctld: Option<RigctldConfig>,
    /// The audio bridge (`--bridge-device`, `--bridge-start`).
    pub bridge: BridgeConfig,
    /// DX spots, band plans, the EiBi schedule.
    pub station: StationConfig,
}

/// Everything `rigweb sim` needs.
#[derive(Debug, Clone)]
pub struct SimCliConfig {
    /// Control port address.
    pub listen: SocketAddr,
    /// Model.
    pub profile: Arc<Profile>,
    /// Credentials.
    pub user: String,
    /// Password.
    pub password: Secret,
    /// Seed.
    pub seed: u64,
    /// Sweeps per second.
    pub sweep_rate: f64,
    /// RX audio rate forced whatever the client asks for.
    pub audio_rate: Option<u32>,
    /// RX audio sent this many times faster than real time (1: real time).
    pub audio_speed: u32,
    /// Faults.
    pub faults: FaultConfig,
    /// Session hold after an unclean departure.
    pub cooldown: Duration,
    /// Start in standby.
    pub standby: bool,
    /// Boot time after a power-on from standby.
    pub boot: Duration,
    /// Log level.
    pub log_level: log::LevelFilter,
}

/// Parses a log level name.
pub fn log_level(s: &str) -> Result<log::LevelFilter, ConfigError> {
    s.parse().map_err(|_| {
        err(format!(
            "--log-level {s:?}: use error, warn, info, debug or trace"
        ))
    })
}

fn registry(dir: Option<&Path>) -> Result<ProfileRegistry, ConfigError> {
    match dir {
        Some(d) => {
            ProfileRegistry::with_override_dir(d).map_err(|e| err(format!("--profile-dir: {e}")))
        }
        None => Ok(ProfileRegistry::embedded()),
    }
}

fn profile(reg: &ProfileRegistry, id: &str, flag: &str) -> Result<Arc<Profile>, ConfigError> {
    reg.get(id).ok_or_else(|| {
        err(format!(
            "{flag} {id:?}: unknown profile; known: {}",
            reg.ids().join(", ")
        ))
    })
}

fn read_secret(path: &Path, flag: &str) -> Result<String, ConfigError> {
    let s = std::fs::read_to_string(path)
        .map_err(|e| err(format!("{flag} {}: {e}", path.display())))?;
    let s = s.trim().to_string();
    if s.is_empty() {
        return Err(err(format!("{flag} {}: the file is empty", path.display())));
    }
    Ok(s)
}

fn socket_addr(s: &str, flag: &str) -> Result<SocketAddr, ConfigError> {
    s.to_socket_addrs()
        .map_err(|e| err(format!("{flag} {s:?}: {e}")))?
        .next()
        .ok_or_else(|| err(format!("{flag} {s:?}: no address")))
}

fn probability(v: f64, flag: &str) -> Result<f64, ConfigError> {
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(err(format!("{flag} {v}: must be between 0 and 1")))
    }
}

/// The default `--data-dir`: systemd's `$STATE_DIRECTORY`, else
/// `$XDG_DATA_HOME/rigweb`, else `~/.local/share/rigweb`.
fn default_data_dir() -> Result<PathBuf, ConfigError> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = env("STATE_DIRECTORY") {
        return Ok(d);
    }
    if let Some(d) = env("XDG_DATA_HOME") {
        return Ok(d.join("rigweb"));
    }
    env("HOME")
        .map(|h| h.join(".local/share/rigweb"))
        .ok_or_else(|| err("--data-dir is required (no $HOME to put it under)"))
}

impl ServeConfig {
    /// A server of the built-in simulated `model` (an embedded profile; panics on another
    /// name) on 127.0.0.1 with a port the system chooses, the flags' other defaults and
    /// warnings-only logging: what tests and benchmarks start, changing a field or two.
    pub fn loopback_simulator(model: &str) -> ServeConfig {
        let registry = ProfileRegistry::embedded();
        ServeConfig {
            radio: RadioTarget::Simulated {
                profile: registry
                    .get(model)
                    .unwrap_or_else(|| panic!("{model} is not an embedded profile")),
            },
            profile: None,
            registry,
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            tls: None,
            onboarding_listen: None,
            allowed_origins: Default::default(),
            max_connections: 1024,
            max_connections_per_client: 256,
            auth_token: None,
            tx_timeout: Duration::from_secs(180),
            max_clients: 64,
            log_level: log::LevelFilter::Warn,
            rigctld: None,
            bridge: Default::default(),
            station: Default::default(),
        }
    }

    /// Validates the serve flags; `password_env` is `RIGWEB_RADIO_PASSWORD`.
    pub fn from_cli(cli: &Cli, password_env: Option<String>) -> Result<ServeConfig, ConfigError> {
        let registry = registry(cli.profile_dir.as_deref())?;
        let profile = cli
            .profile
            .as_deref()
            .map(|p| profile(&registry, p, "--profile"))
            .transpose()?;
        let radio = match &cli.radio {
            Some(host) => {
                let addr = socket_addr(&format!("{host}:{}", cli.radio_port), "--radio")?;
                let user = cli
                    .radio_user
                    .clone()
                    .ok_or_else(|| err("--radio-user is required with --radio"))?;
                let password = match (&cli.radio_password_file, password_env) {
                    (Some(f), _) => read_secret(f, "--radio-password-file")?,
                    (None, Some(p)) if !p.is_empty() => p,
                    _ => {
                        return Err(err(
                            "a radio password is required with --radio: use --radio-password-file or RIGWEB_RADIO_PASSWORD",
                        ));
                    }
                };
                if !credentials::is_encodable(&user) {
                    return Err(err(
                        "--radio-user: 1 to 16 printable ASCII characters (what the radio protocol carries)",
                    ));
                }
                if !credentials::is_encodable(&password) {
                    return Err(err(
                        "the radio password must be 1 to 16 printable ASCII characters (what the radio protocol carries)",
                    ));
                }
                RadioTarget::Lan {
                    addr,
                    user,
                    password: Secret(password),
                }
            }
            None => RadioTarget::Simulated {
                profile: profile
                    .clone()
                    .map(Ok)
                    .unwrap_or_else(|| self::profile(&registry, &cli.sim_model, "--sim-model"))?,
            },
        };
        let auth_token = match (&cli.auth_token, &cli.auth_token_file) {
            (Some(_), Some(_)) => {
                return Err(err("give --auth-token or --auth-token-file, not both"));
            }
            (Some(t), None) if t.trim().is_empty() => return Err(err("--auth-token is empty")),
            (Some(t), None) => Some(Secret(t.trim().to_string())),
            (None, Some(f)) => Some(Secret(read_secret(f, "--auth-token-file")?)),
            (None, None) => None,
        };
        if cli.tx_timeout == 0 || cli.tx_timeout > 3600 {
            return Err(err(format!(
                "--tx-timeout {}: use 1 to 3600 seconds",
                cli.tx_timeout
            )));
        }
        if cli.max_clients == 0 || cli.max_clients > 4096 {
            return Err(err(format!(
                "--max-clients {}: use 1 to 4096",
                cli.max_clients
            )));
        }
        let tls = match (&cli.tls_cert, &cli.tls_key, cli.tls_auto) {
            (Some(cert), Some(key), false) => Some(TlsSource::Files {
                cert: cert.clone(),
                key: key.clone(),
            }),
            (None, None, true) => Some(TlsSource::Auto {
                data_dir: match &cli.data_dir {
                    Some(d) => d.clone(),
                    None => default_data_dir()?,
                },
            }),
            (None, None, false) => None,
            (_, _, true) => return Err(err("give --tls-auto or --tls-cert/--tls-key, not both")),
            _ => return Err(err("--tls-cert and --tls-key go together")),
        };
        let listen = match (&cli.listen, &tls) {
            (Some(l), _) => socket_addr(l, "--listen")?,
            (None, None) => socket_addr("0.0.0.0:8080", "--listen")?,
            (None, Some(_)) => socket_addr("0.0.0.0:8443", "--listen")?,
        };
        let onboarding_listen = match (cli.onboarding_listen.as_deref(), &tls) {
            (Some("off"), _) | (None, None) => None,
            (Some(_), None) => {
                return Err(err(
                    "--onboarding-listen needs TLS (--tls-auto or --tls-cert)",
                ));
            }
            (Some(a), Some(_)) => Some(socket_addr(a, "--onboarding-listen")?),
            (None, Some(_)) => Some(socket_addr("0.0.0.0:8080", "--onboarding-listen")?),
        };
        if onboarding_listen == Some(listen) {
            return Err(err("--onboarding-listen must differ from --listen"));
        }
        let allowed_origins = OriginPolicy::new(&cli.allowed_origin)
            .map_err(|e| err(format!("--allowed-origin {e}")))?
            .with_hosts(&cli.allowed_host)
            .map_err(|e| err(format!("--allowed-host {e}")))?;
        if cli.max_connections == 0 || cli.max_connections_per_client == 0 {
            return Err(err(
                "--max-connections and --max-connections-per-client must be at least 1",
            ));
        }
        let rigctld = rigctld(cli)?;
        Ok(ServeConfig {
            radio,
            profile,
            registry,
            listen,
            tls,
            onboarding_listen,
            allowed_origins,
            max_connections: cli.max_connections,
            max_connections_per_client: cli.max_connections_per_client,
            auth_token,
            tx_timeout: Duration::from_secs(cli.tx_timeout),
            max_clients: cli.max_clients,
            log_level: log_level(&cli.log_level)?,
            rigctld,
            bridge: BridgeConfig {
                device: bridge_device(&cli.bridge_device)?,
                start: cli.bridge_start,
            },
            station: station(cli)?,
        })
    }
}

/// `--rigctld` and `--rigctld-allow`: an address that other machines can reach needs
/// the networks that may use it named (the protocol has no authentication).
fn rigctld(cli: &Cli) -> Result<Option<RigctldConfig>, ConfigError> {
    let allow =
        AllowList::parse(&cli.rigctld_allow).map_err(|e| err(format!("--rigctld-allow {e}")))?;
    let Some(addr) = &cli.rigctld else {
        if !allow.is_empty() {
            return Err(err("--rigctld-allow needs --rigctld"));
        }
        return Ok(None);
    };
    let listen = socket_addr(addr, "--rigctld")?;
    if !listen.ip().is_loopback() && allow.is_empty() {
        return Err(err(format!(
            "--rigctld {addr}: other machines can reach this address, and the rigctld protocol \
             has no authentication; name the networks that may use it with --rigctld-allow \
             (e.g. --rigctld-allow 192.168.1.0/24), or listen on 127.0.0.1"
        )));
    }
    Ok(Some(RigctldConfig { listen, allow }))
}

/// `--bridge-device`: an ALSA PCM name.
fn bridge_device(name: &str) -> Result<String, ConfigError> {
    let name = name.trim();
    if name.is_empty() || name.len() > 256 || name.chars().any(char::is_control) {
        return Err(err(format!(
            "--bridge-device {name:?}: an ALSA device name like hw:Loopback,0"
        )));
    }
    Ok(name.to_string())
}

/// The station-data flags (`--dx-cluster`, `--rbn`, `--callsign`, `--band-plan-region`,
/// `--eibi-url`; `--data-dir` keeps the EiBi cache and the chosen region).
fn station(cli: &Cli) -> Result<StationConfig, ConfigError> {
    use crate::station::dx::buffer::SpotSource;
    use crate::station::dx::session::SessionConfig;
    use crate::station::dx::{DxConfig, FeedConfig};
    use crate::station::eibi::{EibiConfig, season};
    use crate::station::{BandPlanConfig, band_plan::BandPlans};
    let data_dir = cli.data_dir.clone().or_else(|| default_data_dir().ok());
    let mut feeds = Vec::new();
    for (list, flag, source) in [
        (&cli.dx_cluster, "--dx-cluster", SpotSource::Cluster),
        (&cli.rbn, "--rbn", SpotSource::Rbn),
    ] {
        for a in list {
            let port = a.rsplit_once(':').filter(|(h, _)| !h.is_empty());
            if port
                .and_then(|(_, p)| p.parse::<u16>().ok())
                .is_none_or(|p| p == 0)
            {
                return Err(err(format!("{flag} {a:?}: use HOST:PORT")));
            }
            feeds.push(FeedConfig {
                address: a.clone(),
                source,
            });
        }
    }
    let password = cli
        .dx_cluster_password_file
        .as_deref()
        .map(|f| read_secret(f, "--dx-cluster-password-file"))
        .transpose()?;
    let dx = match (feeds.is_empty(), &cli.callsign) {
        (true, _) if password.is_some() => {
            return Err(err("--dx-cluster-password-file needs --dx-cluster"));
        }
        (true, _) => None,
        (false, None) => return Err(err("--dx-cluster and --rbn need --callsign")),
        (false, Some(call)) => {
            let call = call.trim().to_ascii_uppercase();
            let ok = (3..=12).contains(&call.len())
                && call
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'/' || b == b'-');
            if !ok {
                return Err(err(format!(
                    "--callsign {call:?}: 3 to 12 letters, digits, / or -"
                )));
            }
            Some(DxConfig {
                feeds,
                session: SessionConfig::new(&call, password.map(Secret)),
                connect_timeout: Duration::from_secs(10),
            })
        }
    };
    if let Some(r) = &cli.band_plan_region {
        BandPlans::new(Some(r), None).map_err(err)?;
    }
    let eibi = match cli.eibi_url.as_deref() {
        Some("off") => None,
        Some(u) if u.starts_with("https://") => {
            return Err(err(format!(
                "--eibi-url {u:?}: https is not supported (the EiBi site serves plain http)"
            )));
        }
        Some(u) if !u.starts_with("http://") || u.len() <= "http://".len() => {
            return Err(err(format!(
                "--eibi-url {u:?}: use an http:// URL, or \"off\""
            )));
        }
        url => Some(EibiConfig::new(
            url.unwrap_or(season::DEFAULT_URL),
            data_dir.clone(),
        )),
    };
    Ok(StationConfig {
        dx,
        band_plan: Some(BandPlanConfig {
            region: cli.band_plan_region.clone(),
            data_dir,
        }),
        eibi,
    })
}

impl SimCliConfig {
    /// Validates the `rigweb sim` flags.
    pub fn from_args(a: &SimArgs) -> Result<SimCliConfig, ConfigError> {
        let registry = registry(a.profile_dir.as_deref())?;
        if !(0.1..=100.0).contains(&a.sweep_rate) {
            return Err(err(format!(
                "--sweep-rate {}: use 0.1 to 100 sweeps per second",
                a.sweep_rate
            )));
        }
        if a.boot_ms > 600_000 {
            return Err(err(format!(
                "--boot-ms {}: use 0 to 600000 milliseconds",
                a.boot_ms
            )));
        }
        if let Some(r) = a.audio_rate
            && ![8_000, 12_000, 16_000, 24_000, 48_000].contains(&r)
        {
            return Err(err(format!(
                "--audio-rate {r}: use 8000, 12000, 16000, 24000 or 48000"
            )));
        }
        if !(1..=10).contains(&a.audio_speed) {
            return Err(err(format!(
                "--audio-speed {}: use 1 (real time) to 10",
                a.audio_speed
            )));
        }
        if !credentials::is_encodable(&a.user) || !credentials::is_encodable(&a.password) {
            return Err(err(
                "--user and --password: 1 to 16 printable ASCII characters (what the radio protocol carries)",
            ));
        }
        Ok(SimCliConfig {
            listen: socket_addr(&a.listen, "--listen")?,
            profile: profile(&registry, &a.model, "--model")?,
            user: a.user.clone(),
            password: Secret(a.password.clone()),
            seed: a.seed,
            sweep_rate: a.sweep_rate,
            audio_rate: a.audio_rate,
            audio_speed: a.audio_speed,
            faults: FaultConfig {
                loss: probability(a.loss, "--loss")?,
                duplicate: probability(a.duplicate, "--duplicate")?,
                reorder: probability(a.reorder, "--reorder")?,
                delay: Duration::from_millis(a.delay_ms),
                jitter: Duration::from_millis(a.jitter_ms),
                nak: probability(a.nak, "--nak")?,
            },
            cooldown: Duration::from_secs(a.cooldown_s),
            standby: a.standby,
            boot: Duration::from_millis(a.boot_ms),
            log_level: log_level(&a.log_level)?,
        })
    }
}
