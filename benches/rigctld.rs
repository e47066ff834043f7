//! rigctld figures (issue 20): the `f` round trip (p50/p99 over N requests on one
//! connection, answered from the state store) and the CPU cost of WSJT-X's poll (`v s f
//! m t` once a second) from 3 clients.
//!
//! `cargo bench --bench rigctld -- [--requests N] [--seconds S]` (defaults 10000, 30).
//! The server and its simulated IC-7610 run in this process on 127.0.0.1; CPU is taken
//! per thread (schedstat), so the simulator's own threads are left out.

#[path = "support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use rigweb::app::{Running, Tuning};
use rigweb::config::ServeConfig;
use rigweb::rigctld::RigctldConfig;
use support::*;

fn server() -> Running {
    let cfg = ServeConfig {
        rigctld: Some(RigctldConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            allow: Default::default(),
        }),
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

struct Client {
    w: TcpStream,
    r: BufReader<TcpStream>,
    line: String,
}

impl Client {
    fn connect(addr: SocketAddr) -> Client {
        let w = TcpStream::connect(addr).unwrap();
        w.set_nodelay(true).unwrap();
        Client {
            r: BufReader::new(w.try_clone().unwrap()),
            w,
            line: String::new(),
        }
    }

    /// Sends `cmd` and reads `lines` answer lines.
    fn ask(&mut self, cmd: &str, lines: usize) {
        self.w.write_all(cmd.as_bytes()).unwrap();
        for _ in 0..lines {
            self.line.clear();
            self.r.read_line(&mut self.line).unwrap();
            assert!(!self.line.starts_with("RPRT -"), "{cmd:?}: {}", self.line);
        }
    }
}

/// Sum of the CPU time of threads whose name group satisfies `keep`.
fn cpu_of(keep: impl Fn(&str) -> bool) -> Duration {
    thread_cpu("self")
        .into_iter()
        .filter(|(n, _)| keep(n))
        .map(|(_, d)| d)
        .sum()
}

/// The server's threads: everything but the simulator's and this benchmark's (its
/// clients are `rigctld-bench`, its main thread is named after the binary,
/// `rigctld-<hash>`; the server's client threads `rigctld-<id>` group as `rigctld`).
fn server_thread(name: &str) -> bool {
    !name.starts_with("sim") && !name.starts_with("rigctld-")
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let requests = arg("--requests", 10_000) as usize;
    let secs = arg("--seconds", 30);
    let srv = server();
    let addr = srv.rigctld.as_ref().unwrap().addr();
    println!("rigctld benchmark (server + simulated IC-7610 in this process, loopback)");

    let mut c = Client::connect(addr);
    for _ in 0..200 {
        c.ask("f\n", 1);
    }
    let mut rtt = Vec::with_capacity(requests);
    for _ in 0..requests {
        let t = Instant::now();
        c.ask("f\n", 1);
        rtt.push(t.elapsed());
    }
    rtt.sort_unstable();
    println!(
        "  f round trip, {requests} requests on one connection: p50 {}  p99 {}  max {}",
        ms(percentile(&rtt, 50.0)),
        ms(percentile(&rtt, 99.0)),
        ms(*rtt.last().unwrap())
    );
    drop(c);
    // let the connection's thread end before the baseline (an ended thread's time leaves
    // the sums)
    std::thread::sleep(Duration::from_millis(500));

    // idle baseline of the server's threads, then 3 WSJT-X pollers for as long
    let idle_before = cpu_of(server_thread);
    std::thread::sleep(Duration::from_secs(secs));
    let idle = cpu_of(server_thread).saturating_sub(idle_before);
    let rig_before = cpu_of(|n| n == "rigctld");
    let before = cpu_of(server_thread);
    let (polls, clients): (Vec<usize>, Vec<Client>) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|i| {
                std::thread::Builder::new()
                    .name("rigctld-bench".into())
                    .spawn_scoped(s, move || {
                        let mut c = Client::connect(addr);
                        // spread the three clients over the second, as three programs would be
                        std::thread::sleep(Duration::from_millis(333 * i));
                        let start = Instant::now();
                        let mut n = 0usize;
                        while start.elapsed() < Duration::from_secs(secs) {
                            let due = start + Duration::from_secs(n as u64 + 1);
                            c.ask("v\n", 1);
                            c.ask("s\n", 2);
                            c.ask("f\n", 1);
                            c.ask("m\n", 2);
                            c.ask("t\n", 1);
                            n += 1;
                            std::thread::sleep(due.saturating_duration_since(Instant::now()));
                        }
                        (n, c)
                    })
                    .unwrap()
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).unzip()
    });
    // measured while the connections (and their server threads) are still open
    let busy = cpu_of(server_thread).saturating_sub(before);
    let rig = cpu_of(|n| n == "rigctld").saturating_sub(rig_before);
    let polls: usize = polls.iter().sum();
    drop(clients);
    let per_min = |d: Duration| d.as_secs_f64() * 1000.0 * 60.0 / secs as f64;
    println!("  WSJT-X poll (v s f m t per second) from 3 clients for {secs} s ({polls} polls):");
    println!(
        "    rigctld threads: {:.1} ms CPU per minute ({:.3} % of a core)",
        per_min(rig),
        per_min(rig) / 600.0
    );
    println!(
        "    whole server: {:.1} ms CPU per minute, idle {:.1} ms per minute",
        per_min(busy),
        per_min(idle)
    );
    srv.shutdown();
}
