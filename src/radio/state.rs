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
    /// A radio with these receivers before anything else is known: receiving, switched
    /// on, power level 0, no split or dual watch, MAIN (VFO A on A/B radios) selected.
    pub fn new(main: ReceiverState, sub: Option<ReceiverState>) -> RadioState {
        let active = if main.vfo_a.is_some() { "A" } else { "MAIN" };
        RadioState {
            main,
            sub,
            active: active.into(),
            ptt: false,
            power_on: true,
            power: 0,
            split: false,
            dual_watch: false,
            scope: ScopeState::default(),
        }
    }

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
    /// `radio` of `model` before the link is up: nothing connected, no WebSocket
    /// clients, status "connecting".
    pub fn connecting(radio: RadioState, model: &str) -> StateContent {
        StateContent {
            radio,
            connection: Connection::default(),
            ws_clients: WsClients::default(),
            detail: RadioDetail {
                status: "connecting".into(),
                model: model.to_string(),
                message: None,
            },
        }
    }

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

/// Adds the event `name` to `ev` when `changed`, its data built only then.
fn push_if(
    ev: &mut Vec<StateEvent>,
    changed: bool,
    name: &'static str,
    data: impl FnOnce() -> Value,
) {
    if changed {
        ev.push(StateEvent { name, data: data() });
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
        push_if(
            &mut ev,
            a.freq_hz != b.freq_hz,
            "freq_changed",
            || json!({"vfo": vfo, "receiver": r, "freq": b.freq_hz}),
        );
        let mode_changed = a.mode != b.mode || a.filter != b.filter || a.data_mode != b.data_mode;
        push_if(
            &mut ev,
            mode_changed,
            "mode_changed",
            || json!({"vfo": vfo, "receiver": r, "mode": b.mode, "filter": format!("FIL{}", b.filter), "data_mode": b.data_mode}),
        );
        push_if(
            &mut ev,
            a.att != b.att,
            "att_changed",
            || json!({"receiver": r, "db": b.att}),
        );
        push_if(
            &mut ev,
            a.preamp != b.preamp,
            "preamp_changed",
            || json!({"receiver": r, "level": b.preamp}),
        );
        // A swap or a retune of the selected VFO shows as freq_changed; only a change of
        // the unselected VFO alone gets its own event.
        if let Some(vb) = b
            .vfo_b
            .as_ref()
            .filter(|_| a.vfo_b != b.vfo_b && a.freq_hz == b.freq_hz)
        {
            push_if(
                &mut ev,
                true,
                "vfo_b_changed",
                || json!({"freq": vb.freq_hz, "mode": vb.mode, "filter": format!("FIL{}", vb.filter)}),
            );
        }
    }
    push_if(&mut ev, o.ptt != n.ptt, "ptt", || json!({"state": n.ptt}));
    push_if(
        &mut ev,
        o.power != n.power,
        "power_changed",
        || json!({"level": n.power}),
    );
    push_if(
        &mut ev,
        o.power_on != n.power_on,
        "power_state",
        || json!({"on": n.power_on}),
    );
    push_if(
        &mut ev,
        o.split != n.split,
        "split_changed",
        || json!({"on": n.split}),
    );
    push_if(
        &mut ev,
        o.dual_watch != n.dual_watch,
        "dual_watch_changed",
        || json!({"on": n.dual_watch}),
    );
    push_if(
        &mut ev,
        o.active != n.active,
        "active_changed",
        || json!({"active": n.active}),
    );
    let (os, ns) = (&o.scope, &n.scope);
    let scope_changed = os.mode != ns.mode
        || os.start_freq != ns.start_freq
        || os.end_freq != ns.end_freq
        || os.receiver != ns.receiver;
    push_if(
        &mut ev,
        scope_changed,
        "scope_meta",
        || json!({"mode": ns.mode, "start_freq": ns.start_freq, "end_freq": ns.end_freq, "receiver": ns.receiver}),
    );
    let link_changed = old.connection != new.connection || old.detail.status != new.detail.status;
    push_if(&mut ev, link_changed, "connection", || {
        let c = new.connection;
        json!({
            "rigConnected": c.rig_connected,
            "radioReady": c.radio_ready,
            "controlConnected": c.control_connected,
            "status": new.detail.status,
            "message": new.detail.message,
        })
    });
    ev
}

/// The state a profile starts with before the radio has been read.
pub fn initial_content(p: &crate::profile::Profile) -> StateContent {
    let ab = p.vfo.scheme == crate::profile::VfoScheme::Ab;
    let first = p
        .bands()
        .next()
        .map(|b| b.default_hz)
        .unwrap_or(p.freq_ranges[0].start_hz);
    let mode = p
        .modes
        .list
        .first()
        .cloned()
        .unwrap_or_else(|| "USB".into());
    let main = ReceiverState::new(first, &mode, ab);
    let sub = (p.is_dual() && !ab).then(|| ReceiverState::new(first, &mode, false));
    StateContent::connecting(RadioState::new(main, sub), p.model())
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
        let main = ReceiverState::new(14_074_000, "USB", false);
        let sub = ReceiverState::new(7_074_000, "LSB", false);
        let mut radio = RadioState::new(main, Some(sub));
        radio.power = 128;
        StateContent::connecting(radio, "IC-7610")
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

    /// A change made to a copy of the content.
    type Edit = fn(&mut StateContent);

    fn names(old: &StateContent, new: &StateContent) -> Vec<&'static str> {
        derive_events(old, new).iter().map(|e| e.name).collect()
    }

    #[test]
    fn each_setting_that_changes_names_its_event_and_nothing_else() {
        let old = content();
        let cases: [(&str, Edit); 12] = [
            ("freq_changed", |c| c.radio.main.freq_hz += 100),
            ("mode_changed", |c| c.radio.main.filter = 2),
            ("att_changed", |c| c.radio.sub.as_mut().unwrap().att = 6),
            ("preamp_changed", |c| c.radio.main.preamp = 1),
            ("ptt", |c| c.radio.ptt = true),
            ("power_changed", |c| c.radio.power = 200),
            ("power_state", |c| c.radio.power_on = false),
            ("split_changed", |c| c.radio.split = true),
            ("dual_watch_changed", |c| c.radio.dual_watch = true),
            ("active_changed", |c| c.radio.active = "SUB".into()),
            ("scope_meta", |c| c.radio.scope.start_freq = 14_000_000),
            ("connection", |c| c.connection.radio_ready = true),
        ];
        for (name, change) in cases {
            let mut new = old.clone();
            change(&mut new);
            assert_eq!(names(&old, &new), vec![name], "{name}");
        }
        assert!(names(&old, &old).is_empty());
        let sub_freq = derive_events(&old, &{
            let mut c = old.clone();
            c.radio.sub.as_mut().unwrap().freq_hz = 7_100_000;
            c
        });
        assert_eq!(
            sub_freq[0].data,
            json!({"vfo": "SUB", "receiver": 1, "freq": 7_100_000})
        );
    }

    #[test]
    fn the_unselected_vfo_has_its_own_event_only_when_the_selected_one_stays() {
        let main = ReceiverState::new(14_074_000, "USB", true);
        let old = StateContent::connecting(RadioState::new(main, None), "IC-705");
        let mut b_only = old.clone();
        b_only.radio.main.vfo_b.as_mut().unwrap().freq_hz = 7_000_000;
        let ev = derive_events(&old, &b_only);
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].name, "vfo_b_changed");
        assert_eq!(
            ev[0].data,
            json!({"freq": 7_000_000, "mode": "USB", "filter": "FIL1"})
        );
        let mut swapped = b_only.clone();
        swapped.radio.main.freq_hz = 7_000_000;
        swapped.radio.main.vfo_b.as_mut().unwrap().freq_hz = 14_074_000;
        assert_eq!(names(&b_only, &swapped), vec!["freq_changed"]);
        assert_eq!(derive_events(&b_only, &swapped)[0].data["vfo"], "A");
    }
}
