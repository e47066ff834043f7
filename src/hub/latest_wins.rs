//! A bounded queue with *drop-newest-replaces* semantics: when a push finds the queue
//! at its high watermark, the queued items are dropped and the newest one takes their
//! place, so a slow consumer sees gaps (by sequence number) but never old data.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::net::waker::Waker;

struct Inner<T> {
    queue: VecDeque<T>,
    dropped: u64,
}

/// See the module docs.
pub struct LatestWins<T> {
    inner: Mutex<Inner<T>>,
    ready: Condvar,
    high: usize,
    waker: Option<Waker>,
    tally: Option<Arc<AtomicU64>>,
}

impl<T> LatestWins<T> {
    /// A queue holding at most `high_watermark` items (at least 1). `waker`, if given, is
    /// woken on every push (for consumers that sleep in `poll`).
    pub fn new(high_watermark: usize, waker: Option<Waker>) -> LatestWins<T> {
        LatestWins {
            inner: Mutex::new(Inner {
                queue: VecDeque::new(),
                dropped: 0,
            }),
            ready: Condvar::new(),
            high: high_watermark.max(1),
            waker,
            tally: None,
        }
    }

    /// Also adds every dropped item to `tally` (a figure shared by many queues, for
    /// `GET /metrics`).
    pub fn counting_drops(mut self, tally: Arc<AtomicU64>) -> LatestWins<T> {
        self.tally = Some(tally);
        self
    }

    /// Adds `item`; above the watermark the queued items are replaced by it.
    pub fn push(&self, item: T) {
        {
            let mut g = self.inner.lock();
            if g.queue.len() >= self.high {
                let n = g.queue.len() as u64;
                g.dropped += n;
                if let Some(t) = &self.tally {
                    t.fetch_add(n, Ordering::Relaxed);
                }
                g.queue.clear();
            }
            g.queue.push_back(item);
        }
        self.ready.notify_one();
        if let Some(w) = &self.waker {
            w.wake();
        }
    }

    /// Takes the oldest queued item.
    pub fn pop(&self) -> Option<T> {
        self.inner.lock().queue.pop_front()
    }

    /// Waits up to `timeout` for an item.
    pub fn pop_timeout(&self, timeout: Duration) -> Option<T> {
        let deadline = Instant::now() + timeout;
        let mut g = self.inner.lock();
        loop {
            if let Some(x) = g.queue.pop_front() {
                return Some(x);
            }
            if self.ready.wait_until(&mut g, deadline).timed_out() {
                return g.queue.pop_front();
            }
        }
    }

    /// Items queued now.
    pub fn len(&self) -> usize {
        self.inner.lock().queue.len()
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Items dropped so far because the consumer was behind.
    pub fn dropped(&self) -> u64 {
        self.inner.lock().dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_replaces_above_watermark() {
        let q = LatestWins::new(3, None);
        for i in 0..3 {
            q.push(i);
        }
        assert_eq!(q.len(), 3);
        q.push(3);
        assert_eq!(q.len(), 1);
        assert_eq!(q.dropped(), 3);
        assert_eq!(q.pop(), Some(3));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn pop_timeout_waits_for_a_push() {
        let q = std::sync::Arc::new(LatestWins::new(2, None));
        let q2 = q.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            q2.push(7);
        });
        assert_eq!(q.pop_timeout(Duration::from_secs(5)), Some(7));
        t.join().unwrap();
        assert_eq!(q.pop_timeout(Duration::from_millis(10)), None);
    }

    #[test]
    fn drops_are_added_to_a_shared_tally() {
        let tally = Arc::new(AtomicU64::new(0));
        let a = LatestWins::new(2, None).counting_drops(tally.clone());
        let b = LatestWins::new(1, None).counting_drops(tally.clone());
        for i in 0..5 {
            a.push(i);
            b.push(i);
        }
        assert_eq!(a.dropped() + b.dropped(), tally.load(Ordering::Relaxed));
        assert_eq!(tally.load(Ordering::Relaxed), 4 + 4);
    }
}
