//! The per-client `set_*` rate limit (decisions.md "Rate limit"): at most one command
//! of each name and target (receiver / VFO) per window reaches the radio; a limited
//! command is acknowledged at once as throttled and the latest limited one is applied
//! when the window ends, so the radio always ends at the last value asked for.
//!
//! Commands reach the radio in the order the client sent them: a waiting command goes
//! out before any command that arrived after it (a later command flushes the ones
//! waiting), and a client that leaves gets what was waiting applied.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::radio::command::Command;

/// What to do with a limited command.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Send `cmd` now (the command offered, with what was still waiting in its slot
    /// merged in), after the commands `before` (waiting in other slots, arrived earlier,
    /// in order).
    Send {
        /// Waiting commands of other slots, to send first.
        before: Vec<(String, Command)>,
        /// The command to send.
        cmd: Command,
    },
    /// Keep it; it will be sent when its window ends.
    Throttled,
}

#[derive(Debug)]
struct Waiting {
    /// Arrival number (order of the client's commands).
    arrival: u64,
    name: String,
    cmd: Command,
}

#[derive(Debug)]
struct Slot {
    last_sent: Instant,
    waiting: Option<Waiting>,
}

/// The limiter of one client.
#[derive(Debug)]
pub struct RateLimiter {
    window: Duration,
    slots: HashMap<String, Slot>,
    arrivals: u64,
}

/// The slot of a command: its name and, for commands aimed at one receiver or VFO, that
/// target (tuning MAIN and SUB are limited separately).
fn slot_key(name: &str, cmd: &Command) -> String {
    match cmd.slot() {
        Some(target) => format!("{name}/{target}"),
        None => name.to_string(),
    }
}

impl RateLimiter {
    /// A limiter with `window` per command name and target.
    pub fn new(window: Duration) -> RateLimiter {
        RateLimiter {
            window,
            slots: HashMap::new(),
            arrivals: 0,
        }
    }

    /// Decides for limited command `name`; a throttled command is merged onto the one
    /// waiting in its slot (the parameters it does not give are kept) and takes its place
    /// at the end of the order.
    pub fn offer(&mut self, name: &str, cmd: &Command, now: Instant) -> Verdict {
        self.arrivals += 1;
        let arrival = self.arrivals;
        let key = slot_key(name, cmd);
        let fresh = !self.slots.contains_key(&key);
        let slot = self.slots.entry(key).or_insert(Slot {
            last_sent: now,
            waiting: None,
        });
        let cmd = match slot.waiting.take() {
            Some(w) => cmd.clone().merged_onto(w.cmd),
            None => cmd.clone(),
        };
        if !fresh && now < slot.last_sent + self.window {
            slot.waiting = Some(Waiting {
                arrival,
                name: name.to_string(),
                cmd,
            });
            return Verdict::Throttled;
        }
        // the window is over (or never began): this command, with what waited in its
        // slot merged in, goes now; what waits in other slots arrived earlier and goes first
        slot.last_sent = now;
        Verdict::Send {
            before: self.take_waiting(now, u64::MAX),
            cmd,
        }
    }

    /// An unlimited command is about to be sent: the waiting ones, which arrived before
    /// it, go first (in order).
    pub fn before_unlimited(&mut self, now: Instant) -> Vec<(String, Command)> {
        self.arrivals += 1;
        self.take_waiting(now, u64::MAX)
    }

    /// Everything still waiting, in order (the client is leaving).
    pub fn drain(&mut self, now: Instant) -> Vec<(String, Command)> {
        self.take_waiting(now, u64::MAX)
    }

    /// Commands to send now, in order: those whose window has ended and every command
    /// that arrived before one of them.
    pub fn due(&mut self, now: Instant) -> Vec<(String, Command)> {
        let last_due = self
            .slots
            .values()
            .filter(|s| now >= s.last_sent + self.window)
            .filter_map(|s| s.waiting.as_ref().map(|w| w.arrival))
            .max();
        match last_due {
            Some(arrival) => self.take_waiting(now, arrival),
            None => Vec::new(),
        }
    }

    /// When the next waiting command is due.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.slots
            .values()
            .filter(|s| s.waiting.is_some())
            .map(|s| s.last_sent + self.window)
            .min()
    }

    /// Takes the waiting commands that arrived up to `until`, in arrival order; their
    /// slots count them as sent at `now`.
    fn take_waiting(&mut self, now: Instant, until: u64) -> Vec<(String, Command)> {
        let mut taken: Vec<Waiting> = Vec::new();
        for slot in self.slots.values_mut() {
            if slot.waiting.as_ref().is_some_and(|w| w.arrival <= until)
                && let Some(w) = slot.waiting.take()
            {
                slot.last_sent = now;
                taken.push(w);
            }
        }
        taken.sort_by_key(|w| w.arrival);
        taken.into_iter().map(|w| (w.name, w.cmd)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::command::{Target, Write};
    use crate::radio::table::settings::SettingId;

    fn f(hz: u64) -> Command {
        freq(0, hz)
    }

    fn freq(receiver: u8, hz: u64) -> Command {
        Command::SetFreq {
            target: Target::Receiver(receiver),
            hz,
        }
    }

    fn ms(t: Instant, n: u64) -> Instant {
        t + Duration::from_millis(n)
    }

    fn send(before: Vec<(String, Command)>, cmd: Command) -> Verdict {
        Verdict::Send { before, cmd }
    }

    fn scope(writes: &[(SettingId, i64)]) -> Command {
        Command::Write {
            writes: writes
                .iter()
                .map(|&(id, raw)| Write {
                    id,
                    receiver: 0,
                    raw,
                })
                .collect(),
            result: serde_json::json!({}),
        }
    }

    #[test]
    fn partial_commands_in_one_window_lose_no_parameter() {
        // review: `set_scope {span}` sent, `{speed}` throttled, then `{hold}` replaced
        // it: the speed was answered ok and never applied
        use SettingId::{ScopeHold, ScopeSpan, ScopeSpeed};
        let mut r = RateLimiter::new(Duration::from_millis(50));
        let t = Instant::now();
        let span = scope(&[(ScopeSpan, 5_000)]);
        assert_eq!(r.offer("set_scope", &span, t), send(vec![], span.clone()));
        let speed = scope(&[(ScopeSpeed, 2)]);
        assert_eq!(r.offer("set_scope", &speed, ms(t, 1)), Verdict::Throttled);
        let hold = scope(&[(ScopeHold, 1), (ScopeSpeed, 1)]);
        assert_eq!(r.offer("set_scope", &hold, ms(t, 2)), Verdict::Throttled);
        let later = scope(&[(ScopeSpan, 2_500)]);
        assert_eq!(r.offer("set_scope", &later, ms(t, 3)), Verdict::Throttled);
        let due = r.due(ms(t, 50));
        assert_eq!(
            due,
            vec![(
                "set_scope".to_string(),
                scope(&[(ScopeHold, 1), (ScopeSpeed, 1), (ScopeSpan, 2_500)])
            )]
        );
        // what waits when the window is over goes out with the next command
        r.offer("set_scope", &speed, ms(t, 60));
        let after = r.offer("set_scope", &span, ms(t, 110));
        assert_eq!(
            after,
            send(vec![], scope(&[(ScopeSpeed, 2), (ScopeSpan, 5_000)]))
        );
    }

    #[test]
    fn burst_ends_at_the_last_value() {
        let mut r = RateLimiter::new(Duration::from_millis(50));
        let t = Instant::now();
        assert_eq!(r.offer("set_freq", &f(1), t), send(vec![], f(1)));
        for i in 2..=100 {
            assert_eq!(r.offer("set_freq", &f(i), ms(t, i / 4)), Verdict::Throttled);
        }
        assert!(r.due(ms(t, 49)).is_empty());
        assert_eq!(r.poll_timeout(), Some(ms(t, 50)));
        let due = r.due(ms(t, 50));
        assert_eq!(due, vec![("set_freq".to_string(), f(100))]);
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn a_new_command_after_the_window_supersedes_the_waiting_one() {
        let mut r = RateLimiter::new(Duration::from_millis(50));
        let t = Instant::now();
        r.offer("set_freq", &f(1), t);
        r.offer("set_freq", &f(2), ms(t, 10));
        assert_eq!(r.offer("set_freq", &f(3), ms(t, 60)), send(vec![], f(3)));
        assert!(
            r.due(ms(t, 200)).is_empty(),
            "2 must not be applied after 3"
        );
    }

    #[test]
    fn receivers_are_limited_separately() {
        // review: MAIN and SUB shared one slot, so tuning MAIN dropped SUB's value
        let mut r = RateLimiter::new(Duration::from_millis(50));
        let t = Instant::now();
        assert_eq!(
            r.offer("set_freq", &freq(0, 1), t),
            send(vec![], freq(0, 1))
        );
        assert_eq!(
            r.offer("set_freq", &freq(1, 2), ms(t, 1)),
            send(vec![], freq(1, 2))
        );
        assert_eq!(
            r.offer("set_freq", &freq(1, 3), ms(t, 2)),
            Verdict::Throttled
        );
        assert_eq!(
            r.offer("set_freq", &freq(0, 4), ms(t, 3)),
            Verdict::Throttled
        );
        let due = r.due(ms(t, 60));
        assert_eq!(
            due,
            vec![
                ("set_freq".to_string(), freq(1, 3)),
                ("set_freq".to_string(), freq(0, 4))
            ]
        );
    }

    #[test]
    fn waiting_commands_keep_the_order_they_arrived_in() {
        // review: set_band 5, set_freq a, set_freq b (waits), set_band 7 (waits) ended
        // at b when the band's slot happened to come first
        let mut r = RateLimiter::new(Duration::from_millis(50));
        let t = Instant::now();
        r.offer("set_band", &Command::SetBand(5), t);
        r.offer("set_freq", &f(1), ms(t, 5));
        assert_eq!(r.offer("set_freq", &f(2), ms(t, 6)), Verdict::Throttled);
        assert_eq!(
            r.offer("set_band", &Command::SetBand(7), ms(t, 7)),
            Verdict::Throttled
        );
        // the band's window ends first, and the earlier frequency goes out before it
        let due = r.due(ms(t, 50));
        assert_eq!(
            due,
            vec![
                ("set_freq".to_string(), f(2)),
                ("set_band".to_string(), Command::SetBand(7))
            ]
        );
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn later_commands_flush_the_waiting_ones_first() {
        let mut r = RateLimiter::new(Duration::from_millis(50));
        let t = Instant::now();
        r.offer("set_freq", &f(1), t);
        r.offer("set_freq", &f(2), ms(t, 1));
        assert_eq!(
            r.before_unlimited(ms(t, 2)),
            vec![("set_freq".to_string(), f(2))]
        );
        r.offer("set_freq", &f(3), ms(t, 3));
        let power = Command::write(crate::radio::table::settings::SettingId::Power, 0, 9);
        assert_eq!(
            r.offer("set_power", &power, ms(t, 4)),
            send(vec![("set_freq".to_string(), f(3))], power.clone())
        );
        r.offer("set_freq", &f(4), ms(t, 5));
        assert_eq!(r.drain(ms(t, 6)), vec![("set_freq".to_string(), f(4))]);
        assert!(r.drain(ms(t, 7)).is_empty());
    }
}
