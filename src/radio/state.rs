//! The radio's typed state and the resource around it (interface.md §2.2, decisions.md
//! "State resource fields"), held by a [`StateStore`] that bumps `revision` on every
//! change of content, computes leaf-level deltas and derived events, and fans them out
//! to subscribers under the same lock as the snapshot they start from (so a subscriber
//! never misses or repeats a change).

use std::sync::Arc;
use std::time::SystemTime;

use parking_lot::Mutex;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::util::json_diff;
use crate::util::time::iso8601;

/// One VFO of an A/B radio.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VfoState {
    /// Frequency, Hz.
    pub freq_hz: u64,
    /// Mode name.
    pub mode: String,
    /// Filter number 1..3.
    pub filter: u8,
}

/// One receiver (MAIN or SUB).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReceiverState {
    /// Frequency of the receiver (of its active VFO on A/B radios), Hz.
    pub freq_hz: u64,
    /// Mode name (USB, LSB, CW, ...).
    pub mode: String,
    /// Filter number 1..3.
    pub filter: u8,
    /// DATA mode (0 off, 1..3 D1..D3).
    pub data_mode: u8,
    /// Attenuator, dB.
    pub att: u8,
    /// Preamp level (0 off).
    pub preamp: u8,
    /// VFO A (A/B radios only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vfo_a: Option<VfoState>,
    /// VFO B (A/B radios only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vfo_b: Option<VfoState>,
}

impl ReceiverState {
    /// A receiver at `freq_hz` in `mode`, FIL1, everything off.
    pub fn new(freq_hz: u64, mode: &str, ab: bool) -> ReceiverState {
        let vfo = VfoState {
            freq_hz,
            mode: mode.to_string(),
            filter: 1,
        };
        ReceiverState {
            freq_hz,
            mode: mode.to_string(),
            filter: 1,
            data_mode: 0,
            att: 0,
            preamp: 0,
            vfo_a: ab.then(|| vfo.clone()),
            vfo_b: ab.then_some(vfo),
        }
    }
}

/// Spectrum scope settings as last reported by the radio.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ScopeState {
    /// Receiver shown (0 MAIN, 1 SUB).
    pub receiver: u8,
    /// Both receivers shown.
    pub dual: bool,
    /// 0 center, 1 fixed, 2 scroll-C, 3 scroll-F.
    pub mode: u8,
    /// Half-span in center mode, Hz.
    pub span_hz: u64,
    /// Lower edge of the last sweep, Hz.
    pub start_freq: u64,
    /// Upper edge of the last sweep, Hz.
    pub end_freq: u64,
    /// The last sweep was out of range.
    pub out_of_range: bool,
    /// The radio is sending sweeps.
    pub streaming: bool,
}

/// Settings of the radio.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RadioState {
    /// MAIN receiver.
    pub main: ReceiverState,
    /// SUB receiver (two-receiver radios only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sub: Option<ReceiverState>,
    /// The selected receiver ("MAIN"/"SUB") or VFO ("A"/"B").
    pub active: String,
    /// Transmitting.
    pub ptt: bool,
    /// Radio switched on (false in standby).
    pub power_on: bool,
    /// RF power level 0..255.
    pub power: u8,
    /// Split.
    pub split: bool,
    /// Dual watch.
    pub dual_watch: bool,
    /// Scope settings.
    pub scope: ScopeState,
}

impl RadioState {
    /// Receiver `r` (0 MAIN, 1 SUB), if the radio has it.
    pub fn receiver_mut(&mut self, r: u8) -> Option<&mut ReceiverState> {
        if r == 0 {
            Some(&mut self.main)
        } else {
            self.sub.as_mut()
        }
    }
}

/// The `connection` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Connection {
    /// The CI-V stream to the radio is open.
    pub rig_connected: bool,
    /// Connected, powered on, answering, and state fetched: commands will work.
    pub radio_ready: bool,
    /// The control session (login) is up.
    pub control_connected: bool,
}

/// Connected WebSocket clients per channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct WsClients {
    /// `/api/v1/scope`.
    pub scope: u32,
    /// `/api/v1/ws`.
    pub control: u32,
    /// `/api/v1/audio`.
    pub audio: u32,
    /// `/api/v1/meters`.
    pub meters: u32,
}

/// The `radioDetail` object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RadioDetail {
    /// connected, connecting, reconnecting, disconnected, failed, powered_off, not_responding.
    pub status: String,
    /// Model name.
    pub model: String,
    /// The last problem, in words a user can act on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Everything the state resource shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateContent {
    /// Radio settings.
    pub radio: RadioState,
    /// Connection flags.
    pub connection: Connection,
    /// WebSocket clients.
    pub ws_clients: WsClients,
    /// Radio status.
    pub detail: RadioDetail,
}

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

/// An event derived from a state change (interface.md §6).
#[derive(Debug, Clone, PartialEq)]
pub struct StateEvent {
    /// Event name (`freq_changed`, `ptt`, `scope_meta`, ...).
    pub name: &'static str,
    /// Event data.
    pub data: Value,
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
    pub events: Vec<StateEvent>,
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
    json: Arc<String>,
    sinks: Vec<(u64, Arc<dyn StateSink>)>,
    next_sink: u64,
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
        let json = Arc::new(Value::Object(doc.clone()).to_string());
        StateStore {
            inner: Mutex::new(StoreInner {
                content,
                revision: 1,
                updated_at,
                doc,
                json,
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
        let g = self.inner.lock();
        Snapshot {
            revision: g.revision,
            json: g.json.clone(),
            content: g.content.clone(),
        }
    }

    /// Changes the content. When anything visible changed, the revision goes up by one,
    /// `updatedAt` moves, and every sink gets the delta and its events.
    pub fn modify<R>(&self, f: impl FnOnce(&mut StateContent) -> R) -> R {
        let mut g = self.inner.lock();
        let before = g.content.clone();
        let r = f(&mut g.content);
        if g.content == before {
            return r;
        }
        let revision = g.revision + 1;
        let updated_at = SystemTime::now();
        let doc = g.content.to_json(revision, updated_at);
        let d = json_diff::diff(&g.doc, &doc);
        let events = derive_events(&before, &g.content);
        g.revision = revision;
        g.updated_at = updated_at;
        g.json = Arc::new(Value::Object(doc.clone()).to_string());
        g.doc = doc;
        let change = Arc::new(StateChange {
            revision,
            changed: d.changed,
            removed: d.removed,
            events,
        });
        for (_, s) in &g.sinks {
            s.on_change(&change);
        }
        r
    }

    /// Sends an event that is not a change of the resource (e.g. a transmit timeout) to
    /// every sink, at the current revision and with no changed fields.
    pub fn notify(&self, event: StateEvent) {
        let g = self.inner.lock();
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

    /// Registers `sink` and returns its id with the snapshot it starts from: the sink
    /// gets that snapshot first ([`StateSink::on_snapshot`]), then every later change.
    pub fn subscribe(&self, sink: Arc<dyn StateSink>) -> (u64, Snapshot) {
        let mut g = self.inner.lock();
        let id = g.next_sink;
        g.next_sink += 1;
        let snap = Snapshot {
            revision: g.revision,
            json: g.json.clone(),
            content: g.content.clone(),
        };
        sink.on_snapshot(&snap);
        g.sinks.push((id, sink));
        (id, snap)
    }

    /// Removes a sink.
    pub fn unsubscribe(&self, id: u64) {
        self.inner.lock().sinks.retain(|(i, _)| *i != id);
    }
}

fn vfo_label(content: &StateContent, receiver: u8) -> &'static str {
    let ab = content.radio.main.vfo_a.is_some();
    match (ab, receiver) {
        (true, _) => {
            if content.radio.active == "B" {
                "B"
            } else {
                "A"
            }
        }
        (false, 0) => "MAIN",
        (false, _) => "SUB",
    }
}

/// Events for the differences between two contents.
fn derive_events(old: &StateContent, new: &StateContent) -> Vec<StateEvent> {
    let mut ev = Vec::new();
    let (o, n) = (&old.radio, &new.radio);
    let receivers = [
        (0u8, Some(&o.main), Some(&n.main)),
        (1u8, o.sub.as_ref(), n.sub.as_ref()),
    ];
    for (r, a, b) in receivers {
        let (Some(a), Some(b)) = (a, b) else { continue };
        let vfo = vfo_label(new, r);
        if a.freq_hz != b.freq_hz {
            ev.push(StateEvent {
                name: "freq_changed",
                data: json!({"vfo": vfo, "receiver": r, "freq": b.freq_hz}),
            });
        }
        if a.mode != b.mode || a.filter != b.filter || a.data_mode != b.data_mode {
            ev.push(StateEvent {
                name: "mode_changed",
                data: json!({"vfo": vfo, "receiver": r, "mode": b.mode, "filter": format!("FIL{}", b.filter), "data_mode": b.data_mode}),
            });
        }
        if a.att != b.att {
            ev.push(StateEvent {
                name: "att_changed",
                data: json!({"receiver": r, "db": b.att}),
            });
        }
        if a.preamp != b.preamp {
            ev.push(StateEvent {
                name: "preamp_changed",
                data: json!({"receiver": r, "level": b.preamp}),
            });
        }
        if a.vfo_b != b.vfo_b && b.vfo_b.is_some() && a.freq_hz == b.freq_hz {
            if let Some(vb) = &b.vfo_b {
                ev.push(StateEvent {
                    name: "vfo_b_changed",
                    data: json!({"freq": vb.freq_hz, "mode": vb.mode, "filter": format!("FIL{}", vb.filter)}),
                });
            }
        }
    }
    if o.ptt != n.ptt {
        ev.push(StateEvent {
            name: "ptt",
            data: json!({"state": n.ptt}),
        });
    }
    if o.power != n.power {
        ev.push(StateEvent {
            name: "power_changed",
            data: json!({"level": n.power}),
        });
    }
    if o.power_on != n.power_on {
        ev.push(StateEvent {
            name: "power_state",
            data: json!({"on": n.power_on}),
        });
    }
    if o.split != n.split {
        ev.push(StateEvent {
            name: "split_changed",
            data: json!({"on": n.split}),
        });
    }
    if o.active != n.active {
        ev.push(StateEvent {
            name: "active_changed",
            data: json!({"active": n.active}),
        });
    }
    let (os, ns) = (&o.scope, &n.scope);
    if os.mode != ns.mode
        || os.start_freq != ns.start_freq
        || os.end_freq != ns.end_freq
        || os.receiver != ns.receiver
    {
        ev.push(StateEvent {
            name: "scope_meta",
            data: json!({"mode": ns.mode, "start_freq": ns.start_freq, "end_freq": ns.end_freq, "receiver": ns.receiver}),
        });
    }
    if old.connection != new.connection || old.detail.status != new.detail.status {
        let c = new.connection;
        ev.push(StateEvent {
            name: "connection",
            data: json!({
                "rigConnected": c.rig_connected,
                "radioReady": c.radio_ready,
                "controlConnected": c.control_connected,
                "status": new.detail.status,
                "message": new.detail.message,
            }),
        });
    }
    ev
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Collect(Mutex<Vec<Arc<StateChange>>>);
    impl StateSink for Collect {
        fn on_change(&self, c: &Arc<StateChange>) {
            self.0.lock().push(c.clone());
        }
    }

    fn content() -> StateContent {
        StateContent {
            radio: RadioState {
                main: ReceiverState::new(14_074_000, "USB", false),
                sub: Some(ReceiverState::new(7_074_000, "LSB", false)),
                active: "MAIN".into(),
                ptt: false,
                power_on: true,
                power: 128,
                split: false,
                dual_watch: false,
                scope: ScopeState::default(),
            },
            connection: Connection::default(),
            ws_clients: WsClients::default(),
            detail: RadioDetail {
                status: "connecting".into(),
                model: "IC-7610".into(),
                message: None,
            },
        }
    }

    #[test]
    fn revision_moves_only_on_change_and_deltas_rebuild_the_state() {
        let store = StateStore::new(content());
        let sink = Arc::new(Collect(Mutex::new(Vec::new())));
        let (_, snap) = store.subscribe(sink.clone());
        assert_eq!(snap.revision, 1);
        store.modify(|c| c.radio.main.freq_hz = 14_074_000); // no change
        assert_eq!(store.revision(), 1);
        store.modify(|c| c.radio.main.freq_hz = 14_075_000);
        store.modify(|c| c.radio.ptt = true);
        store.modify(|c| c.radio.sub = None);
        assert_eq!(store.revision(), 4);
        let changes = sink.0.lock().clone();
        assert_eq!(changes.len(), 3);
        assert_eq!(changes[0].changed["main"], json!({"freqHz": 14_075_000}));
        assert_eq!(changes[0].events[0].name, "freq_changed");
        assert_eq!(changes[1].events[0].name, "ptt");
        assert_eq!(changes[2].removed, vec!["sub".to_string()]);
        let mut doc: Map<String, Value> = serde_json::from_str(&snap.json).unwrap();
        for c in &changes {
            json_diff::apply(&mut doc, &c.changed, &c.removed);
        }
        let now: Map<String, Value> = serde_json::from_str(&store.snapshot().json).unwrap();
        assert_eq!(doc, now);
        assert_eq!(now["revision"], json!(4));
        assert!(now["updatedAt"].as_str().unwrap().ends_with("+00:00"));
    }
}
