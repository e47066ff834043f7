//! The loop itself, driven by hand: a real [`AppCtx`] (its radio link points at a UDP
//! socket that never answers) and a fake tiny_http on a local listener.

use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::Loop;
use crate::lan::control::ControlConfig;
use crate::lan::link::LinkConfig;
use crate::profile::ProfileRegistry;
use crate::radio::executor::ExecutorConfig;
use crate::radio::meter_pump::MeterPump;
use crate::radio::service::{Radio, RadioConfig};
use crate::web::context::{AppCtx, WebConfig};
use crate::web::front::FrontConfig;
use crate::web::front::backend::{Job, ResponseReader};
use crate::web::front::session::SessionLimits;

/// What a test loop needs kept alive.
pub(super) struct Harness {
    pub lp: Loop,
    pub app: Arc<AppCtx>,
    _silent_radio: UdpSocket,
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.app.meters.stop();
        self.app.radio.shutdown();
    }
}

/// A loop without listening ports whose tiny_http is at `backend`.
pub(super) fn harness(backend: SocketAddr, backend_connections: usize) -> Harness {
    let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
    let registry = ProfileRegistry::embedded();
    let radio = Arc::new(
        Radio::start(RadioConfig {
            link: LinkConfig::new(silent.local_addr().unwrap(), ControlConfig::default()),
            profile: registry.get("ic7610").unwrap(),
            registry,
            executor: ExecutorConfig::default(),
            queue: 16,
        })
        .unwrap(),
    );
    let meters = MeterPump::start(radio.clone()).unwrap();
    let app = Arc::new(AppCtx::new(radio, meters, WebConfig::default()));
    let cfg = FrontConfig {
        limits: SessionLimits::default(),
        max_connections: 64,
        max_connections_per_client: 64,
        backend,
        secret: "s".into(),
        backend_connections,
        backend_timeout: Duration::from_secs(60),
    };
    let (_waker, wake) = crate::net::waker::pair().unwrap();
    let lp = Loop::new(
        Vec::new(),
        cfg,
        app.clone(),
        wake,
        Arc::new(AtomicBool::new(false)),
    )
    .unwrap();
    Harness {
        lp,
        app,
        _silent_radio: silent,
    }
}

fn job() -> Job {
    Job {
        client: None,
        bytes: b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        reader: ResponseReader::new(false, false),
    }
}

#[test]
fn backend_connections_failing_while_requests_are_written_panic_nothing() {
    // review: dispatch walked 0..conns.len() fixed at the start while driving a
    // connection that failed removed it: the next index was out of bounds and the
    // front door's thread died
    let tiny = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut h = harness(tiny.local_addr().unwrap(), 3);
    let now = Instant::now();
    for _ in 0..3 {
        h.lp.backend.queue.push_back(job());
    }
    assert!(h.lp.backend.dispatch(now).is_empty());
    assert_eq!(h.lp.backend.conns.len(), 3);
    assert_eq!(h.lp.backend.writers().len(), 3);
    // tiny_http drops every connection before the requests are written
    for _ in 0..3 {
        drop(tiny.accept().unwrap());
    }
    std::thread::sleep(Duration::from_millis(100));
    h.lp.dispatch(now);
    assert!(
        h.lp.backend.conns.is_empty(),
        "the failed connections are gone"
    );
}
