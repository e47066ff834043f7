//! The holder of the state resource, on the shell's side: a [`StateStore`] publishes the
//! updates of the state's one writer (the engine, through the executor) and the
//! web layer's client counts — it bumps `revision` on every change of content, stamps
//! `updatedAt`, computes leaf-level deltas and fans them out with their events to
//! subscribers under the same lock as the snapshot they start from (so a subscriber
//! never misses or repeats a change).

use std::sync::Arc;
use std::time::SystemTime;

use parking_lot::Mutex;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::radio::state::events::RadioEvent;
use crate::radio::state::{RadioState, StateContent, StateUpdate, WsClients};
use crate::util::json_diff::{self, Diff};
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
    /// The content changed from `prev` (`None`: not known): the next revision, its
    /// delta and `events` to every sink.
    fn commit(&mut self, prev: Option<&StateContent>, events: Vec<RadioEvent>, at: SystemTime) {
        let revision = self.revision + 1;
        let d = match prev {
            Some(prev) if only_patched_entries_differ(prev, &self.content) => {
                self.patch_entries(prev, revision, at)
            }
            _ => {
                let doc = self.content.to_json(revision, at);
                let d = json_diff::diff(&self.doc, &doc);
                self.doc = doc;
                d
            }
        };
        self.revision = revision;
        self.updated_at = at;
        self.json = None;
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

    /// Brings `doc` to the content when only its receivers or scope changed since
    /// `prev` (a dial turn, a mode, the span that follows them: most updates):
    /// serializes and compares those entries alone, with the same delta as a
    /// comparison of the whole documents.
    fn patch_entries(&mut self, prev: &StateContent, revision: u64, at: SystemTime) -> Diff {
        let mut d = Diff::default();
        let (before, now) = (&prev.radio, &self.content.radio);
        let doc = &mut self.doc;
        patch_entry(doc, &mut d, "main", Some(&before.main), Some(&now.main));
        patch_entry(doc, &mut d, "scope", Some(&before.scope), Some(&now.scope));
        patch_entry(doc, &mut d, "sub", before.sub.as_ref(), now.sub.as_ref());
        patch_entry(doc, &mut d, "revision", None, Some(&revision));
        patch_entry(doc, &mut d, "updatedAt", None, Some(&iso8601(at)));
        d
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

/// Brings the entry `key` of `doc` from `old` to `new` (`None`: absent) and adds its
/// difference to `d`; nothing when they are equal. An `old` of `None` with a `new`
/// always compares the new value with the document's.
fn patch_entry<T: Serialize + PartialEq>(
    doc: &mut Map<String, Value>,
    d: &mut Diff,
    key: &str,
    old: Option<&T>,
    new: Option<&T>,
) {
    if old.is_some() && old == new {
        return;
    }
    let value = new.map(|v| serde_json::to_value(v).unwrap_or(Value::Null));
    json_diff::diff_entry(key, doc.get(key), value.as_ref(), d);
    match value {
        Some(v) => doc.insert(key.to_string(), v),
        None => doc.remove(key),
    };
}

/// Whether `a` and `b` differ in their receivers and scope alone (the entries
/// [`StoreInner::patch_entries`] brings up to date). Every field is named, so a new
/// one cannot be left out of the comparison.
fn only_patched_entries_differ(a: &StateContent, b: &StateContent) -> bool {
    let StateContent {
        radio,
        connection,
        ws_clients,
        detail,
    } = a;
    let RadioState {
        main: _,
        sub: _,
        scope: _,
        active,
        ptt,
        power_on,
        settings,
    } = radio;
    *connection == b.connection
        && *ws_clients == b.ws_clients
        && *detail == b.detail
        && *active == b.radio.active
        && *ptt == b.radio.ptt
        && *power_on == b.radio.power_on
        && *settings == b.radio.settings
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
                let prev = std::mem::replace(&mut g.content, *content);
                g.commit(Some(&prev), events, at);
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
            g.commit(None, Vec::new(), SystemTime::now());
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
    use crate::radio::state::{RadioStatus, ReceiverState, TrackedState};
    use crate::wire::civ::Mode;
    use std::time::Duration;

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

    /// A pseudo-random walk over the content: every delta, whether only the receivers
    /// and scope changed or more, is the difference of the whole documents before and
    /// after, and the snapshot is the content's document.
    #[test]
    fn every_delta_is_the_difference_of_the_whole_documents() {
        let store = StateStore::new(content());
        let sink = Arc::new(Collect(Mutex::new(Vec::new())));
        let (_, snap) = store.subscribe(sink.clone());
        let mut doc: Map<String, Value> = serde_json::from_str(&snap.json).unwrap();
        let mut c = content();
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let (mut seed, mut patched, mut wider) = (0x2545_f491_4f6c_dd1d_u64, 0, 0);
        for step in 0..600u64 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let n = (seed >> 8) % 1000;
            match seed % 11 {
                0 => c.radio.main.freq_hz = Some(14_000_000 + n),
                1 => c.radio.main.mode = [Some(Mode::Usb), Some(Mode::Cw), None][n as usize % 3],
                2 => {
                    c.radio.sub =
                        (n % 3 != 0).then(|| ReceiverState::tuned(7_000_000 + n, Mode::Lsb, false))
                }
                3 => {
                    if let Some(sub) = &mut c.radio.sub {
                        sub.freq_hz = (n % 5 != 0).then_some(7_100_000 + n);
                    }
                }
                4 => c.radio.ptt = Some(n % 2 == 0),
                5 => c.radio.settings.power = Some((n % 256) as u16),
                6 => {
                    c.detail.status =
                        [RadioStatus::Connected, RadioStatus::Recovering][n as usize % 2]
                }
                7 => c.radio.main.filter = Some((n % 3) as u8 + 1),
                8 => {
                    c.radio.main.freq_hz = Some(28_000_000 + n);
                    c.radio.scope.start_freq = 27_975_000 + n;
                    c.radio.scope.end_freq = 28_025_000 + n;
                }
                9 => c.radio.scope.out_of_range = n % 2 == 0,
                _ => {
                    c.radio.main.freq_hz = Some(21_000_000 + n);
                    c.radio.ptt = Some(n % 2 == 1);
                }
            }
            // two steps share a millisecond: `updatedAt` does not always change
            let at = t0 + Duration::from_millis(step / 2);
            let before = store.revision();
            store.publish(
                StateUpdate::Changed {
                    content: Box::new(c.clone()),
                    events: Vec::new(),
                },
                at,
            );
            let now: Map<String, Value> = serde_json::from_str(&store.snapshot().json).unwrap();
            if store.revision() == before {
                assert_eq!(now, doc, "step {step}: no change, no new document");
                continue;
            }
            assert_eq!(now, c.to_json(store.revision(), at), "step {step}");
            let change = sink.0.lock().last().unwrap().clone();
            let whole = json_diff::diff(&doc, &now);
            assert_eq!(
                (&change.changed, &change.removed),
                (&whole.changed, &whole.removed),
                "step {step}"
            );
            let keys = ["main", "scope", "sub", "revision", "updatedAt"];
            if change.changed.keys().all(|k| keys.contains(&k.as_str())) {
                patched += 1;
            } else {
                wider += 1;
            }
            doc = now;
        }
        assert!(patched > 100 && wider > 100, "{patched} {wider}");
    }
}
