//! Client-side discovery of one port (spec §1.4, §2.10): "are you there" until the
//! radio answers "I am here" (which gives its id), then "are you ready" until
//! "I am ready" (or, like the reference client, proceed after a few tries).

use std::time::{Duration, Instant};

use crate::wire::lan::{ControlRepr, Packet, ptype};

/// Discovery timing.
#[derive(Debug, Clone)]
pub struct DiscoveryConfig {
    /// Period of AYT (and AYR) retries.
    pub interval: Duration,
    /// AYT attempts before the radio is declared unreachable.
    pub ayt_attempts: u32,
    /// AYR attempts before proceeding without an "I am ready".
    pub ayr_attempts: u32,
}

impl Default for DiscoveryConfig {
    fn default() -> Self {
        DiscoveryConfig {
            interval: Duration::from_millis(500),
            ayt_attempts: 10,
            ayr_attempts: 4,
        }
    }
}

/// Where discovery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoveryState {
    /// Still talking.
    Pending,
    /// The radio answered; its id is known.
    Done {
        /// The radio's id on this port.
        remote_id: u32,
    },
    /// No "I am here" after every attempt.
    Unreachable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    AreYouThere,
    AreYouReady,
    Done,
    Failed,
}

/// The discovery handshake of one port.
#[derive(Debug)]
pub struct Discovery {
    cfg: DiscoveryConfig,
    my_id: u32,
    remote_id: u32,
    phase: Phase,
    attempts: u32,
    next_send: Instant,
}

impl Discovery {
    /// Starts discovery with our id `my_id` (must be non-zero: radios ignore AYT from 0).
    pub fn new(cfg: DiscoveryConfig, my_id: u32, now: Instant) -> Discovery {
        Discovery {
            cfg,
            my_id: my_id.max(1),
            remote_id: 0,
            phase: Phase::AreYouThere,
            attempts: 0,
            next_send: now,
        }
    }

    /// Current state.
    pub fn state(&self) -> DiscoveryState {
        match self.phase {
            Phase::Done => DiscoveryState::Done {
                remote_id: self.remote_id,
            },
            Phase::Failed => DiscoveryState::Unreachable,
            _ => DiscoveryState::Pending,
        }
    }

    /// Takes a packet from the radio; returns true if discovery used it.
    pub fn receive(&mut self, pkt: &Packet, now: Instant, out: &mut Vec<Vec<u8>>) -> bool {
        match (self.phase, pkt) {
            (Phase::AreYouThere, Packet::IAmHere(c))
                if c.rcvd_id == self.my_id && c.sent_id != 0 =>
            {
                self.remote_id = c.sent_id;
                self.phase = Phase::AreYouReady;
                self.attempts = 0;
                self.next_send = now;
                self.poll(now, out);
                true
            }
            (Phase::AreYouReady, Packet::AreYouReady(c))
                if c.rcvd_id == self.my_id && c.sent_id == self.remote_id =>
            {
                self.phase = Phase::Done;
                true
            }
            _ => false,
        }
    }

    /// Sends retries due at `now`.
    pub fn poll(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        if now < self.next_send {
            return;
        }
        match self.phase {
            Phase::AreYouThere => {
                if self.attempts >= self.cfg.ayt_attempts {
                    self.phase = Phase::Failed;
                    return;
                }
                out.push(self.packet(ptype::ARE_YOU_THERE, 0));
            }
            Phase::AreYouReady => {
                if self.attempts >= self.cfg.ayr_attempts {
                    self.phase = Phase::Done;
                    return;
                }
                out.push(self.packet(ptype::ARE_YOU_READY, 1));
            }
            Phase::Done | Phase::Failed => return,
        }
        self.attempts += 1;
        self.next_send = now + self.cfg.interval;
    }

    /// The next instant [`Discovery::poll`] has work, if any.
    pub fn poll_timeout(&self) -> Option<Instant> {
        matches!(self.phase, Phase::AreYouThere | Phase::AreYouReady).then_some(self.next_send)
    }

    fn packet(&self, ptype_value: u16, seq: u16) -> Vec<u8> {
        ControlRepr {
            ptype: ptype_value,
            seq,
            sent_id: self.my_id,
            rcvd_id: self.remote_id,
        }
        .emit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_handshake() {
        let t0 = Instant::now();
        let mut d = Discovery::new(DiscoveryConfig::default(), 0x0001_C351, t0);
        let mut out = Vec::new();
        d.poll(t0, &mut out);
        assert_eq!(out.len(), 1);
        let ayt = ControlRepr::parse(&out[0]).unwrap();
        assert_eq!((ayt.ptype, ayt.rcvd_id), (ptype::ARE_YOU_THERE, 0));
        let iah = Packet::IAmHere(ControlRepr {
            ptype: ptype::I_AM_HERE,
            seq: 0,
            sent_id: 0xDEAD_BEEF,
            rcvd_id: 0x0001_C351,
        });
        out.clear();
        assert!(d.receive(&iah, t0, &mut out));
        let ayr = ControlRepr::parse(&out[0]).unwrap();
        assert_eq!(
            (ayr.ptype, ayr.rcvd_id),
            (ptype::ARE_YOU_READY, 0xDEAD_BEEF)
        );
        let ready = Packet::AreYouReady(ControlRepr {
            ptype: ptype::ARE_YOU_READY,
            seq: 1,
            sent_id: 0xDEAD_BEEF,
            rcvd_id: 0x0001_C351,
        });
        assert!(d.receive(&ready, t0, &mut out));
        assert_eq!(
            d.state(),
            DiscoveryState::Done {
                remote_id: 0xDEAD_BEEF
            }
        );
    }

    #[test]
    fn unreachable_after_attempts() {
        let t0 = Instant::now();
        let cfg = DiscoveryConfig {
            ayt_attempts: 3,
            ..Default::default()
        };
        let mut d = Discovery::new(cfg, 7, t0);
        let mut out = Vec::new();
        for i in 0..4 {
            d.poll(t0 + Duration::from_millis(500 * i), &mut out);
        }
        assert_eq!(out.len(), 3);
        assert_eq!(d.state(), DiscoveryState::Unreachable);
        assert_eq!(d.poll_timeout(), None);
    }

    #[test]
    fn proceeds_without_i_am_ready() {
        let t0 = Instant::now();
        let mut d = Discovery::new(DiscoveryConfig::default(), 7, t0);
        let mut out = Vec::new();
        d.poll(t0, &mut out);
        let iah = Packet::IAmHere(ControlRepr {
            ptype: ptype::I_AM_HERE,
            seq: 0,
            sent_id: 9,
            rcvd_id: 7,
        });
        d.receive(&iah, t0, &mut out);
        for i in 1..=5 {
            d.poll(t0 + Duration::from_millis(500 * i), &mut out);
        }
        assert_eq!(d.state(), DiscoveryState::Done { remote_id: 9 });
    }

    #[test]
    fn ignores_foreign_i_am_here() {
        let t0 = Instant::now();
        let mut d = Discovery::new(DiscoveryConfig::default(), 7, t0);
        let mut out = Vec::new();
        let wrong = Packet::IAmHere(ControlRepr {
            ptype: ptype::I_AM_HERE,
            seq: 0,
            sent_id: 9,
            rcvd_id: 8,
        });
        assert!(!d.receive(&wrong, t0, &mut out));
        assert_eq!(d.state(), DiscoveryState::Pending);
    }
}
