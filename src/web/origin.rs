//! The Origin policy for WebSocket upgrades (decisions.md "Front door and security").
//!
//! Browsers send `Origin` with every WebSocket handshake, and any page the operator has
//! open may try to connect to the station. An upgrade whose `Origin` is present and is
//! neither the server's own (the scheme of the port it came in on and its `Host`) nor
//! listed with `--allowed-origin` is refused with 403 `forbidden_origin`, whatever
//! token it carries. Clients that send no `Origin` (scripts, native programs) are not
//! browsers acting for a page, and pass.

/// Which origins may open WebSockets besides the server's own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OriginPolicy {
    allowed: Vec<String>,
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
        Ok(OriginPolicy { allowed })
    }

    /// True if an upgrade with `origin` may proceed on a port reached as `host`
    /// (`secure`: the port speaks TLS).
    pub fn allows(&self, origin: Option<&str>, host: Option<&str>, secure: bool) -> bool {
        let Some(origin) = origin else {
            return true;
        };
        let Some(origin) = normalize(origin) else {
            return false;
        };
        let scheme = if secure { "https" } else { "http" };
        if let Some(own) = host.and_then(|h| normalize(&format!("{scheme}://{h}")))
            && own == origin
        {
            return true;
        }
        self.allowed.contains(&origin)
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
        let p = OriginPolicy::new(&["https://Dash.example:8443".into()]).unwrap();
        assert!(p.allows(None, Some("rig.local:8080"), false), "scripts");
        assert!(p.allows(Some("http://rig.local:8080"), Some("rig.local:8080"), false));
        assert!(p.allows(Some("HTTP://RIG.local:8080"), Some("rig.LOCAL:8080"), false));
        assert!(p.allows(Some("https://rig.local"), Some("rig.local:443"), true));
        assert!(p.allows(Some("http://[::1]:8080"), Some("[::1]:8080"), false));
        assert!(p.allows(Some("https://dash.example:8443"), Some("rig.local"), true));
    }

    #[test]
    fn foreign_origins_are_refused() {
        let p = OriginPolicy::default();
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
            assert!(!p.allows(Some(o), host, false), "{o}");
        }
        assert!(
            !p.allows(Some("http://rig.local:8080"), None, false),
            "no Host"
        );
    }

    #[test]
    fn configured_origins_are_checked() {
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
    }
}
