//! A client that pipelines requests and never reads the answers (its own test binary,
//! so that the memory measured is this server's alone): the front door stops reading
//! it and stops asking tiny_http once a bounded amount waits for it, so the server does
//! not grow, and everybody else is served meanwhile. Plain and over TLS, one after the
//! other (both in one process would blur the measurement).

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::rss_kb;
use common::web::*;
use rigweb::app::Tuning;

fn pipelining_without_reading() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    let page = get(a, "/");
    assert_eq!(page.status, 200);
    assert!(page.body.len() > 100_000, "a large answer");
    let rss0 = rss_kb();
    let mut greedy = connect(a);
    greedy
        .tcp()
        .set_write_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    // 3000 requests for the UI page (140 kB each: 400 MB of answers) at once; the
    // server may stop reading before all of them are sent
    let _ = greedy.write_all(&b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(3000));
    let _ = greedy.flush();
    let end = Instant::now() + Duration::from_secs(4);
    let mut peak = 0;
    while Instant::now() < end {
        // others are served meanwhile
        assert_eq!(get(a, "/healthz").status, 200);
        assert_eq!(get(a, "/api/v1/state").status, 200);
        peak = peak.max(rss_kb().saturating_sub(rss0));
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        peak < 16 * 1024,
        "the server grew by {peak} kB for a client that reads nothing"
    );
    drop(greedy);
    srv.shutdown();
}

#[test]
fn a_client_pipelining_without_reading_grows_nothing_and_others_are_served() {
    run_as(Scheme::Plain, pipelining_without_reading);
    run_as(Scheme::Tls, pipelining_without_reading);
}
