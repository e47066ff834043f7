//! The server when the process runs out of file descriptors: the front door refuses
//! connections that would leave too few descriptors, `accept(2)` fails with `EMFILE`
//! while a flood of connections holds every descriptor (it pauses and keeps the
//! backlog); once they close, new clients are served again, REST and WebSockets. Alone in its test binary because it lowers the process's
//! open-file limit.

mod common;

use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::wait_for;
use common::web::*;
use rigweb::app::Tuning;

fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0)
}

fn set_soft_limit(n: u64) -> u64 {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain rlimit calls on a valid struct.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut r), 0);
        let old = r.rlim_cur;
        r.rlim_cur = n.min(r.rlim_max);
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &r), 0);
        old
    }
}

#[test]
fn running_out_of_file_descriptors_does_not_stop_accepting() {
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    assert_eq!(get(a, "/healthz").status, 200);
    let old = set_soft_limit(open_descriptors() as u64 + 64);
    // every connection costs a descriptor here and one in the server's accept, so the
    // flood ends when this process has none left
    let mut flood = Vec::new();
    while let Ok(s) = TcpStream::connect(a) {
        flood.push(s);
        assert!(flood.len() < 1_000, "the limit was not reached");
    }
    // the server meets EMFILE in accept. If it had accepted every connection before the
    // last descriptor went, keep one client waiting in the backlog (close one connection,
    // open another) so that it has to accept with none left, for a while
    let churn_until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < churn_until && flood.len() >= 2 {
        drop(flood.pop());
        if let Ok(s) = TcpStream::connect(a) {
            flood.push(s);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // descriptors come back
    drop(flood);
    set_soft_limit(old);
    // descriptors are back: clients are accepted and served, not refused
    let served = wait_for(Duration::from_secs(10), || {
        get(a, "/api/v1/info").status == 200
    });
    assert!(served);
    let mut ws = Ws::control(a);
    assert_eq!(
        ws.cmd("1", "set_power", serde_json::json!({"level": 4}))["ok"],
        true
    );
    srv.shutdown();
}
