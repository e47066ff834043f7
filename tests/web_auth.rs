//! Bearer-token authentication on and off, REST and WebSockets; the token never
//! appears in the logs (checked on the real binary's output).

#[macro_use]
mod common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::web::*;
use rigweb::app::Tuning;

const TOKEN: &str = "Zq8-token-f00d";

both_ways!(token_required_on_api_routes_only);
fn token_required_on_api_routes_only() {
    let srv = start_server(serve_config("ic7610", Some(TOKEN)), Tuning::default());
    let a = srv.addr();
    let r = get(a, "/api/v1/state");
    assert_eq!(r.status, 401);
    assert_eq!(r.header("www-authenticate"), Some("Bearer"));
    assert_eq!(r.json()["error"], "unauthorized");
    let bearer = format!("Bearer {TOKEN}");
    assert_eq!(
        http(
            a,
            "GET",
            "/api/v1/state",
            &[("Authorization", &bearer)],
            None
        )
        .status,
        200
    );
    assert_eq!(
        http(
            a,
            "GET",
            "/api/v1/state",
            &[("Authorization", "Bearer wrong")],
            None
        )
        .status,
        401
    );
    assert_eq!(
        get(a, &format!("/api/v1/state?token={TOKEN}")).status,
        401,
        "query tokens only on WebSockets"
    );
    assert_eq!(
        get(a, "/api/v1/unknown").status,
        401,
        "auth before routing: no route enumeration"
    );
    let r = http(
        a,
        "POST",
        "/api/v1/radio/power",
        &[("Content-Type", "application/json")],
        Some(b"{\"state\":\"on\"}"),
    );
    assert_eq!(r.status, 401);
    for open in ["/healthz", "/readyz", "/"] {
        assert_eq!(get(a, open).status, 200, "{open} is open");
    }
    // WebSockets: refused with JSON before any upgrade, accepted with header or ?token=
    let refused = Ws::connect(a, "/api/v1/ws", &[]).err().expect("401");
    assert_eq!(refused.status, 401);
    assert!(refused.body.contains("unauthorized"));
    assert_eq!(
        Ws::connect(a, "/api/v1/ws?token=nope", &[])
            .err()
            .unwrap()
            .status,
        401
    );
    assert!(Ws::connect(a, &format!("/api/v1/ws?token={TOKEN}"), &[]).is_ok());
    assert!(Ws::connect(a, "/api/v1/ws", &[("Authorization", &bearer)]).is_ok());
    srv.shutdown();
}

both_ways!(no_token_no_auth);
fn no_token_no_auth() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    assert_eq!(get(srv.addr(), "/api/v1/state").status, 200);
    assert!(Ws::connect(srv.addr(), "/api/v1/ws", &[]).is_ok());
    srv.shutdown();
}

#[test]
fn the_token_never_reaches_the_logs() {
    let dir = std::env::temp_dir().join(format!("rigweb-auth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let token_file = dir.join("token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rigweb"))
        .args([
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--log-level",
            "trace",
        ])
        .arg("--auth-token-file")
        .arg(&token_file)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // the log is read as it comes (a trace log fills a pipe nobody reads, and the server
    // would block on it)
    let mut stderr = child.stderr.take().unwrap();
    let log_reader = std::thread::spawn(move || {
        let mut log = String::new();
        stderr.read_to_string(&mut log).unwrap();
        log
    });
    let a = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    assert!(common::wait_for(Duration::from_secs(10), || {
        std::net::TcpStream::connect(a).is_ok()
    }));
    let bearer = format!("Bearer {TOKEN}");
    assert_eq!(
        http(
            a,
            "GET",
            "/api/v1/info",
            &[("Authorization", &bearer)],
            None
        )
        .status,
        200
    );
    let ws = Ws::connect(a, &format!("/api/v1/ws?token={TOKEN}&x=1"), &[]);
    assert!(ws.is_ok());
    drop(ws);
    // the radio logged in first (a loaded machine may take longer than a moment), so
    // that SIGTERM has a session to log out of
    get(a, &format!("/api/v1/state?token={TOKEN}"));
    assert!(common::wait_for(Duration::from_secs(20), || {
        http(
            a,
            "GET",
            "/api/v1/state",
            &[("Authorization", &bearer)],
            None,
        )
        .json()["connection"]["radioReady"]
            == true
    }));
    // SAFETY: signalling our own child process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    let log = log_reader.join().unwrap();
    assert!(status.success(), "clean exit on SIGTERM: {status:?}\n{log}");
    assert!(
        log.contains("token=***"),
        "the WebSocket URL is logged redacted:\n{log}"
    );
    assert!(
        !log.contains(TOKEN),
        "the token leaked into the log:\n{log}"
    );
    assert!(
        log.contains("logged out"),
        "clean radio logout on SIGTERM:\n{log}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
