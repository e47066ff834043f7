//! PTT ownership (decisions.md "PTT safety"): the client that keyed the transmitter
//! owns it; another client's `ptt true` gets `ptt_busy` while it transmits. Anyone may
//! unkey (stopping a transmission is always allowed). When the owner's socket closes,
//! the channel releases PTT at once.

use parking_lot::Mutex;

/// Who holds PTT.
#[derive(Debug, Default)]
pub struct PttArbiter {
    owner: Mutex<Option<u64>>,
}

/// The outcome of asking to key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Go ahead; the client now owns PTT.
    Granted,
    /// Another client transmits.
    Busy(u64),
}

impl PttArbiter {
    /// Client `id` wants to key; `transmitting` is the radio's PTT state now.
    pub fn claim(&self, id: u64, transmitting: bool) -> Claim {
        let mut o = self.owner.lock();
        match *o {
            Some(other) if other != id && transmitting => Claim::Busy(other),
            _ => {
                *o = Some(id);
                Claim::Granted
            }
        }
    }

    /// Forgets the owner (PTT went off, whoever unkeyed it).
    pub fn clear(&self) {
        *self.owner.lock() = None;
    }

    /// Forgets the owner if it is `id` (a failed key attempt); true if it was.
    pub fn release_if_owner(&self, id: u64) -> bool {
        let mut o = self.owner.lock();
        if *o == Some(id) {
            *o = None;
            true
        } else {
            false
        }
    }

    /// The owner, if any.
    pub fn owner(&self) -> Option<u64> {
        *self.owner.lock()
    }
}

/// Clears the owner whenever the radio stops transmitting, whoever unkeyed it
/// (a command, the transmit timeout, the front panel or a reconnect).
pub struct PttWatcher(pub std::sync::Weak<crate::web::context::AppCtx>);

impl crate::radio::state::StateSink for PttWatcher {
    fn on_change(&self, change: &std::sync::Arc<crate::radio::state::StateChange>) {
        let unkeyed = change.events.iter().any(|e| {
            e.name == "ptt" && e.data.get("state") == Some(&serde_json::Value::Bool(false))
        });
        if unkeyed && let Some(app) = self.0.upgrade() {
            app.ptt.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_and_busy() {
        let a = PttArbiter::default();
        assert_eq!(a.claim(1, false), Claim::Granted);
        assert_eq!(a.claim(2, true), Claim::Busy(1));
        assert_eq!(a.claim(1, true), Claim::Granted, "the owner may key again");
        assert_eq!(
            a.claim(2, false),
            Claim::Granted,
            "a stale owner (radio not transmitting) loses it"
        );
        assert!(!a.release_if_owner(1));
        assert!(a.release_if_owner(2));
        assert_eq!(a.owner(), None);
    }
}
