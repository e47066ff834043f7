//! Stream figures (issue 7): fan-out cost (CPU and memory of the server with 1, 8 and 32
//! scope clients at 30 fps, then with meters at 20 fps and 4 Opus listeners, and per
//! extra client), delivery latency (p50/p99 of scope and Opus frames), Opus encode cost
//! per 20 ms frame, idle CPU with no clients, and the "station load" scenario (4 scope
//! clients, 1 control client sending a command every 200 ms, 1 Opus listener, meters at
//! 20 fps) that later work compares against.
//!
//! `cargo bench --bench streams -- [--seconds S]` (default 10 s per scenario).
//!
//! CPU and memory: the server (`rigweb --radio ...`) and the simulated radio
//! (`rigweb sim`) run as child processes; the server's user + system CPU time over the
//! window (`/proc/<pid>/stat`) and its `VmRSS` / `VmHWM` are read; the clients run in
//! this process and read everything. Latency: the server runs in this process and its
//! own histogram (`AppCtx::stream_stats`) is read: from the moment the data reached its
//! pump (a sweep assembled from the radio's CI-V packets, an RX audio packet received
//! from the link thread) to the moment the WebSocket frame was handed to the socket.

#[path = "support/mod.rs"]
mod support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rigweb::app::Tuning;
use rigweb::config::{RadioTarget, ServeConfig};
use rigweb::dsp::opus_codec::OpusEncoder;
use rigweb::profile::ProfileRegistry;
use serde_json::json;
use support::*;
use tungstenite::{Message, WebSocket};

fn free_tcp_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The server as a child process against the simulator child `sim`.
struct ServerProcess {
    child: Child,
    addr: SocketAddr,
}

impl ServerProcess {
    fn start(sim: &SimProcess) -> ServerProcess {
        let port = free_tcp_port();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let child = Command::new(env!("CARGO_BIN_EXE_rigweb"))
            .args([
                "--radio",
                "127.0.0.1",
                "--radio-port",
                &sim.port.to_string(),
            ])
            .args(["--radio-user", "bench", "--profile", "ic7610"])
            .args(["--listen", &addr.to_string(), "--log-level", "warn"])
            .env("RIGWEB_RADIO_PASSWORD", "bench")
            .stdout(Stdio::null())
            .spawn()
            .expect("start rigweb");
        let s = ServerProcess { child, addr };
        let end = Instant::now() + Duration::from_secs(20);
        while Instant::now() < end {
            if s.ready() {
                return s;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("the server did not get ready");
    }

    fn ready(&self) -> bool {
        let Ok(mut t) = TcpStream::connect(self.addr) else {
            return false;
        };
        let _ = t.write_all(b"GET /readyz HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n");
        let mut s = String::new();
        let _ = t.read_to_string(&mut s);
        s.starts_with("HTTP/1.1 200")
    }

    fn pid(&self) -> String {
        self.child.id().to_string()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // SAFETY: sending SIGTERM to our own child.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let _ = self.child.wait();
    }
}

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
    cpu_pct: f64,
    rss_kb: u64,
    hwm_kb: u64,
    frames: Vec<(&'static str, u64)>,
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
    let (cpu0, t0) = (cpu_time(pid), Instant::now());
    std::thread::sleep(Duration::from_secs(secs));
    let (cpu1, wall) = (cpu_time(pid), t0.elapsed());
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
    std::thread::sleep(Duration::from_secs(3)); // the radio's scope goes off after 2 s
    Figures {
        cpu_pct: (cpu1 - cpu0).as_secs_f64() / wall.as_secs_f64() * 100.0,
        rss_kb,
        hwm_kb,
        frames: frames
            .into_iter()
            .map(|(k, n)| (k, (n as f64 / wall.as_secs_f64()).round() as u64))
            .collect(),
    }
}

fn print(label: &str, f: &Figures) {
    let frames: Vec<String> = f.frames.iter().map(|(k, n)| format!("{k} {n}/s")).collect();
    println!(
        "{label:<44} CPU {:>5.2} % of one core   RSS {:>6} kB (peak {:>6} kB)   frames: {}",
        f.cpu_pct,
        f.rss_kb,
        f.hwm_kb,
        if frames.is_empty() {
            "-".to_string()
        } else {
            frames.join(", ")
        }
    );
}

fn fan_out(secs: u64) {
    println!("== fan-out (server and simulator as child processes, IC-7610) ==");
    let sim = SimProcess::start("ic7610", &[]);
    let server = ServerProcess::start(&sim);
    let (addr, pid) = (server.addr, server.pid());
    std::thread::sleep(Duration::from_secs(2));
    let idle = run(addr, &pid, Load::default(), secs);
    print("idle, no clients (keep-alives only)", &idle);
    let mut by_n = Vec::new();
    for n in [1usize, 8, 32] {
        let f = run(
            addr,
            &pid,
            Load {
                scope: n,
                ..Load::default()
            },
            secs,
        );
        print(&format!("{n} scope clients at 30 fps"), &f);
        by_n.push((n, f.cpu_pct));
    }
    // the parts of the full load on their own
    for (label, load) in [
        (
            "meters at 20 fps alone",
            Load {
                meters: true,
                ..Load::default()
            },
        ),
        (
            "1 Opus listener alone",
            Load {
                opus: 1,
                ..Load::default()
            },
        ),
        (
            "4 Opus listeners alone",
            Load {
                opus: 4,
                ..Load::default()
            },
        ),
    ] {
        print(label, &run(addr, &pid, load, secs));
    }
    let all = run(
        addr,
        &pid,
        Load {
            scope: 32,
            meters: true,
            opus: 4,
            commands: false,
        },
        secs,
    );
    print("32 scope + meters 20 fps + 4 Opus listeners", &all);
    let (n1, c1) = by_n[0];
    let (n32, c32) = by_n[2];
    println!(
        "cost per extra scope client: {:.3} % of one core ({:.2} ms CPU per second)",
        (c32 - c1) / (n32 - n1) as f64,
        (c32 - c1) / (n32 - n1) as f64 * 10.0
    );
    println!(
        "target: 32 scope + meters + 4 listeners under 5 % of one core: {:.2} % -> {}",
        all.cpu_pct,
        if all.cpu_pct < 5.0 { "met" } else { "NOT met" }
    );
}

fn station_load(secs: u64) {
    println!(
        "== station load (4 scope at 30 fps, 1 control client with a command every 200 ms, 1 Opus listener, meters at 20 fps) =="
    );
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
        secs,
    );
    print("station load", &f);
}

fn latency(secs: u64) {
    println!("== latency (server in this process; pump -> socket) ==");
    let registry = ProfileRegistry::embedded();
    let cfg = ServeConfig {
        radio: RadioTarget::Simulated {
            profile: registry.get("ic7610").unwrap(),
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
            "sweep assembled -> scope frame on the socket (8 clients)",
            &stats.scope,
        ),
        (
            "RX audio packet -> Opus frame on the socket (4 clients)",
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

fn opus_cost() {
    println!(
        "== Opus encode cost per 20 ms frame (48 kHz, complexity {}) ==",
        rigweb::dsp::opus_codec::COMPLEXITY
    );
    for channels in [1u8, 2] {
        let mut enc = OpusEncoder::new(channels).unwrap();
        // voice-like test signal: two tones and noise
        let mut seed = 1u32;
        let frames: Vec<Vec<i16>> = (0..50)
            .map(|f| {
                (0..960 * usize::from(channels))
                    .map(|i| {
                        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                        let t = (f * 960 + i / usize::from(channels)) as f32 / 48_000.0;
                        let v = (t * 700.0 * std::f32::consts::TAU).sin() * 6_000.0
                            + (t * 1_900.0 * std::f32::consts::TAU).sin() * 3_000.0
                            + ((seed >> 16) as f32 - 32_768.0) * 0.05;
                        v as i16
                    })
                    .collect()
            })
            .collect();
        let n = 1_000;
        let mut bytes = 0;
        let t = Instant::now();
        for i in 0..n {
            bytes += enc.encode(&frames[i % frames.len()]).unwrap().len();
        }
        let per = t.elapsed() / n as u32;
        println!(
            "{} : {:>8} per frame ({:.2} % of one core per stream), {} bytes per frame on average",
            if channels == 1 { "mono  " } else { "stereo" },
            ms(per),
            per.as_secs_f64() / 0.020 * 100.0,
            bytes / n
        );
    }
}

fn main() {
    let secs = arg("--seconds", 10);
    opus_cost();
    latency(secs);
    fan_out(secs);
    station_load(secs);
}
