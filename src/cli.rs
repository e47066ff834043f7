//! Command-line interface (argh). `rigweb` serves; `rigweb sim` runs the simulated
//! radio alone. Parsing only: validation happens in `config.rs`.

use argh::{ArgsInfo, FromArgs};
use serde::Serialize;
use std::path::PathBuf;

/// rigweb: a small, fast web server for Icom transceivers (IC-7610, IC-705, IC-9700)
/// over their LAN protocol. Without --radio it serves a built-in simulated radio.
// Every flag is also a key of the `--config` file (`config_file.rs`): a new flag needs
// nothing but its field here (and `#[serde(skip)]` if it is no setting).
#[derive(FromArgs, ArgsInfo, Serialize, Debug)]
#[serde(rename_all = "kebab-case")]
#[argh(
    example = "Serve the built-in simulated IC-7610 on http://localhost:8080/:\n$ rigweb",
    example = "Serve a real IC-705 (password from the environment):\n$ RIGWEB_RADIO_PASSWORD=secret rigweb --radio 192.168.1.60 --radio-user op --profile ic705",
    example = "Require a token on the API:\n$ rigweb --auth-token-file /etc/rigweb/token",
    example = "HTTPS with a local CA (install it from http://<host>:8080/ once per device):\n$ rigweb --tls-auto",
    example = "WSJT-X / fldigi on this machine (Hamlib NET rigctl, sound card hw:Loopback,1):\n$ rigweb --rigctld 127.0.0.1:4532 --bridge-start",
    example = "DX spots from a cluster and the RBN on the waterfall, Region 2 band plan:\n$ rigweb --callsign N0CALL --dx-cluster dxc.nc7j.com:7373 --rbn telnet.reversebeacon.net:7000 --band-plan-region r2",
    note = "The API is described in docs/API.md. SIGINT/SIGTERM release PTT and log out of the radio cleanly."
)]
pub struct Cli {
    /// read settings from this TOML file (keys are the long flags: radio-port = 50001); flags given here override it
    #[argh(option)]
    #[serde(skip)]
    pub config: Option<PathBuf>,

    /// validate the configuration, print the effective settings (secrets masked) and exit
    #[argh(switch)]
    #[serde(skip)]
    pub check_config: bool,

    /// radio host name or IP address (default: start the built-in simulated radio)
    #[argh(option)]
    pub radio: Option<String>,

    /// radio control port (default 50001)
    #[argh(option, default = "50001")]
    pub radio_port: u16,

    /// radio network user name
    #[argh(option)]
    pub radio_user: Option<String>,

    /// file holding the radio password (or set RIGWEB_RADIO_PASSWORD)
    #[argh(option)]
    pub radio_password_file: Option<PathBuf>,

    /// rig profile id (ic7610, ic705, ic9700, ic7100; default: from the radio's reply)
    #[argh(option)]
    pub profile: Option<String>,

    /// directory of extra or overriding profile files (*.toml)
    #[argh(option)]
    pub profile_dir: Option<PathBuf>,

    /// model of the built-in simulated radio (default ic7610)
    #[argh(option, default = "String::from(\"ic7610\")")]
    pub sim_model: String,

    /// address and port to serve on (default 0.0.0.0:8080; with TLS 0.0.0.0:8443)
    #[argh(option)]
    pub listen: Option<String>,

    /// serve HTTPS with this certificate chain (PEM; with --tls-key)
    #[argh(option)]
    pub tls_cert: Option<PathBuf>,

    /// the private key of --tls-cert (PEM)
    #[argh(option)]
    pub tls_key: Option<PathBuf>,

    /// serve HTTPS with a certificate from a local CA made on first start (kept in --data-dir)
    #[argh(switch)]
    pub tls_auto: bool,

    /// where rigweb keeps its files: the --tls-auto CA, the EiBi cache, the chosen band-plan region (default $STATE_DIRECTORY, else ~/.local/share/rigweb)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,

    /// a DX-cluster node to take spots from, HOST:PORT (needs --callsign); repeatable
    #[argh(option)]
    pub dx_cluster: Vec<String>,

    /// a Reverse Beacon Network or skimmer feed, HOST:PORT (needs --callsign); repeatable
    #[argh(option)]
    pub rbn: Vec<String>,

    /// your call sign, sent at the DX cluster's login prompt
    #[argh(option)]
    pub callsign: Option<String>,

    /// file holding the password of a DX-cluster node that asks for one
    #[argh(option)]
    pub dx_cluster_password_file: Option<PathBuf>,

    /// band-plan region: r1, r2 or r3, the IARU regions (default r1, or the one last chosen in the UI)
    #[argh(option)]
    pub band_plan_region: Option<String>,

    /// URL of the EiBi broadcast schedule, {season} replaced by e.g. a25 (default the EiBi site's; "off")
    #[argh(option)]
    pub eibi_url: Option<String>,

    /// with TLS: plain-HTTP port for the CA download and redirects to HTTPS (default 0.0.0.0:8080; "off")
    #[argh(option)]
    pub onboarding_listen: Option<String>,

    /// a web origin (https://host:port) whose pages may use the API besides the server's own; repeatable
    #[argh(option)]
    pub allowed_origin: Vec<String>,

    /// a host name this server is reached by over plain HTTP besides its IP addresses, localhost and the machine's own names (a DDNS or router name); repeatable
    #[argh(option)]
    pub allowed_host: Vec<String>,

    /// most connections the server holds (default 1024)
    #[argh(option, default = "1024")]
    pub max_connections: usize,

    /// most connections from one client address (default 128)
    #[argh(option, default = "128")]
    pub max_connections_per_client: usize,

    /// require this bearer token on /api/* (prefer --auth-token-file)
    #[argh(option)]
    pub auth_token: Option<String>,

    /// file holding the bearer token required on /api/*
    #[argh(option)]
    pub auth_token_file: Option<PathBuf>,

    /// longest transmission in seconds before PTT is released (default 180)
    #[argh(option, default = "180")]
    pub tx_timeout: u64,

    /// most clients per WebSocket channel (default 64)
    #[argh(option, default = "64")]
    pub max_clients: usize,

    /// log level: error, warn, info, debug, trace (default info)
    #[argh(option, default = "String::from(\"info\")")]
    pub log_level: String,

    /// serve Hamlib's NET rigctl protocol (rigctld, model 2) on this address, e.g. 127.0.0.1:4532 (default: off; it has no authentication)
    #[argh(option)]
    pub rigctld: Option<String>,

    /// a network (CIDR, e.g. 192.168.1.0/24) whose machines may use --rigctld besides this one; repeatable
    #[argh(option)]
    pub rigctld_allow: Vec<String>,

    /// ALSA device of the audio bridge (default hw:Loopback,0, the snd-aloop loopback)
    #[argh(option, default = "String::from(\"hw:Loopback,0\")")]
    pub bridge_device: String,

    /// start the audio bridge at launch (else POST /api/v1/bridge starts it)
    #[argh(switch)]
    pub bridge_start: bool,

    /// subcommand
    #[argh(subcommand)]
    #[serde(skip)]
    pub command: Option<SubCommand>,
}

/// Subcommands.
#[derive(FromArgs, ArgsInfo, Debug)]
#[argh(subcommand)]
pub enum SubCommand {
    /// Run the simulated radio alone.
    Sim(SimArgs),
}

/// run the simulated radio alone (it speaks the Icom LAN protocol on UDP)
#[derive(FromArgs, ArgsInfo, Debug)]
#[argh(
    subcommand,
    name = "sim",
    example = "A simulated IC-9700 with 5 % packet loss:\n$ rigweb sim --model ic9700 --loss 0.05",
    example = "Then serve it:\n$ RIGWEB_RADIO_PASSWORD=rigweb rigweb --radio 127.0.0.1 --radio-user rigweb"
)]
pub struct SimArgs {
    /// control port address; CI-V and audio use the next two ports (default 127.0.0.1:50001)
    #[argh(option, default = "String::from(\"127.0.0.1:50001\")")]
    pub listen: String,

    /// model to simulate: ic7610, ic705, ic9700, ic7100 (default ic7610)
    #[argh(option, default = "String::from(\"ic7610\")")]
    pub model: String,

    /// user name clients must log in with (default rigweb)
    #[argh(option, default = "String::from(\"rigweb\")")]
    pub user: String,

    /// password clients must log in with (default rigweb)
    #[argh(option, default = "String::from(\"rigweb\")")]
    pub password: String,

    /// seed of every random choice (default 1): same seed, same run
    #[argh(option, default = "1")]
    pub seed: u64,

    /// scope sweeps per second per receiver (default 30)
    #[argh(option, default = "30.0")]
    pub sweep_rate: f64,

    /// send RX audio at this rate in Hz (8000, 12000, 16000, 24000 or 48000) whatever
    /// the client asked for, as some real radios do (default: the rate asked for)
    #[argh(option)]
    pub audio_rate: Option<u32>,

    /// send each 20 ms block of RX audio N times: N times faster than real time, as a
    /// faulty sound card behind a radio server may (default 1)
    #[argh(option, default = "1")]
    pub audio_speed: u32,

    /// datagram loss probability 0..1, both directions (default 0)
    #[argh(option, default = "0.0")]
    pub loss: f64,

    /// datagram duplication probability 0..1 (default 0)
    #[argh(option, default = "0.0")]
    pub duplicate: f64,

    /// datagram reordering probability 0..1 (default 0)
    #[argh(option, default = "0.0")]
    pub reorder: f64,

    /// one-way delay in ms (default 0)
    #[argh(option, default = "0")]
    pub delay_ms: u64,

    /// random extra delay in ms, uniform 0..N (default 0)
    #[argh(option, default = "0")]
    pub jitter_ms: u64,

    /// probability of answering a CI-V request with NAK (default 0)
    #[argh(option, default = "0.0")]
    pub nak: f64,

    /// seconds the radio holds a session after a client vanished without logging out (default 30)
    #[argh(option, default = "30")]
    pub cooldown_s: u64,

    /// start in standby: logins and streams work, CI-V stays silent until `18 01`
    #[argh(switch)]
    pub standby: bool,

    /// milliseconds the radio boots after `18 01` in standby, answering FA meanwhile (default 0: on at once)
    #[argh(option, default = "0")]
    pub boot_ms: u64,

    /// profile directory (as for the server)
    #[argh(option)]
    pub profile_dir: Option<PathBuf>,

    /// log level (default info)
    #[argh(option, default = "String::from(\"info\")")]
    pub log_level: String,
}
