//! Who may connect to the rigctld port. The NET rigctl protocol has no authentication,
//! so the port answers the machine itself (loopback) and the networks named with
//! `--rigctld-allow CIDR`, nobody else.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// A network: address and prefix length (`192.168.1.0/24`, `fd00::/8`, `10.0.0.7`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    net: IpAddr,
    prefix: u8,
}

impl FromStr for Cidr {
    type Err = String;

    fn from_str(s: &str) -> Result<Cidr, String> {
        let (addr, prefix) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let net: IpAddr = addr
            .trim()
            .parse()
            .map_err(|_| format!("{s:?}: not an IP address or network (like 192.168.1.0/24)"))?;
        let max = if net.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => match p.trim().parse::<u8>() {
                Ok(n) if n <= max => n,
                _ => return Err(format!("{s:?}: the prefix length must be 0 to {max}")),
            },
        };
        Ok(Cidr { net, prefix })
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.net, self.prefix)
    }
}

fn bits(ip: IpAddr) -> (u128, u32) {
    match ip {
        IpAddr::V4(v) => (u128::from(u32::from(v)), 32),
        IpAddr::V6(v) => (u128::from(v), 128),
    }
}

impl Cidr {
    /// True if `ip` is in the network (an IPv4 address seen as `::ffff:a.b.c.d` too).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v) => v.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        let ((a, width), (b, width_b)) = (bits(self.net), bits(ip));
        if width != width_b {
            return false;
        }
        let shift = width - u32::from(self.prefix);
        shift >= width || (a >> shift) == (b >> shift)
    }
}

/// The networks besides loopback that may connect.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList(Vec<Cidr>);

impl AllowList {
    /// Parses `--rigctld-allow` values.
    pub fn parse(values: &[String]) -> Result<AllowList, String> {
        values
            .iter()
            .map(|v| v.parse())
            .collect::<Result<_, _>>()
            .map(AllowList)
    }

    /// True if a client at `ip` may connect: loopback always, else a listed network.
    pub fn allows(&self, ip: IpAddr) -> bool {
        let loopback = match ip {
            IpAddr::V6(v) => v
                .to_ipv4_mapped()
                .map_or(v.is_loopback(), |v4| v4.is_loopback()),
            IpAddr::V4(v) => v.is_loopback(),
        };
        loopback || self.0.iter().any(|c| c.contains(ip))
    }

    /// True when only loopback may connect.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for AllowList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self.0.iter().map(Cidr::to_string).collect();
        f.write_str(&list.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn networks() {
        let lan: Cidr = "192.168.1.0/24".parse().unwrap();
        assert!(lan.contains(ip("192.168.1.77")));
        assert!(!lan.contains(ip("192.168.2.1")));
        assert!(lan.contains(ip("::ffff:192.168.1.5")), "v4-mapped");
        assert!(!lan.contains(ip("fd00::1")));
        let host: Cidr = "10.0.0.7".parse().unwrap();
        assert!(host.contains(ip("10.0.0.7")) && !host.contains(ip("10.0.0.8")));
        let all: Cidr = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains(ip("8.8.8.8")));
        let v6: Cidr = "fd00::/8".parse().unwrap();
        assert!(v6.contains(ip("fd12::1")) && !v6.contains(ip("fe80::1")));
        assert_eq!(lan.to_string(), "192.168.1.0/24");
    }

    #[test]
    fn bad_networks_say_what_is_wrong() {
        assert!(
            "192.168.1.0/33"
                .parse::<Cidr>()
                .unwrap_err()
                .contains("0 to 32")
        );
        assert!("lan".parse::<Cidr>().unwrap_err().contains("not an IP"));
        assert!("::/129".parse::<Cidr>().is_err());
        assert!(AllowList::parse(&["10.0.0.0/8".into(), "x".into()]).is_err());
    }

    #[test]
    fn loopback_always_the_rest_when_listed() {
        let none = AllowList::default();
        assert!(none.allows(ip("127.0.0.1")) && none.allows(ip("::1")));
        assert!(none.allows(ip("::ffff:127.0.0.1")));
        assert!(!none.allows(ip("192.168.1.2")));
        let lan = AllowList::parse(&["192.168.1.0/24".into()]).unwrap();
        assert!(lan.allows(ip("192.168.1.2")) && !lan.allows(ip("10.1.1.1")));
    }
}
