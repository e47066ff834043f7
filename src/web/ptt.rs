//! PTT ownership (decisions.md "PTT safety"): the client that keyed the transmitter
//! owns it; another client's `ptt true` gets `ptt_busy` while it transmits or while its
//! key command is on its way. Anyone may unkey (stopping a transmission is always
//! allowed). When the owner's socket closes, the channel releases PTT at once.

use parking_lot::Mutex;

/// Who holds PTT.
#[derive(Debug, Default)]
pub struct PttArbiter {
    owner: Mutex<Option<Holder>>,
}

#[derive(Debug, Clone, Copy)]
struct Holder {
    id: u64,
    /// Key commands of the owner still on their way to the radio.
    keying: u32,
}

/// The outcome of asking to key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Go ahead; the client now owns PTT (call [`PttArbiter::key_done`] when the key
    /// command ends).
    Granted,
    /// Another client transmits, or is keying.
    Busy(u64),
}

impl PttArbiter {
    /// Client `id` wants to key; `transmitting` is the radio's PTT state now. Another
    /// client's key command in flight counts as transmitting: two clients never both
    /// get to key.
    pub fn claim(&self, id: u64, transmitting: bool) -> Claim {
        let mut o = self.owner.lock();
        match o.as_mut() {
            Some(h) if h.id != id && (transmitting || h.keying > 0) => Claim::Busy(h.id),
            Some(h) if h.id == id => {
                h.keying += 1;
                Claim::Granted
            }
            _ => {
                *o = Some(Holder { id, keying: 1 });
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
