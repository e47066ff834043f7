//! Measuring helpers for the benchmark binaries: percentiles, CPU time and memory of
//! this process or a child, free ports, a simulator child process and a server child
//! process against it.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Percentile `p` (0..=100) of sorted samples.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// User + system CPU time of process `pid` ("self" for this one).
pub fn cpu_time(pid: &str) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // fields after the ")" of the command name: state is field 3; utime 14, stime 15
    let rest = stat.rsplit_once(')').map(|x| x.1).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11).and_then(|x| x.parse().ok()).unwrap_or(0)
        + f.get(12).and_then(|x| x.parse().ok()).unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_millis(ticks * 1000 / hz)
}

/// A `/proc/<pid>/status` value in kB (VmRSS, VmHWM).
pub fn status_kb(pid: &str, key: &str) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// CPU time process `pid` has spent in user space and in the kernel so far
/// (`/proc/<pid>/stat`, counted in clock ticks: 10 ms on Linux, so a window of a few
/// seconds at a few % is coarse, but the split is unbiased).
#[allow(dead_code)] // not every bench splits CPU time
pub fn user_kernel(pid: &str) -> (Duration, Duration) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // the fields after the command name (which may hold spaces) start with the state (3)
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let ticks = |i: usize| {
        let n: f64 = fields.get(i).and_then(|v| v.parse().ok()).unwrap_or(0.0);
        Duration::from_secs_f64(n / hz)
    };
    (ticks(11), ticks(12))
}

/// A UDP port that was free a moment ago (with the next two also free).
pub fn free_udp_port() -> u16 {
    for _ in 0..100 {
        let s = UdpSocket::bind("127.0.0.1:0").unwrap();
        let p = s.local_addr().unwrap().port();
        drop(s);
        if p < 65000 && (1..=2).all(|i| UdpSocket::bind(("127.0.0.1", p + i)).is_ok()) {
            return p;
        }
    }
    panic!("no free UDP ports");
}

/// The simulated radio as a child process (`rigweb sim`).
pub struct SimProcess {
    /// The child.
    pub child: Child,
    /// Its control port.
    pub port: u16,
}

impl SimProcess {
    /// Starts `rigweb sim` for `model` with user/password "bench".
    pub fn start(model: &str, extra: &[&str]) -> SimProcess {
        let port = free_udp_port();
        let child = Command::new(env!("CARGO_BIN_EXE_rigweb"))
            .args([
                "--log-level",
                "warn",
                "sim",
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--model",
                model,
            ])
            .args([
                "--user",
                "bench",
                "--password",
                "bench",
                "--log-level",
                "warn",
            ])
            .args(extra)
            .stdout(Stdio::null())
            .spawn()
            .expect("start rigweb sim");
        std::thread::sleep(Duration::from_millis(300));
        SimProcess { child, port }
    }

    /// The child's pid as a string.
    pub fn pid(&self) -> String {
        self.child.id().to_string()
    }
}

/// Stops a child process of a bench as a service manager would: SIGTERM, then waits.
fn terminate(child: &mut Child) {
    // SAFETY: sending SIGTERM to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let _ = child.wait();
}

impl Drop for SimProcess {
    fn drop(&mut self) {
        terminate(&mut self.child);
    }
}

/// Milliseconds with three decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// Elapsed wall time of `f`.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed())
}

/// The value after `--name` on the command line, or `default`.
pub fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The text after `--name` on the command line.
pub fn arg_str(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// CPU time of each thread group of process `pid` (see [`thread_use`]).
pub fn thread_cpu(pid: &str) -> std::collections::BTreeMap<String, Duration> {
    thread_use(pid)
        .into_iter()
        .map(|(name, used)| (name, used.cpu))
        .collect()
}

/// What one thread group (see [`thread_use`]) has used so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadUse {
    /// Time on a CPU.
    pub cpu: Duration,
    /// Times its threads went to sleep (voluntary context switches): wake-ups.
    pub wakeups: u64,
}

/// CPU time (`/proc/<pid>/task/*/schedstat`) and wake-ups (`voluntary_ctxt_switches`
/// of `/proc/<pid>/task/*/status`) of each thread of process `pid`, by thread name with
/// its trailing `-<number>` dropped (`ws-scope-12` counts as `ws-scope`).
pub fn thread_use(pid: &str) -> std::collections::BTreeMap<String, ThreadUse> {
    let mut out = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for t in tasks.flatten() {
        let tid = t.file_name().to_string_lossy().to_string();
        let path = format!("{pid}/task/{tid}");
        let name = std::fs::read_to_string(format!("/proc/{path}/comm")).unwrap_or_default();
        let name = name.trim();
        let group = match name.rsplit_once('-') {
            Some((head, tail)) if tail.chars().all(|c| c.is_ascii_digit()) => head,
            _ => name,
        };
        // schedstat: time on a CPU in ns (stat's ticks are too coarse for 32 threads
        // that use a few ms each)
        let ns: u64 = std::fs::read_to_string(format!("/proc/{path}/schedstat"))
            .ok()
            .and_then(|x| x.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        let wakeups: u64 = std::fs::read_to_string(format!("/proc/{path}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
                    .and_then(|v| v.trim().parse().ok())
            })
            .unwrap_or(0);
        let e: &mut ThreadUse = out.entry(group.to_string()).or_default();
        e.cpu += Duration::from_nanos(ns);
        e.wakeups += wakeups;
    }
    out
}

/// The server binary the benches measure: the host build, or `RIGWEB_BENCH_BIN`.
pub fn server_bin() -> String {
    std::env::var("RIGWEB_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_rigweb").into())
}

/// The server ([`server_bin`]) as a child process against the simulator child `sim`,
/// stopped with SIGTERM when dropped.
pub struct ServerProcess {
    /// The child.
    pub child: Child,
    /// Where it serves HTTP.
    pub addr: SocketAddr,
}

impl ServerProcess {
    /// Starts the server and waits (at most 30 s) until `/readyz` answers 200.
    pub fn start(sim: &SimProcess) -> ServerProcess {
        ServerProcess::start_bin(sim, &server_bin())
    }

    /// [`ServerProcess::start`] with the server binary at `bin`.
    #[allow(dead_code)] // not every bench measures another binary
    pub fn start_bin(sim: &SimProcess, bin: &str) -> ServerProcess {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let child = Command::new(bin)
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
        let end = Instant::now() + Duration::from_secs(30);
        while Instant::now() < end {
            if s.ready() {
                return s;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("the server did not get ready");
    }

    /// True once `/readyz` answers 200.
    pub fn ready(&self) -> bool {
        let Ok(mut t) = TcpStream::connect(self.addr) else {
            return false;
        };
        let _ = t.set_read_timeout(Some(Duration::from_secs(2)));
        let _ = t.write_all(b"GET /readyz HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n");
        let mut buf = [0u8; 12];
        t.read_exact(&mut buf).is_ok() && buf.starts_with(b"HTTP/1.1 200")
    }

    /// The child's pid as a string.
    pub fn pid(&self) -> String {
        self.child.id().to_string()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        terminate(&mut self.child);
    }
}
