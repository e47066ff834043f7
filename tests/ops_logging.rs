//! The binary as an operator meets it: logs without ANSI codes when redirected and with
//! journald priorities under journald, the start-up line, a clear error for a port in
//! use, readiness and watchdog notifications, and a clean exit on SIGTERM.

use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixDatagram;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("rigweb-ops-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Starts the server on a free loopback port with stderr into `log`.
fn start(log: &std::path::Path, env: &[(&str, String)], extra: &[&str]) -> Child {
    let file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(log)
        .unwrap();
    Command::new(env!("CARGO_BIN_EXE_rigweb"))
        .args(["--listen", "127.0.0.1:0"])
        .args(extra)
        .env_remove("JOURNAL_STREAM")
        .env_remove("NOTIFY_SOCKET")
        .env_remove("WATCHDOG_USEC")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(Stdio::null())
        .stderr(file)
        .spawn()
        .unwrap()
}

fn wait_for_text(log: &std::path::Path, text: &str) -> String {
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let s = std::fs::read_to_string(log).unwrap_or_default();
        if s.contains(text) || Instant::now() > end {
            return s;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// SIGTERM, then the exit status and how long it took.
fn terminate(mut child: Child) -> (std::process::ExitStatus, Duration) {
    let t0 = Instant::now();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let end = t0 + Duration::from_secs(30);
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return (st, t0.elapsed());
        }
        if Instant::now() > end {
            let _ = child.kill();
            panic!("no exit within 30 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn redirected_logs_have_no_colour_and_a_start_up_line() {
    let d = temp("plain");
    let log = d.join("stderr");
    let child = start(&log, &[], &["--auth-token", "tok-123"]);
    let text = wait_for_text(&log, "serving http://");
    let (status, took) = terminate(child);
    let text = text + &std::fs::read_to_string(&log).unwrap();
    assert!(status.success(), "{status:?}\n{text}");
    assert!(took < Duration::from_secs(15), "stop took {took:?}");
    assert!(
        !text.contains('\u{1b}'),
        "ANSI codes in a redirected log:\n{text}"
    );
    let line = text
        .lines()
        .find(|l| l.contains("serving http://127.0.0.1:"))
        .unwrap();
    for part in ["radio: built-in simulated IC-7610", "TLS: off", "auth: on"] {
        assert!(line.contains(part), "{part} missing: {line}");
    }
    assert!(!text.contains("tok-123"), "the token is never logged");
    assert!(
        text.contains("[INFO]") && text.contains("stopped"),
        "{text}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn under_journald_lines_carry_priorities() {
    let d = temp("journal");
    let log = d.join("stderr");
    std::fs::write(&log, "").unwrap();
    let m = std::fs::metadata(&log).unwrap();
    let stream = format!("{}:{}", m.dev(), m.ino());
    let child = start(&log, &[("JOURNAL_STREAM", stream)], &[]);
    wait_for_text(&log, "serving http://");
    let (status, _) = terminate(child);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(status.success());
    assert!(text.lines().any(|l| l.starts_with("<6>rigweb ")), "{text}");
    assert!(
        text.lines().all(|l| l.starts_with('<')),
        "every line has a priority:\n{text}"
    );
    assert!(
        !text.contains("[INFO]"),
        "no simplelog format under journald:\n{text}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_port_in_use_is_named() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_rigweb"))
        .args(["--listen", &addr])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("cannot listen on {addr}")), "{err}");
    assert!(err.contains("in use"), "{err}");
}

#[test]
fn systemd_hears_ready_watchdog_and_stopping() {
    let d = temp("notify");
    let sock_path = d.join("notify");
    let sock = UnixDatagram::bind(&sock_path).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let log = d.join("stderr");
    let child = start(
        &log,
        &[
            ("NOTIFY_SOCKET", sock_path.to_str().unwrap().to_string()),
            ("WATCHDOG_USEC", "400000".to_string()),
        ],
        &[],
    );
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while seen
        .iter()
        .filter(|m: &&String| m.as_str() == "WATCHDOG=1")
        .count()
        < 2
    {
        let n = sock.recv(&mut buf).expect("a notification within 60 s");
        seen.push(String::from_utf8_lossy(&buf[..n]).into_owned());
    }
    assert!(seen[0].starts_with("READY=1"), "ready first: {seen:?}");
    let (status, _) = terminate(child);
    assert!(status.success());
    let mut rest = Vec::new();
    sock.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    while let Ok(n) = sock.recv(&mut buf) {
        rest.push(String::from_utf8_lossy(&buf[..n]).into_owned());
    }
    assert!(rest.iter().any(|m| m == "STOPPING=1"), "{rest:?}");
    std::fs::remove_dir_all(&d).unwrap();
}
