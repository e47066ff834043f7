//! The plain-HTTP onboarding port that goes with HTTPS: where a phone or laptop gets
//! the station's local CA (`/ca.crt` in DER, `/ca.pem`, and `/rigweb.mobileconfig`, an
//! iOS configuration profile) and a short how-to per platform (`/`). Everything else is
//! redirected (308) to the same path on the HTTPS port. Without the automatic CA
//! (`--tls-cert`) every path is redirected.

use std::net::SocketAddr;
use std::sync::Arc;

use super::head::RequestHead;
use super::reply::{self, Refusal};
use crate::web::tls::TlsProvider;

/// What the onboarding port serves.
#[derive(Debug, Clone)]
pub struct Onboarding {
    /// The HTTPS port to send clients to.
    pub https_port: u16,
    /// The HTTPS configuration, whose local CA (when the certificate is automatic) is
    /// served as it is now: a renewal that replaced the CA shows at once.
    pub tls: Arc<TlsProvider>,
}

/// The host part of a `Host` header (port removed; IPv6 brackets kept), if it is a
/// plausible host name or address.
fn host_only(host: &str) -> Option<&str> {
    let h = if host.starts_with('[') {
        &host[..=host.find(']')?]
    } else {
        host.split(':').next()?
    };
    let ok = !h.is_empty()
        && h.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.[]:".contains(&b));
    ok.then_some(h)
}

impl Onboarding {
    /// The base URL of the HTTPS port as this client reaches the server.
    fn https_base(&self, head: &RequestHead, local: SocketAddr) -> String {
        let host = head
            .header("Host")
            .and_then(host_only)
            .map(str::to_string)
            .unwrap_or_else(|| match local {
                SocketAddr::V4(a) => a.ip().to_string(),
                SocketAddr::V6(a) => format!("[{}]", a.ip()),
            });
        if self.https_port == 443 {
            format!("https://{host}")
        } else {
            format!("https://{host}:{}", self.https_port)
        }
    }

    /// The response to `head` (which came in on `local`); `close` ends the connection.
    pub fn respond(&self, head: &RequestHead, local: SocketAddr, close: bool) -> Vec<u8> {
        let ca = self.tls.ca_pem().zip(self.tls.ca_der());
        self.respond_with(head, local, close, ca)
    }

    /// [`Onboarding::respond`] with the local CA `ca` (PEM, DER) if there is one.
    fn respond_with(
        &self,
        head: &RequestHead,
        local: SocketAddr,
        close: bool,
        ca: Option<(String, Vec<u8>)>,
    ) -> Vec<u8> {
        let base = self.https_base(head, local);
        let get = head.method == "GET" || head.method == "HEAD";
        let out = match (&ca, head.path(), get) {
            (Some(_), "/" | "/index.html", true) => reply::encode(
                200,
                "text/html; charset=utf-8",
                &[],
                how_to(&base).as_bytes(),
                close,
            ),
            (Some((_, der)), "/ca.crt", true) => reply::encode(
                200,
                "application/x-x509-ca-cert",
                &[(
                    "Content-Disposition",
                    "attachment; filename=\"rigweb-ca.crt\"",
                )],
                der,
                close,
            ),
            (Some((pem, _)), "/ca.pem", true) => reply::encode(
                200,
                "application/x-pem-file",
                &[(
                    "Content-Disposition",
                    "attachment; filename=\"rigweb-ca.pem\"",
                )],
                pem.as_bytes(),
                close,
            ),
            (Some((pem, der)), "/rigweb.mobileconfig", true) => reply::encode(
                200,
                "application/x-apple-aspen-config",
                &[(
                    "Content-Disposition",
                    "attachment; filename=\"rigweb.mobileconfig\"",
                )],
                mobileconfig(pem, der).as_bytes(),
                close,
            ),
            _ => {
                let location = format!("{base}{}", head.target);
                Refusal::new(
                    308,
                    "https_required",
                    format!("this station is served over HTTPS: {location}"),
                )
                .with_header("Location", location)
                .to_bytes(close)
            }
        };
        if head.method == "HEAD" {
            return head_only(out);
        }
        out
    }
}

/// A response without its body (for HEAD).
fn head_only(mut response: Vec<u8>) -> Vec<u8> {
    if let Some(end) = super::head::head_end_crlf(&response) {
        response.truncate(end);
    }
    response
}

/// A stable UUID from bytes (two FNV-1a hashes), formatted as a version-4 UUID.
fn uuid_from(data: &[u8], salt: u64) -> String {
    let fnv = |seed: u64| {
        data.iter().fold(seed, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    };
    let (a, b) = (
        fnv(0xcbf2_9ce4_8422_2325 ^ salt),
        fnv(0x8422_2325_cbf2_9ce4 ^ salt),
    );
    let x = (u128::from(a) << 64) | u128::from(b);
    let x = (x & !(0xf << 76) | (0x4 << 76)) & !(0x3 << 62) | (0x2 << 62);
    let h = format!("{x:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
    .to_uppercase()
}

/// An iOS/iPadOS/macOS configuration profile that installs the CA.
fn mobileconfig(pem: &str, der: &[u8]) -> String {
    let b64: String = pem
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect::<Vec<_>>()
        .join("\n");
    let (cert_uuid, profile_uuid) = (uuid_from(der, 1), uuid_from(der, 2));
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>PayloadContent</key>
  <array>
    <dict>
      <key>PayloadCertificateFileName</key><string>rigweb-ca.crt</string>
      <key>PayloadContent</key>
      <data>
{b64}
      </data>
      <key>PayloadDescription</key><string>The certificate authority of this rigweb station</string>
      <key>PayloadDisplayName</key><string>rigweb local CA</string>
      <key>PayloadIdentifier</key><string>org.rigweb.ca.{cert_uuid}</string>
      <key>PayloadType</key><string>com.apple.security.root</string>
      <key>PayloadUUID</key><string>{cert_uuid}</string>
      <key>PayloadVersion</key><integer>1</integer>
    </dict>
  </array>
  <key>PayloadDescription</key><string>Lets this device open the rigweb station over HTTPS without warnings.</string>
  <key>PayloadDisplayName</key><string>rigweb station</string>
  <key>PayloadIdentifier</key><string>org.rigweb.profile.{profile_uuid}</string>
  <key>PayloadRemovalDisallowed</key><false/>
  <key>PayloadType</key><string>Configuration</string>
  <key>PayloadUUID</key><string>{profile_uuid}</string>
  <key>PayloadVersion</key><integer>1</integer>
</dict>
</plist>
"#
    )
}

/// The onboarding page: a how-to per platform and the link to the station.
fn how_to(base: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>rigweb: trust this station</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:1em auto;padding:0 1em}}h2{{margin-top:1.5em}}a.button{{display:inline-block;padding:.4em 1em;border:1px solid #36c;border-radius:4px;text-decoration:none}}</style>
</head><body>
<h1>Trust this station once</h1>
<p>The station is served over HTTPS (browsers give microphones and audio only to secure pages) with a
certificate from its own small certificate authority. Install that authority once on each device;
after that <a href="{base}/">{base}/</a> opens without a warning.</p>
<p><a class="button" href="/ca.crt">Download the certificate (ca.crt)</a>
<a class="button" href="/rigweb.mobileconfig">iPhone / iPad profile</a></p>
<h2>iPhone, iPad</h2>
<ol><li>Open this page in Safari and tap <a href="/rigweb.mobileconfig">iPhone / iPad profile</a>; allow the download.</li>
<li>Settings &gt; <em>Profile Downloaded</em> &gt; Install.</li>
<li>Settings &gt; General &gt; About &gt; Certificate Trust Settings: switch on <em>rigweb local CA</em>.</li></ol>
<h2>Android</h2>
<ol><li>Download <a href="/ca.crt">ca.crt</a>.</li>
<li>Settings &gt; Security &gt; More security settings &gt; Encryption &amp; credentials &gt; Install a certificate &gt; CA certificate, and pick the file.</li></ol>
<h2>macOS</h2>
<ol><li>Download <a href="/ca.crt">ca.crt</a> and open it: Keychain Access adds it to <em>login</em>.</li>
<li>Double-click <em>rigweb local CA</em> &gt; Trust &gt; When using this certificate: <em>Always Trust</em>.</li></ol>
<h2>Windows</h2>
<ol><li>Download <a href="/ca.crt">ca.crt</a> and open it &gt; Install Certificate &gt; Current User.</li>
<li>Place it in <em>Trusted Root Certification Authorities</em> and confirm.</li></ol>
<h2>Linux, Firefox</h2>
<ol><li>Firefox: Settings &gt; Privacy &amp; Security &gt; Certificates &gt; View Certificates &gt; Authorities &gt; Import <a href="/ca.crt">ca.crt</a>, and tick <em>Trust this CA to identify websites</em>.</li>
<li>Chrome/Chromium: chrome://certificate-manager &gt; Local certificates &gt; Custom &gt; Import.</li>
<li>System-wide (Debian): copy <a href="/ca.pem">ca.pem</a> to /usr/local/share/ca-certificates/rigweb.crt and run <code>update-ca-certificates</code>.</li></ol>
<p>Then open <a href="{base}/">{base}/</a>.</p>
</body></html>
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::front::head;

    fn req(text: &str) -> RequestHead {
        head::parse(text.as_bytes(), 16384).unwrap().unwrap().0
    }

    fn local() -> SocketAddr {
        "192.0.2.7:8080".parse().unwrap()
    }

    /// An onboarding port for HTTPS on `port` with certificate files (no local CA).
    fn onboarding(port: u16) -> Onboarding {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("rigweb-onboarding-{}-{n}", std::process::id()));
        let files = crate::web::tls::auto::ensure(
            &dir,
            &crate::web::tls::host::HostIdentity::current(),
            std::time::SystemTime::now(),
        )
        .unwrap();
        std::fs::write(dir.join("chain.pem"), &files.chain_pem).unwrap();
        std::fs::write(dir.join("key.pem"), &files.key_pem).unwrap();
        let tls = TlsProvider::new(crate::web::tls::TlsSource::Files {
            cert: dir.join("chain.pem"),
            key: dir.join("key.pem"),
        })
        .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        Onboarding {
            https_port: port,
            tls: Arc::new(tls),
        }
    }

    #[test]
    fn redirects_keep_host_and_path() {
        let o = onboarding(8443);
        let r = o.respond(
            &req("GET /api/v1/state?x=1 HTTP/1.1\r\nHost: rig.local:8080\r\n\r\n"),
            local(),
            false,
        );
        let text = String::from_utf8(r).unwrap();
        assert!(text.starts_with("HTTP/1.1 308 "), "{text}");
        assert!(
            text.contains("Location: https://rig.local:8443/api/v1/state?x=1\r\n"),
            "{text}"
        );
        assert!(text.contains("\"error\":\"https_required\""));
        let r = o.respond(&req("GET / HTTP/1.0\r\n\r\n"), local(), true);
        assert!(
            String::from_utf8(r)
                .unwrap()
                .contains("Location: https://192.0.2.7:8443/\r\n")
        );
        let r = o.respond(
            &req("GET / HTTP/1.1\r\nHost: [fe80::1]:8080\r\n\r\n"),
            local(),
            true,
        );
        assert!(
            String::from_utf8(r)
                .unwrap()
                .contains("Location: https://[fe80::1]:8443/\r\n")
        );
        // a hostile Host does not reach the Location header
        let r = o.respond(
            &req("GET / HTTP/1.1\r\nHost: a\"b<c>\r\n\r\n"),
            local(),
            true,
        );
        assert!(
            String::from_utf8(r)
                .unwrap()
                .contains("Location: https://192.0.2.7:8443/\r\n")
        );
    }

    #[test]
    fn pages_and_profile_with_the_ca() {
        let o = onboarding(443);
        let ca = Some((
            "-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----\n".to_string(),
            b"ABC".to_vec(),
        ));
        let page = String::from_utf8(o.respond_with(
            &req("GET / HTTP/1.1\r\nHost: rig\r\n\r\n"),
            local(),
            false,
            ca.clone(),
        ))
        .unwrap();
        assert!(
            page.starts_with("HTTP/1.1 200 ") && page.contains("https://rig/"),
            "{page}"
        );
        let der = o.respond_with(
            &req("GET /ca.crt HTTP/1.1\r\nHost: rig\r\n\r\n"),
            local(),
            false,
            ca.clone(),
        );
        assert!(der.ends_with(b"\r\n\r\nABC"));
        let profile = String::from_utf8(o.respond_with(
            &req("GET /rigweb.mobileconfig HTTP/1.1\r\nHost: rig\r\n\r\n"),
            local(),
            false,
            ca.clone(),
        ))
        .unwrap();
        assert!(profile.contains("com.apple.security.root") && profile.contains("\nQUJD\n"));
        let head = o.respond_with(
            &req("HEAD /ca.crt HTTP/1.1\r\nHost: rig\r\n\r\n"),
            local(),
            false,
            ca.clone(),
        );
        assert!(head.ends_with(b"\r\n\r\n"), "HEAD has no body");
        assert_eq!(uuid_from(b"x", 1).len(), 36);
        assert_ne!(uuid_from(b"x", 1), uuid_from(b"x", 2));
    }
}
