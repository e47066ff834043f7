//! Audio-bridge figures (issue 20): the RX latency the bridge adds (a radio block's
//! arrival in the process → its samples handed to ALSA, plus what the device had
//! queued), and the CPU it costs while running: receiving only, and keyed with TX audio
//! flowing to the radio.
//!
//! `cargo bench --bench bridge -- [--seconds S]` (default 20 per phase). ALSA is the
//! `file` plugin over the `null` device (an `.asoundrc` in a temporary `$HOME`), so the
//! device queue reads 0 here: on a sound card the bridge keeps at most 40 ms queued
//! (`bridge::pacing::MAX_QUEUE`), 10-30 ms in steady state (playback starts at 30 ms).
//! Needs libasound2. The server and a simulated IC-7610 run in this process; CPU is
//! taken per thread (schedstat), the simulator's threads left out.

#[path = "support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use rigweb::app::{Running, Tuning};
use rigweb::config::ServeConfig;
use rigweb::radio::command::Command;
use support::*;

fn server(device: &str) -> Running {
    let cfg = ServeConfig {
        tx_timeout: Duration::from_secs(600),
        bridge: rigweb::bridge::BridgeConfig {
            device: device.into(),
            start: false,
        },
        ..ServeConfig::loopback_simulator("ic7610")
    };
    let srv = rigweb::app::start_with(&cfg, Tuning::default()).unwrap();
    let t = Instant::now();
    while !srv.app.radio.store().read(|c| c.connection.radio_ready) {
        assert!(t.elapsed() < Duration::from_secs(10), "radio ready");
        std::thread::sleep(Duration::from_millis(10));
    }
    srv
}

/// CPU of the server's threads (not the simulator's, not this binary's main thread) by
/// thread group.
fn server_cpu() -> std::collections::BTreeMap<String, Duration> {
    // the main thread is named after this binary (`bridge-<hash>`)
    let server = |n: &str| {
        !n.starts_with("sim") && (!n.starts_with("bridge-") || n == "bridge-rx" || n == "bridge-tx")
    };
    thread_cpu("self")
        .into_iter()
        .filter(|(n, _)| server(n))
        .collect()
}

fn diff(
    a: &std::collections::BTreeMap<String, Duration>,
    b: &std::collections::BTreeMap<String, Duration>,
) -> std::collections::BTreeMap<String, Duration> {
    b.iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.saturating_sub(a.get(k).copied().unwrap_or_default()),
            )
        })
        .collect()
}

fn per_min(d: Duration, secs: u64) -> f64 {
    d.as_secs_f64() * 1000.0 * 60.0 / secs as f64
}

fn phase(secs: u64) -> std::collections::BTreeMap<String, Duration> {
    let a = server_cpu();
    std::thread::sleep(Duration::from_secs(secs));
    diff(&a, &server_cpu())
}

fn show(what: &str, d: &std::collections::BTreeMap<String, Duration>, secs: u64) {
    let total: Duration = d.values().sum();
    let top: Vec<String> = {
        let mut v: Vec<_> = d.iter().filter(|(_, t)| !t.is_zero()).collect();
        v.sort_by(|a, b| b.1.cmp(a.1));
        v.iter()
            .take(6)
            .map(|(n, t)| format!("{n} {:.1}", per_min(**t, secs)))
            .collect()
    };
    println!(
        "  {what}: {:.1} ms CPU per minute ({:.2} % of a core); ms/min by thread: {}",
        per_min(total, secs),
        per_min(total, secs) / 600.0,
        top.join(", ")
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let secs = arg("--seconds", 20);
    let home = std::env::temp_dir().join(format!("rigweb-bridge-bench-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let tone: Vec<u8> = (0..48_000 * 10)
        .flat_map(|i| (((i as f32 * 0.1309).sin() * 8000.0) as i16).to_le_bytes())
        .collect();
    std::fs::write(home.join("tone.raw"), tone).unwrap();
    std::fs::write(
        home.join(".asoundrc"),
        format!(
            "pcm.bench {{ type asym\n playback.pcm {{ type file slave.pcm \"null\" file \"/dev/null\" format \"raw\" }}\n capture.pcm {{ type file slave.pcm \"null\" file \"/dev/null\" infile \"{}\" format \"raw\" }} }}\n",
            home.join("tone.raw").display()
        ),
    )
    .unwrap();
    // SAFETY: no other thread exists yet; libasound reads $HOME when the bridge opens
    // its device.
    unsafe { std::env::set_var("HOME", &home) };
    let srv = server("bench");
    println!(
        "audio bridge benchmark (server + simulated IC-7610 in this process; ALSA file plugin)"
    );
    let idle = phase(secs);
    show(&format!("idle server, {secs} s"), &idle, secs);
    let b = srv.bridge().unwrap().clone();
    b.start().expect("the bridge starts");
    std::thread::sleep(Duration::from_secs(1));
    let rx = phase(secs);
    show(&format!("bridge running, receiving, {secs} s"), &rx, secs);
    let p = b.rx_latency();
    println!(
        "  RX latency added (radio block in -> handed to ALSA, + device queue): p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms over {} frames",
        f64::from(p.p50) / 1000.0,
        f64::from(p.p99) / 1000.0,
        f64::from(p.max) / 1000.0,
        p.count
    );
    srv.app.radio.execute(Command::Ptt(true)).expect("keyed");
    let tx = phase(secs);
    show(
        &format!("bridge running, keyed, TX audio to the radio, {secs} s"),
        &tx,
        secs,
    );
    srv.app.radio.execute(Command::Ptt(false)).expect("unkeyed");
    let s = b.stop().unwrap();
    println!(
        "  counters: rx_frames {} tx_frames {} rx_drops {}",
        s.rx_frames, s.tx_frames, s.rx_drops
    );
    srv.shutdown();
    let _ = std::fs::remove_dir_all(&home);
}
