//! A client's end of a stream: a [`Subscriber`] that decides per item whether this client
//! wants it (receiver, pace, meters asked for), numbers the items it wants with a
//! wrapping per-client sequence and queues them in a [`LatestWins`] queue. Because the
//! number is given before the queue, frames the queue drops for a slow client show up
//! as gaps in the sequence the client sees.
//!
//! A tap may have a *direct* hook: while nothing is queued, a wanted item is first
//! offered to it (the web layer writes it to the client's socket from the producer's
//! thread when the client's own thread is idle); what it does not take is queued.

use std::sync::Arc;

use parking_lot::Mutex;

use super::fanout::Subscriber;
use super::latest_wins::LatestWins;
use crate::net::waker::Waker;

/// Decides whether the client wants an item.
pub type TapFilter<T> = Box<dyn FnMut(&T) -> bool + Send>;

/// Delivers an item (with its sequence number) at once if it can; false: queue it.
pub type TapDirect<T> = Box<dyn FnMut(u16, &Arc<T>) -> bool + Send>;

struct TapState<T> {
    filter: TapFilter<T>,
    direct: Option<TapDirect<T>>,
    next_seq: u16,
}

/// See the module docs.
pub struct Tap<T> {
    state: Mutex<TapState<T>>,
    queue: LatestWins<(u16, Arc<T>)>,
}

impl<T: Send + Sync> Tap<T> {
    /// A tap keeping at most `high_watermark` items, numbering from `first_seq`, waking
    /// `waker` on every queued item.
    pub fn new(
        high_watermark: usize,
        first_seq: u16,
        waker: Option<Waker>,
        filter: TapFilter<T>,
    ) -> Tap<T> {
        Tap {
            state: Mutex::new(TapState {
                filter,
                direct: None,
                next_seq: first_seq,
            }),
            queue: LatestWins::new(high_watermark, waker),
        }
    }

    /// Replaces the filter (the sequence goes on).
    pub fn set_filter(&self, filter: TapFilter<T>) {
        self.state.lock().filter = filter;
    }

    /// Also adds every item this tap drops to `tally` (see [`LatestWins::counting_drops`]).
    pub fn counting_drops(mut self, tally: Arc<std::sync::atomic::AtomicU64>) -> Tap<T> {
        self.queue = self.queue.counting_drops(tally);
        self
    }

    /// Sets the direct hook (see the module docs).
    pub fn set_direct(&self, direct: TapDirect<T>) {
        self.state.lock().direct = Some(direct);
    }

    /// The oldest queued item and its sequence number.
    pub fn pop(&self) -> Option<(u16, Arc<T>)> {
        self.queue.pop()
    }

    /// Items queued now.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Items dropped because the client was behind.
    pub fn dropped(&self) -> u64 {
        self.queue.dropped()
    }
}

impl<T: Send + Sync> Subscriber<T> for Tap<T> {
    fn offer(&self, item: &Arc<T>) {
        let seq = {
            let mut s = self.state.lock();
            if !(s.filter)(item) {
                return;
            }
            let seq = s.next_seq;
            s.next_seq = seq.wrapping_add(1);
            // in order: only while nothing waits in the queue
            if self.queue.is_empty()
                && let Some(direct) = s.direct.as_mut()
                && direct(seq, item)
            {
                return;
            }
            seq
        };
        self.queue.push((seq, item.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_wanted_items_and_wraps() {
        let t: Tap<u32> = Tap::new(5, 65_534, None, Box::new(|x| x % 2 == 0));
        for i in 0..6u32 {
            t.offer(&Arc::new(i));
        }
        let got: Vec<(u16, u32)> = std::iter::from_fn(|| t.pop())
            .map(|(s, v)| (s, *v))
            .collect();
        assert_eq!(got, vec![(65_534, 0), (65_535, 2), (0, 4)]);
    }

    #[test]
    fn the_direct_hook_goes_first_while_nothing_is_queued() {
        let t: Tap<u32> = Tap::new(5, 0, None, Box::new(|_| true));
        let taken = Arc::new(Mutex::new(Vec::new()));
        let k = taken.clone();
        t.set_direct(Box::new(move |seq, x: &Arc<u32>| {
            // refuses item 2 only
            let take = **x != 2;
            if take {
                k.lock().push(seq);
            }
            take
        }));
        for i in 0..5u32 {
            t.offer(&Arc::new(i));
        }
        assert_eq!(*taken.lock(), vec![0, 1]);
        let queued: Vec<u16> = std::iter::from_fn(|| t.pop()).map(|(s, _)| s).collect();
        assert_eq!(
            queued,
            vec![2, 3, 4],
            "once one is queued, the rest follow it"
        );
    }

    #[test]
    fn drops_show_as_gaps_and_the_newest_survives() {
        let t: Tap<u32> = Tap::new(3, 0, None, Box::new(|_| true));
        for i in 0..10u32 {
            t.offer(&Arc::new(i));
        }
        let got: Vec<u16> = std::iter::from_fn(|| t.pop()).map(|(s, _)| s).collect();
        assert_eq!(got, vec![9], "the queue was replaced by the newest");
        assert_eq!(t.dropped(), 9);
        t.set_filter(Box::new(|x| *x > 100));
        t.offer(&Arc::new(5));
        t.offer(&Arc::new(500));
        assert_eq!(t.pop().map(|(s, v)| (s, *v)), Some((10, 500)));
    }
}
