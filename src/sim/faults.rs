//! Fault injection for the simulated radio's UDP traffic: loss, duplication,
//! reordering, delay with jitter and total silence, in both directions. Decisions
//! come from a seeded generator, so a run with the same seed makes the same choices.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::rng::Rng;
use crate::wire::lan::Port;

/// What to do to datagrams. Probabilities are 0.0..=1.0 and apply per datagram and
/// per direction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FaultConfig {
    /// Drop probability.
    pub loss: f64,
    /// Probability of sending a datagram twice.
    pub duplicate: f64,
    /// Probability of holding a datagram back behind the next one.
    pub reorder: f64,
    /// Fixed one-way delay added to every datagram.
    pub delay: Duration,
    /// Extra random delay, uniform in 0..jitter.
    pub jitter: Duration,
    /// Probability that the radio answers a CI-V request with NAK instead of its reply.
    pub nak: f64,
}

impl FaultConfig {
    /// True when no datagram-level fault is injected.
    pub fn is_clean(&self) -> bool {
        FaultConfig {
            nak: 0.0,
            ..self.clone()
        } == FaultConfig::default()
    }
}

/// Counters of injected faults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultCounters {
    /// Datagrams dropped (loss or silence).
    pub dropped: u64,
    /// Datagrams duplicated.
    pub duplicated: u64,
    /// Datagrams reordered.
    pub reordered: u64,
    /// Datagrams delayed.
    pub delayed: u64,
}

/// A datagram on its way, possibly delayed.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pending {
    /// When it is due.
    pub due: Instant,
    /// Tie-breaker keeping FIFO order among equal deadlines.
    pub order: u64,
    /// Port it belongs to.
    pub port: PortKey,
    /// Peer address.
    pub addr: SocketAddr,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// `Port` as an ordered key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PortKey {
    /// Control.
    Control,
    /// CI-V.
    Civ,
    /// Audio.
    Audio,
}

impl From<Port> for PortKey {
    fn from(p: Port) -> Self {
        match p {
            Port::Control => PortKey::Control,
            Port::Civ => PortKey::Civ,
            Port::Audio => PortKey::Audio,
        }
    }
}

impl From<PortKey> for Port {
    fn from(p: PortKey) -> Self {
        match p {
            PortKey::Control => Port::Control,
            PortKey::Civ => Port::Civ,
            PortKey::Audio => Port::Audio,
        }
    }
}

/// Applies a [`FaultConfig`] to one direction of traffic.
#[derive(Debug)]
pub struct FaultLine {
    cfg: FaultConfig,
    rng: Rng,
    silent_until: Option<Instant>,
    queue: BinaryHeap<Reverse<Pending>>,
    held: Option<Pending>,
    order: u64,
    counters: FaultCounters,
}

impl FaultLine {
    /// A line with `cfg`, decisions seeded by `seed`.
    pub fn new(cfg: FaultConfig, seed: u64) -> FaultLine {
        FaultLine {
            cfg,
            rng: Rng::new(seed),
            silent_until: None,
            queue: BinaryHeap::new(),
            held: None,
            order: 0,
            counters: FaultCounters::default(),
        }
    }

    /// Replaces the configuration.
    pub fn set_config(&mut self, cfg: FaultConfig) {
        self.cfg = cfg;
    }

    /// Drops everything until `until`.
    pub fn silence_until(&mut self, until: Instant) {
        self.silent_until = Some(until);
        self.queue.clear();
        self.held = None;
    }

    /// Counters so far.
    pub fn counters(&self) -> FaultCounters {
        self.counters
    }

    /// Takes a datagram; what is due right away is appended to `now_out`.
    pub fn push(
        &mut self,
        port: Port,
        addr: SocketAddr,
        bytes: Vec<u8>,
        now: Instant,
        now_out: &mut Vec<Pending>,
    ) {
        if self.silent_until.is_some_and(|t| now < t) {
            self.counters.dropped += 1;
            return;
        }
        if self.cfg.is_clean() {
            now_out.push(self.pending(now, port, addr, bytes));
            return;
        }
        if self.rng.chance(self.cfg.loss) {
            self.counters.dropped += 1;
            return;
        }
        let copies = if self.rng.chance(self.cfg.duplicate) {
            self.counters.duplicated += 1;
            2
        } else {
            1
        };
        for _ in 0..copies {
            let mut due = now + self.cfg.delay;
            if !self.cfg.jitter.is_zero() {
                due += self.cfg.jitter.mul_f64(self.rng.unit_f64());
            }
            if due > now {
                self.counters.delayed += 1;
            }
            let p = self.pending(due, port, addr, bytes.clone());
            if self.held.is_none() && self.rng.chance(self.cfg.reorder) {
                self.counters.reordered += 1;
                self.held = Some(p);
                continue;
            }
            self.queue.push(Reverse(p));
            if let Some(mut h) = self.held.take() {
                // the held datagram goes out right after this one
                h.due = h.due.max(due);
                h.order = self.next_order();
                self.queue.push(Reverse(h));
            }
        }
        self.release(now, now_out);
    }

    fn next_order(&mut self) -> u64 {
        self.order += 1;
        self.order
    }

    fn pending(&mut self, due: Instant, port: Port, addr: SocketAddr, bytes: Vec<u8>) -> Pending {
        Pending {
            due,
            order: self.next_order(),
            port: port.into(),
            addr,
            bytes,
        }
    }

    /// Appends the datagrams due by `now` to `out`. A datagram held for reordering is
    /// released after 50 ms even when nothing follows it.
    pub fn release(&mut self, now: Instant, out: &mut Vec<Pending>) {
        if let Some(h) = &self.held
            && now >= h.due + Duration::from_millis(50)
            && let Some(h) = self.held.take()
        {
            self.queue.push(Reverse(h));
        }
        while let Some(Reverse(p)) = self.queue.peek() {
            if p.due > now {
                break;
            }
            if let Some(Reverse(p)) = self.queue.pop() {
                out.push(p);
            }
        }
    }

    /// When the next delayed datagram is due.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let q = self.queue.peek().map(|Reverse(p)| p.due);
        let h = self
            .held
            .as_ref()
            .map(|h| h.due + Duration::from_millis(50));
        crate::net::poll::earliest(q, h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr() -> SocketAddr {
        "127.0.0.1:1".parse().unwrap()
    }

    #[test]
    fn clean_line_passes_everything_in_order() {
        let mut l = FaultLine::new(FaultConfig::default(), 1);
        let t = Instant::now();
        let mut out = Vec::new();
        for i in 0..10u8 {
            l.push(Port::Civ, addr(), vec![i], t, &mut out);
        }
        assert_eq!(
            out.iter().map(|p| p.bytes[0]).collect::<Vec<_>>(),
            (0..10).collect::<Vec<_>>()
        );
    }

    #[test]
    fn loss_rate_is_about_right_and_deterministic() {
        let cfg = FaultConfig {
            loss: 0.1,
            ..Default::default()
        };
        let run = || {
            let mut l = FaultLine::new(cfg.clone(), 42);
            let t = Instant::now();
            let mut out = Vec::new();
            for i in 0..10_000u32 {
                l.push(Port::Civ, addr(), i.to_le_bytes().to_vec(), t, &mut out);
            }
            out.into_iter().map(|p| p.bytes).collect::<Vec<_>>()
        };
        let a = run();
        assert_eq!(a, run(), "same seed, same decisions");
        let lost = 10_000 - a.len();
        assert!((800..1200).contains(&lost), "lost {lost}");
    }

    #[test]
    fn delay_and_silence() {
        let cfg = FaultConfig {
            delay: Duration::from_millis(20),
            ..Default::default()
        };
        let mut l = FaultLine::new(cfg, 1);
        let t = Instant::now();
        let mut out = Vec::new();
        l.push(Port::Audio, addr(), vec![1], t, &mut out);
        assert!(out.is_empty());
        assert_eq!(l.poll_timeout(), Some(t + Duration::from_millis(20)));
        l.release(t + Duration::from_millis(20), &mut out);
        assert_eq!(out.len(), 1);
        l.silence_until(t + Duration::from_secs(1));
        out.clear();
        l.push(Port::Audio, addr(), vec![2], t, &mut out);
        l.release(t + Duration::from_secs(2), &mut out);
        assert!(out.is_empty());
        assert_eq!(l.counters().dropped, 1);
    }

    #[test]
    fn reorder_swaps_neighbours() {
        let cfg = FaultConfig {
            reorder: 1.0,
            ..Default::default()
        };
        let mut l = FaultLine::new(cfg, 3);
        let t = Instant::now();
        let mut out = Vec::new();
        l.push(Port::Civ, addr(), vec![1], t, &mut out);
        l.push(Port::Civ, addr(), vec![2], t, &mut out);
        assert_eq!(
            out.iter().map(|p| p.bytes[0]).collect::<Vec<_>>(),
            vec![2, 1]
        );
    }
}
