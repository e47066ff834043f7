//! The meter pump: polls the meters that clients ask for, at the highest rate asked
//! (at most 20 per second), through the executor's background lane, and hands each
//! reading to every subscriber. RX meters are read while receiving, TX meters while
//! transmitting; the PA supply voltage (Vd), which does not move quickly, at most every
//! [`SLOW_PERIOD`] (each CI-V read costs the radio link a round trip). Nothing is polled
//! while nobody asks.
//!
//! Demand changes are coalesced (a channel of one: any number of `demand` calls
//! between two rounds wake the pump once) and never move the schedule forward: the
//! next round is due one period (of the highest rate asked now) after the last one
//! started, so a client repeating `meters_start` cannot make the pump poll faster.
//!
//! A round's reply is published by the round's own reply handler, on the executor's
//! thread as soon as it comes (parsing it and offering it to the taps, which at most
//! write one frame per idle client without blocking): the pump itself wakes once per
//! round, for its timer, and waits with `select!` (a plain `recv_timeout` would spin and
//! yield before sleeping). Only a reply slower than the period wakes it once more.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;

use crate::hub::Fanout;
use crate::radio::shell::service::Radio;
use crate::radio::table::answer::Answer;
use crate::radio::table::command::Command;
use crate::wire::meter::MeterKind;

/// Fastest polling rate.
pub const MAX_FPS: u32 = 20;
/// Least time between two reads of a slow meter (Vd).
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

/// Shared handle of the pump.
pub struct MeterPump {
    demands: Mutex<HashMap<u64, Demand>>,
    changed: Sender<()>,
    fanout: Arc<Fanout<MeterReading>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    stopped: std::sync::atomic::AtomicBool,
}

impl MeterPump {
    /// Starts the pump thread for `radio`.
    pub fn start(radio: Arc<Radio>) -> std::io::Result<Arc<MeterPump>> {
        // one pending wake-up is all a change needs (see the module docs)
        let (tx, rx) = crossbeam_channel::bounded(1);
        let pump = Arc::new(MeterPump {
            demands: Mutex::new(HashMap::new()),
            changed: tx,
            fanout: Fanout::new(),
            thread: Mutex::new(None),
            stopped: std::sync::atomic::AtomicBool::new(false),
        });
        let p = pump.clone();
        let t = std::thread::Builder::new()
            .name("meter-pump".into())
            .spawn(move || p.run(radio, rx))?;
        *pump.thread.lock() = Some(t);
        Ok(pump)
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
        // full: a wake-up is pending already
        let _ = self.changed.try_send(());
    }

    /// Withdraws consumer `id`'s ask.
    pub fn withdraw(&self, id: u64) {
        if self.demands.lock().remove(&id).is_some() {
            self.wake();
        }
    }

    /// Stops the thread and waits for it.
    pub fn stop(&self) {
        self.stopped
            .store(true, std::sync::atomic::Ordering::Release);
        self.wake();
        if let Some(t) = self.thread.lock().take() {
            let _ = t.join();
        }
    }

    fn wanted(&self) -> Option<(BTreeSet<MeterKind>, u32)> {
        let d = self.demands.lock();
        if d.is_empty() {
            return None;
        }
        let kinds = d.values().flat_map(|x| x.kinds.iter().copied()).collect();
        let fps = d.values().map(|x| x.fps).max().unwrap_or(1);
        Some((kinds, fps))
    }

    fn run(self: Arc<Self>, radio: Arc<Radio>, changed: Receiver<()>) {
        let weak = Arc::downgrade(&radio);
        drop(radio);
        // a round's reply is published by the round itself (on the executor's thread);
        // this says which round ended and whether it published (room for a late reply
        // of a round given up on, too)
        let (done_tx, done) = crossbeam_channel::bounded::<(u64, bool)>(2);
        let mut seq: u16 = 0;
        let mut rounds = Rounds::default();
        // when the slow meters were last read
        let mut slow_at: Option<Instant> = None;
        let never = crossbeam_channel::never();
        loop {
            if self.stopped.load(std::sync::atomic::Ordering::Acquire) {
                return;
            }
            if let Ok(end) = done.try_recv() {
                rounds.ended(end, &mut seq);
            }
            let wanted = self.wanted();
            let now = Instant::now();
            let (until, for_reply) = match rounds.next(wanted.as_ref().map(|w| w.1), now) {
                Next::Start => {
                    let Some(radio) = weak.upgrade() else { return };
                    let kinds = wanted.map(|(k, _)| k).unwrap_or_default();
                    let done = (rounds.count + 1, done_tx.clone());
                    let (ready, submitted) = self.round(&radio, &kinds, seq, &mut slow_at, done);
                    rounds.started(now, ready, submitted);
                    continue;
                }
                Next::Wait { until, for_reply } => (until, for_reply),
            };
            // select!, not recv_timeout (which spins and yields before it sleeps); a
            // change only updates what is asked, the schedule stays
            let timeout = until.map_or_else(crossbeam_channel::never, crossbeam_channel::at);
            let reply = if for_reply { &done } else { &never };
            crossbeam_channel::select! {
                recv(changed) -> r => if r.is_err() { return },
                recv(reply) -> r => if let Ok(end) = r {
                    rounds.ended(end, &mut seq);
                },
                recv(timeout) -> _ => {}
            }
        }
    }

    /// Starts one round of `kinds` (its reply is published as reading `seq`; the round's
    /// number and whether it was published are sent on `done`). Returns (radio ready,
    /// round submitted).
    fn round(
        &self,
        radio: &Radio,
        kinds: &BTreeSet<MeterKind>,
        seq: u16,
        slow_at: &mut Option<Instant>,
        (number, done): (u64, Sender<(u64, bool)>),
    ) -> (bool, bool) {
        let (ptt, ready) = radio
            .store()
            .read(|c| (c.radio.transmitting(), c.connection.radio_ready));
        let profile = radio.profile();
        let now = Instant::now();
        let slow_due = slow_at.is_none_or(|t| now >= t + SLOW_PERIOD);
        let round: Vec<MeterKind> = kinds
            .iter()
            .copied()
            .filter(|k| profile.has_meter(*k) && in_round(*k, ptt, slow_due))
            .collect();
        if ready && round.contains(&MeterKind::Vd) {
            *slow_at = Some(now);
        }
        if !ready || round.is_empty() {
            return (ready, false);
        }
        let fanout = self.fanout.clone();
        let submitted = radio.submit_poll(Command::ReadMeters(round), move |r| {
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
            let _ = done.try_send((number, published));
        });
        (true, submitted.is_ok())
    }
}

/// When rounds start, sans-IO: one round at a time; the next one period (of the highest
/// rate asked) after the last one started ([`next_round`]); the reply of the round in
/// flight is waited for only once the next is due, at most [`REPLY_WAIT`].
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
    /// Sleep until a change, `until` (`None`: no timer) or, when `for_reply`, the reply
    /// of the round in flight.
    Wait {
        until: Option<Instant>,
        for_reply: bool,
    },
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
            // its reply is looked at when the next round is due
            (Some(_), Some(due)) if due > now => Next::Wait {
                until: Some(due),
                for_reply: false,
            },
            (Some(started), _) => Next::Wait {
                until: Some(started + REPLY_WAIT),
                for_reply: true,
            },
            (None, Some(due)) if due <= now => Next::Start,
            (None, until) => Next::Wait {
                until,
                for_reply: false,
            },
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
    if k == MeterKind::Vd {
        slow_due
    } else {
        k.is_tx() == ptt
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
    fn vd_is_read_in_both_directions_but_only_when_due() {
        for ptt in [false, true] {
            assert!(in_round(MeterKind::Vd, ptt, true));
            assert!(!in_round(MeterKind::Vd, ptt, false));
        }
        assert!(in_round(MeterKind::Smeter, false, false));
        assert!(!in_round(MeterKind::Smeter, true, true));
        assert!(in_round(MeterKind::Swr, true, false));
        assert!(!in_round(MeterKind::Swr, false, true));
    }

    #[test]
    fn one_round_at_a_time_its_reply_looked_at_when_the_next_is_due() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let mut r = Rounds::default();
        let idle = Next::Wait {
            until: None,
            for_reply: false,
        };
        assert_eq!(r.next(None, t0), idle, "nothing asked: sleep");
        assert_eq!(r.next(Some(20), t0), Next::Start);
        r.started(t0, true, true);
        // in flight, the next not due: sleep until it is, the reply does not wake us
        let until_due = Next::Wait {
            until: Some(ms(50)),
            for_reply: false,
        };
        assert_eq!(r.next(Some(20), ms(10)), until_due);
        let mut seq = 0;
        assert!(r.ended((1, true), &mut seq));
        assert_eq!(seq, 1);
        assert_eq!(r.next(Some(20), ms(49)), until_due);
        assert_eq!(r.next(Some(20), ms(50)), Next::Start);
        // a late reply: waited for once the next round is due, at most 5 s
        r.started(ms(50), true, true);
        let for_reply = Next::Wait {
            until: Some(ms(5_050)),
            for_reply: true,
        };
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
        assert_eq!(
            r.next(Some(20), ms(5_060)),
            Next::Wait {
                until: Some(ms(5_550)),
                for_reply: false,
            }
        );
        // nobody asks any more while a round is in flight: its reply is waited for
        r.started(ms(5_550), true, true);
        assert_eq!(
            r.next(None, ms(5_560)),
            Next::Wait {
                until: Some(ms(10_550)),
                for_reply: true,
            }
        );
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
