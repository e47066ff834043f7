//! `--tls-auto` renewal while the server runs (TlsProvider::maintain, as the front door
//! calls it): new connections get the new certificate, open ones (HTTPS kept alive and
//! `wss://`) go on, and the onboarding port serves the CA as it is now.

mod common;

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::web::*;
use rigweb::app::Tuning;
use rigweb::web::tls::{CHECK_EVERY, TlsSource};
use serde_json::json;

fn healthz(s: &mut Conn) -> u16 {
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    read_response(s).status
}

/// The server certificate a TLS connection got.
fn leaf(s: &Conn) -> Vec<u8> {
    match s {
        Conn::Tls(t) => t.conn.peer_certificates().unwrap()[0].as_ref().to_vec(),
        Conn::Plain(_) => panic!("not TLS"),
    }
}

fn connect_trusting(a: SocketAddr, ca_pem: &str) -> Conn {
    let tcp = TcpStream::connect(a).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    tls_over(tcp, client_config(ca_pem))
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[test]
fn renewal_serves_new_connections_and_keeps_open_ones() {
    let data_dir = temp_data_dir();
    let mut cfg = serve_config("ic7610", None);
    cfg.tls = Some(TlsSource::Auto {
        data_dir: data_dir.clone(),
    });
    cfg.onboarding_listen = Some(SocketAddr::from(([127, 0, 0, 1], 0)));
    let srv = start_server(cfg, Tuning::default());
    let (a, o) = (srv.addr(), srv.web.onboarding_addr().unwrap());
    let tls = srv.web.tls().unwrap().clone();
    let tls_dir = data_dir.join("tls");
    let ca0 = srv.web.ca_pem().unwrap();
    let mut open = connect_trusting(a, &ca0);
    assert_eq!(healthz(&mut open), 200);
    let cert0 = leaf(&open);
    let mut ws = Ws::control(a);
    ws.next(Duration::from_secs(2)); // hello

    // 1. the server certificate is due (its record says a day is left): a new one under
    // the same CA
    let meta_path = tls_dir.join("server.json");
    let mut meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_path).unwrap()).unwrap();
    meta["not_after"] = json!(unix_now() + 86_400);
    std::fs::write(&meta_path, meta.to_string()).unwrap();
    let started = Instant::now();
    tls.maintain(Instant::now() + CHECK_EVERY + Duration::from_secs(1));
    // key generation and signing run on the front door's thread (docs/ARCHITECTURE.md)
    eprintln!(
        "renewal of the server certificate took {:?}",
        started.elapsed()
    );
    let mut fresh = connect_trusting(a, &ca0);
    assert_eq!(healthz(&mut fresh), 200);
    assert_ne!(
        leaf(&fresh),
        cert0,
        "a new connection gets the new certificate"
    );
    assert_eq!(healthz(&mut open), 200, "an open connection goes on");
    assert_eq!(ws.cmd("1", "set_power", json!({"level": 4}))["ok"], true);

    // 2. the CA is due (its record says 30 days are left): a new CA, served at once by
    // the onboarding port, and a chain under it for new connections
    std::fs::write(
        tls_dir.join("ca.json"),
        (unix_now() + 30 * 86_400).to_string(),
    )
    .unwrap();
    tls.maintain(Instant::now() + 3 * CHECK_EVERY);
    let ca1 = String::from_utf8(get(o, "/ca.pem").body).unwrap();
    assert_ne!(ca1, ca0, "the onboarding port serves the new CA");
    assert_eq!(Some(ca1.as_str()), srv.web.ca_pem().as_deref());
    let mut under_new = connect_trusting(a, &ca1);
    assert_eq!(healthz(&mut under_new), 200);
    let mut under_old = connect_trusting(a, &ca0);
    assert!(
        under_old
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .is_err(),
        "the old CA no longer vouches for new connections"
    );
    assert_eq!(
        healthz(&mut open),
        200,
        "the first connection still goes on"
    );
    assert_eq!(ws.cmd("2", "set_power", json!({"level": 5}))["ok"], true);
    srv.shutdown();
    let _ = std::fs::remove_dir_all(&data_dir);
}
