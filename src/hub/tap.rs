//! A client's end of a stream: a [`Subscriber`] that decides per item whether this client
//! wants it (receiver, pace, meters asked for), numbers the items it wants with a
//! wrapping per-client sequence and queues them in a [`LatestWins`] queue. Because the
//! number is given before the queue, frames the queue drops for a slow client show up
//! as gaps in the sequence the client sees.

use std::sync::Arc;

use parking_lot::Mutex;

use super::fanout::Subscriber;
use super::latest_wins::LatestWins;
use crate::net::waker::Waker;

/// Decides whether the client wants an item.
pub type TapFilter<T> = Box<dyn FnMut(&T) -> bool + Send>;

struct TapState<T> {
    filter: TapFilter<T>,
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
                next_seq: first_seq,
            }),
            queue: LatestWins::new(high_watermark, waker),
        }
    }

    /// Replaces the filter (the sequence goes on).
    pub fn set_filter(&self, filter: TapFilter<T>) {
        self.state.lock().filter = filter;
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
