//! Meter readings for one rigctld client without a radio round trip per poll: the first
//! `l STRENGTH` (or SWR, ...) asks the meter pump for that meter (5 readings a second),
//! later reads answer the latest reading at once. The ask lapses when the client has not
//! read a meter for [`LAPSE`], so that a client that polled once costs nothing after.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::hub::{LatestWins, Subscription};
use crate::radio::meter_pump::{MeterPump, MeterReading};
use crate::wire::meter::MeterKind;

/// Readings per second asked of the meter pump.
const FPS: u32 = 5;
/// The ask lapses after this long without a meter read.
pub const LAPSE: Duration = Duration::from_secs(10);
/// How long the first read of a meter waits for its first reading.
pub const FIRST_READING: Duration = Duration::from_secs(1);

struct Live {
    _sub: Subscription<MeterReading>,
    queue: Arc<LatestWins<Arc<MeterReading>>>,
}

/// See the module docs.
pub struct MeterTap {
    pump: Arc<MeterPump>,
    id: u64,
    live: Option<Live>,
    kinds: BTreeSet<MeterKind>,
    latest: HashMap<MeterKind, u16>,
    last_read: Option<Instant>,
}

impl MeterTap {
    /// A tap of consumer `id` (asks nothing yet).
    pub fn new(pump: Arc<MeterPump>, id: u64) -> MeterTap {
        MeterTap {
            pump,
            id,
            live: None,
            kinds: BTreeSet::new(),
            latest: HashMap::new(),
            last_read: None,
        }
    }

    fn drain(&mut self) {
        if let Some(l) = &self.live {
            while let Some(r) = l.queue.pop() {
                self.latest.extend(r.values.iter().copied());
            }
        }
    }

    /// The latest reading of `kind`: asks for it if nobody did, and then waits up to
    /// [`FIRST_READING`] for one.
    pub fn read(&mut self, kind: MeterKind, now: Instant) -> Option<u16> {
        self.last_read = Some(now);
        if self.live.is_none() {
            let queue = Arc::new(LatestWins::new(8, None));
            let sub = self.pump.readings().subscribe(queue.clone());
            self.live = Some(Live { _sub: sub, queue });
        }
        if self.kinds.insert(kind) {
            self.pump.demand(self.id, self.kinds.iter().copied(), FPS);
        }
        self.drain();
        let end = now + FIRST_READING;
        while !self.latest.contains_key(&kind) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(10));
            self.drain();
        }
        self.latest.get(&kind).copied()
    }

    /// The latest reading of `kind` without asking or waiting.
    pub fn last(&mut self, kind: MeterKind) -> Option<u16> {
        self.drain();
        self.latest.get(&kind).copied()
    }

    /// Lets the ask lapse once the client stopped reading meters.
    pub fn tick(&mut self, now: Instant) {
        if self.last_read.is_some_and(|t| now >= t + LAPSE) {
            self.stop();
        }
    }

    /// When [`MeterTap::tick`] has something to do.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.live.as_ref()?;
        self.last_read.map(|t| t + LAPSE)
    }

    /// Withdraws the ask.
    pub fn stop(&mut self) {
        if self.live.take().is_some() {
            self.pump.withdraw(self.id);
        }
        self.kinds.clear();
        self.latest.clear();
        self.last_read = None;
    }
}

impl Drop for MeterTap {
    fn drop(&mut self) {
        self.stop();
    }
}
