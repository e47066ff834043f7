//! Which TX audio frames of a client reach the radio, sans-IO: only while the client is
//! allowed (it owns a confirmed PTT, no unkey on its way) and never faster than real
//! time plus a small burst; a refused client is told once (`ptt_required`), and again
//! only after frames were accepted in between.

use std::time::{Duration, Instant};

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

/// See the module docs.
#[derive(Debug, Clone)]
pub struct TxGate {
    sending: bool,
    tell: bool,
    /// Audio credit, µs, and when it was last topped up.
    credit: u64,
    credit_at: Option<Instant>,
}

impl Default for TxGate {
    fn default() -> Self {
        TxGate {
            sending: false,
            tell: true,
            credit: BURST.as_micros() as u64,
            credit_at: None,
        }
    }
}

impl TxGate {
    /// A frame of `duration` arrives at `now`; `allowed` says whether the client owns a
    /// confirmed PTT now.
    pub fn offer(&mut self, allowed: bool, duration: Duration, now: Instant) -> TxVerdict {
        if !allowed {
            self.sending = false;
            let tell = std::mem::replace(&mut self.tell, false);
            return TxVerdict::Refuse { tell };
        }
        let burst = BURST.as_micros() as u64;
        if let Some(t) = self.credit_at {
            let earned = now.saturating_duration_since(t).as_micros() as u64;
            self.credit = self.credit.saturating_add(earned).min(burst);
        }
        self.credit_at = Some(now);
        let need = duration.as_micros() as u64;
        if self.credit < need {
            return TxVerdict::TooFast;
        }
        self.credit -= need;
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
}
