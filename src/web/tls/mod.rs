//! HTTPS for the front door: a rustls server configuration from PEM files
//! (`--tls-cert`/`--tls-key`) or from the automatic local CA (`--tls-auto`, see
//! `auto.rs`), which is checked twice a day and renewed in place.

pub mod auto;
pub mod host;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use parking_lot::Mutex;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use self::host::HostIdentity;

/// How often the automatic certificate is checked (expiry, new addresses).
pub const CHECK_EVERY: Duration = Duration::from_secs(12 * 3600);

/// Where the certificate comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TlsSource {
    /// PEM files: the certificate chain and its private key.
    Files {
        /// Certificate chain (leaf first).
        cert: PathBuf,
        /// Private key.
        key: PathBuf,
    },
    /// The automatic local CA in `data_dir/tls`.
    Auto {
        /// The data directory.
        data_dir: PathBuf,
    },
}

/// The current TLS configuration, renewed in place when automatic.
pub struct TlsProvider {
    source: TlsSource,
    state: Mutex<State>,
}

struct State {
    config: Arc<ServerConfig>,
    ca_pem: Option<String>,
    next_check: Option<Instant>,
}

impl std::fmt::Debug for TlsProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsProvider")
            .field("source", &self.source)
            .finish()
    }
}

fn server_config(chain_pem: &str, key_pem: &str, what: &str) -> Result<ServerConfig, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(chain_pem.as_bytes())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{what}: no certificate: {e}"))?;
    if chain.is_empty() {
        return Err(format!("{what}: no certificate in the file"));
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes())
        .map_err(|e| format!("{what}: no private key: {e}"))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut cfg = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("{what}: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("{what}: the certificate and key do not fit: {e}"))?;
    cfg.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(cfg)
}

fn read(path: &Path, flag: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{flag} {}: {e}", path.display()))
}

impl TlsProvider {
    /// Loads (or, when automatic, creates) the configuration for `source`.
    pub fn new(source: TlsSource) -> Result<TlsProvider, String> {
        let state = match &source {
            TlsSource::Files { cert, key } => {
                let chain = read(cert, "--tls-cert")?;
                let key = read(key, "--tls-key")?;
                State {
                    config: Arc::new(server_config(&chain, &key, "--tls-cert/--tls-key")?),
                    ca_pem: None,
                    next_check: None,
                }
            }
            TlsSource::Auto { data_dir } => Self::auto_state(data_dir, Instant::now())?,
        };
        Ok(TlsProvider {
            source,
            state: Mutex::new(state),
        })
    }

    fn auto_state(data_dir: &Path, now: Instant) -> Result<State, String> {
        let dir = auto::tls_dir(data_dir);
        let files = auto::ensure(&dir, &HostIdentity::current(), SystemTime::now())
            .map_err(|e| format!("--tls-auto: {e}"))?;
        Ok(State {
            config: Arc::new(server_config(
                &files.chain_pem,
                &files.key_pem,
                "--tls-auto",
            )?),
            ca_pem: Some(files.ca_pem),
            next_check: Some(now + CHECK_EVERY),
        })
    }

    /// The configuration for new connections.
    pub fn config(&self) -> Arc<ServerConfig> {
        self.state.lock().config.clone()
    }

    /// The local CA in PEM (automatic setup only).
    pub fn ca_pem(&self) -> Option<String> {
        self.state.lock().ca_pem.clone()
    }

    /// The local CA in DER (automatic setup only).
    pub fn ca_der(&self) -> Option<Vec<u8>> {
        let pem = self.ca_pem()?;
        CertificateDer::from_pem_slice(pem.as_bytes())
            .ok()
            .map(|c| c.as_ref().to_vec())
    }

    /// When [`TlsProvider::maintain`] should run next.
    pub fn next_check(&self) -> Option<Instant> {
        self.state.lock().next_check
    }

    /// Renews the automatic certificate if it is due (the new one serves new
    /// connections); a failure is logged and tried again at the next check.
    pub fn maintain(&self, now: Instant) {
        let TlsSource::Auto { data_dir } = &self.source else {
            return;
        };
        if self.next_check().is_none_or(|t| now < t) {
            return;
        }
        match Self::auto_state(data_dir, now) {
            Ok(s) => *self.state.lock() = s,
            Err(e) => {
                log::error!("{e}");
                self.state.lock().next_check = Some(now + Duration::from_secs(3600));
            }
        }
    }
}
