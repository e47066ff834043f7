//! The meter pump: polls the meters that clients ask for, at the highest rate asked
//! (at most 20 per second), as a [`PollSource`] of the executor (served when no client
//! command may go), and hands each reading to every subscriber. RX meters are read while
//! receiving, TX meters while transmitting; the PA's supply voltage (Vd) and temperature,
//! which do not move quickly, in both, at most every half second (each CI-V read costs
//! the radio link a round trip). Nothing is polled while nobody asks. When rounds start
//! and what each reads is the pure [`Rounds`] machine; this is its shell.
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
use std::time::Instant;

use parking_lot::Mutex;

use crate::hub::Fanout;
use crate::profile::Profile;
use crate::radio::engine::Job;
pub use crate::radio::engine::meter_rounds::MAX_FPS;
use crate::radio::engine::meter_rounds::{Next, Rounds};
use crate::radio::shell::executor::PollSource;
use crate::radio::shell::service::Radio;
use crate::radio::shell::state_store::StateStore;
use crate::radio::table::answer::Answer;
use crate::radio::table::command::Command;
use crate::wire::meter::MeterKind;

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
        let asked = self
            .wanted_kinds()
            .into_iter()
            .filter(|k| profile.has_meter(*k));
        let (ptt, ready) = state.read(|c| (c.radio.transmitting(), c.connection.radio_ready));
        let round = s.rounds.pick(asked, ptt, ready, now);
        let go = ready && !round.is_empty();
        let number = s.rounds.started(now, ready, go);
        if !go {
            return None;
        }
        let seq = s.seq;
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

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
}
