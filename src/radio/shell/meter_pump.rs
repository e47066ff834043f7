//! The meter pump: polls the meters that clients ask for, at the highest rate asked
//! (at most 20 per second), as a [`PollSource`] of the executor (served when no client
//! command may go), and hands each reading to every subscriber. RX meters are read while
//! receiving, TX meters while transmitting; the PA's supply voltage (Vd) and temperature,
//! which do not move quickly, in both, at most every [`SLOW_PERIOD`] (each CI-V read
//! costs the radio link a round trip). Nothing is polled while nobody asks.
//!
//! The pump has no thread of its own: the executor asks it when the next round is due
//! and wakes then (a timer among its others), takes the round when it is, and calls the
//! round's reply handler on its thread as soon as the reply comes; the handler publishes
//! the reading (offering it to the taps, which at most write one frame per idle client
//! without blocking). Demand changes only update what is asked (ringing the executor's
//! doorbell) and never move the schedule forward: the next round is due one period (of
//! the highest rate asked now) after the last one started, so a client repeating
//! `meters_start` cannot make the pump poll faster.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::hub::Fanout;
use crate::profile::Profile;
use crate::radio::engine::Job;
use crate::radio::shell::executor::PollSource;
use crate::radio::shell::service::Radio;
use crate::radio::shell::state_store::StateStore;
use crate::radio::table::answer::Answer;
use crate::radio::table::command::Command;
use crate::wire::meter::{MeterKind, MeterPhase};

/// Fastest polling rate.
pub const MAX_FPS: u32 = 20;
/// Least time between two reads of a slow meter (Vd, TEMP: [`MeterPhase::Always`]).
pub const SLOW_PERIOD: Duration = Duration::from_millis(500);
/// How long a round may wait for its reply before the next one may start.
const REPLY_WAIT: Duration = Duration::from_secs(5);

/// One round of readings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeterReading {
    /// Wrapping round counter.
    pub sequence: u16,
    /// Values 0..255 of the meters read this round.
    pub values: Vec<(MeterKind, u16)>,
    /// Transmitting during this round.
    pub tx: bool,
}

struct Demand {
    kinds: BTreeSet<MeterKind>,
    fps: u32,
}

/// Where the rounds stand.
#[derive(Default)]
struct Schedule {
    rounds: Rounds,
    /// The sequence number of the next reading.
    seq: u16,
    /// When the slow meters were last read.
    slow_at: Option<Instant>,
}

/// Shared handle of the pump.
pub struct MeterPump {
    demands: Mutex<HashMap<u64, Demand>>,
    schedule: Mutex<Schedule>,
    fanout: Arc<Fanout<MeterReading>>,
    radio: Weak<Radio>,
    /// This pump, for the reply handlers of its rounds.
    me: Weak<MeterPump>,
    stopped: AtomicBool,
}

impl MeterPump {
    /// Starts polling for `radio` (as one of its executor's poll sources).
    pub fn start(radio: &Arc<Radio>) -> Arc<MeterPump> {
        let pump = MeterPump::new(Arc::downgrade(radio));
        radio.add_poll_source(pump.clone());
        pump
    }

    fn new(radio: Weak<Radio>) -> Arc<MeterPump> {
        Arc::new_cyclic(|me| MeterPump {
            demands: Mutex::new(HashMap::new()),
            schedule: Mutex::new(Schedule::default()),
            fanout: Fanout::new(),
            radio,
            me: me.clone(),
            stopped: AtomicBool::new(false),
        })
    }

    /// Readings, for subscribers.
    pub fn readings(&self) -> &Arc<Fanout<MeterReading>> {
        &self.fanout
    }

    /// Asks for `kinds` at `fps` on behalf of consumer `id` (replaces its earlier ask).
    pub fn demand(&self, id: u64, kinds: impl IntoIterator<Item = MeterKind>, fps: u32) {
        let kinds: BTreeSet<_> = kinds.into_iter().collect();
        self.demands.lock().insert(
            id,
            Demand {
                kinds,
                fps: fps.clamp(1, MAX_FPS),
            },
        );
        self.wake();
    }

    fn wake(&self) {
        if let Some(radio) = self.radio.upgrade() {
            radio.wake_polls();
        }
    }

    /// Withdraws consumer `id`'s ask.
    pub fn withdraw(&self, id: u64) {
        if self.demands.lock().remove(&id).is_some() {
            self.wake();
        }
    }

    /// Stops polling (a round in flight still publishes its reading).
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Release);
        self.demands.lock().clear();
    }

    /// The highest rate asked (`None`: nobody asks, or stopped). Asked on every turn of
    /// the executor's loop, so it builds nothing.
    fn wanted_fps(&self) -> Option<u32> {
        if self.stopped.load(Ordering::Acquire) {
            return None;
        }
        self.demands.lock().values().map(|x| x.fps).max()
    }

    /// Every meter asked for.
    fn wanted_kinds(&self) -> BTreeSet<MeterKind> {
        let d = self.demands.lock();
        d.values().flat_map(|x| x.kinds.iter().copied()).collect()
    }

    /// Round `number` ended, having `published` a reading or not.
    fn ended(&self, number: u64, published: bool) {
        let mut s = self.schedule.lock();
        let Schedule { rounds, seq, .. } = &mut *s;
        rounds.ended((number, published), seq);
    }
}

impl PollSource for MeterPump {
    fn poll_due(&self, now: Instant) -> Option<Instant> {
        match self.schedule.lock().rounds.next(self.wanted_fps(), now) {
            Next::Start => Some(now),
            Next::Wait(until) => until,
        }
    }

    fn take_poll(&self, now: Instant, state: &StateStore, profile: &Profile) -> Option<Job> {
        let fps = self.wanted_fps();
        let mut s = self.schedule.lock();
        if s.rounds.next(fps, now) != Next::Start {
            return None;
        }
        let kinds = self.wanted_kinds();
        let (ptt, ready) = state.read(|c| (c.radio.transmitting(), c.connection.radio_ready));
        let slow_due = s.slow_at.is_none_or(|t| now >= t + SLOW_PERIOD);
        let round: Vec<MeterKind> = kinds
            .into_iter()
            .filter(|k| profile.has_meter(*k) && in_round(*k, ptt, slow_due))
            .collect();
        if ready && round.iter().any(|k| k.phase() == MeterPhase::Always) {
            s.slow_at = Some(now);
        }
        let go = ready && !round.is_empty();
        s.rounds.started(now, ready, go);
        if !go {
            return None;
        }
        let (number, seq) = (s.rounds.count, s.seq);
        let (fanout, me) = (self.fanout.clone(), self.me.clone());
        let reply = move |r| {
            let published = if let Ok(Answer::Meters(values)) = r {
                fanout.publish(MeterReading {
                    sequence: seq,
                    values,
                    tx: ptt,
                });
                true
            } else {
                false
            };
            if let Some(pump) = me.upgrade() {
                pump.ended(number, published);
            }
        };
        Some(Job {
            cmd: Command::ReadMeters(round),
            reply: Box::new(reply),
        })
    }
}

/// When rounds start, sans-IO: one round at a time; the next one period (of the highest
/// rate asked) after the last one started ([`next_round`]), or when the round in flight
/// ends if that is later; a round whose reply does not come within [`REPLY_WAIT`] is
/// given up on.
#[derive(Debug, Default)]
struct Rounds {
    /// Rounds started so far (the last one's number).
    count: u64,
    /// When the round in flight started.
    in_flight: Option<Instant>,
    /// When the last round started, and whether the radio was ready then.
    last: Option<(Instant, bool)>,
}

/// What the pump does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// Start a round now.
    Start,
    /// Nothing until a change, the reply of the round in flight, or this time (`None`:
    /// no timer).
    Wait(Option<Instant>),
}

impl Rounds {
    /// What to do at `now` while `fps` is asked (`None`: nothing is).
    fn next(&mut self, fps: Option<u32>, now: Instant) -> Next {
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

    /// Round number `count + 1` was started at `now` (the radio ready or not;
    /// submitted or not).
    fn started(&mut self, now: Instant, ready: bool, submitted: bool) {
        self.count += 1;
        self.last = Some((now, ready));
        self.in_flight = submitted.then_some(now);
    }

    /// Round `number` ended (its reply came, or it failed), `published` a reading (the
    /// next one takes the next `seq`). False if that is not the round in flight (one
    /// given up on).
    fn ended(&mut self, (number, published): (u64, bool), seq: &mut u16) -> bool {
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
    use crate::hub::LatestWins;
    use crate::profile::ProfileRegistry;
    use crate::radio::shell::service::initial_content;

    fn kinds(job: &Option<Job>) -> Option<Vec<MeterKind>> {
        match job.as_ref().map(|j| &j.cmd) {
            Some(Command::ReadMeters(k)) => Some(k.clone()),
            Some(c) => panic!("not a meter read: {c:?}"),
            None => None,
        }
    }

    #[test]
    fn the_pump_hands_the_executor_a_round_when_due_and_publishes_its_reply() {
        let profile = ProfileRegistry::embedded().get("ic7610").unwrap();
        let connecting = StateStore::new(initial_content(&profile));
        let mut content = initial_content(&profile);
        content.connection.radio_ready = true;
        let ready = StateStore::new(content);
        let pump = MeterPump::new(Weak::new());
        let readings = Arc::new(LatestWins::new(8, None));
        let _sub = pump.readings().subscribe(readings.clone());
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        assert_eq!(pump.poll_due(t0), None, "nobody asks");
        assert!(pump.take_poll(t0, &ready, &profile).is_none());
        use MeterKind::{Power, Smeter, SmeterSub, Vd};
        pump.demand(1, [Smeter, SmeterSub, Vd, Power], 20);
        assert_eq!(pump.poll_due(t0), Some(t0));
        // the radio not ready yet: no round, the next half a second later
        assert!(pump.take_poll(t0, &connecting, &profile).is_none());
        assert_eq!(pump.poll_due(ms(10)), Some(ms(500)));
        // ready: the RX meters and Vd (no TX meter while receiving)
        let job = pump.take_poll(ms(500), &ready, &profile);
        assert_eq!(kinds(&job), Some(vec![Smeter, SmeterSub, Vd]));
        assert_eq!(pump.poll_due(ms(510)), Some(ms(550)));
        assert!(
            pump.take_poll(ms(550), &ready, &profile).is_none(),
            "one round at a time"
        );
        (job.unwrap().reply)(Ok(Answer::Meters(vec![(Smeter, 120), (SmeterSub, 7)])));
        let r = readings.pop().expect("the reply is published");
        assert_eq!(
            (r.sequence, r.values.clone(), r.tx),
            (0, vec![(Smeter, 120), (SmeterSub, 7)], false)
        );
        // the next round at once (it is due): Vd not before half a second
        let job = pump.take_poll(ms(560), &ready, &profile);
        assert_eq!(kinds(&job), Some(vec![Smeter, SmeterSub]));
        (job.unwrap().reply)(Err(crate::radio::table::error::CommandError::new(
            crate::radio::table::error::ErrorCode::RadioTimeout,
            "no answer",
        )));
        assert!(readings.pop().is_none(), "a failed round publishes nothing");
        let job = pump.take_poll(ms(610), &ready, &profile);
        (job.unwrap().reply)(Ok(Answer::Meters(vec![(Smeter, 1)])));
        assert_eq!(
            readings.pop().unwrap().sequence,
            1,
            "numbered by what was published"
        );
        // the ask withdrawn: nothing due; stopped: nothing asked any more
        pump.withdraw(1);
        assert_eq!(pump.poll_due(ms(700)), None);
        pump.demand(2, [Smeter], 5);
        assert_eq!(pump.poll_due(ms(700)), Some(ms(810)), "5 per second");
        pump.stop();
        assert_eq!(pump.poll_due(ms(900)), None);
        assert!(pump.take_poll(ms(900), &ready, &profile).is_none());
    }

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
        r.started(t0, true, true);
        // in flight, the next not due: wait until it is
        let until_due = Next::Wait(Some(ms(50)));
        assert_eq!(r.next(Some(20), ms(10)), until_due);
        let mut seq = 0;
        assert!(r.ended((1, true), &mut seq));
        assert_eq!(seq, 1);
        assert_eq!(r.next(Some(20), ms(49)), until_due);
        assert_eq!(r.next(Some(20), ms(50)), Next::Start);
        // a late reply: the next round waits for it, at most 5 s
        r.started(ms(50), true, true);
        let for_reply = Next::Wait(Some(ms(5_050)));
        assert_eq!(r.next(Some(20), ms(120)), for_reply);
        assert_eq!(r.next(Some(20), ms(5_050)), Next::Start, "given up");
        r.started(ms(5_050), true, true);
        assert!(
            !r.ended((2, false), &mut seq),
            "the reply of the round given up on ends nothing"
        );
        assert!(r.ended((3, false), &mut seq));
        assert_eq!(seq, 1, "nothing published");
        // not submitted (radio not ready): nothing in flight, half a second to the next
        r.started(ms(5_050), false, false);
        assert_eq!(r.next(Some(20), ms(5_060)), Next::Wait(Some(ms(5_550))));
        // nobody asks any more while a round is in flight: no timer for it
        r.started(ms(5_550), true, true);
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
}
