//! The resource budget of a Raspberry Pi install (issue 16), as figures against limits:
//!
//! * RSS of the server at idle (radio link up, no web client) — budget 8 MiB;
//! * RSS and CPU under the station load of `benches/streams.rs` (4 scope clients at
//!   30 fps, a control client with a command every 200 ms, an Opus listener, meters at
//!   20 fps) — budget 16 MiB;
//! * the size of the release binary per target (`target/<triple>/release/rigweb`) —
//!   budget 8 MB for aarch64;
//! * the station load with the aarch64 binary under qemu-aarch64 (when it is built and
//!   qemu-user is installed): a figure relative to the host's, not a Pi's.
//!
//! `cargo bench --bench budget -- [--seconds S]` (default 10 s per load window).
//! The server measured is the release build that ships (`cargo build --release`, run
//! by this bench first: the bench profile's binary is larger and maps more code), or
//! `RIGWEB_BENCH_BIN`. The station load runs
//! `cargo bench --bench streams -- --only "station load"` with the same binary and reads
//! its figure line. Build the ARM binaries first for their sizes:
//! `cargo zigbuild --release --target aarch64-unknown-linux-gnu.2.31` (README.md).

#[path = "support/mod.rs"]
mod support;

use std::process::{Command, Stdio};
use std::time::Duration;

use support::{ServerProcess, SimProcess, arg, status_kb};

const MIB: u64 = 1024;
const IDLE_RSS_KB: u64 = 8 * MIB;
const LOAD_RSS_KB: u64 = 16 * MIB;
const AARCH64_BYTES: u64 = 8_000_000;
const TARGETS: [&str; 2] = ["aarch64-unknown-linux-gnu", "armv7-unknown-linux-gnueabihf"];

fn verdict(ok: bool) -> &'static str {
    if ok { "within budget" } else { "OVER BUDGET" }
}

fn idle(bin: &str, secs: u64) {
    let sim = SimProcess::start("ic7610", &[]);
    let server = ServerProcess::start_bin(&sim, bin);
    std::thread::sleep(Duration::from_secs(secs));
    let pid = server.pid();
    let (rss, hwm) = (status_kb(&pid, "VmRSS"), status_kb(&pid, "VmHWM"));
    let (anon, file) = (status_kb(&pid, "RssAnon"), status_kb(&pid, "RssFile"));
    println!(
        "idle (link up, no client, {secs} s)        RSS {rss} kB (peak {hwm} kB; heap and stacks {anon} kB, mapped code and data {file} kB); budget {IDLE_RSS_KB} kB: {}",
        verdict(hwm < IDLE_RSS_KB)
    );
    drop(server);
}

/// The binary measured: `RIGWEB_BENCH_BIN`, else the release build (built here).
fn measured_bin() -> String {
    if let Ok(bin) = std::env::var("RIGWEB_BENCH_BIN") {
        return bin;
    }
    let built = Command::new(env!("CARGO"))
        .args(["build", "--release", "--bin", "rigweb"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .is_ok_and(|s| s.success());
    assert!(built, "cargo build --release failed");
    // a copy: the bench profile builds into target/release too, and the streams bench
    // this one runs would replace the binary under measurement
    let root = env!("CARGO_MANIFEST_DIR");
    let copy = format!("{root}/target/budget/rigweb");
    std::fs::create_dir_all(format!("{root}/target/budget")).unwrap();
    std::fs::copy(format!("{root}/target/release/rigweb"), &copy).unwrap();
    copy
}

/// Runs the streams bench's station load with `bin` and returns its figure line.
fn station_load(bin: &str, secs: u64) -> Option<String> {
    let out = Command::new(env!("CARGO"))
        .args(["bench", "--bench", "streams", "--"])
        .args(["--only", "station load", "--seconds", &secs.to_string()])
        .env("RIGWEB_BENCH_BIN", bin)
        .stderr(Stdio::inherit())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.starts_with("station load") && l.contains("RSS"))
        .map(str::to_string)
}

/// The peak RSS (kB) in a streams figure line.
fn peak_kb(line: &str) -> Option<u64> {
    line.split("peak")
        .nth(1)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn report_load(label: &str, line: Option<String>, budget: Option<u64>) {
    match line {
        Some(l) => {
            let verdict = match (budget, peak_kb(&l)) {
                (Some(b), Some(p)) => format!("; budget {b} kB: {}", verdict(p < b)),
                _ => String::new(),
            };
            println!(
                "{label}: {}{verdict}",
                l.trim_start_matches("station load").trim()
            );
        }
        None => println!("{label}: no figure (the streams bench failed)"),
    }
}

fn sizes() {
    let root = env!("CARGO_MANIFEST_DIR");
    for t in TARGETS {
        let p = format!("{root}/target/{t}/release/rigweb");
        match std::fs::metadata(&p) {
            Ok(m) if t.starts_with("aarch64") => println!(
                "binary {t:<32} {:>9} bytes; budget {AARCH64_BYTES}: {}",
                m.len(),
                verdict(m.len() < AARCH64_BYTES)
            ),
            Ok(m) => println!("binary {t:<32} {:>9} bytes", m.len()),
            Err(_) => println!("binary {t:<32} not built ({p})"),
        }
    }
}

fn main() {
    let secs = arg("--seconds", 10);
    let bin = measured_bin();
    println!("== budget (server: {bin}) ==");
    sizes();
    idle(&bin, secs);
    report_load(
        "station load (host)",
        station_load(&bin, secs),
        Some(LOAD_RSS_KB),
    );
    let arm = format!(
        "{}/target/aarch64-unknown-linux-gnu/release/rigweb",
        env!("CARGO_MANIFEST_DIR")
    );
    let qemu = Command::new("qemu-aarch64")
        .arg("--version")
        .output()
        .is_ok();
    if !(qemu && std::path::Path::new(&arm).exists()) {
        println!("station load (qemu-aarch64): skipped (needs qemu-user and {arm})");
        return;
    }
    let wrapper = std::env::temp_dir().join(format!("rigweb-qemu-{}", std::process::id()));
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec qemu-aarch64 -L /usr/aarch64-linux-gnu {arm} \"$@\"\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    report_load(
        "station load (aarch64 under qemu-aarch64, emulation included)",
        station_load(wrapper.to_str().unwrap(), secs),
        None,
    );
    let _ = std::fs::remove_file(&wrapper);
}
