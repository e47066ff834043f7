//! The state feed of one control client: a [`StateSink`] that queues the snapshot
//! (draft `state` + `state_update` full) and then every delta and event, all through
//! the client's message lane so their order is the store's order.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};

use super::conn::ClientHandle;
use super::messages;
use crate::hub::Subscriber;
use crate::radio::state_store::{Snapshot, StateChange, StateSink};
use crate::station::dx::buffer::Spot;

/// See the module docs.
pub struct StateFeed {
    handle: Arc<ClientHandle>,
    /// Send `event` messages (the client subscribed to "events").
    pub events: AtomicBool,
    /// Last S-meter reading, for the draft `state` message.
    pub smeter: AtomicU16,
    /// Last SWR reading, for the draft `state` message.
    pub swr: AtomicU16,
}

impl StateFeed {
    /// A feed for `handle`.
    pub fn new(handle: Arc<ClientHandle>, events: bool) -> StateFeed {
        StateFeed {
            handle,
            events: AtomicBool::new(events),
            smeter: AtomicU16::new(0),
            swr: AtomicU16::new(0),
        }
    }
}

impl StateSink for StateFeed {
    fn on_snapshot(&self, s: &Snapshot) {
        let (sm, swr) = (
            self.smeter.load(Ordering::Relaxed),
            self.swr.load(Ordering::Relaxed),
        );
        self.handle
            .send_text(messages::draft_state(&s.content, sm, swr));
        self.handle.send_text(messages::full(s.revision, &s.json));
    }

    fn on_change(&self, change: &Arc<StateChange>) {
        if !change.changed.is_empty() || !change.removed.is_empty() {
            self.handle.send_text(messages::delta(
                change.revision,
                &change.changed,
                &change.removed,
            ));
        }
        if self.events.load(Ordering::Relaxed) {
            for e in &change.events {
                self.handle.send_text(messages::event(e.name(), &e.data()));
            }
        }
    }
}

/// New DX spots reach a client that subscribed to `events` as `event` `dx_spot`, through
/// the same lane as its state messages (never dropped).
impl Subscriber<Spot> for StateFeed {
    fn offer(&self, spot: &Arc<Spot>) {
        if self.events.load(Ordering::Relaxed) {
            self.handle
                .send_text(messages::event("dx_spot", &spot.to_json()));
        }
    }
}
