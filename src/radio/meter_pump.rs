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

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;

use super::command::Command;
use super::meters::MeterKind;
use super::service::Radio;
use crate::hub::Fanout;

/// Fastest polling rate.
pub const MAX_FPS: u32 = 20;
/// Least time between two reads of a slow meter (Vd).
pub const SLOW_PERIOD: Duration = Duration::from_millis(500);

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
        let mut seq: u16 = 0;
        let weak = Arc::downgrade(&radio);
        drop(radio);
        // when the last round started, and whether the radio was ready then
        let mut last: Option<(Instant, bool)> = None;
        // when the slow meters were last read
        let mut slow_at: Option<Instant> = None;
        loop {
            if self.stopped.load(std::sync::atomic::Ordering::Acquire) {
                return;
            }
            let Some((kinds, fps)) = self.wanted() else {
                if changed.recv().is_err() {
                    return;
                }
                continue;
            };
            if let Some(due) = last.map(|(t, ready)| next_round(t, ready, fps))
                && let Some(wait) = due.checked_duration_since(Instant::now())
                && !wait.is_zero()
            {
                // a change only updates what is asked; the schedule stays
                match changed.recv_timeout(wait) {
                    Ok(()) | Err(crossbeam_channel::RecvTimeoutError::Timeout) => continue,
                    Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return,
                }
            }
            let Some(radio) = weak.upgrade() else { return };
            let started = Instant::now();
            let ready = self.round(&radio, &kinds, &mut seq, &mut slow_at);
            last = Some((started, ready));
        }
    }

    /// Polls one round of `kinds` and publishes it; false when the radio is not ready.
    fn round(
        &self,
        radio: &Radio,
        kinds: &BTreeSet<MeterKind>,
        seq: &mut u16,
        slow_at: &mut Option<Instant>,
    ) -> bool {
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
            return ready;
        }
        let (tx, rx) = crossbeam_channel::bounded(1);
        let submitted = radio.submit_poll(Command::ReadMeters(round), move |r| {
            let _ = tx.send(r);
        });
        if submitted.is_ok()
            && let Ok(Ok(v)) = rx.recv_timeout(Duration::from_secs(5))
        {
            let values: Vec<(MeterKind, u16)> = v
                .as_object()
                .map(|o| {
                    o.iter()
                        .filter_map(|(k, v)| Some((MeterKind::from_name(k)?, v.as_u64()? as u16)))
                        .collect()
                })
                .unwrap_or_default();
            self.fanout.publish(MeterReading {
                sequence: *seq,
                values,
                tx: ptt,
            });
            *seq = seq.wrapping_add(1);
        }
        true
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
    fn the_schedule_follows_the_highest_rate_and_waits_while_not_ready() {
        let t = Instant::now();
        assert_eq!(next_round(t, true, 20), t + Duration::from_millis(50));
        assert_eq!(next_round(t, true, 100), t + Duration::from_millis(50));
        assert_eq!(next_round(t, true, 0), t + Duration::from_secs(1));
        assert_eq!(next_round(t, false, 20), t + Duration::from_millis(500));
        assert_eq!(next_round(t, false, 1), t + Duration::from_secs(1));
    }
}
