//! The holder of the state resource, on the shell's side: a [`StateStore`] publishes the
//! updates of the state's one writer (the engine, through the executor) and the
//! web layer's client counts — it bumps `revision` on every change of content, stamps
//! `updatedAt`, computes leaf-level deltas and fans them out with their events to
//! subscribers under the same lock as the snapshot they start from (so a subscriber
//! never misses or repeats a change).

use std::sync::Arc;
use std::time::SystemTime;

use parking_lot::Mutex;
use serde_json::{Map, Value, json};

use crate::radio::state::events::RadioEvent;
use crate::radio::state::{StateContent, StateUpdate, WsClients};
use crate::util::json_diff;
use crate::util::time::iso8601;

impl StateContent {
    /// The JSON object of the resource at `revision`, last changed at `updated_at`.
    pub fn to_json(&self, revision: u64, updated_at: SystemTime) -> Map<String, Value> {
        let mut m = match serde_json::to_value(&self.radio) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        m.insert("revision".into(), json!(revision));
        m.insert("updatedAt".into(), json!(iso8601(updated_at)));
        m.insert(
            "radioDetail".into(),
            serde_json::to_value(&self.detail).unwrap_or(Value::Null),
        );
        m.insert(
            "wsClients".into(),
            serde_json::to_value(self.ws_clients).unwrap_or(Value::Null),
        );
        m.insert(
            "connection".into(),
            serde_json::to_value(self.connection).unwrap_or(Value::Null),
        );
        m
    }
}

/// One change of the resource.
#[derive(Debug, Clone, PartialEq)]
pub struct StateChange {
    /// The resource's revision after the change.
    pub revision: u64,
    /// Changed leaves (nested partial object, `revision` and `updatedAt` included).
    pub changed: Map<String, Value>,
    /// Dotted paths of removed keys.
    pub removed: Vec<String>,
    /// Events derived from the change.
    pub events: Vec<RadioEvent>,
}

/// A receiver of state changes. Called with the store's lock held: must not block.
pub trait StateSink: Send + Sync {
    /// Takes the snapshot the subscription starts from (before any change).
    fn on_snapshot(&self, _snapshot: &Snapshot) {}
    /// Takes one change.
    fn on_change(&self, change: &Arc<StateChange>);
}

/// A consistent view of the resource.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Revision.
    pub revision: u64,
    /// The resource as JSON text.
    pub json: Arc<String>,
    /// The typed content.
    pub content: StateContent,
}

struct StoreInner {
    content: StateContent,
    revision: u64,
    updated_at: SystemTime,
    doc: Map<String, Value>,
    /// `doc` as text, made when a snapshot first asks for it after a change (most
    /// changes, a meter or a dial turn, are never read as a whole document).
    json: Option<Arc<String>>,
    sinks: Vec<(u64, Arc<dyn StateSink>)>,
    next_sink: u64,
}

impl StoreInner {
    /// The content changed: the next revision, its delta and `events` to every sink.
    fn commit(&mut self, events: Vec<RadioEvent>, at: SystemTime) {
        let revision = self.revision + 1;
        let doc = self.content.to_json(revision, at);
        let d = json_diff::diff(&self.doc, &doc);
        self.revision = revision;
        self.updated_at = at;
        self.json = None;
        self.doc = doc;
        let change = Arc::new(StateChange {
            revision,
            changed: d.changed,
            removed: d.removed,
            events,
        });
        for (_, s) in &self.sinks {
            s.on_change(&change);
        }
    }

    fn snapshot(&mut self) -> Snapshot {
        let doc = &self.doc;
        let json = self
            .json
            .get_or_insert_with(|| Arc::new(Value::Object(doc.clone()).to_string()))
            .clone();
        Snapshot {
            revision: self.revision,
            json,
            content: self.content.clone(),
        }
    }
}

/// Holds the state resource; see the module docs.
pub struct StateStore {
    inner: Mutex<StoreInner>,
}

impl StateStore {
    /// A store starting at revision 1 with `content`.
    pub fn new(content: StateContent) -> StateStore {
        let updated_at = SystemTime::now();
        let doc = content.to_json(1, updated_at);
        StateStore {
            inner: Mutex::new(StoreInner {
                content,
                revision: 1,
                updated_at,
                doc,
                json: None,
                sinks: Vec::new(),
                next_sink: 1,
            }),
        }
    }

    /// Reads the content.
    pub fn read<R>(&self, f: impl FnOnce(&StateContent) -> R) -> R {
        f(&self.inner.lock().content)
    }

    /// The current revision.
    pub fn revision(&self) -> u64 {
        self.inner.lock().revision
    }

    /// A consistent snapshot.
    pub fn snapshot(&self) -> Snapshot {
        self.inner.lock().snapshot()
    }

    /// Publishes an update of the state's writer (the engine), stamped `at`: a change
    /// of content moves `revision` up by one and `updatedAt` to `at` (the WebSocket
    /// client counts stay the store's own); every sink gets the delta and its events. An
    /// event alone goes to the sinks at the current revision with no changed fields.
    pub fn publish(&self, update: StateUpdate, at: SystemTime) {
        let mut g = self.inner.lock();
        match update {
            StateUpdate::Changed {
                mut content,
                events,
            } => {
                content.ws_clients = g.content.ws_clients;
                if *content == g.content {
                    return;
                }
                g.content = *content;
                g.commit(events, at);
            }
            StateUpdate::Event(event) => {
                let change = Arc::new(StateChange {
                    revision: g.revision,
                    changed: Map::new(),
                    removed: Vec::new(),
                    events: vec![event],
                });
                for (_, s) in &g.sinks {
                    s.on_change(&change);
                }
            }
        }
    }

    /// Changes the WebSocket client counts (the one part of the resource the web layer
    /// writes), stamped now.
    pub fn modify_clients(&self, f: impl FnOnce(&mut WsClients)) {
        let mut g = self.inner.lock();
        let before = g.content.ws_clients;
        f(&mut g.content.ws_clients);
        if g.content.ws_clients != before {
            g.commit(Vec::new(), SystemTime::now());
        }
    }

    /// Registers `sink` and returns its id with the snapshot it starts from: the sink
    /// gets that snapshot first ([`StateSink::on_snapshot`]), then every later change.
    pub fn subscribe(&self, sink: Arc<dyn StateSink>) -> (u64, Snapshot) {
        let mut g = self.inner.lock();
        let id = g.next_sink;
        g.next_sink += 1;
        let snap = g.snapshot();
        sink.on_snapshot(&snap);
        g.sinks.push((id, sink));
        (id, snap)
    }

    /// Removes a sink.
    pub fn unsubscribe(&self, id: u64) {
        self.inner.lock().sinks.retain(|(i, _)| *i != id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::state::{RadioState, ReceiverState, TrackedState};
    use crate::wire::civ::Mode;

    struct Collect(Mutex<Vec<Arc<StateChange>>>);
    impl StateSink for Collect {
        fn on_change(&self, c: &Arc<StateChange>) {
            self.0.lock().push(c.clone());
        }
    }

    fn content() -> StateContent {
        let main = ReceiverState::tuned(14_074_000, Mode::Usb, false);
        let sub = ReceiverState::tuned(7_074_000, Mode::Lsb, false);
        let mut radio = RadioState::new(main, Some(sub));
        radio.settings.power = Some(128);
        StateContent::connecting(radio, "IC-7610")
    }

    /// Publishes every change `f` makes through a tracked copy, as the executor does.
    fn change(store: &StateStore, state: &mut TrackedState, f: impl FnOnce(&mut StateContent)) {
        state.modify(f);
        while let Some(u) = state.poll_update() {
            store.publish(u, SystemTime::now());
        }
    }

    #[test]
    fn revision_moves_only_on_change_and_deltas_rebuild_the_state() {
        let store = StateStore::new(content());
        let mut state = TrackedState::new(content());
        let sink = Arc::new(Collect(Mutex::new(Vec::new())));
        let (_, snap) = store.subscribe(sink.clone());
        assert_eq!(snap.revision, 1);
        change(&store, &mut state, |c| {
            c.radio.main.freq_hz = Some(14_074_000)
        }); // no change
        assert_eq!(store.revision(), 1);
        change(&store, &mut state, |c| {
            c.radio.main.freq_hz = Some(14_075_000)
        });
        change(&store, &mut state, |c| c.radio.ptt = Some(true));
        store.modify_clients(|w| w.scope += 1);
        change(&store, &mut state, |c| c.radio.sub = None);
        assert_eq!(store.revision(), 5);
        let changes = sink.0.lock().clone();
        assert_eq!(changes.len(), 4);
        assert_eq!(changes[0].changed["main"], json!({"freqHz": 14_075_000}));
        assert_eq!(changes[0].events[0].name(), "freq_changed");
        assert_eq!(changes[1].events[0].name(), "ptt");
        assert_eq!(changes[2].changed["wsClients"], json!({"scope": 1}));
        assert!(changes[2].events.is_empty());
        assert_eq!(changes[3].removed, vec!["sub".to_string()]);
        assert!(
            !changes[3].changed.contains_key("wsClients"),
            "the engine's copy does not undo the client count"
        );
        let mut doc: Map<String, Value> = serde_json::from_str(&snap.json).unwrap();
        for c in &changes {
            json_diff::apply(&mut doc, &c.changed, &c.removed);
        }
        let now: Map<String, Value> = serde_json::from_str(&store.snapshot().json).unwrap();
        assert_eq!(doc, now);
        assert_eq!(now["revision"], json!(5));
        assert_eq!(now["wsClients"]["scope"], json!(1));
        assert!(now["updatedAt"].as_str().unwrap().ends_with("+00:00"));
    }

    #[test]
    fn updated_at_is_the_publishers_stamp_and_an_event_alone_keeps_the_revision() {
        let store = StateStore::new(content());
        let sink = Arc::new(Collect(Mutex::new(Vec::new())));
        store.subscribe(sink.clone());
        let mut state = TrackedState::new(content());
        state.modify(|c| c.radio.settings.power = Some(1));
        state.notify(RadioEvent::Ptt(None));
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        while let Some(u) = state.poll_update() {
            store.publish(u, at);
        }
        let doc: Map<String, Value> = serde_json::from_str(&store.snapshot().json).unwrap();
        assert_eq!(doc["updatedAt"], json!(iso8601(at)));
        let changes = sink.0.lock().clone();
        assert_eq!(
            changes.iter().map(|c| c.revision).collect::<Vec<_>>(),
            [2, 2]
        );
        assert!(changes[1].changed.is_empty());
        assert_eq!(changes[1].events, vec![RadioEvent::Ptt(None)]);
    }
}
