//! The per-client `set_*` rate limit (decisions.md "Rate limit"): at most one command
//! of each name per window reaches the radio; a limited command is acknowledged at once
//! as throttled and the latest limited one is applied when the window ends, so the
//! radio always ends at the last value asked for.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::radio::command::Command;

/// What to do with a command.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Send it now.
    Send,
    /// Keep it; it will be sent when the window ends.
    Throttled,
}

#[derive(Debug)]
struct Slot {
    last_sent: Instant,
    pending: Option<Command>,
}

/// The limiter of one client.
#[derive(Debug)]
pub struct RateLimiter {
    window: Duration,
    slots: HashMap<String, Slot>,
}

impl RateLimiter {
    /// A limiter with `window` per command name.
    pub fn new(window: Duration) -> RateLimiter {
        RateLimiter {
            window,
            slots: HashMap::new(),
        }
    }

    /// True for the names the limit applies to.
    pub fn applies(name: &str) -> bool {
        name.starts_with("set_")
    }

    /// Decides for command `name`; a throttled command replaces the one waiting.
    pub fn offer(&mut self, name: &str, cmd: &Command, now: Instant) -> Verdict {
        match self.slots.get_mut(name) {
            Some(slot) if now < slot.last_sent + self.window => {
                slot.pending = Some(cmd.clone());
                Verdict::Throttled
            }
            Some(slot) => {
                // the window is over: this newer command supersedes any waiting one
                slot.pending = None;
                slot.last_sent = now;
                Verdict::Send
            }
            None => {
                self.slots.insert(
                    name.to_string(),
                    Slot {
                        last_sent: now,
                        pending: None,
                    },
                );
                Verdict::Send
            }
        }
    }

    /// Commands whose window has ended, to send now.
    pub fn due(&mut self, now: Instant) -> Vec<(String, Command)> {
        let mut out = Vec::new();
        for (name, slot) in &mut self.slots {
            if now >= slot.last_sent + self.window
                && let Some(c) = slot.pending.take()
            {
                slot.last_sent = now;
                out.push((name.clone(), c));
            }
        }
        out
    }

    /// When the next waiting command is due.
    pub fn next_due(&self) -> Option<Instant> {
        self.slots
            .values()
            .filter(|s| s.pending.is_some())
            .map(|s| s.last_sent + self.window)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::command::Target;

    fn f(hz: u64) -> Command {
        Command::SetFreq {
            target: Target::Receiver(0),
            hz,
        }
    }

    #[test]
    fn burst_ends_at_the_last_value() {
        let mut r = RateLimiter::new(Duration::from_millis(50));
        let t = Instant::now();
        assert_eq!(r.offer("set_freq", &f(1), t), Verdict::Send);
        for i in 2..=100 {
            assert_eq!(
                r.offer("set_freq", &f(i), t + Duration::from_millis(i / 4)),
                Verdict::Throttled
            );
        }
        assert_eq!(
            r.offer("set_mode", &f(0), t),
            Verdict::Send,
            "names are limited separately"
        );
        assert!(r.due(t + Duration::from_millis(49)).is_empty());
        assert_eq!(r.next_due(), Some(t + Duration::from_millis(50)));
        let due = r.due(t + Duration::from_millis(50));
        assert_eq!(due, vec![("set_freq".to_string(), f(100))]);
        assert_eq!(r.next_due(), None);
    }

    #[test]
    fn a_new_command_after_the_window_supersedes_the_waiting_one() {
        let mut r = RateLimiter::new(Duration::from_millis(50));
        let t = Instant::now();
        r.offer("set_freq", &f(1), t);
        r.offer("set_freq", &f(2), t + Duration::from_millis(10));
        assert_eq!(
            r.offer("set_freq", &f(3), t + Duration::from_millis(60)),
            Verdict::Send
        );
        assert!(
            r.due(t + Duration::from_millis(200)).is_empty(),
            "2 must not be applied after 3"
        );
    }
}
