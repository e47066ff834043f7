//! Packet recovery on the radio link's UDP streams, summed over its sessions for the
//! status and `/metrics`: packets resent because the radio asked for them, retransmit
//! requests sent for packets that did not arrive, and packets given up. Each port
//! thread keeps a [`RecoveryTally`] of its current session's [`StreamStats`] and adds
//! what grew since the last look to the link's totals (a new session starts its
//! counters at zero; the tally notices and counts the new session from there).

use super::stream::StreamStats;

/// A port of the radio's LAN protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LanPort {
    /// The control port (login, tokens, stream set-up).
    Control,
    /// The CI-V port.
    Civ,
    /// The audio port.
    Audio,
}

impl LanPort {
    /// Every port, in the order of [`Recovery`] arrays.
    pub const ALL: [LanPort; 3] = [LanPort::Control, LanPort::Civ, LanPort::Audio];

    /// Its name in metrics labels.
    pub fn as_str(self) -> &'static str {
        match self {
            LanPort::Control => "control",
            LanPort::Civ => "civ",
            LanPort::Audio => "audio",
        }
    }

    /// Its index in [`Recovery`] arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Packet recovery counts of one port.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Packets resent because the radio asked for them (it missed ours).
    pub resent: u64,
    /// Retransmit requests sent for packets of the radio's that did not arrive.
    pub requests_sent: u64,
    /// Missing packets of the radio's given up after the last request.
    pub abandoned: u64,
}

impl Recovery {
    /// The recovery counts of a stream's counters.
    pub fn of(stats: &StreamStats) -> Recovery {
        Recovery {
            resent: stats.resent,
            requests_sent: stats.requests_sent,
            abandoned: stats.rx.abandoned,
        }
    }

    /// Adds `other` to these counts.
    pub fn add(&mut self, other: Recovery) {
        self.resent += other.resent;
        self.requests_sent += other.requests_sent;
        self.abandoned += other.abandoned;
    }

    fn fields(&self) -> [u64; 3] {
        [self.resent, self.requests_sent, self.abandoned]
    }
}

/// What a port thread last added to the link's totals for its current session.
#[derive(Debug, Default)]
pub struct RecoveryTally {
    last: Recovery,
}

impl RecoveryTally {
    /// The growth since the last call, given the current session's counts (`None`
    /// while no session runs); `None` when nothing grew. Counts lower than the last
    /// ones mean a new session: all of its counts are new.
    pub fn growth(&mut self, now: Option<&StreamStats>) -> Option<Recovery> {
        let now = now.map(Recovery::of).unwrap_or_default();
        let restarted = now
            .fields()
            .iter()
            .zip(self.last.fields())
            .any(|(n, l)| *n < l);
        let grown = if restarted {
            now
        } else {
            Recovery {
                resent: now.resent - self.last.resent,
                requests_sent: now.requests_sent - self.last.requests_sent,
                abandoned: now.abandoned - self.last.abandoned,
            }
        };
        self.last = now;
        (grown != Recovery::default()).then_some(grown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(resent: u64, requests_sent: u64, abandoned: u64) -> StreamStats {
        let mut s = StreamStats {
            resent,
            requests_sent,
            ..StreamStats::default()
        };
        s.rx.abandoned = abandoned;
        s
    }

    #[test]
    fn only_growth_is_counted_and_a_new_session_counts_from_zero() {
        let mut t = RecoveryTally::default();
        assert_eq!(t.growth(None), None, "no session, nothing");
        assert_eq!(t.growth(Some(&stats(0, 0, 0))), None);
        assert_eq!(
            t.growth(Some(&stats(2, 1, 0))),
            Some(Recovery {
                resent: 2,
                requests_sent: 1,
                abandoned: 0
            })
        );
        assert_eq!(t.growth(Some(&stats(2, 1, 0))), None, "unchanged");
        assert_eq!(
            t.growth(Some(&stats(5, 1, 1))),
            Some(Recovery {
                resent: 3,
                requests_sent: 0,
                abandoned: 1
            })
        );
        // the session ended, and a new one has already resent one packet
        assert_eq!(
            t.growth(Some(&stats(1, 0, 0))),
            Some(Recovery {
                resent: 1,
                requests_sent: 0,
                abandoned: 0
            })
        );
        assert_eq!(t.growth(None), None, "a closed session adds nothing");
        assert_eq!(
            t.growth(Some(&stats(1, 4, 0))),
            Some(Recovery {
                resent: 1,
                requests_sent: 4,
                abandoned: 0
            })
        );
    }

    #[test]
    fn totals_add_up_and_ports_have_stable_names() {
        let mut total = Recovery::default();
        total.add(Recovery {
            resent: 1,
            requests_sent: 2,
            abandoned: 3,
        });
        total.add(Recovery {
            resent: 10,
            requests_sent: 20,
            abandoned: 30,
        });
        assert_eq!(
            total,
            Recovery {
                resent: 11,
                requests_sent: 22,
                abandoned: 33
            }
        );
        let names: Vec<_> = LanPort::ALL.iter().map(|p| p.as_str()).collect();
        assert_eq!(names, ["control", "civ", "audio"]);
        assert!(LanPort::ALL.iter().enumerate().all(|(i, p)| p.index() == i));
    }
}
