//! Helpers shared by the integration tests: a simulated radio and a client on
//! 127.0.0.1, both with short timers so that the tests stay quick.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rigweb::lan::control::ControlConfig;
use rigweb::lan::link::LinkConfig;
use rigweb::profile::{Profile, ProfileRegistry};
use rigweb::radio::executor::ExecutorConfig;
use rigweb::radio::service::{Radio, RadioConfig};
use rigweb::sim::faults::FaultConfig;
use rigweb::sim::server::{self, SimConfig, SimHandle};

/// The embedded profile `id`.
pub fn profile(id: &str) -> Arc<Profile> {
    ProfileRegistry::embedded()
        .get(id)
        .expect("embedded profile")
}

/// Simulator settings for tests: ephemeral ports, short stale timeout and cooldown.
pub fn sim_config(model: &str) -> SimConfig {
    let mut c = SimConfig::new(profile(model));
    c.listen = SocketAddr::from(([127, 0, 0, 1], 0));
    c.user = "tester".into();
    c.password = "s3cret".into();
    c.seed = 7;
    c.stale_timeout = Duration::from_secs(3);
    c.cooldown = Duration::from_secs(2);
    c
}

/// Starts a simulator.
pub fn start_sim(model: &str) -> SimHandle {
    server::start(sim_config(model)).expect("simulator starts")
}

/// Starts a simulator with faults.
pub fn start_sim_with(model: &str, faults: FaultConfig) -> SimHandle {
    let mut c = sim_config(model);
    c.faults = faults;
    server::start(c).expect("simulator starts")
}

/// Client settings for tests against `addr`.
pub fn radio_config(model: &str, addr: SocketAddr, password: &str) -> RadioConfig {
    let p = profile(model);
    let control = ControlConfig {
        user: "tester".into(),
        password: password.into(),
        rx_codec: p.rx_codec_byte(),
        tx_codec: p.tx_codec_byte(),
        sample_rate: p.audio.sample_rate,
        held_retry_delay: Duration::from_millis(500),
        held_retries: 10,
        ..ControlConfig::default()
    };
    let mut link = LinkConfig::new(addr, control);
    link.link_timeout = Duration::from_secs(2);
    link.backoff_min = Duration::from_millis(200);
    link.backoff_max = Duration::from_secs(1);
    RadioConfig {
        link,
        profile: p,
        registry: ProfileRegistry::embedded(),
        executor: ExecutorConfig {
            probe_interval: Duration::from_millis(500),
            ..ExecutorConfig::default()
        },
        queue: 32,
        rate_window: Duration::from_millis(50),
    }
}

/// Starts a client for `model` against `sim`.
pub fn start_radio(model: &str, sim: &SimHandle) -> Arc<Radio> {
    Arc::new(
        Radio::start(radio_config(model, sim.addrs().control, "s3cret")).expect("radio starts"),
    )
}

#[macro_use]
pub mod web;
pub mod audio;
pub mod rigctl;

/// Polls `cond` every 10 ms until it holds or `timeout` passes.
pub fn wait_for(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + timeout;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits until the radio is ready (connected, powered, state fetched).
pub fn wait_ready(radio: &Radio, timeout: Duration) {
    let ok = wait_for(timeout, || radio.store().read(|c| c.connection.radio_ready));
    assert!(
        ok,
        "radio not ready: {:?} / {:?}",
        radio.link_status(),
        radio.store().read(|c| c.detail.clone())
    );
}

/// The active VFO of receiver `r` in a simulator snapshot.
pub fn sim_vfo(s: &rigweb::sim::RigSnapshot, r: usize) -> rigweb::sim::rig::VfoState {
    let rx = &s.receivers[r];
    rx.vfo[usize::from(rx.active_vfo)]
}

/// RF power level (`14 0A`) in a simulator snapshot.
pub fn sim_rf_power(s: &rigweb::sim::RigSnapshot) -> u16 {
    s.levels.get(&0x0A).copied().unwrap_or(0)
}

/// `VmRSS` of this process (server and clients), kB.
pub fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find(|l| l.starts_with("VmRSS"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap()
}
