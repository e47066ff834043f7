//! Station-data figures (issue 18): the EiBi season file (parse time, heap and RSS peak,
//! `identify`, `segments` and `stations` latency, the server's RSS with a schedule loaded
//! against the idle server), the band-plan `segments` latency, and the DX parser (spots
//! per second through the line splitter, the parser and the buffer; memory with the
//! buffer full).
//!
//! `cargo bench --bench station -- [--rows N] [--queries N]`. The RSS comparison runs the
//! `rigweb` binary twice (its simulated radio, on loopback) with a local HTTP server
//! serving the generated file.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/station/http.rs"]
mod http;
#[path = "support/season.rs"]
mod season;
#[path = "support/mod.rs"]
mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rigweb::station::band_plan::BandPlans;
use rigweb::station::band_plan::model::Layer;
use rigweb::station::dx::buffer::{CAPACITY, Spot, SpotBuffer, SpotSource};
use rigweb::station::dx::line::LineSplitter;
use rigweb::station::dx::spot::{decode, parse_spot};
use rigweb::station::eibi::csv::parse;
use rigweb::station::eibi::dataset::StationQuery;
use rigweb::util::time::utc_parts;
use support::{arg, percentile, status_kb};

/// Counts heap bytes in use and their peak (what a structure really costs).
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: the caller's layout goes to the system allocator unchanged.
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = IN_USE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` was allocated by `alloc` above with `l`.
        unsafe { System.dealloc(p, l) };
        IN_USE.fetch_sub(l.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn heap() -> usize {
    IN_USE.load(Ordering::Relaxed)
}

fn reset_peak() {
    PEAK.store(heap(), Ordering::Relaxed);
}

fn kib(b: usize) -> String {
    format!("{:.0} KiB", b as f64 / 1024.0)
}

fn micros(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

/// Runs `f` `n` times and prints p50/p99.
fn latency(what: &str, n: usize, mut f: impl FnMut(usize)) {
    let mut t = Vec::with_capacity(n);
    for i in 0..n {
        let t0 = Instant::now();
        f(i);
        t.push(t0.elapsed());
    }
    t.sort();
    println!(
        "  {what}: p50 {}, p99 {}, max {} ({n} queries)",
        micros(percentile(&t, 50.0)),
        micros(percentile(&t, 99.0)),
        micros(*t.last().unwrap())
    );
}

fn eibi(rows: usize, queries: usize) -> Vec<u8> {
    let file = season::season_file(rows);
    println!(
        "EiBi: a generated season of {rows} rows, {} KB",
        file.len() / 1000
    );
    let mut times = Vec::new();
    let mut rss_peak = 0;
    let mut heap_peak = 0;
    let mut kept = 0;
    for _ in 0..7 {
        let before = heap();
        reset_peak();
        // writing "5" to our own clear_refs resets VmHWM (the peak RSS)
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let rss0 = status_kb("self", "VmRSS");
        let t0 = Instant::now();
        let d = parse(&file).expect("parses");
        times.push(t0.elapsed());
        rss_peak = rss_peak.max(status_kb("self", "VmHWM").saturating_sub(rss0));
        heap_peak = heap_peak.max(PEAK.load(Ordering::Relaxed) - before);
        kept = heap() - before;
        assert_eq!(d.len() + d.skipped(), rows);
        drop(d);
    }
    times.sort();
    println!(
        "  parse: median {}, min {} (7 runs); heap peak +{}, RSS peak +{rss_peak} kB; kept: {} for the loaded schedule",
        support::ms(times[3]),
        support::ms(times[0]),
        kib(heap_peak),
        kib(kept),
    );
    let d = parse(&file).unwrap();
    let now = utc_parts(SystemTime::now());
    let mut rng = season::Rng::new(7);
    let freqs: Vec<u64> = (0..queries)
        .map(|_| {
            u64::from(d.entries()[rng.below(d.len() as u64) as usize].freq_hz) + rng.below(4000)
        })
        .collect();
    latency("identify (±5 kHz, on air first)", queries, |i| {
        std::hint::black_box(d.identify(freqs[i], 5_000, &now, 10));
    });
    latency("segments (a 500 kHz view, on the air)", queries, |i| {
        let f = freqs[i];
        std::hint::black_box(d.segments(f.saturating_sub(250_000), f + 250_000, true, &now, 5000));
    });
    latency("segments (0-30 MHz, all rows)", queries / 10, |_| {
        std::hint::black_box(d.segments(0, 30_000_000, false, &now, 20_000));
    });
    let q = StationQuery {
        q: Some("radio".into()),
        on_air: Some(true),
        ..StationQuery::default()
    };
    latency(
        "stations (q=radio, on_air, page 2 of 100)",
        queries / 10,
        |_| {
            std::hint::black_box(d.stations(&q, 2, 100, &now));
        },
    );
    latency("bands (counts, on air)", queries / 10, |_| {
        std::hint::black_box(d.bands(&now));
    });
    file
}

fn band_plans(queries: usize) {
    let p = BandPlans::new(Some("r1"), None).unwrap();
    let all = Layer::ALL.to_vec();
    println!("Band plans:");
    latency("segments (a 50 kHz view, all layers)", queries, |i| {
        let f = 14_000_000 + (i as u64 % 350) * 1000;
        std::hint::black_box(p.segments(f - 25_000, f + 25_000, &all));
    });
    latency("segments (0-500 MHz, all layers)", queries / 10, |_| {
        std::hint::black_box(p.segments(0, 500_000_000, &all));
    });
}

fn dx_lines(n: usize) -> Vec<u8> {
    let mut rng = season::Rng::new(11);
    let mut out = Vec::new();
    for i in 0..n {
        let khz = 1800 + rng.below(28_000);
        let call = format!(
            "{}{}{}",
            ["JA", "DL", "K", "VK", "EA", "PY"][i % 6],
            rng.below(10),
            ["ABC", "XYZ", "QRM", "ZZ"][i % 4]
        );
        let line = match i % 4 {
            0 => format!(
                "DX de K1ABC:     {khz:>7}.0  {call:<12} CW 599 up 2                    1234Z\r\n"
            ),
            1 => format!(
                "DX de JI1HFJ-#:{khz}.20  {call:<12} CW    20 dB  22 WPM  CQ      2359Z\r\n"
            ),
            2 => format!(
                "DX de W3LPL:      {khz}.0  {call:<12} loud in MD                     2101Z MD\r\n"
            ),
            _ => format!(
                "DX de DL8LAS-    {khz}.0  {call:<12} tnx qso                        0912Z JO62\r\n"
            ),
        };
        out.extend_from_slice(line.as_bytes());
        if i % 50 == 0 {
            out.extend_from_slice(
                b"WWV de W0MU <18>:   SFI=123, A=5, K=1, No Storms -> No Storms\r\n",
            );
        }
    }
    out
}

fn dx(n: usize) {
    println!("DX spots:");
    let bytes = dx_lines(n);
    let t0 = Instant::now();
    let mut s = LineSplitter::default();
    let mut parsed = 0;
    for chunk in bytes.chunks(1460) {
        s.push(chunk, |l| {
            if parse_spot(&decode(l)).is_some() {
                parsed += 1;
            }
        });
    }
    let dt = t0.elapsed();
    println!(
        "  parser (splitter + parse): {parsed} spots in {} = {:.0} spots/s ({:.1} MB/s)",
        support::ms(dt),
        parsed as f64 / dt.as_secs_f64(),
        bytes.len() as f64 / dt.as_secs_f64() / 1e6
    );
    // through the buffer too: duplicates looked for among 500 on every spot
    let mut buf = SpotBuffer::default();
    let mut s = LineSplitter::default();
    let base = UNIX_EPOCH + Duration::from_secs(1_750_000_000);
    let mut i = 0u64;
    let t0 = Instant::now();
    for chunk in bytes.chunks(1460) {
        s.push(chunk, |l| {
            if let Some(line) = parse_spot(&decode(l)) {
                i += 1;
                buf.insert(Arc::new(Spot {
                    line,
                    received_at: base + Duration::from_millis(i * 10),
                    source: SpotSource::Cluster,
                    mode: None,
                }));
            }
        });
    }
    let dt = t0.elapsed();
    println!(
        "  parser + buffer (merge scan over {CAPACITY}): {:.0} spots/s",
        i as f64 / dt.as_secs_f64()
    );
    // memory of a full buffer of long spots
    let before = heap();
    let mut full = SpotBuffer::default();
    for k in 0..CAPACITY {
        let line = format!(
            "DX de DL8LAS-2-#: 14025.0 JA{k}XYZ {} 1234Z JO62",
            "x".repeat(200)
        );
        full.insert(Arc::new(Spot {
            line: parse_spot(&line).unwrap(),
            received_at: base + Duration::from_secs(k as u64 * 700),
            source: SpotSource::Rbn,
            mode: None,
        }));
    }
    assert_eq!(full.len(), CAPACITY);
    println!(
        "  a full buffer ({CAPACITY} spots, 128-character comments): {} on the heap",
        kib(heap() - before)
    );
}

/// VmRSS (kB) of a `rigweb` process after it settled, with `args`; `ready` runs first.
fn server_rss(args: &[&str], ready: impl Fn(std::net::SocketAddr)) -> u64 {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut child = Command::new(env!("CARGO_BIN_EXE_rigweb"))
        .args(["--listen", &addr.to_string(), "--log-level", "warn"])
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .expect("rigweb starts");
    let up = common::wait_for(Duration::from_secs(30), || {
        std::net::TcpStream::connect(addr).is_ok()
            && common::web::get(addr, "/readyz").status == 200
    });
    assert!(up, "the server got ready");
    ready(addr);
    std::thread::sleep(Duration::from_secs(3));
    let pid = child.id().to_string();
    let samples: Vec<u64> = (0..5)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(400));
            status_kb(&pid, "VmRSS")
        })
        .collect();
    // SAFETY: SIGTERM to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();
    *samples.iter().max().unwrap()
}

fn server(file: Vec<u8>) {
    let files = http::FileServer::start(file);
    let dir = common::web::temp_data_dir();
    let url = files.url("/sked-{season}.csv");
    let idle = server_rss(
        &["--eibi-url", "off", "--data-dir", dir.to_str().unwrap()],
        |_| {},
    );
    let loaded = server_rss(
        &["--eibi-url", &url, "--data-dir", dir.to_str().unwrap()],
        |a| {
            let r = common::web::post_json(a, "/api/v1/eibi/fetch", &serde_json::json!({}));
            assert_eq!(r.status, 202);
            let ok = common::wait_for(Duration::from_secs(30), || {
                common::web::get(a, "/api/v1/eibi/status").json()["loaded"] == true
            });
            assert!(ok, "the schedule loaded");
            // the routes a page uses, once
            common::web::get(a, "/api/v1/eibi/segments?start=5900000&end=6200000");
            common::web::get(a, "/api/v1/eibi/identify?freq=6070000");
        },
    );
    println!(
        "Server RSS (simulated radio, no clients): idle {idle} kB, with the schedule loaded {loaded} kB: +{} kB (budget +4096 kB)",
        loaded as i64 - idle as i64
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let rows = arg("--rows", 10_500) as usize;
    let queries = arg("--queries", 2000) as usize;
    let file = eibi(rows, queries);
    band_plans(queries);
    dx(100_000);
    server(file);
}
