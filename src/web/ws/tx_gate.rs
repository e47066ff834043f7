//! Which TX audio frames of a client reach the radio, sans-IO: only while the client is
//! allowed (it owns a confirmed PTT, no unkey on its way) and never faster than real
//! time plus a small burst; a refused client is told once (`ptt_required`), and again
//! only after frames were accepted in between.
//!
//! The real-time budget belongs to the PTT owner, not to a socket: every audio socket
//! started with the owner's session draws on one [`TxCredit`] ([`TxCredits::for_owner`]),
//! so two sockets together still deliver real time plus the burst, not twice that.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// Audio a client may send ahead of real time.
pub const BURST: Duration = Duration::from_millis(500);

/// What to do with a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxVerdict {
    /// Send it; `starts` is true for the first frame of a transmission.
    Send {
        /// First frame since the client was last refused (or ever).
        starts: bool,
    },
    /// Not allowed: drop it; `tell` the client (`ptt_required`) if true.
    Refuse {
        /// Send the one error message.
        tell: bool,
    },
    /// Allowed, but faster than real time: drop it silently.
    TooFast,
}

/// The real-time budget of one PTT owner: audio credit in µs (at most [`BURST`]), topped
/// up as time passes.
#[derive(Debug, Clone)]
pub struct TxCredit {
    credit: u64,
    at: Option<Instant>,
}

impl Default for TxCredit {
    fn default() -> Self {
        TxCredit {
            credit: BURST.as_micros() as u64,
            at: None,
        }
    }
}

impl TxCredit {
    /// Takes `need` of audio at `now` if the budget has it.
    pub fn take(&mut self, need: Duration, now: Instant) -> bool {
        let burst = BURST.as_micros() as u64;
        if let Some(t) = self.at {
            let earned = now.saturating_duration_since(t).as_micros() as u64;
            self.credit = self.credit.saturating_add(earned).min(burst);
        }
        self.at = Some(now.max(self.at.unwrap_or(now)));
        let need = need.as_micros() as u64;
        if self.credit < need {
            return false;
        }
        self.credit -= need;
        true
    }
}

/// A budget shared by the audio sockets of one owner.
pub type SharedCredit = Arc<Mutex<TxCredit>>;

/// The budgets of the PTT owners (control clients) that have TX audio sockets; a budget
/// lives as long as one of its sockets does.
#[derive(Debug, Default)]
pub struct TxCredits {
    by_owner: Mutex<HashMap<u64, Weak<Mutex<TxCredit>>>>,
}

impl TxCredits {
    /// The budget of control client `owner`, shared with its other audio sockets.
    pub fn for_owner(&self, owner: u64) -> SharedCredit {
        let mut m = self.by_owner.lock();
        m.retain(|_, w| w.strong_count() > 0);
        if let Some(c) = m.get(&owner).and_then(Weak::upgrade) {
            return c;
        }
        let c = SharedCredit::default();
        m.insert(owner, Arc::downgrade(&c));
        c
    }

    /// Owners with a live budget.
    pub fn owners(&self) -> usize {
        let mut m = self.by_owner.lock();
        m.retain(|_, w| w.strong_count() > 0);
        m.len()
    }
}

/// See the module docs: the state of one audio socket (told, sending) and its owner's
/// budget.
#[derive(Debug, Clone)]
pub struct TxGate {
    sending: bool,
    tell: bool,
    credit: SharedCredit,
}

impl Default for TxGate {
    /// A gate with a budget of its own.
    fn default() -> Self {
        TxGate::new(SharedCredit::default())
    }
}

impl TxGate {
    /// A gate drawing on `credit` (its owner's budget).
    pub fn new(credit: SharedCredit) -> TxGate {
        TxGate {
            sending: false,
            tell: true,
            credit,
        }
    }

    /// A frame of `duration` arrives at `now`; `allowed` says whether the client owns a
    /// confirmed PTT now.
    pub fn offer(&mut self, allowed: bool, duration: Duration, now: Instant) -> TxVerdict {
        if !allowed {
            self.sending = false;
            let tell = std::mem::replace(&mut self.tell, false);
            return TxVerdict::Refuse { tell };
        }
        if !self.credit.lock().take(duration, now) {
            return TxVerdict::TooFast;
        }
        self.tell = true;
        let starts = !std::mem::replace(&mut self.sending, true);
        TxVerdict::Send { starts }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Duration = Duration::from_millis(20);

    #[test]
    fn refused_once_then_again_after_accepted_frames() {
        let t = Instant::now();
        let mut g = TxGate::default();
        assert_eq!(g.offer(false, F, t), TxVerdict::Refuse { tell: true });
        assert_eq!(g.offer(false, F, t), TxVerdict::Refuse { tell: false });
        assert_eq!(g.offer(true, F, t), TxVerdict::Send { starts: true });
        assert_eq!(g.offer(true, F, t + F), TxVerdict::Send { starts: false });
        assert_eq!(
            g.offer(false, F, t + F * 2),
            TxVerdict::Refuse { tell: true }
        );
        assert_eq!(
            g.offer(false, F, t + F * 3),
            TxVerdict::Refuse { tell: false }
        );
        assert_eq!(
            g.offer(true, F, t + F * 4),
            TxVerdict::Send { starts: true },
            "a new transmission"
        );
    }

    #[test]
    fn a_flood_is_cut_to_real_time_plus_the_burst() {
        let t = Instant::now();
        let mut g = TxGate::default();
        let sent = (0..1_000)
            .filter(|_| matches!(g.offer(true, F, t), TxVerdict::Send { .. }))
            .count();
        assert_eq!(sent, 25, "500 ms of burst");
        assert_eq!(g.offer(true, F, t), TxVerdict::TooFast);
        // real time goes on: one frame per 20 ms
        let sent = (1..=50u32)
            .filter(|i| matches!(g.offer(true, F, t + F * *i), TxVerdict::Send { .. }))
            .count();
        assert_eq!(sent, 50);
    }

    #[test]
    fn sockets_of_one_owner_share_its_real_time_budget() {
        // issue 15.6: each socket had a budget of its own, so two sockets with the
        // owner's session delivered twice real time
        let t = Instant::now();
        let credits = TxCredits::default();
        let mut a = TxGate::new(credits.for_owner(7));
        let mut b = TxGate::new(credits.for_owner(7));
        let mut other = TxGate::new(credits.for_owner(8));
        assert_eq!(credits.owners(), 2);
        let mut sent = 0;
        // two seconds of both sockets sending in real time
        for i in 0..100u32 {
            let now = t + F * i;
            for g in [&mut a, &mut b] {
                sent += usize::from(matches!(g.offer(true, F, now), TxVerdict::Send { .. }));
            }
        }
        // 2 s of real time plus the 500 ms burst, not 4 s
        assert_eq!(sent, 100 + 25 - 1, "real time plus the burst in all");
        // another owner has a budget of its own
        assert!(matches!(other.offer(true, F, t), TxVerdict::Send { .. }));
        drop((a, b, other));
        assert_eq!(credits.owners(), 0, "budgets go with their sockets");
    }
}
