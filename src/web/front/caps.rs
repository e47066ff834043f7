//! Connection caps: how many connections the server holds in total and per client
//! address. A connection over either cap is refused (503) before anything is read
//! from it. A [`ConnSlot`] is the place of one connection; it goes with the socket
//! (into a WebSocket's thread, too) and gives the place back when dropped.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use parking_lot::Mutex;

/// The caps and the current counts.
#[derive(Debug)]
pub struct ConnCaps {
    inner: Arc<Mutex<Counts>>,
    total_max: usize,
    per_client_max: usize,
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    per_client: HashMap<IpAddr, usize>,
}

/// Why a connection was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverCap {
    /// The server holds `max` connections.
    Total {
        /// The cap.
        max: usize,
    },
    /// This client address holds `max` connections.
    PerClient {
        /// The cap.
        max: usize,
    },
}

/// One connection's place under the caps.
#[derive(Debug)]
pub struct ConnSlot {
    inner: Arc<Mutex<Counts>>,
    client: IpAddr,
}

impl Drop for ConnSlot {
    fn drop(&mut self) {
        let mut c = self.inner.lock();
        c.total = c.total.saturating_sub(1);
        if let Some(n) = c.per_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                c.per_client.remove(&self.client);
            }
        }
    }
}

impl ConnCaps {
    /// Caps of `total_max` connections, `per_client_max` from one address.
    pub fn new(total_max: usize, per_client_max: usize) -> ConnCaps {
        ConnCaps {
            inner: Arc::default(),
            total_max: total_max.max(1),
            per_client_max: per_client_max.max(1),
        }
    }

    /// Takes a place for a connection from `client`, or says which cap is reached.
    pub fn admit(&self, client: IpAddr) -> Result<ConnSlot, OverCap> {
        let client = canonical(client);
        let mut c = self.inner.lock();
        if c.total >= self.total_max {
            return Err(OverCap::Total {
                max: self.total_max,
            });
        }
        let n = c.per_client.entry(client).or_insert(0);
        if *n >= self.per_client_max {
            return Err(OverCap::PerClient {
                max: self.per_client_max,
            });
        }
        *n += 1;
        c.total += 1;
        Ok(ConnSlot {
            inner: self.inner.clone(),
            client,
        })
    }

    /// Connections held now.
    pub fn total(&self) -> usize {
        self.inner.lock().total
    }
}

/// An IPv4 address mapped into IPv6 counts as the IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_in_total_and_per_client() {
        let caps = ConnCaps::new(3, 2);
        let a: IpAddr = "127.0.0.1".parse().unwrap();
        let b: IpAddr = "127.0.0.2".parse().unwrap();
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
        let s1 = caps.admit(a).unwrap();
        let _s2 = caps.admit(mapped).unwrap();
        assert_eq!(caps.admit(a).unwrap_err(), OverCap::PerClient { max: 2 });
        let _s3 = caps.admit(b).unwrap();
        assert_eq!(caps.admit(b).unwrap_err(), OverCap::Total { max: 3 });
        drop(s1);
        assert_eq!(caps.total(), 2);
        let _s4 = caps.admit(a).expect("a place came free");
    }
}
