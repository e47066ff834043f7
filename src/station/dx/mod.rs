//! DX-cluster spots: one thread per feed (`--dx-cluster`, repeatable, and `--rbn`) runs
//! a [`session::Session`] over TCP; spots go into one shared [`buffer::SpotBuffer`] and
//! to every subscriber (the control clients that subscribed to `events`, as `dx_spot`).
//! Nothing here touches the radio.

pub mod buffer;
mod client;
pub mod line;
pub mod session;
pub mod spot;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use crossbeam_channel::{Receiver, Sender, bounded};
use parking_lot::Mutex;
use serde_json::{Value, json};

use self::buffer::{Spot, SpotBuffer, SpotQuery, SpotSource};
use self::session::SessionConfig;
use crate::hub::{Fanout, Subscriber, Subscription};
use crate::util::time::iso8601;
use crate::wire::civ::Mode;

/// One feed: a cluster node or a skimmer server.
#[derive(Debug, Clone)]
pub struct FeedConfig {
    /// `HOST:PORT`.
    pub address: String,
    /// What it is.
    pub source: SpotSource,
}

/// The DX service's settings.
#[derive(Debug, Clone)]
pub struct DxConfig {
    /// The feeds.
    pub feeds: Vec<FeedConfig>,
    /// Call sign, password and timers (shared by the feeds).
    pub session: SessionConfig,
    /// Longest wait for a TCP connection.
    pub connect_timeout: Duration,
}

/// The mode a frequency implies (from the band plan), for spots whose comment names none.
pub type ModeHint = Arc<dyn Fn(u64) -> Option<Mode> + Send + Sync>;

/// What one feed is doing.
#[derive(Debug, Clone)]
pub struct FeedStatus {
    /// `HOST:PORT`.
    pub address: String,
    /// What it is.
    pub source: SpotSource,
    /// A TCP connection is up and the call was sent.
    pub connected: bool,
    /// The node's call, once it named itself.
    pub node: Option<String>,
    /// When its last spot arrived.
    pub last_spot_at: Option<SystemTime>,
    /// Why it is not connected (or what went wrong last).
    pub error: Option<String>,
    /// Lines dropped for being longer than 4 KiB.
    pub dropped_lines: u64,
    /// Spots it delivered.
    pub spots: u64,
}

impl FeedStatus {
    fn json(&self) -> Value {
        json!({
            "address": self.address,
            "source": self.source.as_str(),
            "connected": self.connected,
            "node": self.node,
            "last_spot_at": self.last_spot_at.map(iso8601),
            "error": self.error,
            "dropped_lines": self.dropped_lines,
            "spots": self.spots,
        })
    }
}

pub(crate) struct Shared {
    buffer: Mutex<SpotBuffer>,
    feeds: Vec<Mutex<FeedStatus>>,
    spots: Arc<Fanout<Spot>>,
    mode_hint: ModeHint,
    merged: AtomicU64,
    /// Each feed's socket, so that [`DxService::stop`] can end a blocking read.
    sockets: Vec<Mutex<Option<std::net::TcpStream>>>,
    /// Disconnected when the service stops.
    stop_rx: Receiver<()>,
}

impl Shared {
    /// Files a spot line from feed `feed`.
    fn take_spot(&self, feed: usize, line: spot::SpotLine, now: SystemTime) {
        let mode = super::rig_mode::mode_from_comment(&line.comment, line.freq_hz)
            .or_else(|| (self.mode_hint)(line.freq_hz));
        let source = self.feeds[feed].lock().source;
        let spot = Arc::new(Spot {
            line,
            received_at: now,
            source,
            mode,
        });
        if self.buffer.lock().insert(spot.clone()) {
            self.merged.fetch_add(1, Ordering::Relaxed);
        }
        {
            let mut f = self.feeds[feed].lock();
            f.last_spot_at = Some(now);
            f.spots += 1;
        }
        self.spots.publish_shared(&spot);
    }

    fn stopping(&self) -> bool {
        matches!(
            self.stop_rx.try_recv(),
            Err(crossbeam_channel::TryRecvError::Disconnected)
        )
    }
}

/// See the module docs.
pub struct DxService {
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    stop_tx: Mutex<Option<Sender<()>>>,
}

impl DxService {
    /// Starts a thread per feed.
    pub fn start(cfg: DxConfig, mode_hint: ModeHint) -> std::io::Result<DxService> {
        let (stop_tx, stop_rx) = bounded(0);
        let shared = Arc::new(Shared {
            buffer: Mutex::new(SpotBuffer::default()),
            feeds: cfg
                .feeds
                .iter()
                .map(|f| {
                    Mutex::new(FeedStatus {
                        address: f.address.clone(),
                        source: f.source,
                        connected: false,
                        node: None,
                        last_spot_at: None,
                        error: None,
                        dropped_lines: 0,
                        spots: 0,
                    })
                })
                .collect(),
            spots: Fanout::new(),
            mode_hint,
            merged: AtomicU64::new(0),
            sockets: cfg.feeds.iter().map(|_| Mutex::new(None)).collect(),
            stop_rx,
        });
        let mut threads = Vec::new();
        for (i, feed) in cfg.feeds.iter().enumerate() {
            let (sh, c, f) = (shared.clone(), cfg.clone(), feed.clone());
            threads.push(
                std::thread::Builder::new()
                    .name(format!("dx-{}", f.source.as_str()))
                    .spawn(move || client::run(&sh, i, &f, &c))?,
            );
        }
        Ok(DxService {
            shared,
            threads: Mutex::new(threads),
            stop_tx: Mutex::new(Some(stop_tx)),
        })
    }

    /// The spots `q` asks for, newest first.
    pub fn spots(&self, q: &SpotQuery) -> Vec<Arc<Spot>> {
        self.shared.buffer.lock().query(q)
    }

    /// Every new spot goes to `sub` until the subscription is dropped.
    pub fn subscribe(&self, sub: Arc<dyn Subscriber<Spot>>) -> Subscription<Spot> {
        self.shared.spots.subscribe_with(sub)
    }

    /// Each feed's state.
    pub fn feeds(&self) -> Vec<FeedStatus> {
        self.shared.feeds.iter().map(|f| f.lock().clone()).collect()
    }

    /// `GET /api/v1/dx/status`: `connected` (any feed), `node`, `last_spot_at`, `error`
    /// of the feeds taken together, and each feed.
    pub fn status_json(&self) -> Value {
        let feeds = self.feeds();
        let first_up = feeds.iter().find(|f| f.connected).or(feeds.first());
        let node = first_up.map(|f| f.node.clone().unwrap_or_else(|| f.address.clone()));
        let last = feeds.iter().filter_map(|f| f.last_spot_at).max();
        let error = feeds
            .iter()
            .filter(|f| !f.connected)
            .find_map(|f| f.error.as_ref().map(|e| format!("{}: {e}", f.address)));
        json!({
            "connected": feeds.iter().any(|f| f.connected),
            "node": node,
            "last_spot_at": last.map(iso8601),
            "error": error,
            "spots": self.shared.buffer.lock().len(),
            "merged": self.shared.merged.load(Ordering::Relaxed),
            "feeds": feeds.iter().map(FeedStatus::json).collect::<Vec<_>>(),
        })
    }

    /// Stops the feeds: their sockets are shut, their threads joined (a feed stuck in
    /// DNS or a connect is left to end by itself after 2 s).
    pub fn stop(&self) {
        drop(self.stop_tx.lock().take());
        for s in &self.shared.sockets {
            if let Some(s) = s.lock().as_ref() {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
        }
        let deadline = Instant::now() + Duration::from_secs(2);
        for t in self.threads.lock().drain(..) {
            while !t.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if t.is_finished() {
                let _ = t.join();
            } else {
                log::warn!("a DX feed thread did not stop within 2 s; left to end by itself");
            }
        }
    }
}

impl Drop for DxService {
    fn drop(&mut self) {
        self.stop();
    }
}
