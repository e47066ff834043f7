//! Settings, addresses and counters of the simulated radio's LAN server (shared by the
//! server thread and the protocol state machine).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use super::faults::{FaultConfig, FaultCounters};
use super::rig::SimRigConfig;
use crate::profile::Profile;

/// Settings of the simulated radio.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// Control-port address; CI-V and audio use the next two ports (all ephemeral when 0).
    pub listen: SocketAddr,
    /// The model to simulate.
    pub profile: Arc<Profile>,
    /// Radio user name.
    pub user: String,
    /// Radio password.
    pub password: String,
    /// Seed of every random choice (ids, tokens, band, faults).
    pub seed: u64,
    /// CI-V model settings (sweep rate, transceive).
    pub rig: SimRigConfig,
    /// Fault injection, applied to both directions.
    pub faults: FaultConfig,
    /// A client silent this long is dropped (the radio's stale-session timeout).
    pub stale_timeout: Duration,
    /// After a client vanished without logging out, the radio holds its session this long.
    pub cooldown: Duration,
    /// Send RX audio at this rate whatever the conninfo asked for (some IC-7610s send
    /// 16 kHz after a request for 48 kHz).
    pub audio_rate: Option<u32>,
    /// Send each RX audio block this many times: audio that many times faster than
    /// real time (a faulty sound card behind a radio server); 1: real time.
    pub audio_speed: u32,
}

impl SimConfig {
    /// Defaults for `profile` on 127.0.0.1:50001, user "rigweb" / password "rigweb".
    pub fn new(profile: Arc<Profile>) -> SimConfig {
        SimConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 50001)),
            profile,
            user: "rigweb".into(),
            password: "rigweb".into(),
            seed: 1,
            rig: SimRigConfig::default(),
            faults: FaultConfig::default(),
            stale_timeout: Duration::from_secs(15),
            cooldown: Duration::from_secs(30),
            audio_rate: None,
            audio_speed: 1,
        }
    }
}

/// Where the simulated radio listens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimAddrs {
    /// Control port.
    pub control: SocketAddr,
    /// CI-V port.
    pub civ: SocketAddr,
    /// Audio port.
    pub audio: SocketAddr,
}

/// Counters of the simulated radio, for tests and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Logins accepted.
    pub logins_ok: u64,
    /// Logins refused (bad credentials).
    pub logins_rejected: u64,
    /// Stream requests granted.
    pub streams_granted: u64,
    /// Stream requests answered "CI-V port 0" (session held, busy, or GUID mismatch).
    pub streams_held: u64,
    /// Stream requests rejected (codec).
    pub streams_rejected: u64,
    /// GUID echo mismatches.
    pub guid_mismatches: u64,
    /// Clients that logged out (token remove or DISCONNECT).
    pub clean_logouts: u64,
    /// Clients dropped after going silent.
    pub vanished: u64,
    /// Clients currently known.
    pub clients: u64,
    /// CI-V frames received from clients.
    pub civ_frames_in: u64,
    /// Of those, frequency sets (`05`, `25` with a frequency), for rate-limit tests.
    pub freq_sets_in: u64,
    /// CI-V frames sent to clients.
    pub civ_frames_out: u64,
    /// Scope sweeps sent.
    pub scope_sweeps: u64,
    /// RX audio packets sent.
    pub audio_packets_out: u64,
    /// TX audio packets received.
    pub tx_audio_packets_in: u64,
    /// Datagrams that did not parse.
    pub malformed: u64,
    /// Datagrams with wrong ids or from unauthenticated addresses.
    pub foreign: u64,
    /// Packets resent on request (all clients, all ports).
    pub resent: u64,
    /// Retransmit requests received.
    pub requests_received: u64,
    /// Transmissions released because the controller that keyed them went away.
    pub tx_released: u64,
    /// Injected faults, radio -> client.
    pub faults_out: FaultCounters,
    /// Injected faults, client -> radio.
    pub faults_in: FaultCounters,
}
