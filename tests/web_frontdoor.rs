//! The front door against what a hostile client or a scanner sends (issue 10): each
//! case of the issue as a regression test, plain and (where TLS matters) over TLS, plus
//! HTTPS onboarding and a `wss://` client whose only trust root is the automatic CA.

#[macro_use]
mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::wait_for;
use common::web::*;
use rigweb::app::{Running, Tuning};
use rigweb::web::context::WebConfig;
use serde_json::{Value, json};
use tungstenite::Message;

static PANICS: AtomicUsize = AtomicUsize::new(0);

/// Counts panics of every thread in this process (the server runs in it).
fn count_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            previous(info);
        }));
    });
}

fn server_with(web: WebConfig) -> Running {
    start_server(
        serve_config("ic7610", None),
        Tuning {
            web: Some(web),
            ..Tuning::default()
        },
    )
}

fn assert_json_error(r: &HttpResponse, status: u16, code: &str) {
    assert_eq!(r.status, status, "{r:?}");
    let v = r.json();
    assert_eq!(v["error"], code, "{v}");
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
}

/// Reads until the server closes the connection (or 5 s pass); true if it did close.
fn closes(s: &mut impl Read) -> bool {
    let end = Instant::now() + Duration::from_secs(5);
    let mut buf = [0u8; 4096];
    while Instant::now() < end {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return true,
        }
    }
    false
}

/// A TCP connection from another loopback address (caps count per address).
fn connect_from(local: [u8; 4], addr: SocketAddr) -> TcpStream {
    // SAFETY: plain socket calls on a descriptor we own until it becomes the TcpStream.
    unsafe {
        use std::os::fd::FromRawFd;
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0);
        let mut sa: libc::sockaddr_in = std::mem::zeroed();
        sa.sin_family = libc::AF_INET as libc::sa_family_t;
        sa.sin_addr.s_addr = u32::from_ne_bytes(local);
        let rc = libc::bind(
            fd,
            &sa as *const _ as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        );
        assert_eq!(rc, 0, "bind {local:?}: {}", std::io::Error::last_os_error());
        let SocketAddr::V4(to) = addr else {
            panic!("IPv4 only")
        };
        sa.sin_addr.s_addr = u32::from_ne_bytes(to.ip().octets());
        sa.sin_port = to.port().to_be();
        let rc = libc::connect(
            fd,
            &sa as *const _ as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        );
        assert_eq!(rc, 0, "connect: {}", std::io::Error::last_os_error());
        let s = TcpStream::from_raw_fd(fd);
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s
    }
}

both_ways!(a_huge_head_gets_431_and_the_connection_closes);
fn a_huge_head_gets_431_and_the_connection_closes() {
    let srv = server_with(WebConfig::default());
    let a = srv.addr();
    let mut s = connect(a);
    s.write_all(b"GET /api/v1/state HTTP/1.1\r\nHost: x\r\nX-Big: ")
        .unwrap();
    // the server answers after 16 KiB and drains what follows for a while (up to
    // 256 KiB, so that the answer is read, not reset away): 128 KiB more than the limit.
    // (Much more and the server resets the connection, as it must; a TLS client then
    // fails reading, since rustls first tries to write what it still holds.)
    let chunk = vec![b'a'; 64 * 1024];
    for _ in 0..2 {
        if s.write_all(&chunk).is_err() {
            break;
        }
    }
    let r = read_response(&mut s);
    assert_json_error(&r, 431, "request_header_too_large");
    assert_eq!(r.header("connection"), Some("close"));
    assert_eq!(get(a, "/healthz").status, 200);
    srv.shutdown();
}

both_ways!(other_protocol_versions_get_505_and_are_closed);
fn other_protocol_versions_get_505_and_are_closed() {
    let srv = server_with(WebConfig::default());
    let a = srv.addr();
    for line in ["GET / HTTP/2.0", "GET / HTTP/0.9", "PRI * HTTP/2.0"] {
        let mut s = connect(a);
        s.write_all(format!("{line}\r\nHost: x\r\n\r\n").as_bytes())
            .unwrap();
        assert_json_error(&read_response(&mut s), 505, "http_version_not_supported");
        assert!(
            closes(&mut s),
            "{line}: the connection is closed, not leaked"
        );
    }
    srv.shutdown();
}

both_ways!(malformed_framing_is_refused_with_json);
fn malformed_framing_is_refused_with_json() {
    let srv = server_with(WebConfig::default());
    let a = srv.addr();
    // two different Content-Length headers (request smuggling)
    let r = raw(
        a,
        b"POST /api/v1/radio/power HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 15\r\nContent-Length: 14\r\n\r\n{\"state\":\"on\"}",
    );
    assert_json_error(&r, 400, "bad_request");
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .contains("Content-Length")
    );
    // Expect other than 100-continue: 417 with a body (it was empty before)
    let r = raw(
        a,
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n",
    );
    assert_json_error(&r, 417, "expectation_failed");
    // bare LF: refused at once (it hung for 31 s before)
    let t = Instant::now();
    let r = raw(a, b"GET /healthz HTTP/1.1\nHost: x\n\n");
    assert_json_error(&r, 400, "bad_request");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // Expect: 100-continue: the interim answer, then the real one
    let mut s = connect(a);
    s.write_all(
        b"POST /api/v1/radio/power HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Expect: 100-continue\r\nContent-Length: 14\r\n\r\n",
    )
    .unwrap();
    let interim = read_response(&mut s);
    assert_eq!(interim.status, 100);
    s.write_all(b"{\"state\":\"on\"}").unwrap();
    assert_eq!(read_response(&mut s).status, 200);
    // chunked bodies are read whole
    let r = raw(
        a,
        b"POST /api/v1/radio/power HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Transfer-Encoding: chunked\r\n\r\n6\r\n{\"stat\r\n8\r\ne\":\"on\"}\r\n0\r\n\r\n",
    );
    assert_eq!(r.status, 200, "{:?}", String::from_utf8_lossy(&r.body));
    srv.shutdown();
}

both_ways!(duplicate_json_keys_are_invalid_json_naming_the_key);
fn duplicate_json_keys_are_invalid_json_naming_the_key() {
    let srv = server_with(WebConfig::default());
    let a = srv.addr();
    let r = http(
        a,
        "POST",
        "/api/v1/radio/power",
        &[("Content-Type", "application/json")],
        Some(br#"{"state":"off","state":"on"}"#),
    );
    assert_json_error(&r, 400, "invalid_json");
    assert!(r.json()["message"].as_str().unwrap().contains("\"state\""));
    assert_eq!(
        get(a, "/api/v1/state").json()["powerOn"],
        true,
        "the radio was not touched"
    );
    let mut ws = Ws::control(a);
    ws.next(Duration::from_secs(2)); // hello
    ws.ws
        .send(Message::Text(
            r#"{"type":"cmd","id":"1","name":"set_power","params":{"level":1,"level":200}}"#.into(),
        ))
        .unwrap();
    let e = ws.next(Duration::from_secs(2)).expect("an answer");
    assert_eq!(e["error"], "invalid_json", "{e}");
    assert!(e["message"].as_str().unwrap().contains("\"level\""), "{e}");
    srv.shutdown();
}

#[test]
fn slowloris_at_the_cap_is_refused_before_reading_and_others_are_served() {
    let web = WebConfig {
        head_timeout: Duration::from_secs(2),
        ..WebConfig::default()
    };
    let mut cfg = serve_config("ic7610", None);
    cfg.max_connections_per_client = 8;
    let srv = start_server(
        cfg,
        Tuning {
            web: Some(web),
            ..Tuning::default()
        },
    );
    let a = srv.addr();
    let mut slow: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut s = connect_from([127, 0, 0, 9], a);
            s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nX-a: ").unwrap();
            s
        })
        .collect();
    // (threads and memory under slow clients: `cargo bench --bench frontdoor`)
    std::thread::sleep(Duration::from_millis(200));
    // the ninth from that address: 503 at once, nothing read
    let mut ninth = connect_from([127, 0, 0, 9], a);
    assert_json_error(&read_response(&mut ninth), 503, "too_many_connections");
    // other clients are served meanwhile
    let mut other = connect_from([127, 0, 0, 10], a);
    other
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    assert_eq!(read_response(&mut other).status, 200);
    // a slow head is answered 408 at the deadline, and its place comes free
    for s in &mut slow {
        assert_json_error(&read_response(s), 408, "request_timeout");
    }
    assert!(wait_for(Duration::from_secs(5), || {
        let mut s = connect_from([127, 0, 0, 9], a);
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .is_ok()
            && read_response(&mut s).status == 200
    }));
    srv.shutdown();
}

both_ways!(clients_closing_early_cause_no_panic_and_no_harm);
fn clients_closing_early_cause_no_panic_and_no_harm() {
    count_panics();
    let srv = server_with(WebConfig::default());
    let a = srv.addr();
    let before = PANICS.load(Ordering::SeqCst);
    for i in 0..300 {
        // over TLS some leave during the handshake, some after the request
        let mut s = connect(a);
        if s.is_tls() && i % 2 == 1 {
            let _ = s.tcp().write_all(b"\x16\x03\x01\x02\x00\x01");
            continue;
        }
        let req = if i % 3 == 0 {
            upgrade_request("/api/v1/ws")
        } else {
            b"GET /api/v1/capabilities HTTP/1.1\r\nHost: x\r\n\r\n".to_vec()
        };
        let _ = s.write_all(&req);
        drop(s);
    }
    // their places under the per-client cap come free as the server notices them leave
    assert!(wait_for(Duration::from_secs(5), || get(a, "/api/v1/info")
        .status
        == 200));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(PANICS.load(Ordering::SeqCst), before, "no thread panicked");
    let mut ws = Ws::control(a);
    assert_eq!(ws.cmd("1", "set_power", json!({"level": 3}))["ok"], true);
    srv.shutdown();
}

both_ways!(responses_on_a_kept_alive_connection_are_not_held_by_nagle);
fn responses_on_a_kept_alive_connection_are_not_held_by_nagle() {
    let srv = server_with(WebConfig::default());
    let mut s = connect(srv.addr());
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    // a response of a few KB on a reused connection waited 40 ms for a delayed ACK
    let t = Instant::now();
    for _ in 0..20 {
        s.write_all(b"GET /api/v1/capabilities HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let r = read_response(&mut s);
        assert_eq!(r.status, 200);
        assert!(r.body.len() > 1000);
    }
    let per_request = t.elapsed() / 20;
    assert!(
        per_request < Duration::from_millis(20),
        "{per_request:?} per request: Nagle's algorithm is on"
    );
    srv.shutdown();
}

#[test]
fn https_with_the_local_ca_and_the_onboarding_port() {
    let mut cfg = serve_config("ic7610", None);
    let data_dir = temp_data_dir();
    cfg.tls = Some(rigweb::web::tls::TlsSource::Auto {
        data_dir: data_dir.clone(),
    });
    cfg.onboarding_listen = Some(SocketAddr::from(([127, 0, 0, 1], 0)));
    let srv = start_server(cfg, Tuning::default());
    let (a, o) = (srv.addr(), srv.web.onboarding_addr().unwrap());
    // plain HTTP on the onboarding port: the CA, the profile, the how-to, redirects
    let ca = get(o, "/ca.pem");
    assert_eq!(ca.status, 200);
    let ca_pem = String::from_utf8(ca.body).unwrap();
    assert!(ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));
    let der = get(o, "/ca.crt");
    assert_eq!(
        der.header("content-type"),
        Some("application/x-x509-ca-cert")
    );
    assert_eq!(der.body[0], 0x30, "DER");
    let profile = get(o, "/rigweb.mobileconfig");
    assert_eq!(
        profile.header("content-type"),
        Some("application/x-apple-aspen-config")
    );
    assert!(String::from_utf8_lossy(&profile.body).contains("com.apple.security.root"));
    assert!(String::from_utf8_lossy(&get(o, "/").body).contains("iPhone"));
    let r = get(o, "/api/v1/state?x=1");
    assert_json_error(&r, 308, "https_required");
    assert_eq!(
        r.header("location"),
        Some(format!("https://test:{}/api/v1/state?x=1", a.port()).as_str())
    );
    // plain HTTP on the TLS port: a redirect, not a hang or a reset
    let mut plain = TcpStream::connect(a).unwrap();
    plain
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    plain
        .write_all(b"GET /api/v1/info HTTP/1.1\r\nHost: rig:1\r\n\r\n")
        .unwrap();
    let r = read_response(&mut plain);
    assert_json_error(&r, 308, "https_required");
    assert_eq!(r.header("location"), Some("https://rig:1/api/v1/info"));
    // a wss:// client that trusts only the CA it downloaded
    let trust = client_config(&ca_pem);
    let tcp = TcpStream::connect(a).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let (mut ws, resp) = tungstenite::client(
        format!("wss://127.0.0.1:{}/api/v1/ws", a.port()),
        tls_over(tcp, trust.clone()),
    )
    .expect("wss handshake");
    assert_eq!(resp.status().as_u16(), 101);
    let hello = ws.read().unwrap();
    assert!(hello.to_text().unwrap().contains("\"hello\""));
    ws.send(Message::Text(
        json!({"type":"cmd","id":"w","name":"set_power","params":{"level":7}})
            .to_string()
            .into(),
    ))
    .unwrap();
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        assert!(Instant::now() < end, "no response over wss");
        if let Message::Text(t) = ws.read().unwrap() {
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v["type"] == "response" && v["id"] == "w" {
                assert_eq!(v["ok"], true, "{v}");
                break;
            }
        }
    }
    // a client that does not trust the CA fails the handshake (and the server is fine)
    let stranger = client_config(&srv_unrelated_ca());
    let tcp = TcpStream::connect(a).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut untrusting = tls_over(tcp, stranger);
    assert!(untrusting.write_all(b"GET / HTTP/1.1\r\n\r\n").is_err());
    assert_eq!(
        raw(a, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").status,
        200
    );
    // the CA and the certificate are kept across restarts
    srv.shutdown();
    let mut cfg = serve_config("ic7610", None);
    cfg.tls = Some(rigweb::web::tls::TlsSource::Auto {
        data_dir: data_dir.clone(),
    });
    let again = start_server(cfg, Tuning::default());
    assert_eq!(again.web.ca_pem().as_deref(), Some(ca_pem.as_str()));
    let tcp = TcpStream::connect(again.addr()).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut s = tls_over(tcp, trust);
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    assert_eq!(read_response(&mut s).status, 200);
    again.shutdown();
    let _ = std::fs::remove_dir_all(&data_dir);
}

/// The CA of another, unrelated automatic setup.
fn srv_unrelated_ca() -> String {
    let dir = temp_data_dir();
    let provider = rigweb::web::tls::TlsProvider::new(rigweb::web::tls::TlsSource::Auto {
        data_dir: dir.clone(),
    })
    .unwrap();
    let pem = provider.ca_pem().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    pem
}
