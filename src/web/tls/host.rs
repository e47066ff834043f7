//! The names and addresses this host is reached by, for the automatic certificate:
//! its host name (and `<name>.local` for mDNS), `localhost`, and the address of every
//! interface that is up.

use std::collections::BTreeSet;
use std::ffi::CStr;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// What a server certificate must name.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HostIdentity {
    /// DNS names.
    pub names: BTreeSet<String>,
    /// IP addresses.
    pub addresses: BTreeSet<IpAddr>,
}

impl HostIdentity {
    /// This host, as the system describes it now.
    pub fn current() -> HostIdentity {
        let names = host_names();
        let mut addresses: BTreeSet<IpAddr> = BTreeSet::from([
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(Ipv6Addr::LOCALHOST),
        ]);
        addresses.extend(interface_addresses());
        HostIdentity { names, addresses }
    }

    /// True if every name and address of `other` is in `self`.
    pub fn covers(&self, other: &HostIdentity) -> bool {
        other.names.is_subset(&self.names) && other.addresses.is_subset(&self.addresses)
    }

    /// Both sets together.
    pub fn union(&self, other: &HostIdentity) -> HostIdentity {
        HostIdentity {
            names: self.names.union(&other.names).cloned().collect(),
            addresses: self.addresses.union(&other.addresses).copied().collect(),
        }
    }
}

/// The names this host goes by now: `localhost`, its host name (short and as the
/// system has it) and `<short name>.local` (mDNS), in lower case.
pub fn host_names() -> BTreeSet<String> {
    let mut names = BTreeSet::from(["localhost".to_string()]);
    if let Some(h) = host_name() {
        let h = h.to_ascii_lowercase();
        let short = h.split('.').next().unwrap_or(&h).to_string();
        if is_dns_name(&short) {
            names.insert(format!("{short}.local"));
            names.insert(short);
        }
        if is_dns_name(&h) {
            names.insert(h);
        }
    }
    names
}

/// A plausible DNS name: labels of letters, digits and hyphens.
pub fn is_dns_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

fn host_name() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer and its length are valid; gethostname NUL-terminates within it
    // on success (the last byte is kept 0 in any case).
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len() - 1) };
    if rc != 0 {
        return None;
    }
    CStr::from_bytes_until_nul(&buf)
        .ok()?
        .to_str()
        .ok()
        .map(str::to_string)
}

/// The addresses of the interfaces that are up (IPv6 link-local ones left out: they
/// need a zone, which no URL a browser takes can carry).
fn interface_addresses() -> Vec<IpAddr> {
    let mut out = Vec::new();
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `list` with a linked list we free below; every node and
    // address pointer is checked for null and read according to its family.
    unsafe {
        if libc::getifaddrs(&mut list) != 0 {
            return out;
        }
        let mut node = list;
        while !node.is_null() {
            let ifa = &*node;
            node = ifa.ifa_next;
            if ifa.ifa_addr.is_null() || ifa.ifa_flags & libc::IFF_UP as libc::c_uint == 0 {
                continue;
            }
            match (*ifa.ifa_addr).sa_family as libc::c_int {
                libc::AF_INET => {
                    let a = &*(ifa.ifa_addr as *const libc::sockaddr_in);
                    out.push(IpAddr::V4(Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr))));
                }
                libc::AF_INET6 => {
                    let a = &*(ifa.ifa_addr as *const libc::sockaddr_in6);
                    let ip = Ipv6Addr::from(a.sin6_addr.s6_addr);
                    if ip.segments()[0] & 0xffc0 != 0xfe80 {
                        out.push(IpAddr::V6(ip));
                    }
                }
                _ => {}
            }
        }
        libc::freeifaddrs(list);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_localhost_and_loopback() {
        let me = HostIdentity::current();
        assert!(me.names.contains("localhost"));
        assert!(me.addresses.contains(&IpAddr::V4(Ipv4Addr::LOCALHOST)));
        assert!(me.names.iter().all(|n| is_dns_name(n)), "{me:?}");
        assert!(me.covers(&me));
        let mut more = me.clone();
        more.names.insert("elsewhere".into());
        assert!(!me.covers(&more) && more.covers(&me));
        assert!(!is_dns_name("-x") && !is_dns_name("a..b") && !is_dns_name("a_b"));
    }
}
