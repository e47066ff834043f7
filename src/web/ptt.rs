//! PTT ownership (decisions.md "PTT safety"): the client that keyed the transmitter
//! owns it; another client's `ptt true` gets `ptt_busy` while it transmits or while its
//! key command is on its way. Anyone may unkey (stopping a transmission is always
//! allowed). When the owner's socket closes, the channel releases PTT at once. When the
//! server stops, keying is closed for good before anything else happens.

use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

/// Who holds PTT.
#[derive(Debug, Default)]
pub struct PttArbiter {
    owner: Mutex<Option<Holder>>,
    /// The server is stopping: nobody may key any more.
    closed: AtomicBool,
}

#[derive(Debug, Clone, Copy)]
struct Holder {
    id: u64,
    /// Key commands of the owner still on their way to the radio.
    keying: u32,
    /// An unkey was asked for (TX audio stops at once, before the radio confirms).
    unkeying: bool,
}

/// The outcome of asking to key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Go ahead; the client now owns PTT (call [`PttArbiter::key_done`] when the key
    /// command ends).
    Granted,
    /// Another client transmits, or is keying.
    Busy(u64),
    /// The server is stopping: no more keying.
    Closed,
}

impl PttArbiter {
    /// Client `id` wants to key; `transmitting` is the radio's PTT state now. Another
    /// client's key command in flight counts as transmitting: two clients never both
    /// get to key.
    pub fn claim(&self, id: u64, transmitting: bool) -> Claim {
        let mut o = self.owner.lock();
        if self.is_closed() {
            return Claim::Closed;
        }
        match o.as_mut() {
            Some(h) if h.id != id && (transmitting || h.keying > 0) => Claim::Busy(h.id),
            Some(h) if h.id == id => {
                h.keying += 1;
                h.unkeying = false;
                Claim::Granted
            }
            _ => {
                *o = Some(Holder {
                    id,
                    keying: 1,
                    unkeying: false,
                });
                Claim::Granted
            }
        }
    }

    /// A key command of `id` ended (`ok` if the radio took it); `transmitting` is the
    /// radio's PTT state now. A failed key leaves the owner in place while the radio
    /// still transmits (so that the owner's leaving still unkeys it).
    pub fn key_done(&self, id: u64, ok: bool, transmitting: bool) {
        let mut o = self.owner.lock();
        if let Some(h) = o.as_mut()
            && h.id == id
        {
            h.keying = h.keying.saturating_sub(1);
            if !ok && !transmitting && h.keying == 0 {
                *o = None;
            }
        }
    }

    /// Closes keying for good (the server is stopping): every later claim is refused, and
    /// the owner's TX audio stops. Returns the owner, if any.
    pub fn close(&self) -> Option<u64> {
        let mut o = self.owner.lock();
        self.closed.store(true, Ordering::SeqCst);
        let h = o.as_mut()?;
        h.unkeying = true;
        Some(h.id)
    }

    /// True once [`PttArbiter::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Forgets the owner (PTT went off, whoever unkeyed it), unless a key command of
    /// the owner is still on its way: that one keys again.
    pub fn clear(&self) {
        let mut o = self.owner.lock();
        if o.is_some_and(|h| h.keying == 0) {
            *o = None;
        }
    }

    /// Forgets the owner if it is `id`; true if it was.
    pub fn release_if_owner(&self, id: u64) -> bool {
        let mut o = self.owner.lock();
        if o.is_some_and(|h| h.id == id) {
            *o = None;
            true
        } else {
            false
        }
    }

    /// The owner, if any.
    pub fn owner(&self) -> Option<u64> {
        self.owner.lock().map(|h| h.id)
    }

    /// Somebody asked to unkey: the owner's TX audio stops now, not when the radio
    /// confirms.
    pub fn unkeying(&self) {
        if let Some(h) = self.owner.lock().as_mut() {
            h.unkeying = true;
        }
    }

    /// True if client `id` owns PTT and no unkey is on its way: its TX audio may reach
    /// the radio (while the radio transmits).
    pub fn tx_allowed(&self, id: u64) -> bool {
        self.owner.lock().is_some_and(|h| h.id == id && !h.unkeying)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_and_busy() {
        let a = PttArbiter::default();
        assert_eq!(a.claim(1, false), Claim::Granted);
        a.key_done(1, true, true);
        assert_eq!(a.claim(2, true), Claim::Busy(1));
        assert_eq!(a.claim(1, true), Claim::Granted, "the owner may key again");
        a.key_done(1, true, true);
        a.clear();
        assert_eq!(
            a.claim(2, false),
            Claim::Granted,
            "after the radio unkeyed, the next client may key"
        );
        assert!(a.tx_allowed(2));
        assert!(!a.tx_allowed(1));
        a.unkeying();
        assert!(!a.tx_allowed(2), "an unkey on its way stops TX audio");
        assert_eq!(a.claim(2, true), Claim::Granted);
        assert!(a.tx_allowed(2), "keying again allows it again");
        assert!(!a.release_if_owner(1));
        assert!(a.release_if_owner(2));
        assert_eq!(a.owner(), None);
    }

    #[test]
    fn a_key_on_its_way_makes_others_wait() {
        // review: two clients keying back to back both got ok, and the first one's
        // leaving then did not unkey the radio
        let a = PttArbiter::default();
        assert_eq!(a.claim(1, false), Claim::Granted);
        assert_eq!(a.claim(2, false), Claim::Busy(1), "1 is keying");
        a.clear();
        assert_eq!(
            a.owner(),
            Some(1),
            "an unkey event does not hide a key on its way"
        );
        a.key_done(1, false, false);
        assert_eq!(a.owner(), None, "a failed key with the radio idle lets go");
        assert_eq!(a.claim(2, false), Claim::Granted);
    }

    #[test]
    fn closed_keying_refuses_every_claim_and_stops_the_owners_audio() {
        let a = PttArbiter::default();
        assert_eq!(a.claim(1, false), Claim::Granted);
        a.key_done(1, true, true);
        assert!(a.tx_allowed(1));
        assert_eq!(a.close(), Some(1));
        assert!(a.is_closed());
        assert!(!a.tx_allowed(1), "TX audio stops with the close");
        assert_eq!(a.claim(1, true), Claim::Closed, "not even the owner");
        assert_eq!(a.claim(2, false), Claim::Closed);
        assert_eq!(a.owner(), Some(1), "the owner stays until the radio unkeys");
        a.clear();
        assert_eq!(a.owner(), None);
        assert_eq!(PttArbiter::default().close(), None);
    }

    #[test]
    fn a_failed_key_while_transmitting_keeps_the_owner() {
        let a = PttArbiter::default();
        a.claim(1, false);
        a.key_done(1, true, true);
        a.claim(1, true);
        a.key_done(1, false, true);
        assert_eq!(a.owner(), Some(1));
        assert_eq!(a.claim(2, true), Claim::Busy(1));
    }
}
