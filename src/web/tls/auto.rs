//! `--tls-auto`: a small local certificate authority and a server certificate it signs,
//! kept in `<data-dir>/tls/`, so that a phone or laptop trusts the station once (by
//! installing the CA from the onboarding page) and never sees a warning again.
//!
//! * `ca.pem`, `ca-key.pem`: the CA (ECDSA P-256, valid 10 years, may sign end-entity
//!   certificates only). Created on first start, kept as long as it is valid for more
//!   than [`CA_RENEW_BEFORE`].
//! * `server.pem` (leaf + CA), `server-key.pem`, `server.json`: the server certificate
//!   (ECDSA P-256, [`SERVER_VALIDITY`] ≤ the 825 days Apple allows, `serverAuth`, the
//!   host's names and addresses as SANs) and what it was issued for. Issued again when
//!   fewer than [`SERVER_RENEW_BEFORE`] are left or when the host gained a name or
//!   address the certificate lacks.
//!
//! Private keys are written with mode 0600. Each set of files (key, certificate, what it
//! was issued for) is written to temporary files first and then renamed into place; a
//! crash between two renames can still leave a key that does not fit its certificate,
//! so a pair that does not fit counts as missing and is issued again (the server
//! certificate; the CA, if its own pair does not fit) instead of failing every start.

use std::fs;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, PublicKeyData, SanType,
};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::host::HostIdentity;

/// Validity of the CA.
pub const CA_VALIDITY: Duration = Duration::from_secs(3650 * 86_400);
/// A CA with less than this left is replaced (clients must trust the new one).
pub const CA_RENEW_BEFORE: Duration = Duration::from_secs(60 * 86_400);
/// Validity of a server certificate (Apple platforms accept at most 825 days for
/// certificates under a user-installed root; 397 also suits every browser's rules).
pub const SERVER_VALIDITY: Duration = Duration::from_secs(397 * 86_400);
/// A server certificate with less than this left is issued again.
pub const SERVER_RENEW_BEFORE: Duration = Duration::from_secs(30 * 86_400);
/// Backdating of `notBefore`, for clients whose clocks are a little behind.
const BACKDATE: Duration = Duration::from_secs(86_400);

/// The files of the automatic TLS setup, in PEM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoFiles {
    /// The CA certificate.
    pub ca_pem: String,
    /// The server certificate chain (leaf, then CA).
    pub chain_pem: String,
    /// The server's private key (PKCS#8).
    pub key_pem: String,
    /// When the server certificate expires.
    pub not_after: SystemTime,
}

/// What a server certificate was issued for.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct ServerMeta {
    /// Expiry, seconds since the epoch.
    not_after: u64,
    /// Expiry of the CA that signed it.
    ca_not_after: u64,
    /// Names and addresses.
    identity: HostIdentity,
}

/// An error of the automatic setup: what failed, with the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoError(pub String);

impl std::fmt::Display for AutoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err(what: &str, path: &Path, e: impl std::fmt::Display) -> AutoError {
    AutoError(format!("{what} {}: {e}", path.display()))
}

/// The directory of the automatic setup inside `data_dir`.
pub fn tls_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("tls")
}

fn unix(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs()
}

fn offset(t: SystemTime) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(unix(t) as i64).unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

/// Replaces the files `(name, text, private)` in `dir`: all are written to temporary
/// files (synced) before the first is renamed into place, and the directory is synced
/// after the last.
fn replace_files(dir: &Path, files: &[(&str, &str, bool)]) -> Result<(), AutoError> {
    for (name, text, private) in files {
        let tmp = dir.join(format!("{name}.tmp"));
        let mut opts = fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        if *private {
            opts.mode(0o600);
        }
        let mut f = opts.open(&tmp).map_err(|e| err("cannot write", &tmp, e))?;
        f.write_all(text.as_bytes())
            .and_then(|()| f.sync_all())
            .map_err(|e| err("cannot write", &tmp, e))?;
    }
    for (name, _, _) in files {
        let path = dir.join(name);
        fs::rename(dir.join(format!("{name}.tmp")), &path)
            .map_err(|e| err("cannot write", &path, e))?;
    }
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| err("cannot sync", dir, e))
}

/// True if the first certificate in `chain_pem` is for the key in `key_pem` (its
/// SubjectPublicKeyInfo appears in the certificate as it is).
fn key_fits(chain_pem: &str, key_pem: &str) -> bool {
    let (Ok(key), Ok(cert)) = (
        KeyPair::from_pem(key_pem),
        CertificateDer::from_pem_slice(chain_pem.as_bytes()),
    ) else {
        return false;
    };
    let spki = key.subject_public_key_info();
    cert.as_ref()
        .windows(spki.len())
        .any(|w| w == spki.as_slice())
}

fn read(path: &Path) -> Option<String> {
    fs::read_to_string(path).ok()
}

/// The CA's parameters (its name and powers); the same on every start, so that a CA
/// loaded from its key signs exactly as the one that was created.
fn ca_params(now: SystemTime) -> CertificateParams {
    let mut p = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    dn.push(DnType::OrganizationName, "rigweb");
    dn.push(DnType::CommonName, "rigweb local CA");
    p.distinguished_name = dn;
    p.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    p.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    p.not_before = offset(now - BACKDATE);
    p.not_after = offset(now + CA_VALIDITY);
    p
}

/// Makes sure a valid CA and server certificate for `identity` exist in `dir`
/// (creating or renewing them as the module docs say) and returns them.
pub fn ensure(
    dir: &Path,
    identity: &HostIdentity,
    now: SystemTime,
) -> Result<AutoFiles, AutoError> {
    fs::create_dir_all(dir).map_err(|e| err("cannot create", dir, e))?;
    let (ca_pem, ca_key_pem) = ensure_ca(dir, now)?;
    let meta_path = dir.join("server.json");
    let meta: Option<ServerMeta> = read(&meta_path).and_then(|t| serde_json::from_str(&t).ok());
    let chain = read(&dir.join("server.pem"));
    let key = read(&dir.join("server-key.pem"));
    let ca_not_after = ca_expiry(dir).unwrap_or(0);
    if let (Some(meta), Some(chain_pem), Some(key_pem)) = (&meta, chain, key) {
        let left = meta.not_after.saturating_sub(unix(now));
        if left > SERVER_RENEW_BEFORE.as_secs()
            && meta.ca_not_after == ca_not_after
            && meta.identity.covers(identity)
            && chain_pem.contains(ca_pem.trim())
            && key_fits(&chain_pem, &key_pem)
        {
            return Ok(AutoFiles {
                ca_pem,
                chain_pem,
                key_pem,
                not_after: UNIX_EPOCH + Duration::from_secs(meta.not_after),
            });
        }
    }
    // keep names and addresses of the last certificate (an interface that is down now
    // may come back), adding the new ones
    let wanted = match &meta {
        Some(m) => m.identity.union(identity),
        None => identity.clone(),
    };
    let ca_key = KeyPair::from_pem(&ca_key_pem).map_err(|e| err("bad key in", dir, e))?;
    let issuer = Issuer::new(ca_params(now), ca_key);
    let mut p = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    dn.push(DnType::OrganizationName, "rigweb");
    dn.push(
        DnType::CommonName,
        wanted
            .names
            .iter()
            .find(|n| n.as_str() != "localhost")
            .cloned()
            .unwrap_or_else(|| "localhost".into()),
    );
    p.distinguished_name = dn;
    p.subject_alt_names = wanted
        .names
        .iter()
        .filter_map(|n| n.clone().try_into().ok().map(SanType::DnsName))
        .chain(wanted.addresses.iter().map(|a| SanType::IpAddress(*a)))
        .collect();
    p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    p.use_authority_key_identifier_extension = true;
    // whole seconds, as recorded in server.json
    let not_after = UNIX_EPOCH + Duration::from_secs(unix(now + SERVER_VALIDITY));
    p.not_before = offset(now - BACKDATE);
    p.not_after = offset(not_after);
    p.serial_number = Some(random_serial());
    let key = KeyPair::generate().map_err(|e| AutoError(format!("key generation: {e}")))?;
    let cert = p
        .signed_by(&key, &issuer)
        .map_err(|e| AutoError(format!("signing the server certificate: {e}")))?;
    let chain_pem = format!("{}{}", cert.pem(), ca_pem);
    let key_pem = key.serialize_pem();
    let meta = ServerMeta {
        not_after: unix(not_after),
        ca_not_after,
        identity: wanted,
    };
    let meta_json = serde_json::to_string_pretty(&meta).unwrap_or_default();
    replace_files(
        dir,
        &[
            ("server-key.pem", &key_pem, true),
            ("server.pem", &chain_pem, false),
            ("server.json", &meta_json, false),
        ],
    )?;
    log::info!(
        "TLS: issued a server certificate for {} (valid until {})",
        meta.identity
            .names
            .iter()
            .cloned()
            .chain(meta.identity.addresses.iter().map(|a| a.to_string()))
            .collect::<Vec<_>>()
            .join(", "),
        crate::util::time::iso8601(not_after)
    );
    Ok(AutoFiles {
        ca_pem,
        chain_pem,
        key_pem,
        not_after,
    })
}

/// The CA's expiry (seconds since the epoch) as recorded next to it.
fn ca_expiry(dir: &Path) -> Option<u64> {
    read(&dir.join("ca.json"))?.trim().parse().ok()
}

/// Loads the CA, or creates it when it is missing or about to expire.
fn ensure_ca(dir: &Path, now: SystemTime) -> Result<(String, String), AutoError> {
    let (cert, key) = (dir.join("ca.pem"), dir.join("ca-key.pem"));
    if let (Some(c), Some(k), Some(exp)) = (read(&cert), read(&key), ca_expiry(dir))
        && exp.saturating_sub(unix(now)) > CA_RENEW_BEFORE.as_secs()
        && key_fits(&c, &k)
    {
        return Ok((c, k));
    }
    let key_pair = KeyPair::generate().map_err(|e| AutoError(format!("key generation: {e}")))?;
    let mut params = ca_params(now);
    params.serial_number = Some(random_serial());
    let ca = params
        .self_signed(&key_pair)
        .map_err(|e| AutoError(format!("creating the CA: {e}")))?;
    let (c, k) = (ca.pem(), key_pair.serialize_pem());
    let expiry = unix(now + CA_VALIDITY).to_string();
    replace_files(
        dir,
        &[
            ("ca-key.pem", &k, true),
            ("ca.pem", &c, false),
            ("ca.json", &expiry, false),
        ],
    )?;
    log::warn!(
        "TLS: created a new local CA in {}; clients install it once from the onboarding page",
        dir.display()
    );
    Ok((c, k))
}

/// A random positive 16-byte serial number.
fn random_serial() -> rcgen::SerialNumber {
    let mut b = crate::util::random::bytes::<16>();
    b[0] &= 0x7f;
    b[0] |= 0x01;
    rcgen::SerialNumber::from_slice(&b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::IpAddr;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rigweb-auto-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    fn identity(names: &[&str], addrs: &[&str]) -> HostIdentity {
        HostIdentity {
            names: names.iter().map(|s| s.to_string()).collect(),
            addresses: addrs.iter().map(|a| a.parse::<IpAddr>().unwrap()).collect(),
        }
    }

    #[test]
    fn created_once_then_kept_then_renewed() {
        let dir = temp_dir("renew");
        let id = identity(&["localhost", "rig"], &["127.0.0.1"]);
        let now = SystemTime::now();
        let first = ensure(&dir, &id, now).unwrap();
        assert!(first.chain_pem.ends_with(&first.ca_pem));
        let mode = fs::metadata(dir.join("ca-key.pem")).unwrap();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
            0o600
        );
        let again = ensure(&dir, &id, now + Duration::from_secs(3600)).unwrap();
        assert_eq!(again, first, "kept while valid");
        // a new address: a new certificate under the same CA
        let more = identity(&["localhost", "rig"], &["127.0.0.1", "10.1.2.3"]);
        let grown = ensure(&dir, &more, now).unwrap();
        assert_ne!(grown.chain_pem, first.chain_pem);
        assert_eq!(grown.ca_pem, first.ca_pem, "the CA stays");
        // close to expiry: renewed, same CA
        let late = now + SERVER_VALIDITY - Duration::from_secs(86_400);
        let renewed = ensure(&dir, &more, late).unwrap();
        assert_ne!(renewed.chain_pem, grown.chain_pem);
        assert_eq!(renewed.ca_pem, first.ca_pem);
        assert!(renewed.not_after > grown.not_after);
        let validity = SERVER_VALIDITY.as_secs();
        assert!(validity <= 825 * 86_400);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_key_that_does_not_fit_its_certificate_is_issued_again_not_fatal() {
        // review: key, certificate and server.json were written one after the other; a
        // crash in between left a key that did not fit the certificate and every later
        // start failed ("the certificate and key do not fit")
        let dir = temp_dir("crash");
        let id = identity(&["localhost"], &["127.0.0.1"]);
        let now = SystemTime::now();
        let first = ensure(&dir, &id, now).unwrap();
        assert!(key_fits(&first.chain_pem, &first.key_pem));
        // the new key renamed into place, the crash before the certificate followed
        let stray = KeyPair::generate().unwrap().serialize_pem();
        fs::write(dir.join("server-key.pem"), &stray).unwrap();
        assert!(!key_fits(&first.chain_pem, &stray));
        let again = ensure(&dir, &id, now).unwrap();
        assert!(key_fits(&again.chain_pem, &again.key_pem));
        assert_eq!(again.ca_pem, first.ca_pem, "the CA stays");
        assert!(super::super::server_config(&again.chain_pem, &again.key_pem, "t").is_ok());
        // the same for the CA's pair: a new CA (its old key is gone)
        fs::write(dir.join("ca-key.pem"), &stray).unwrap();
        let fresh = ensure(&dir, &id, now).unwrap();
        let ca_key = fs::read_to_string(dir.join("ca-key.pem")).unwrap();
        assert!(key_fits(&fresh.ca_pem, &ca_key));
        assert_ne!(fresh.ca_pem, first.ca_pem);
        assert!(fresh.chain_pem.ends_with(&fresh.ca_pem));
        assert!(super::super::server_config(&fresh.chain_pem, &fresh.key_pem, "t").is_ok());
        // no temporary file is left behind
        let left: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
