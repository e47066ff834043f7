//! Browser UI figures (issue "Browser UI"): page weight raw and gzip, time from load to
//! the first waterfall line, browser CPU while the scope runs at 30 fps (DevTools
//! `Performance.getMetrics`, plus the OS's count for all Chromium processes), the scope
//! frame rate the page draws, and the RX audio latency the page measures (when the
//! server has `/api/v1/audio`).
//!
//! `cargo bench --bench ui -- [--seconds S] [--model ic705]` (default 10 s per CPU run
//! at 1440x900, a phone upright 390x844 and on its side 844x390; the simulated
//! IC-7610). Needs Debian's chromium. The server and its simulator run in this process.

#[path = "../tests/ui_browser/cdp.rs"]
mod cdp;
#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/ui_browser/page_scripts.rs"]
mod page_scripts;
#[path = "support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use cdp::{Browser, Page};
use common::web::{http, serve_config, start_server};
use rigweb::app::Tuning;

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// CPU time of every Chromium process of this run (their command lines name our
/// profile directory), ms.
fn chromium_cpu_ms(browser_pid: u32) -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let marker = format!("chromium-profile-{}", std::process::id());
    let mut total = 0;
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.parse::<u32>().is_err() {
            continue;
        }
        let cmd = std::fs::read(format!("/proc/{name}/cmdline")).unwrap_or_default();
        let ours =
            String::from_utf8_lossy(&cmd).contains(&marker) || name == browser_pid.to_string();
        if ours {
            total += support::cpu_time(&name).as_millis() as u64;
        }
    }
    total
}

fn load(page: &Page, url: &str) -> f64 {
    page.navigate(url);
    page.wait_for(
        "window.rigweb && window.rigweb.scope.firstLineMs !== null",
        Duration::from_secs(30),
    );
    page.eval("window.rigweb.scope.firstLineMs")
        .as_f64()
        .unwrap_or(f64::NAN)
}

fn cpu_run(
    browser: &'static Browser,
    url: &str,
    width: u32,
    height: u32,
    phone: bool,
    seconds: u64,
) {
    let page = browser.new_page(width, height);
    if phone {
        page.emulate_phone(width, height);
    }
    load(&page, url);
    page.wait_for("window.rigweb.scope.rows > 30", Duration::from_secs(20));
    std::thread::sleep(Duration::from_secs(2));
    let m0 = page.metrics();
    let rows0 = page.eval("window.rigweb.scope.rows").as_f64().unwrap();
    let os0 = chromium_cpu_ms(browser.pid());
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs(seconds));
    let m1 = page.metrics();
    let rows1 = page.eval("window.rigweb.scope.rows").as_f64().unwrap();
    let os1 = chromium_cpu_ms(browser.pid());
    let wall = t0.elapsed().as_secs_f64();
    let d = |k: &str| {
        (m1.get(k).copied().unwrap_or(0.0) - m0.get(k).copied().unwrap_or(0.0)) / wall * 100.0
    };
    let draw_ms = page
        .eval("window.rigweb.scope.drawMs")
        .as_f64()
        .unwrap_or(f64::NAN);
    println!(
        "  {width}x{height}{}: {:.1} scope lines/s drawn; renderer main thread busy {:.1} % (script {:.1} %, layout {:.1} %, style {:.1} %); \
         all Chromium processes {:.1} % of one core; {:.2} ms per drawn frame",
        if phone { " phone" } else { "" },
        (rows1 - rows0) / wall,
        d("TaskDuration"),
        d("ScriptDuration"),
        d("LayoutDuration"),
        d("RecalcStyleDuration"),
        (os1 - os0) as f64 / 10.0 / wall,
        draw_ms,
    );
}

fn main() {
    let seconds = arg("--seconds", 10);
    if cdp::chromium_path().is_none() {
        println!("ui: chromium is not installed; nothing to measure");
        return;
    }
    let model = std::env::args()
        .skip_while(|a| a != "--model")
        .nth(1)
        .unwrap_or_else(|| "ic7610".into());
    println!("simulated {model}");
    let srv = start_server(serve_config(&model, None), Tuning::default());
    let addr = srv.addr();
    let url = format!("http://{addr}/");
    let raw = http(addr, "GET", "/", &[], None);
    let gz = http(addr, "GET", "/", &[("Accept-Encoding", "gzip")], None);
    println!(
        "page weight: {} bytes raw, {} bytes gzip ({})",
        raw.body.len(),
        gz.body.len(),
        gz.header("content-encoding").unwrap_or("?")
    );

    let browser = Browser::shared();
    // warm up the browser once, then time fresh loads
    let page = browser.new_page(1440, 900);
    load(&page, &url);
    drop(page);
    let mut firsts = Vec::new();
    for _ in 0..5 {
        let page = browser.new_page(1440, 900);
        firsts.push(load(&page, &url));
    }
    firsts.sort_by(f64::total_cmp);
    println!(
        "load to first waterfall line: median {:.0} ms (min {:.0}, max {:.0}; 5 loads, navigation start to the first drawn row)",
        firsts[2], firsts[0], firsts[4]
    );

    println!(
        "browser CPU with the scope at 30 fps over {seconds} s (2-core machine, software rendering):"
    );
    cpu_run(browser, &url, 1440, 900, false, seconds);
    cpu_run(browser, &url, 390, 844, true, seconds);
    cpu_run(browser, &url, 844, 390, true, seconds);

    let page = browser.new_page(1280, 900);
    load(&page, &url);
    page.click("#listen");
    std::thread::sleep(Duration::from_secs(3));
    let audio = page.eval("window.rigweb.audio");
    if audio["frames"].as_u64().unwrap_or(0) > 0 {
        std::thread::sleep(Duration::from_secs(5));
        let a = page.eval("window.rigweb.audio");
        println!(
            "RX audio: {} latency {} ms as the page measures it (buffer {:.0} ms, target {:.0} ms, decode {:.1} ms, {} underruns, {} frames lost)",
            a["codec"],
            a["latencyMs"],
            a["avgMs"].as_f64().unwrap_or(0.0),
            a["targetMs"].as_f64().unwrap_or(0.0),
            a["decodeMs"].as_f64().unwrap_or(0.0),
            a["underruns"],
            a["lost"]
        );
    } else {
        println!(
            "RX audio: the server has no /api/v1/audio yet (waits for the streams merge); the page's own"
        );
        println!("  pipeline with Opus frames made in the page and fed every 20 ms (no network):");
        let page = browser.new_page(1280, 900);
        load(&page, &url);
        page.eval(&page_scripts::feed_tone("opus"));
        std::thread::sleep(Duration::from_secs(2));
        let a = page.eval("window.rigweb.audio");
        println!(
            "  latency {} ms (buffer {:.0} ms, target {:.0} ms, decode {:.1} ms, output stage included, {} underruns)",
            a["latencyMs"],
            a["avgMs"].as_f64().unwrap_or(0.0),
            a["targetMs"].as_f64().unwrap_or(0.0),
            a["decodeMs"].as_f64().unwrap_or(0.0),
            a["underruns"]
        );
    }
    srv.shutdown();
}
