//! The Origin policy (decisions.md "Front door and security", docs/API.md "Origin
//! policy").
//!
//! Browsers send `Origin` with every WebSocket handshake and with every request that is
//! not a plain GET or HEAD, and any page the operator has open may try to reach the
//! station. A request whose `Origin` is present is refused with 403 `forbidden_origin`
//! unless that origin is
//! * listed with `--allowed-origin`, or
//! * the server's own: the scheme of the port the request came in on and its `Host`,
//!   where the host is a name the server really answers to.
//!
//! The last condition is what stops DNS rebinding: a page on `evil.example` that
//! rebinds its name to the station's address makes the browser send
//! `Host: evil.example:8080` and `Origin: http://evil.example:8080`, which match. Over
//! plain HTTP the host must therefore be an IP literal, `localhost` (or a name under
//! `.localhost`, which browsers resolve to loopback themselves), this machine's host
//! name (short, fully qualified, or `<name>.local`), or a name given with
//! `--allowed-host` (a DDNS or router-assigned name). Over HTTPS the certificate
//! vouches for the name: a browser does not complete a handshake for `evil.example`
//! with a certificate that does not name it, so a rebinding page cannot get that far.
//! Clients that send no `Origin` (scripts, native programs) are not browsers acting for
//! a page, and pass.

use std::net::IpAddr;

use super::front::reply::Refusal;
use super::tls::host::{host_names, is_dns_name};

/// Which origins and host names count besides the server's own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OriginPolicy {
    allowed: Vec<String>,
    hosts: Vec<String>,
}

/// Why a request's `Origin` is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// Neither the server's own origin nor a listed one.
    Foreign,
    /// The server's own origin by its `Host`, but over plain HTTP with a host name the
    /// server does not know (what a DNS rebinding attack looks like).
    UnknownHost(String),
}

impl OriginPolicy {
    /// A policy that also admits `origins` (each `scheme://host[:port]`); an invalid
    /// entry is named in the error.
    pub fn new(origins: &[String]) -> Result<OriginPolicy, String> {
        let allowed = origins
            .iter()
            .map(|o| {
                normalize(o).ok_or_else(|| {
                    format!("{o:?} is not an origin; write it as http://host:port or https://host")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(OriginPolicy {
            allowed,
            hosts: Vec::new(),
        })
    }

    /// The policy that also takes `hosts` (DNS names, without port) as names of this
    /// server over plain HTTP; an invalid entry is named in the error.
    pub fn with_hosts(mut self, hosts: &[String]) -> Result<OriginPolicy, String> {
        for h in hosts {
            let name = h.trim().trim_end_matches('.').to_ascii_lowercase();
            if !is_dns_name(&name) {
                return Err(format!(
                    "{h:?} is not a host name; write it as rig.example.net (no scheme, no port)"
                ));
            }
            self.hosts.push(name);
        }
        Ok(self)
    }

    /// True if a request with `origin` may proceed on a port reached as `host`
    /// (`secure`: the port speaks TLS).
    pub fn allows(&self, origin: Option<&str>, host: Option<&str>, secure: bool) -> bool {
        self.check(origin, host, secure).is_ok()
    }

    /// [`OriginPolicy::allows`], with the reason of a refusal.
    pub fn check(
        &self,
        origin: Option<&str>,
        host: Option<&str>,
        secure: bool,
    ) -> Result<(), Denied> {
        let Some(origin) = origin else {
            return Ok(());
        };
        let origin = normalize(origin).ok_or(Denied::Foreign)?;
        if self.allowed.contains(&origin) {
            return Ok(());
        }
        let scheme = if secure { "https" } else { "http" };
        let own = host.and_then(|h| normalize(&format!("{scheme}://{h}")));
        if own.as_deref() != Some(origin.as_str()) {
            return Err(Denied::Foreign);
        }
        if secure {
            return Ok(());
        }
        let name = host_part(&origin);
        if self.knows(name) {
            Ok(())
        } else {
            Err(Denied::UnknownHost(name.to_string()))
        }
    }

    /// True if `host` (lower case, IPv6 in brackets) is a name this server answers to
    /// over plain HTTP.
    fn knows(&self, host: &str) -> bool {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if bare.parse::<IpAddr>().is_ok() {
            return true;
        }
        let name = host.trim_end_matches('.');
        name == "localhost"
            || name.ends_with(".localhost")
            || self.hosts.iter().any(|h| h == name)
            || host_names().contains(name)
    }

    /// The 403 for a request from the page at `origin` that `denied` refused; `what`
    /// names what was refused ("WebSocket connections", "requests").
    pub fn refusal(origin: &str, denied: &Denied, what: &str) -> Refusal {
        let message = match denied {
            Denied::Foreign => format!(
                "{what} from the page at {origin:?} are not allowed; the server admits its own origin and those given with --allowed-origin"
            ),
            Denied::UnknownHost(h) => format!(
                "{what} from the page at {origin:?} are not allowed: {h} is not a name this server knows over plain HTTP (an IP address, localhost, this machine's host name, or one given with --allowed-host); if {h} is this station's name, start rigweb with --allowed-host {h}, or use HTTPS"
            ),
        };
        Refusal::new(403, "forbidden_origin", message)
    }
}

/// The host of a normalized origin (`scheme://host[:port]`).
fn host_part(origin: &str) -> &str {
    let rest = origin.split_once("://").map_or(origin, |(_, r)| r);
    match rest.rfind(':') {
        Some(i) if !rest[i..].contains(']') => &rest[..i],
        _ => rest,
    }
}

/// `scheme://host[:port]` in lower case, without a default port; `None` for anything
/// else (a path, user info, another scheme, `null`).
fn normalize(origin: &str) -> Option<String> {
    let origin = origin.trim().to_ascii_lowercase();
    let (scheme, rest) = origin.split_once("://")?;
    let default_port = match scheme {
        "http" => "80",
        "https" => "443",
        _ => return None,
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.is_empty() || rest.contains(['/', '@', '?', '#', ' ']) {
        return None;
    }
    // an IPv6 literal keeps its brackets; the port is after the last colon outside them
    let (host, port) = match rest.rfind(':') {
        Some(i) if !rest[i..].contains(']') => (&rest[..i], Some(&rest[i + 1..])),
        _ => (rest, None),
    };
    if host.is_empty() {
        return None;
    }
    match port {
        Some(p) if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) => None,
        Some(p) if p == default_port => Some(format!("{scheme}://{host}")),
        Some(p) => Some(format!("{scheme}://{host}:{p}")),
        None => Some(format!("{scheme}://{host}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_origin_listed_origins_and_no_origin_pass() {
        let p = OriginPolicy::new(&["https://Dash.example:8443".into()])
            .unwrap()
            .with_hosts(&["rig.local".into()])
            .unwrap();
        assert!(p.allows(None, Some("rig.local:8080"), false), "scripts");
        assert!(p.allows(Some("http://rig.local:8080"), Some("rig.local:8080"), false));
        assert!(p.allows(Some("HTTP://RIG.local:8080"), Some("rig.LOCAL:8080"), false));
        assert!(p.allows(Some("https://rig.local"), Some("rig.local:443"), true));
        assert!(p.allows(Some("http://[::1]:8080"), Some("[::1]:8080"), false));
        assert!(p.allows(Some("https://dash.example:8443"), Some("rig.local"), true));
        assert!(p.allows(Some("http://10.0.0.7:8080"), Some("10.0.0.7:8080"), false));
        assert!(p.allows(Some("http://localhost:8080"), Some("localhost:8080"), false));
        assert!(p.allows(Some("http://rig.localhost"), Some("rig.localhost"), false));
    }

    #[test]
    fn a_rebound_name_is_not_the_servers_own_origin_over_plain_http() {
        // review: a page on evil.example that rebinds its name to the station made
        // Origin and Host agree, and counted as the server's own origin
        let p = OriginPolicy::default();
        let origin = Some("http://evil.example:8080");
        let host = Some("evil.example:8080");
        assert_eq!(
            p.check(origin, host, false),
            Err(Denied::UnknownHost("evil.example".into()))
        );
        // this machine's own names count
        for name in host_names() {
            let h = format!("{name}:8080");
            assert!(
                p.allows(Some(&format!("http://{h}")), Some(&h), false),
                "{name}"
            );
        }
        // a name given with --allowed-host counts; over HTTPS the certificate vouches
        let ddns = p.clone().with_hosts(&["evil.example".into()]).unwrap();
        assert!(ddns.allows(origin, host, false));
        assert!(p.allows(Some("https://evil.example:8080"), host, true));
        let r = OriginPolicy::refusal(
            "http://evil.example:8080",
            &Denied::UnknownHost("evil.example".into()),
            "requests",
        );
        assert_eq!((r.status, r.code), (403, "forbidden_origin"));
        assert!(
            r.message.contains("--allowed-host evil.example"),
            "{}",
            r.message
        );
    }

    #[test]
    fn foreign_origins_are_refused() {
        let p = OriginPolicy::default()
            .with_hosts(&["rig.local".into()])
            .unwrap();
        let host = Some("rig.local:8080");
        for o in [
            "http://evil.example",
            "https://rig.local:8080",
            "http://rig.local:8081",
            "http://rig.local.evil.example:8080",
            "null",
            "file://",
            "http://rig.local:8080/path",
            "",
        ] {
            assert_eq!(p.check(Some(o), host, false), Err(Denied::Foreign), "{o}");
        }
        assert!(
            !p.allows(Some("http://rig.local:8080"), None, false),
            "no Host"
        );
    }

    #[test]
    fn configured_origins_and_hosts_are_checked() {
        assert!(OriginPolicy::new(&["http://a:1".into(), "https://b".into()]).is_ok());
        for bad in [
            "a.example",
            "ftp://a",
            "http://a/x",
            "http://",
            "http://a:x",
        ] {
            assert!(OriginPolicy::new(&[bad.into()]).is_err(), "{bad}");
        }
        for bad in ["http://rig", "rig:8080", "", "a..b", "-rig"] {
            assert!(
                OriginPolicy::default().with_hosts(&[bad.into()]).is_err(),
                "{bad}"
            );
        }
        assert!(
            OriginPolicy::default()
                .with_hosts(&["Rig.Example.NET.".into()])
                .unwrap()
                .allows(
                    Some("http://rig.example.net:8080"),
                    Some("rig.example.net:8080"),
                    false
                )
        );
    }
}
