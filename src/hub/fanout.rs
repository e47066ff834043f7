//! A publisher that hands every item (shared, not copied) to each subscriber's
//! [`LatestWins`] queue, and tells an observer when the number of subscribers changes
//! (so that producers run only while somebody listens).

use std::sync::Arc;

use parking_lot::Mutex;

use super::latest_wins::LatestWins;

type CountObserver = Box<dyn Fn(usize) + Send + Sync>;

struct Subs<T> {
    list: Vec<(u64, Arc<LatestWins<Arc<T>>>)>,
    next: u64,
}

/// See the module docs.
pub struct Fanout<T> {
    subs: Mutex<Subs<T>>,
    observer: Mutex<Option<CountObserver>>,
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
                list: Vec::new(),
                next: 1,
            }),
            observer: Mutex::new(None),
        }
    }
}

impl<T: Send + Sync + 'static> Fanout<T> {
    /// An empty fan-out.
    pub fn new() -> Arc<Fanout<T>> {
        Arc::new(Fanout::default())
    }

    /// Calls `f` with the new subscriber count after every change.
    pub fn on_count_change(&self, f: impl Fn(usize) + Send + Sync + 'static) {
        *self.observer.lock() = Some(Box::new(f));
    }

    /// Adds `queue` as a subscriber.
    pub fn subscribe(self: &Arc<Self>, queue: Arc<LatestWins<Arc<T>>>) -> Subscription<T> {
        let (id, n) = {
            let mut s = self.subs.lock();
            let id = s.next;
            s.next += 1;
            s.list.push((id, queue));
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
            s.list.retain(|(i, _)| *i != id);
            s.list.len()
        };
        self.notify(n);
    }

    fn notify(&self, n: usize) {
        if let Some(f) = self.observer.lock().as_ref() {
            f(n);
        }
    }

    /// Subscribers now.
    pub fn count(&self) -> usize {
        self.subs.lock().list.len()
    }

    /// Hands `item` to every subscriber.
    pub fn publish(&self, item: T) {
        let item = Arc::new(item);
        let list: Vec<_> = self
            .subs
            .lock()
            .list
            .iter()
            .map(|(_, q)| q.clone())
            .collect();
        for q in list {
            q.push(item.clone());
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
        let s2 = seen.clone();
        f.on_count_change(move |n| s2.store(n, Ordering::SeqCst));
        let a = Arc::new(LatestWins::new(10, None));
        let b = Arc::new(LatestWins::new(1, None));
        let sa = f.subscribe(a.clone());
        let sb = f.subscribe(b.clone());
        assert_eq!(seen.load(Ordering::SeqCst), 2);
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
}
