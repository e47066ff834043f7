//! When the meter pump's rounds start and what each reads, sans-IO (the pump,
//! `radio/shell/meter_pump.rs`, is its shell): one round at a time, the next one period
//! (of the highest rate asked) after the last one started, so that a client repeating
//! `meters_start` cannot make it poll faster; the meters that apply now (the S-meters
//! while receiving, the TX meters while transmitting), and the slow ones (Vd, TEMP) in
//! both, at most every [`SLOW_PERIOD`]. Fed the rate asked, the PTT and readiness and
//! the current time; tested in virtual time.

use std::time::{Duration, Instant};

use crate::wire::meter::{MeterKind, MeterPhase};

/// Fastest polling rate.
pub const MAX_FPS: u32 = 20;
/// Least time between two reads of a slow meter (Vd, TEMP: [`MeterPhase::Always`]).
pub const SLOW_PERIOD: Duration = Duration::from_millis(500);
/// How long a round may wait for its reply before the next one may start.
const REPLY_WAIT: Duration = Duration::from_secs(5);

/// The rounds: one at a time; the next one period (of the highest rate asked) after the
/// last one started ([`next_round`]), or when the round in flight ends if that is later;
/// a round whose reply does not come within [`REPLY_WAIT`] is given up on. What a round
/// reads is [`Rounds::pick`].
#[derive(Debug, Default)]
pub struct Rounds {
    /// Rounds started so far (the last one's number).
    count: u64,
    /// When the round in flight started.
    in_flight: Option<Instant>,
    /// When the last round started, and whether the radio was ready then.
    last: Option<(Instant, bool)>,
    /// When the slow meters were last read.
    slow_at: Option<Instant>,
}

/// What the pump does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Start a round now.
    Start,
    /// Nothing until a change, the reply of the round in flight, or this time (`None`:
    /// no timer).
    Wait(Option<Instant>),
}

impl Rounds {
    /// What to do at `now` while `fps` is asked (`None`: nothing is).
    pub fn next(&mut self, fps: Option<u32>, now: Instant) -> Next {
        if let Some(started) = self.in_flight
            && now >= started + REPLY_WAIT
        {
            log::debug!("meters: no reply within {REPLY_WAIT:?}");
            self.in_flight = None;
        }
        let due = match (fps, self.last) {
            (None, _) => None,
            (Some(fps), Some((t, ready))) => Some(next_round(t, ready, fps)),
            (Some(_), None) => Some(now),
        };
        match (self.in_flight, due) {
            (Some(_), Some(due)) if due > now => Next::Wait(Some(due)),
            // nobody asks: the reply ends the round (or the next ask gives up on it)
            (Some(_), None) => Next::Wait(None),
            // due, but the round in flight goes on: its reply, or giving up on it
            (Some(started), _) => Next::Wait(Some(started + REPLY_WAIT)),
            (None, Some(due)) if due <= now => Next::Start,
            (None, until) => Next::Wait(until),
        }
    }

    /// Which of `asked` (the meters asked for that the radio has) a round starting at
    /// `now` reads while transmitting (`ptt`) or not: the slow ones at most every
    /// [`SLOW_PERIOD`], a round that reads them while the radio is `ready` starting that
    /// wait again.
    pub fn pick(
        &mut self,
        asked: impl IntoIterator<Item = MeterKind>,
        ptt: bool,
        ready: bool,
        now: Instant,
    ) -> Vec<MeterKind> {
        let slow_due = self.slow_at.is_none_or(|t| now >= t + SLOW_PERIOD);
        let round: Vec<MeterKind> = asked
            .into_iter()
            .filter(|k| in_round(*k, ptt, slow_due))
            .collect();
        if ready && round.iter().any(|k| k.phase() == MeterPhase::Always) {
            self.slow_at = Some(now);
        }
        round
    }

    /// A round was started at `now` (the radio ready or not; submitted or not). Returns
    /// its number.
    pub fn started(&mut self, now: Instant, ready: bool, submitted: bool) -> u64 {
        self.count += 1;
        self.last = Some((now, ready));
        self.in_flight = submitted.then_some(now);
        self.count
    }

    /// Round `number` ended (its reply came, or it failed), `published` a reading (the
    /// next one takes the next `seq`). False if that is not the round in flight (one
    /// given up on).
    pub fn ended(&mut self, (number, published): (u64, bool), seq: &mut u16) -> bool {
        let current = number == self.count && self.in_flight.is_some();
        if current {
            self.in_flight = None;
        }
        if published {
            *seq = seq.wrapping_add(1);
        }
        current
    }
}

/// True if meter `k` is read in a round while transmitting (`ptt`) or not, when the
/// slow meters are due or not.
fn in_round(k: MeterKind, ptt: bool, slow_due: bool) -> bool {
    match k.phase() {
        MeterPhase::Always => slow_due,
        phase => phase.applies(ptt),
    }
}

/// When the round after one that started at `last` is due at `fps` (half a second
/// later while the radio is not ready).
fn next_round(last: Instant, ready: bool, fps: u32) -> Instant {
    let period = Duration::from_secs(1) / fps.clamp(1, MAX_FPS);
    last + if ready {
        period
    } else {
        period.max(Duration::from_millis(500))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vd_and_temp_are_read_in_both_directions_but_only_when_due() {
        for ptt in [false, true] {
            for k in [MeterKind::Vd, MeterKind::Temp] {
                assert!(in_round(k, ptt, true), "{k:?}");
                assert!(!in_round(k, ptt, false), "{k:?}");
            }
        }
        assert!(in_round(MeterKind::Smeter, false, false));
        assert!(!in_round(MeterKind::Smeter, true, true));
        assert!(in_round(MeterKind::Swr, true, false));
        assert!(!in_round(MeterKind::Swr, false, true));
    }

    #[test]
    fn one_round_at_a_time_the_next_due_a_period_after_the_last_began() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let mut r = Rounds::default();
        let idle = Next::Wait(None);
        assert_eq!(r.next(None, t0), idle, "nothing asked: sleep");
        assert_eq!(r.next(Some(20), t0), Next::Start);
        let _ = r.started(t0, true, true);
        // in flight, the next not due: wait until it is
        let until_due = Next::Wait(Some(ms(50)));
        assert_eq!(r.next(Some(20), ms(10)), until_due);
        let mut seq = 0;
        assert!(r.ended((1, true), &mut seq));
        assert_eq!(seq, 1);
        assert_eq!(r.next(Some(20), ms(49)), until_due);
        assert_eq!(r.next(Some(20), ms(50)), Next::Start);
        // a late reply: the next round waits for it, at most 5 s
        let _ = r.started(ms(50), true, true);
        let for_reply = Next::Wait(Some(ms(5_050)));
        assert_eq!(r.next(Some(20), ms(120)), for_reply);
        assert_eq!(r.next(Some(20), ms(5_050)), Next::Start, "given up");
        let _ = r.started(ms(5_050), true, true);
        assert!(
            !r.ended((2, false), &mut seq),
            "the reply of the round given up on ends nothing"
        );
        assert!(r.ended((3, false), &mut seq));
        assert_eq!(seq, 1, "nothing published");
        // not submitted (radio not ready): nothing in flight, half a second to the next
        let _ = r.started(ms(5_050), false, false);
        assert_eq!(r.next(Some(20), ms(5_060)), Next::Wait(Some(ms(5_550))));
        // nobody asks any more while a round is in flight: no timer for it
        let _ = r.started(ms(5_550), true, true);
        assert_eq!(r.next(None, ms(5_560)), Next::Wait(None));
        // asked again later: the round in flight still waits its 5 s at most
        assert_eq!(r.next(Some(20), ms(6_000)), Next::Wait(Some(ms(10_550))));
        assert_eq!(r.next(Some(20), ms(10_550)), Next::Start);
    }

    #[test]
    fn the_schedule_follows_the_highest_rate_and_waits_while_not_ready() {
        let t = Instant::now();
        assert_eq!(next_round(t, true, 20), t + Duration::from_millis(50));
        assert_eq!(next_round(t, true, 100), t + Duration::from_millis(50));
        assert_eq!(next_round(t, true, 0), t + Duration::from_secs(1));
        assert_eq!(next_round(t, false, 20), t + Duration::from_millis(500));
        assert_eq!(next_round(t, false, 1), t + Duration::from_secs(1));
    }

    #[test]
    fn slow_meters_are_read_at_most_every_half_second_once_the_radio_is_ready() {
        use MeterKind::{Power, Smeter, Temp, Vd};
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let mut r = Rounds::default();
        let asked = [Smeter, Power, Vd, Temp];
        // not ready: the slow meters stay due
        assert_eq!(r.pick(asked, false, false, t0), vec![Smeter, Vd, Temp]);
        assert_eq!(r.pick(asked, false, true, ms(10)), vec![Smeter, Vd, Temp]);
        assert_eq!(r.pick(asked, true, true, ms(60)), vec![Power]);
        assert_eq!(r.pick(asked, true, true, ms(509)), vec![Power]);
        assert_eq!(r.pick(asked, true, true, ms(510)), vec![Power, Vd, Temp]);
        assert_eq!(r.pick([Smeter], false, true, ms(1_100)), vec![Smeter]);
        // a round without a slow meter leaves their wait as it was
        assert_eq!(
            r.pick(asked, false, true, ms(1_100)),
            vec![Smeter, Vd, Temp]
        );
    }
}
