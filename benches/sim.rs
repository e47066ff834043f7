//! Simulator figures: the cost of one scope sweep (689 pixels, five windows from a
//! 50 kHz slice to the 6 m band) and of 48 kHz stereo RX audio as a fraction of real
//! time. These bound how much CPU the built-in simulated radio takes from the server
//! it runs beside.
//!
//! `cargo bench --bench sim -- [--sweeps N] [--audio-seconds S]` (defaults 2000 sweeps
//! per window, 10 s of audio).

use std::time::{Duration, Instant};

use rigweb::profile::ProfileRegistry;
use rigweb::sim::band::Band;
use rigweb::sim::frontend::Frontend;
use rigweb::sim::spectrum::{Spectrum, SweepRequest};
use rigweb::sim::{SimRig, SimRigConfig};
use rigweb::wire::civ::{Frame, freq_to_bcd};

/// Scope windows, lower and upper edge in Hz.
const WINDOWS: [(u64, u64); 5] = [
    (14_175_000, 14_225_000),
    (13_700_000, 14_700_000),
    (9_100_000, 10_100_000),
    (28_000_000, 29_000_000),
    (50_000_000, 51_000_000),
];

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().expect("a number"))
        .unwrap_or(default)
}

fn sweeps(n: u32) {
    let band = Band::new(1);
    let mut spectrum = Spectrum::new();
    let mut pixels = Vec::with_capacity(700);
    println!("scope sweep, 689 pixels ({n} per window):");
    for (lo, hi) in WINDOWS {
        let start = Instant::now();
        for i in 0..n {
            pixels.clear();
            let req = SweepRequest {
                lo_hz: lo,
                hi_hz: hi,
                pixels: 689,
                amp_max: 200,
                t: f64::from(i) / 30.0,
                frontend: Frontend::OFF,
                ref_db: 0.0,
                texture_seed: u64::from(i),
            };
            spectrum.render(&band, &req, &[], &mut pixels);
        }
        let per = start.elapsed() / n;
        let at_30 = per.as_secs_f64() * 30.0 * 100.0;
        println!(
            "  {lo:>10}..{hi:<10} Hz  {per:>10.2?} per sweep  ({at_30:.3} % of a core at 30/s)"
        );
    }
}

fn tune(rig: &mut SimRig, cmd: u8, data: &[u8]) {
    let frame = Frame::new(rig.civ_addr(), 0xE0, cmd, data);
    let replies = rig.handle(&frame, Duration::ZERO);
    assert!(replies.iter().any(Frame::is_ack), "{cmd:02X} refused");
}

fn audio(seconds: u64) {
    let registry = ProfileRegistry::embedded();
    let profile = registry.get("ic7610").expect("ic7610 profile");
    let mut rig = SimRig::new(profile.clone(), SimRigConfig::default());
    tune(&mut rig, 0x05, &freq_to_bcd(14_074_000).unwrap());
    let sub = [&[0x01u8][..], &freq_to_bcd(7_100_000).unwrap()].concat();
    tune(&mut rig, 0x25, &sub);
    let mut pcm = vec![0i16; 2 * 960];
    let blocks = seconds * 50;
    let start = Instant::now();
    for _ in 0..blocks {
        rig.render_audio(&mut pcm, 2, 48_000);
    }
    let cost = start.elapsed();
    let share = cost.as_secs_f64() / seconds as f64 * 100.0;
    println!(
        "RX audio, 48 kHz stereo in 20 ms blocks: {seconds} s rendered in {cost:.2?} ({share:.2} % of real time)"
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n = u32::try_from(arg(&args, "--sweeps", 2_000)).expect("--sweeps fits u32");
    sweeps(n.max(1));
    audio(arg(&args, "--audio-seconds", 10).max(1));
}
