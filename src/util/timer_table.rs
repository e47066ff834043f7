//! Timers as data, after quinn-proto's `TimerTable`: one deadline slot per timer of a
//! machine, indexed by the machine's timer enum. A sans-IO machine sets and stops its
//! timers here, asks which have expired when it is handed the time, and answers
//! `poll_timeout()` from the table instead of merging `Option<Instant>` fields by hand.

use std::marker::PhantomData;
use std::time::Instant;

/// The deadlines of the `N` timers named by `T` (an enum whose discriminants are
/// `0..N`, turned into an index by `Into<usize>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimerTable<T, const N: usize> {
    at: [Option<Instant>; N],
    timer: PhantomData<T>,
}

impl<T, const N: usize> Default for TimerTable<T, N> {
    fn default() -> Self {
        TimerTable {
            at: [None; N],
            timer: PhantomData,
        }
    }
}

impl<T: Copy + Into<usize>, const N: usize> TimerTable<T, N> {
    /// Arms `timer` for `at` (replacing its deadline, if any).
    pub fn set(&mut self, timer: T, at: Instant) {
        self.at[timer.into()] = Some(at);
    }

    /// The deadline of `timer`, if it is armed.
    pub fn get(&self, timer: T) -> Option<Instant> {
        self.at[timer.into()]
    }

    /// True while `timer` is armed.
    pub fn is_set(&self, timer: T) -> bool {
        self.get(timer).is_some()
    }

    /// Disarms `timer`.
    pub fn stop(&mut self, timer: T) {
        self.at[timer.into()] = None;
    }

    /// True if `timer` is armed and its deadline is not after `now`.
    pub fn is_expired(&self, timer: T, now: Instant) -> bool {
        self.get(timer).is_some_and(|t| t <= now)
    }

    /// Disarms `timer` if it has expired at `now`; true if it had.
    pub fn expire(&mut self, timer: T, now: Instant) -> bool {
        let expired = self.is_expired(timer, now);
        if expired {
            self.stop(timer);
        }
        expired
    }

    /// The earliest deadline among `timers`.
    pub fn next_of(&self, timers: &[T]) -> Option<Instant> {
        timers.iter().filter_map(|t| self.get(*t)).min()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[derive(Debug, Clone, Copy)]
    enum Timer {
        Idle,
        Retry,
        Close,
    }

    impl From<Timer> for usize {
        fn from(t: Timer) -> usize {
            t as usize
        }
    }

    #[test]
    fn set_get_stop_expire_and_the_next_deadline() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut t = TimerTable::<Timer, 3>::default();
        let all = [Timer::Idle, Timer::Retry, Timer::Close];
        assert_eq!(t.next_of(&all), None);
        t.set(Timer::Retry, ms(30));
        t.set(Timer::Idle, ms(50));
        t.set(Timer::Close, ms(40));
        assert_eq!(t.next_of(&all), Some(ms(30)));
        assert_eq!(t.next_of(&[Timer::Idle, Timer::Close]), Some(ms(40)));
        t.set(Timer::Retry, ms(60));
        assert_eq!(t.get(Timer::Retry), Some(ms(60)), "set replaces");
        assert_eq!(t.next_of(&all), Some(ms(40)));
        assert!(!t.expire(Timer::Close, ms(39)));
        assert!(t.is_expired(Timer::Close, ms(40)), "due at its deadline");
        assert!(t.expire(Timer::Close, ms(40)));
        assert!(!t.is_set(Timer::Close) && !t.expire(Timer::Close, ms(99)));
        t.stop(Timer::Idle);
        assert_eq!(t.next_of(&all), Some(ms(60)));
        t.stop(Timer::Retry);
        assert_eq!(t.next_of(&all), None);
    }
}
