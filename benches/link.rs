//! Radio-link figures (issue 2): CI-V round trip through client -> simulator -> client,
//! CPU and memory while streaming scope and audio, and the time to the first sweep.
//!
//! `cargo bench --bench link -- [--rtt N] [--seconds S]` (defaults: 10 000 commands,
//! 60 s of streaming and 60 s idle). The simulator runs as a separate `rigweb sim`
//! process so that client and simulator costs are measured apart.

#[path = "support/mod.rs"]
mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rigweb::hub::LatestWins;
use rigweb::lan::control::ControlConfig;
use rigweb::lan::link::LinkConfig;
use rigweb::profile::ProfileRegistry;
use rigweb::radio::command::{Command, Target};
use rigweb::radio::executor::ExecutorConfig;
use rigweb::radio::service::{Radio, RadioConfig};
use rigweb::wire::civ::Receiver;
use support::*;

fn radio_for(port: u16) -> Radio {
    let reg = ProfileRegistry::embedded();
    let p = reg.get("ic7610").unwrap();
    let control = ControlConfig {
        user: "bench".into(),
        password: "bench".into(),
        rx_codec: p.rx_codec_byte(),
        tx_codec: p.tx_codec_byte(),
        sample_rate: 48_000,
        ..ControlConfig::default()
    };
    Radio::start(RadioConfig {
        link: LinkConfig::new(SocketAddr::from(([127, 0, 0, 1], port)), control),
        profile: p,
        registry: reg,
        executor: ExecutorConfig::default(),
        queue: 256,
        rate_window: Duration::ZERO,
    })
    .expect("radio starts")
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rtt_count = arg("--rtt", 10_000) as usize;
    let seconds = arg("--seconds", 60);
    println!("rigweb link benchmark (IC-7610 simulator in a separate process, loopback UDP)");

    // 1. start -> first assembled scope sweep
    let sim = SimProcess::start("ic7610", &["--sweep-rate", "30"]);
    let t0 = Instant::now();
    let radio = Arc::new(radio_for(sim.port));
    let q = Arc::new(LatestWins::new(64, None));
    let scope_sub = radio.scope().subscribe(q.clone());
    let first = q.pop_timeout(Duration::from_secs(15)).expect("a sweep");
    let to_first = t0.elapsed();
    let ready_at = radio.store().read(|c| c.connection.radio_ready);
    println!(
        "start -> first assembled scope sweep: {} ({} pixels, ready={ready_at})",
        ms(to_first),
        first.frame.pixels.len()
    );
    drop(scope_sub);
    std::thread::sleep(Duration::from_secs(3)); // scope output off again

    // 2. CI-V round trip, sequential set_freq
    let mut samples = Vec::with_capacity(rtt_count);
    let started = Instant::now();
    for i in 0..rtt_count {
        let hz = 14_000_000 + (i as u64 % 300_000);
        let t = Instant::now();
        radio
            .execute(Command::SetFreq {
                target: Target::Receiver(Receiver::Main),
                hz,
            })
            .expect("set_freq");
        samples.push(t.elapsed());
    }
    let total = started.elapsed();
    samples.sort();
    println!(
        "CI-V set_freq round trip over {rtt_count}: p50 {}  p99 {}  max {}  ({:.0} commands/s)",
        ms(percentile(&samples, 50.0)),
        ms(percentile(&samples, 99.0)),
        ms(*samples.last().unwrap()),
        rtt_count as f64 / total.as_secs_f64()
    );

    // 3. idle link: keep-alives only
    let (c0, s0) = (cpu_time("self"), cpu_time(&sim.pid()));
    std::thread::sleep(Duration::from_secs(seconds));
    let (c1, s1) = (cpu_time("self"), cpu_time(&sim.pid()));
    let per_min = |d: Duration| d.as_secs_f64() * 60.0 / seconds as f64;
    println!(
        "idle link ({seconds} s): client {:.3} CPU-s/min, simulator {:.3} CPU-s/min",
        per_min(c1 - c0),
        per_min(s1 - s0)
    );

    // 4. streaming scope (30 sweeps/s) + 48 kHz stereo PCM16 RX audio
    let sq = Arc::new(LatestWins::new(256, None));
    let aq = Arc::new(LatestWins::new(256, None));
    let _s = radio.scope().subscribe(sq.clone());
    let _a = radio.audio().subscribe(aq.clone());
    std::thread::sleep(Duration::from_secs(2));
    while sq.pop().is_some() {}
    while aq.pop().is_some() {}
    let counter = std::thread::spawn({
        let (sq, aq) = (sq.clone(), aq.clone());
        move || {
            let end = Instant::now() + Duration::from_secs(seconds);
            let (mut sweeps, mut samples) = (0u64, 0u64);
            while Instant::now() < end {
                while let Some(_s) = sq.pop() {
                    sweeps += 1;
                }
                while let Some(b) = aq.pop() {
                    samples += b.samples.len() as u64 / u64::from(b.channels);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            (sweeps, samples)
        }
    });
    let (c0, s0) = (cpu_time("self"), cpu_time(&sim.pid()));
    let (sweeps, audio_samples) = counter.join().unwrap();
    let (c1, s1) = (cpu_time("self"), cpu_time(&sim.pid()));
    println!(
        "streaming {seconds} s: {:.1} sweeps/s, {:.0} audio samples/s per channel",
        sweeps as f64 / seconds as f64,
        audio_samples as f64 / seconds as f64
    );
    println!(
        "  client    {:.2} CPU-s/min  RSS {} kB (peak {} kB)",
        per_min(c1 - c0),
        status_kb("self", "VmRSS"),
        status_kb("self", "VmHWM")
    );
    println!(
        "  simulator {:.2} CPU-s/min  RSS {} kB (peak {} kB)",
        per_min(s1 - s0),
        status_kb(&sim.pid(), "VmRSS"),
        status_kb(&sim.pid(), "VmHWM")
    );
    radio.shutdown();
}
