//! The EiBi broadcast schedule: one thread loads the cache from `--data-dir` at start
//! (so a server without internet has yesterday's schedule), then fetches the season's
//! file when [`refresh::Refresh`] says so or a client asks (`POST /api/v1/eibi/fetch`).
//! Without a cache, the network is first touched when a client first asks for the
//! schedule: a server nobody reads the schedule from never calls the EiBi site.
//! Parsing happens on that thread; the routes read the current [`dataset::Dataset`]
//! through an `Arc` taken under a lock held for a pointer copy.

pub mod csv;
pub mod dataset;
pub mod days;
pub mod fetch;
pub mod refresh;
pub mod season;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use crossbeam_channel::{Receiver, Sender, TrySendError, bounded};
use parking_lot::{Mutex, RwLock};
use serde_json::{Value, json};

use self::dataset::Dataset;
use self::fetch::{Cache, CacheMeta, Fetched, Progress};
use self::refresh::{Intervals, Loaded, Outcome, Refresh};
use crate::util::time::{iso8601, parse_iso8601};

/// The EiBi service's settings.
#[derive(Debug, Clone)]
pub struct EibiConfig {
    /// The URL, `{season}` replaced by the season's name (`a25`).
    pub url: String,
    /// Where the cache lives (`--data-dir`); None: no cache.
    pub data_dir: Option<PathBuf>,
    /// The refresh intervals.
    pub intervals: Intervals,
    /// Longest time for one fetch.
    pub timeout: Duration,
}

impl EibiConfig {
    /// The defaults for `url`: weekly refresh, two minutes per fetch.
    pub fn new(url: &str, data_dir: Option<PathBuf>) -> EibiConfig {
        EibiConfig {
            url: url.to_string(),
            data_dir,
            intervals: Intervals::default(),
            timeout: Duration::from_secs(120),
        }
    }
}

/// Before this, the system clock is taken as not set yet (a Raspberry Pi has no
/// real-time clock until NTP answers): the season would be wrong, so nothing is fetched.
const CLOCK_SET_AFTER: &str = "2024-01-01T00:00:00Z";

#[derive(Debug, Default)]
struct Status {
    season: Option<String>,
    source: Option<String>,
    fetched_at: Option<SystemTime>,
    checked_at: Option<SystemTime>,
    from_cache: bool,
    fetching: bool,
    error: Option<String>,
    next_check_at: Option<SystemTime>,
    url: Option<String>,
}

struct Shared {
    data: RwLock<Option<Arc<Dataset>>>,
    status: Mutex<Status>,
    progress: Progress,
}

enum Command {
    /// `POST /api/v1/eibi/fetch`.
    Fetch { force: bool },
    /// A client asked for the schedule for the first time.
    Wake,
}

/// See the module docs.
pub struct EibiService {
    shared: Arc<Shared>,
    asked: std::sync::atomic::AtomicBool,
    tx: Mutex<Option<Sender<Command>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl EibiService {
    /// Starts the thread (which first loads the cache).
    pub fn start(cfg: EibiConfig) -> std::io::Result<EibiService> {
        let shared = Arc::new(Shared {
            data: RwLock::new(None),
            status: Mutex::new(Status::default()),
            progress: Progress::default(),
        });
        let (tx, rx) = bounded(8);
        let sh = shared.clone();
        let thread = std::thread::Builder::new()
            .name("eibi".into())
            .spawn(move || run(&sh, &cfg, &rx))?;
        Ok(EibiService {
            shared,
            asked: std::sync::atomic::AtomicBool::new(false),
            tx: Mutex::new(Some(tx)),
            thread: Mutex::new(Some(thread)),
        })
    }

    /// The schedule in hand, if any (the first call lets the service fetch).
    pub fn dataset(&self) -> Option<Arc<Dataset>> {
        if !self.asked.swap(true, Ordering::Relaxed) {
            self.send(Command::Wake);
        }
        self.shared.data.read().clone()
    }

    fn send(&self, c: Command) -> bool {
        match self.tx.lock().as_ref().map(|tx| tx.try_send(c)) {
            Some(Ok(()) | Err(TrySendError::Full(_))) => true,
            Some(Err(TrySendError::Disconnected(_))) | None => false,
        }
    }

    /// Asks for a fetch (conditional, or unconditional with `force`); answered at once,
    /// the work is reported by [`EibiService::status_json`].
    pub fn request_fetch(&self, force: bool) {
        self.asked.store(true, Ordering::Relaxed);
        if self.send(Command::Fetch { force }) {
            self.shared.status.lock().fetching = true;
        }
    }

    /// `GET /api/v1/eibi/status`.
    pub fn status_json(&self) -> Value {
        let data = self.shared.data.read().clone();
        let s = self.shared.status.lock();
        let p = &self.shared.progress;
        let progress = s.fetching.then(|| {
            let total = p.total.load(Ordering::Relaxed);
            json!({
                "received": p.received.load(Ordering::Relaxed),
                "total": (total > 0).then_some(total),
            })
        });
        json!({
            "loaded": data.is_some(),
            "entries": data.as_ref().map_or(0, |d| d.len()),
            "season": s.season,
            "source": s.source,
            "fetched_at": s.fetched_at.map(iso8601),
            "fetching": s.fetching,
            "error": s.error,
            "checked_at": s.checked_at.map(iso8601),
            "next_check_at": s.next_check_at.map(iso8601),
            "url": s.url,
            "from_cache": s.from_cache,
            "skipped_rows": data.as_ref().map_or(0, |d| d.skipped()),
            "progress": progress,
        })
    }

    /// Stops the thread (a fetch in progress is left to time out by itself after 2 s).
    pub fn stop(&self) {
        drop(self.tx.lock().take());
        if let Some(t) = self.thread.lock().take() {
            let deadline = Instant::now() + Duration::from_secs(2);
            while !t.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if t.is_finished() {
                let _ = t.join();
            } else {
                log::warn!("the EiBi thread is still fetching; left to end by itself");
            }
        }
    }
}

impl Drop for EibiService {
    fn drop(&mut self) {
        self.stop();
    }
}

fn run(shared: &Shared, cfg: &EibiConfig, rx: &Receiver<Command>) {
    let cache = cfg.data_dir.as_deref().map(Cache::new);
    let loaded = cache.as_ref().and_then(|c| load_cache(shared, c));
    let agent = fetch::agent(cfg.timeout);
    let clock_set = parse_iso8601(CLOCK_SET_AFTER).unwrap_or(SystemTime::UNIX_EPOCH);
    if loaded.is_none() {
        // nothing in hand: wait until a client wants the schedule
        if rx.recv().is_err() {
            return;
        }
    }
    let mut refresh = Refresh::new(&cfg.url, cfg.intervals, loaded, SystemTime::now());
    loop {
        let now = SystemTime::now();
        if now < clock_set {
            {
                let mut s = shared.status.lock();
                s.error = Some("the system clock is not set yet: the season is unknown".into());
                s.fetching = false;
            }
            match rx.recv_timeout(Duration::from_secs(60)) {
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return,
                _ => continue,
            }
        }
        if let Some(req) = refresh.poll_fetch(now) {
            {
                let mut s = shared.status.lock();
                s.fetching = true;
                s.url = Some(req.url.clone());
            }
            log::info!("EiBi: fetching {}", req.url);
            let outcome = match fetch::get(&agent, &req, &shared.progress) {
                Fetched::Body(bytes, validators) => match csv::parse(&bytes) {
                    Ok(data) => {
                        let n = data.len();
                        *shared.data.write() = Some(Arc::new(data));
                        let now = SystemTime::now();
                        let meta = CacheMeta {
                            url: req.url.clone(),
                            season: req.season.name(),
                            fetched_at: now,
                            checked_at: now,
                            validators: validators.clone(),
                        };
                        let mut s = shared.status.lock();
                        s.season = Some(meta.season.clone());
                        s.source = Some(req.url.clone());
                        s.fetched_at = Some(now);
                        s.checked_at = Some(now);
                        s.from_cache = false;
                        s.error = cache
                            .as_ref()
                            .and_then(|c| c.store(&bytes, &meta).err())
                            .map(|e| format!("the schedule could not be cached: {e}"));
                        log::info!("EiBi: {n} entries from {}", req.url);
                        Outcome::Updated(validators)
                    }
                    Err(e) => fail(shared, format!("{}: {e}", req.url)),
                },
                Fetched::NotModified => {
                    let now = SystemTime::now();
                    let mut s = shared.status.lock();
                    s.checked_at = Some(now);
                    s.error = None;
                    if let (Some(c), Some(l)) = (&cache, refresh.loaded()) {
                        let meta = CacheMeta {
                            url: l.url.clone(),
                            season: s.season.clone().unwrap_or_default(),
                            fetched_at: s.fetched_at.unwrap_or(now),
                            checked_at: now,
                            validators: l.validators.clone(),
                        };
                        if let Err(e) = c.store_meta(&meta) {
                            s.error =
                                Some(format!("the schedule's check could not be cached: {e}"));
                        }
                    }
                    Outcome::NotModified
                }
                Fetched::Failed(e) => fail(shared, e),
            };
            refresh.on_outcome(SystemTime::now(), outcome);
            let mut s = shared.status.lock();
            s.fetching = false;
            s.next_check_at = refresh.next_at();
            continue;
        }
        shared.status.lock().next_check_at = refresh.next_at();
        // wake at least hourly: the wall clock may jump (NTP), the schedule is in it
        let wait = refresh
            .poll_timeout(now)
            .map_or(Duration::from_secs(3600), |t| {
                t.duration_since(now).unwrap_or_default()
            })
            .min(Duration::from_secs(3600));
        match rx.recv_timeout(wait) {
            Ok(Command::Fetch { force }) => refresh.ask(force),
            Ok(Command::Wake) | Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return,
        }
    }
}

fn fail(shared: &Shared, error: String) -> Outcome {
    log::warn!("EiBi: {error}");
    shared.status.lock().error = Some(error);
    Outcome::Failed
}

/// Loads the cached schedule, if there is a readable one.
fn load_cache(shared: &Shared, cache: &Cache) -> Option<Loaded> {
    let (bytes, meta) = cache.load()?;
    match csv::parse(&bytes) {
        Ok(data) => {
            log::info!("EiBi: {} entries from the cache ({})", data.len(), meta.url);
            *shared.data.write() = Some(Arc::new(data));
            let mut s = shared.status.lock();
            s.season = Some(meta.season.clone());
            s.source = Some(meta.url.clone());
            s.fetched_at = Some(meta.fetched_at);
            s.checked_at = Some(meta.checked_at);
            s.from_cache = true;
            Some(Loaded {
                url: meta.url,
                checked_at: meta.checked_at,
                validators: meta.validators,
            })
        }
        Err(e) => {
            log::warn!("EiBi: the cached schedule is unreadable ({e}); fetching it again");
            None
        }
    }
}
