//! A publisher that hands every item (shared, not copied) to each subscriber, and tells
//! observers when the number of subscribers changes (so that producers run only while
//! somebody listens).
//!
//! A subscriber is anything that implements [`Subscriber`]: a [`LatestWins`] queue, a
//! [`Tap`](super::Tap) (filters, paces and numbers per client), a bounded channel to a
//! worker thread, or [`Discard`] (holds a producer open without keeping anything).

use std::sync::Arc;

use parking_lot::Mutex;

use super::latest_wins::LatestWins;

type CountObserver = Box<dyn Fn(usize) + Send + Sync>;

/// Something a [`Fanout`] hands items to. `offer` runs on the publisher's thread and
/// must not block.
pub trait Subscriber<T>: Send + Sync {
    /// A new item.
    fn offer(&self, item: &Arc<T>);
}

impl<T: Send + Sync> Subscriber<T> for LatestWins<Arc<T>> {
    fn offer(&self, item: &Arc<T>) {
        self.push(item.clone());
    }
}

impl<T: Send + Sync> Subscriber<T> for crossbeam_channel::Sender<Arc<T>> {
    /// A full channel drops the item (the worker is behind; it sees a gap).
    fn offer(&self, item: &Arc<T>) {
        let _ = self.try_send(item.clone());
    }
}

/// A subscriber that keeps nothing: it only counts as a listener (for example to keep
/// the radio's audio stream open while a client transmits).
pub struct Discard;

impl<T> Subscriber<T> for Discard {
    fn offer(&self, _item: &Arc<T>) {}
}

/// The subscribers, copied on write: a publish takes the current list (one reference
/// count) and hands out without holding the lock or allocating.
type SubList<T> = Arc<Vec<(u64, Arc<dyn Subscriber<T>>)>>;

struct Subs<T> {
    list: SubList<T>,
    next: u64,
}

/// See the module docs.
pub struct Fanout<T> {
    subs: Mutex<Subs<T>>,
    observers: Mutex<Vec<CountObserver>>,
}

/// Keeps a subscription alive; dropping it unsubscribes.
pub struct Subscription<T: Send + Sync + 'static> {
    fanout: Arc<Fanout<T>>,
    id: u64,
}

impl<T: Send + Sync + 'static> Drop for Subscription<T> {
    fn drop(&mut self) {
        self.fanout.unsubscribe(self.id);
    }
}

impl<T: Send + Sync + 'static> Default for Fanout<T> {
    fn default() -> Self {
        Fanout {
            subs: Mutex::new(Subs {
                list: Arc::new(Vec::new()),
                next: 1,
            }),
            observers: Mutex::new(Vec::new()),
        }
    }
}

impl<T: Send + Sync + 'static> Fanout<T> {
    /// An empty fan-out.
    pub fn new() -> Arc<Fanout<T>> {
        Arc::new(Fanout::default())
    }

    /// Adds an observer: `f` is called with the new subscriber count after every change
    /// (on the thread that subscribed or unsubscribed; it must not block).
    pub fn on_count_change(&self, f: impl Fn(usize) + Send + Sync + 'static) {
        self.observers.lock().push(Box::new(f));
    }

    /// Adds `queue` as a subscriber.
    pub fn subscribe(self: &Arc<Self>, queue: Arc<LatestWins<Arc<T>>>) -> Subscription<T> {
        self.subscribe_with(queue)
    }

    /// Adds any [`Subscriber`].
    pub fn subscribe_with(self: &Arc<Self>, sub: Arc<dyn Subscriber<T>>) -> Subscription<T> {
        let (id, n) = {
            let mut s = self.subs.lock();
            let id = s.next;
            s.next += 1;
            let mut list = Vec::clone(&s.list);
            list.push((id, sub));
            s.list = Arc::new(list);
            (id, s.list.len())
        };
        self.notify(n);
        Subscription {
            fanout: self.clone(),
            id,
        }
    }

    fn unsubscribe(&self, id: u64) {
        let n = {
            let mut s = self.subs.lock();
            let mut list = Vec::clone(&s.list);
            list.retain(|(i, _)| *i != id);
            s.list = Arc::new(list);
            s.list.len()
        };
        self.notify(n);
    }

    fn notify(&self, n: usize) {
        for f in self.observers.lock().iter() {
            f(n);
        }
    }

    /// Subscribers now.
    pub fn count(&self) -> usize {
        self.subs.lock().list.len()
    }

    /// Hands `item` to every subscriber.
    pub fn publish(&self, item: T) {
        self.publish_shared(&Arc::new(item));
    }

    /// Hands an already shared `item` to every subscriber.
    pub fn publish_shared(&self, item: &Arc<T>) {
        let list = self.subs.lock().list.clone();
        for (_, q) in list.iter() {
            q.offer(item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_subscriber_gets_every_item_and_counts_are_reported() {
        let f: Arc<Fanout<u32>> = Fanout::new();
        let seen = Arc::new(AtomicUsize::new(99));
        let also = Arc::new(AtomicUsize::new(99));
        let (s2, a2) = (seen.clone(), also.clone());
        f.on_count_change(move |n| s2.store(n, Ordering::SeqCst));
        f.on_count_change(move |n| a2.store(n, Ordering::SeqCst));
        let a = Arc::new(LatestWins::new(10, None));
        let b = Arc::new(LatestWins::new(1, None));
        let sa = f.subscribe(a.clone());
        let sb = f.subscribe(b.clone());
        assert_eq!(seen.load(Ordering::SeqCst), 2);
        assert_eq!(also.load(Ordering::SeqCst), 2, "every observer is told");
        f.publish(1);
        f.publish(2);
        assert_eq!(a.len(), 2);
        assert_eq!(
            *b.pop().unwrap(),
            2,
            "the slow subscriber keeps only the newest"
        );
        drop(sa);
        assert_eq!(seen.load(Ordering::SeqCst), 1);
        drop(sb);
        assert_eq!(f.count(), 0);
        assert_eq!(seen.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn channels_and_discard_subscribe_too() {
        let f: Arc<Fanout<u8>> = Fanout::new();
        let (tx, rx) = crossbeam_channel::bounded(1);
        let _c = f.subscribe_with(Arc::new(tx));
        let _d = f.subscribe_with(Arc::new(Discard));
        assert_eq!(f.count(), 2);
        f.publish(1);
        f.publish(2); // the channel is full: dropped, never blocks
        assert_eq!(*rx.try_recv().unwrap(), 1);
        assert!(rx.try_recv().is_err());
    }
}
