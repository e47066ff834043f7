//! The I/O of the schedule: one HTTP GET with ureq (conditional when the schedule says
//! so, redirects followed, bounded in time and size, progress counted as bytes arrive),
//! and the cache in `--data-dir/eibi/` (the file as fetched plus what the server said
//! about it), written through a temporary file and a rename.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::refresh::{FetchRequest, Validators};
use crate::station::band_plan::write_atomically;
use crate::util::time::{iso8601, parse_iso8601};

/// The largest file taken (a season file is about 600 KB).
pub const MAX_BYTES: u64 = 8 * 1024 * 1024;

/// Bytes received of the running fetch and the size announced (0: unknown).
#[derive(Debug, Default)]
pub struct Progress {
    /// Received so far.
    pub received: AtomicU64,
    /// `Content-Length`, or 0.
    pub total: AtomicU64,
}

/// How a GET ended.
#[derive(Debug)]
pub enum Fetched {
    /// The file, and what the server said about it.
    Body(Vec<u8>, Validators),
    /// 304.
    NotModified,
    /// Anything else, said so that an operator can act on it.
    Failed(String),
}

/// An HTTP client for the schedule: plain HTTP (the EiBi site serves no HTTPS),
/// redirects followed, `timeout` for the whole exchange.
pub fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .timeout_connect(Some(Duration::from_secs(10)))
        .max_redirects(5)
        .http_status_as_error(false)
        .user_agent(format!("rigweb/{}", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// GETs `req.url` (conditionally with `req.validators`), counting into `progress`.
pub fn get(agent: &ureq::Agent, req: &FetchRequest, progress: &Progress) -> Fetched {
    progress.received.store(0, Ordering::Relaxed);
    progress.total.store(0, Ordering::Relaxed);
    let mut r = agent.get(&req.url);
    if let Some(v) = &req.validators {
        if let Some(e) = &v.etag {
            r = r.header("If-None-Match", e);
        }
        if let Some(m) = &v.last_modified {
            r = r.header("If-Modified-Since", m);
        }
    }
    let mut resp = match r.call() {
        Ok(resp) => resp,
        Err(e) => return Fetched::Failed(format!("{}: {e}", req.url)),
    };
    let status = resp.status().as_u16();
    if status == 304 {
        return Fetched::NotModified;
    }
    if status != 200 {
        return Fetched::Failed(format!("{}: HTTP {status}", req.url));
    }
    let header = |name: &str| {
        resp.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let validators = Validators {
        etag: header("etag"),
        last_modified: header("last-modified"),
    };
    if let Some(n) = resp.body().content_length() {
        if n > MAX_BYTES {
            return Fetched::Failed(format!("{}: {n} bytes is more than a schedule", req.url));
        }
        progress.total.store(n, Ordering::Relaxed);
    }
    let mut reader = resp.body_mut().with_config().limit(MAX_BYTES + 1).reader();
    let mut body = Vec::with_capacity(640 * 1024);
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                body.extend_from_slice(&chunk[..n]);
                progress
                    .received
                    .store(body.len() as u64, Ordering::Relaxed);
                if body.len() as u64 > MAX_BYTES {
                    return Fetched::Failed(format!("{}: more than {MAX_BYTES} bytes", req.url));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Fetched::Failed(format!(
                    "{}: the transfer broke off after {} bytes: {e}",
                    req.url,
                    body.len()
                ));
            }
        }
    }
    Fetched::Body(body, validators)
}

/// What the cache says about the file it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheMeta {
    /// The URL it came from.
    pub url: String,
    /// The season it is for (`a25`).
    pub season: String,
    /// When it was downloaded.
    pub fetched_at: SystemTime,
    /// When the server last confirmed it.
    pub checked_at: SystemTime,
    /// For conditional GETs.
    pub validators: Validators,
}

impl CacheMeta {
    fn to_json(&self) -> Value {
        json!({
            "url": self.url,
            "season": self.season,
            "fetched_at": iso8601(self.fetched_at),
            "checked_at": iso8601(self.checked_at),
            "etag": self.validators.etag,
            "last_modified": self.validators.last_modified,
        })
    }

    fn from_json(v: &Value) -> Option<CacheMeta> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Some(CacheMeta {
            url: s("url")?,
            season: s("season")?,
            fetched_at: parse_iso8601(&s("fetched_at")?)?,
            checked_at: parse_iso8601(&s("checked_at")?)?,
            validators: Validators {
                etag: s("etag"),
                last_modified: s("last_modified"),
            },
        })
    }
}

/// The cache directory (`--data-dir/eibi`).
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache under `data_dir`.
    pub fn new(data_dir: &Path) -> Cache {
        Cache {
            dir: data_dir.join("eibi"),
        }
    }

    fn csv(&self) -> PathBuf {
        self.dir.join("schedule.csv")
    }

    fn meta(&self) -> PathBuf {
        self.dir.join("schedule.json")
    }

    /// The cached file and what is known about it, if both are there and readable.
    pub fn load(&self) -> Option<(Vec<u8>, CacheMeta)> {
        let meta: Value = serde_json::from_slice(&std::fs::read(self.meta()).ok()?).ok()?;
        let meta = CacheMeta::from_json(&meta)?;
        let bytes = std::fs::read(self.csv()).ok()?;
        Some((bytes, meta))
    }

    /// Keeps a new file (the file first: a crash between leaves the old description,
    /// whose validators then no longer match, and the next check fetches it again).
    pub fn store(&self, bytes: &[u8], meta: &CacheMeta) -> std::io::Result<()> {
        write_atomically(&self.csv(), bytes)?;
        self.store_meta(meta)
    }

    /// Keeps what is known about the file (after a 304).
    pub fn store_meta(&self, meta: &CacheMeta) -> std::io::Result<()> {
        write_atomically(&self.meta(), meta.to_json().to_string().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    #[test]
    fn the_cache_keeps_a_file_and_its_description() {
        let dir = std::env::temp_dir().join(format!("rigweb-eibi-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = Cache::new(&dir);
        assert!(cache.load().is_none());
        let meta = CacheMeta {
            url: "http://127.0.0.1:9/sked-a25.csv".into(),
            season: "a25".into(),
            fetched_at: UNIX_EPOCH + Duration::from_secs(1_750_000_000),
            checked_at: UNIX_EPOCH + Duration::from_secs(1_750_100_000),
            validators: Validators {
                etag: Some("\"x\"".into()),
                last_modified: None,
            },
        };
        cache.store(b"kHz;...", &meta).unwrap();
        assert_eq!(cache.load(), Some((b"kHz;...".to_vec(), meta.clone())));
        std::fs::write(dir.join("eibi/schedule.json"), b"{\"url\":1}").unwrap();
        assert!(cache.load().is_none(), "a garbled description is no cache");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
