//! Stream figures (issue 7): fan-out cost (CPU and memory of the server with 1, 8 and 32
//! scope clients at 30 fps, then with meters at 20 fps and 4 Opus listeners, and per
//! extra client), delivery latency (p50/p99 of scope and Opus frames), Opus encode cost
//! per 20 ms frame, what a wake-up costs the woken thread (`support/wake_cost.rs`), idle
//! CPU with no clients, and the "station load" scenario (4 scope
//! clients, 1 control client sending a command every 200 ms, 1 Opus listener, meters at
//! 20 fps) that later work compares against, each run of it followed by its I/O floor
//! (what only the load's I/O costs, with no logic: `support/io_floor.rs`).
//!
//! `cargo bench --bench streams -- [--seconds S] [--runs N] [--only WORD] [--threads]`
//! (default 10 s per scenario, 1 run; `--only` keeps the parts and fan-out scenarios
//! whose name contains WORD, e.g. `--only all` for the full load alone, `--only station`
//! for the station load; `--threads` prints the server's CPU and wake-ups per thread
//! group and its split between user space and the kernel, and with `--runs` their
//! medians for the station load and its floor). `RIGWEB_BENCH_BIN=<path>` measures
//! another server binary (an older build, for before/after figures).
//!
//! CPU and memory: each fan-out scenario starts a fresh server (`rigweb --radio ...`)
//! and simulated radio (`rigweb sim`) as child processes, so that the server's `VmHWM`
//! (a lifetime peak) is that scenario's peak; the server's user + system CPU time over
//! the window (the sum of `/proc/<pid>/task/*/schedstat`, in nanoseconds: no thread
//! starts or ends inside a window), its threads' wake-ups (`voluntary_ctxt_switches`;
//! both read by `support/usage.rs`) and its `VmRSS` (at the end of the window) /
//! `VmHWM` are read; the clients run in this process and read everything. Latency: the server runs in this process and its own
//! histogram (`AppCtx::stream_stats`) is read: from the moment the datagram that
//! completed the data arrived at the link's UDP socket (stamped by the LAN thread,
//! carried with the sweep or the audio block) to the moment the WebSocket frame had
//! been written to the client's socket.

#[path = "support/io_floor.rs"]
mod io_floor;
#[path = "support/opus.rs"]
mod opus;
#[path = "support/mod.rs"]
mod support;
#[path = "support/usage.rs"]
mod usage;
#[path = "support/wake_cost.rs"]
mod wake_cost;

use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rigweb::app::Tuning;
use rigweb::config::ServeConfig;
use serde_json::json;
use support::*;
use tungstenite::{Message, WebSocket};
use usage::{Usage, print_threads, spread, summary, window};

fn ws(addr: SocketAddr, path: &str) -> WebSocket<TcpStream> {
    let s = TcpStream::connect(addr).unwrap();
    s.set_nodelay(true).unwrap();
    let (w, _) = tungstenite::client(format!("ws://{addr}{path}"), s).unwrap();
    w
}

/// Makes the `n`-th command a control client sends.
type CommandMaker = Box<dyn FnMut(u64) -> String + Send>;

/// A client reading everything on its own thread, counting binary frames (a control
/// client: the `ok` responses to its commands).
struct Reader {
    frames: Arc<AtomicU64>,
    thread: JoinHandle<()>,
}

fn reader(
    mut w: WebSocket<TcpStream>,
    stop: Arc<AtomicBool>,
    every: Option<(Duration, CommandMaker)>,
) -> Reader {
    let frames = Arc::new(AtomicU64::new(0));
    let f = frames.clone();
    let thread = std::thread::spawn(move || {
        w.get_mut()
            .set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        let mut every = every;
        let mut next = Instant::now();
        let mut n = 0;
        while !stop.load(Ordering::Relaxed) {
            if let Some((gap, make)) = every.as_mut()
                && Instant::now() >= next
            {
                n += 1;
                let _ = w.send(Message::Text(make(n).into()));
                next += *gap;
            }
            match w.read() {
                Ok(Message::Binary(_)) => {
                    f.fetch_add(1, Ordering::Relaxed);
                }
                // a control client counts the answers to its commands
                Ok(Message::Text(t))
                    if every.is_some()
                        && serde_json::from_str::<serde_json::Value>(t.as_str())
                            .is_ok_and(|v| v["type"] == "response" && v["ok"] == true) =>
                {
                    f.fetch_add(1, Ordering::Relaxed);
                }
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => break,
            }
        }
        let _ = w.close(None);
    });
    Reader { frames, thread }
}

/// What a scenario asks for.
#[derive(Clone, Copy, Default)]
struct Load {
    scope: usize,
    meters: bool,
    opus: usize,
    commands: bool,
}

struct Figures {
    rss_kb: u64,
    hwm_kb: u64,
    frames: Vec<(&'static str, u64)>,
    usage: Usage,
}

fn run(addr: SocketAddr, pid: &str, load: Load, secs: u64) -> Figures {
    let stop = Arc::new(AtomicBool::new(false));
    let mut readers: Vec<(&'static str, Reader)> = Vec::new();
    for _ in 0..load.scope {
        readers.push((
            "scope",
            reader(ws(addr, "/api/v1/scope?fps=30"), stop.clone(), None),
        ));
    }
    if load.meters {
        let mut w = ws(addr, "/api/v1/meters");
        w.send(Message::Text(
            json!({"type": "meters_start", "fps": 20})
                .to_string()
                .into(),
        ))
        .unwrap();
        readers.push(("meters", reader(w, stop.clone(), None)));
    }
    for _ in 0..load.opus {
        let mut w = ws(addr, "/api/v1/audio");
        w.send(Message::Text(
            json!({"type": "audio_start", "direction": "rx", "codec": "opus"})
                .to_string()
                .into(),
        ))
        .unwrap();
        readers.push(("opus", reader(w, stop.clone(), None)));
    }
    if load.commands {
        let w = ws(addr, "/api/v1/ws");
        let make: CommandMaker = Box::new(|n| {
            json!({"type": "cmd", "id": n.to_string(), "name": "set_freq",
                   "params": {"freq": 14_000_000 + (n % 300) * 1_000}})
            .to_string()
        });
        readers.push((
            "responses",
            reader(w, stop.clone(), Some((Duration::from_millis(200), make))),
        ));
    }
    // warm up: the radio's scope and audio start, encoders are created
    std::thread::sleep(Duration::from_secs(2));
    let counts0: Vec<u64> = readers
        .iter()
        .map(|(_, r)| r.frames.load(Ordering::Relaxed))
        .collect();
    let (usage, wall) = window(pid, secs);
    let rss_kb = status_kb(pid, "VmRSS");
    let hwm_kb = status_kb(pid, "VmHWM");
    let mut frames: Vec<(&'static str, u64)> = Vec::new();
    for ((kind, r), c0) in readers.iter().zip(counts0) {
        let n = r.frames.load(Ordering::Relaxed) - c0;
        match frames.iter_mut().find(|(k, _)| k == kind) {
            Some((_, total)) => *total += n,
            None => frames.push((kind, n)),
        }
    }
    stop.store(true, Ordering::Relaxed);
    for (_, r) in readers {
        let _ = r.thread.join();
    }
    Figures {
        rss_kb,
        hwm_kb,
        usage,
        frames: frames
            .into_iter()
            .map(|(k, n)| (k, (n as f64 / wall.as_secs_f64()).round() as u64))
            .collect(),
    }
}

fn print(label: &str, f: &Figures, threads: bool) {
    let frames: Vec<String> = f.frames.iter().map(|(k, n)| format!("{k} {n}/s")).collect();
    println!(
        "{label:<44} CPU {:>5.2} % of one core   RSS {:>6} kB (this scenario's peak {:>6} kB)   frames: {}",
        f.usage.cpu_pct,
        f.rss_kb,
        f.hwm_kb,
        if frames.is_empty() {
            "-".to_string()
        } else {
            frames.join(", ")
        }
    );
    if threads {
        print_threads(&f.usage);
    }
}

/// What the benchmark was asked for.
struct Opts {
    secs: u64,
    runs: u64,
    only: Option<String>,
    threads: bool,
}

impl Opts {
    fn wants(&self, name: &str) -> bool {
        self.only.as_deref().is_none_or(|w| name.contains(w))
    }
}

const FULL_LOAD: &str = "all: 32 scope + meters 20 fps + 4 Opus listeners";

fn scenarios() -> Vec<(String, Load)> {
    let mut v = vec![(
        "idle, no clients (keep-alives only)".to_string(),
        Load::default(),
    )];
    for n in [1usize, 8, 32] {
        v.push((
            format!("{n} scope clients at 30 fps"),
            Load {
                scope: n,
                ..Load::default()
            },
        ));
    }
    v.push((
        "meters at 20 fps alone".into(),
        Load {
            meters: true,
            ..Load::default()
        },
    ));
    v.push((
        "1 Opus listener alone".into(),
        Load {
            opus: 1,
            ..Load::default()
        },
    ));
    v.push((
        "4 Opus listeners alone".into(),
        Load {
            opus: 4,
            ..Load::default()
        },
    ));
    v.push((
        FULL_LOAD.into(),
        Load {
            scope: 32,
            meters: true,
            opus: 4,
            commands: false,
        },
    ));
    v
}

fn fan_out(o: &Opts) {
    println!(
        "== fan-out (a fresh server and simulator as child processes per scenario and run, IC-7610) =="
    );
    let mut cpu_by: Vec<(String, Vec<f64>)> = Vec::new();
    for (label, load) in scenarios() {
        if !o.wants(&label) {
            continue;
        }
        let mut cpus = Vec::new();
        for _ in 0..o.runs {
            let sim = SimProcess::start("ic7610", &[]);
            let server = ServerProcess::start(&sim);
            std::thread::sleep(Duration::from_secs(2));
            let f = run(server.addr, &server.pid(), load, o.secs);
            print(&label, &f, o.threads);
            cpus.push(f.usage.cpu_pct);
        }
        if o.runs > 1 {
            let (m, lo, hi) = spread(&cpus);
            println!(
                "    {} runs: median {m:.2} %, range {lo:.2}..{hi:.2} %",
                o.runs
            );
        }
        cpu_by.push((label, cpus));
    }
    let median = |prefix: &str| {
        cpu_by
            .iter()
            .find(|(l, _)| l.starts_with(prefix))
            .map(|(_, c)| spread(c).0)
    };
    if let (Some(c1), Some(c32)) = (median("1 scope"), median("32 scope")) {
        println!(
            "cost per extra scope client: {:.3} % of one core ({:.2} ms CPU per second)",
            (c32 - c1) / 31.0,
            (c32 - c1) / 31.0 * 10.0
        );
    }
    if let Some(all) = median("all:") {
        println!(
            "target: 32 scope + meters + 4 listeners under 5 % of one core: {all:.2} % (median) -> {}",
            if all < 5.0 { "met" } else { "NOT met" }
        );
    }
}

fn station_load(o: &Opts) {
    println!(
        "== station load (4 scope at 30 fps, 1 control client with a command every 200 ms, 1 Opus listener, meters at 20 fps), each run followed by its I/O floor (see benches/support/io_floor.rs) =="
    );
    let audio = {
        let sim = SimProcess::start("ic7610", &[]);
        let server = ServerProcess::start(&sim);
        std::thread::sleep(Duration::from_secs(2));
        record_rx_audio(server.addr)
    };
    let (mut server_runs, mut floor_runs) = (Vec::new(), Vec::new());
    for _ in 0..o.runs {
        let sim = SimProcess::start("ic7610", &[]);
        let server = ServerProcess::start(&sim);
        std::thread::sleep(Duration::from_secs(2));
        let f = run(
            server.addr,
            &server.pid(),
            Load {
                scope: 4,
                meters: true,
                opus: 1,
                commands: true,
            },
            o.secs,
        );
        print("station load", &f, o.threads);
        server_runs.push(f.usage);
        drop((server, sim));
        let floor = io_floor::Floor::start(audio.clone());
        std::thread::sleep(Duration::from_secs(2));
        let (u, _) = window(&floor.pid(), o.secs);
        println!(
            "{:<44} CPU {:>5.2} % of one core",
            "its I/O floor (no logic)", u.cpu_pct
        );
        if o.threads {
            print_threads(&u);
        }
        floor_runs.push(u);
    }
    if o.runs > 1 {
        summary("station load", &server_runs, o.threads);
        summary("I/O floor", &floor_runs, o.threads);
    }
}

/// Two seconds of the simulated radio's RX audio as the server hands it on (48 kHz
/// stereo, i16 little-endian), after a second of warm-up: what the floor's radio sends.
fn record_rx_audio(addr: SocketAddr) -> Vec<u8> {
    let mut w = ws(addr, "/api/v1/audio");
    w.send(Message::Text(
        json!({"type": "audio_start", "direction": "rx", "codec": "pcm16", "channels": 2})
            .to_string()
            .into(),
    ))
    .unwrap();
    let mut pcm = Vec::new();
    let mut frames = 0;
    while frames < 150 {
        if let Message::Binary(b) = w.read().unwrap() {
            frames += 1;
            if frames > 50 {
                pcm.extend_from_slice(&b[8..]);
            }
        }
    }
    pcm
}

fn latency(secs: u64) {
    println!(
        "== latency (server in this process; datagram at the link's UDP socket -> frame written to the WebSocket) =="
    );
    let cfg = ServeConfig {
        ..ServeConfig::loopback_simulator("ic7610")
    };
    let running = rigweb::app::start_with(&cfg, Tuning::default()).unwrap();
    let end = Instant::now() + Duration::from_secs(10);
    while !running.app.radio.store().read(|c| c.connection.radio_ready) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    let addr = running.addr();
    let stop = Arc::new(AtomicBool::new(false));
    let mut readers = Vec::new();
    for _ in 0..8 {
        readers.push(reader(ws(addr, "/api/v1/scope"), stop.clone(), None));
    }
    for _ in 0..4 {
        let mut w = ws(addr, "/api/v1/audio");
        w.send(Message::Text(
            json!({"type": "audio_start", "direction": "rx", "codec": "opus"})
                .to_string()
                .into(),
        ))
        .unwrap();
        readers.push(reader(w, stop.clone(), None));
    }
    std::thread::sleep(Duration::from_secs(2));
    let stats = &running.app.stream_stats;
    stats.scope.reset();
    stats.audio.reset();
    std::thread::sleep(Duration::from_secs(secs));
    for (name, h) in [
        (
            "last CI-V datagram of a sweep -> scope frame written (8 clients)",
            &stats.scope,
        ),
        (
            "RX audio datagram -> Opus frame written (4 clients)",
            &stats.audio,
        ),
    ] {
        println!(
            "{name:<58} p50 {:>9}  p99 {:>9}  ({} frames)",
            h.percentile(50.0).map(ms).unwrap_or_default(),
            h.percentile(99.0).map(ms).unwrap_or_default(),
            h.count()
        );
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        let _ = r.thread.join();
    }
    running.shutdown();
}

fn main() {
    if std::env::args().any(|a| a == io_floor::CHILD_ARG) {
        io_floor::child();
        return;
    }
    if std::env::args().any(|a| a == wake_cost::CHILD_ARG) {
        wake_cost::child();
        return;
    }
    let o = Opts {
        secs: arg("--seconds", 10),
        runs: arg("--runs", 1).max(1),
        only: arg_str("--only"),
        threads: std::env::args().any(|a| a == "--threads"),
    };
    if o.wants("opus cost") {
        opus::opus_cost();
    }
    if o.wants("wake cost") {
        wake_cost::wake_cost();
    }
    if o.wants("latency") {
        for _ in 0..o.runs {
            latency(o.secs);
        }
    }
    fan_out(&o);
    if o.wants("station load") {
        station_load(&o);
    }
}
