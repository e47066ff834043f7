//! Events (interface.md §6): what changed, as typed values, derived from the difference
//! between two states or raised by the engine. They become JSON (`name` + `data`) only
//! at the web edge ([`RadioEvent::name`], [`RadioEvent::data`]).

use serde_json::{Value, json};

use crate::radio::state::{RadioStatus, ReceiverState, Selected, StateContent};
use crate::radio::table::settings::{Place, SETTINGS, SettingId};
use crate::wire::civ::{Mode, Receiver};

/// One event.
#[derive(Debug, Clone, PartialEq)]
pub enum RadioEvent {
    /// A frequency changed (command, front panel, band change).
    FreqChanged {
        /// MAIN/SUB, or A/B (`None`: the selected VFO of an A/B radio is not known).
        vfo: Option<Selected>,
        /// The receiver.
        receiver: Receiver,
        /// Frequency, Hz.
        freq: u64,
    },
    /// Mode, filter or DATA mode changed.
    ModeChanged {
        /// As for [`RadioEvent::FreqChanged`].
        vfo: Option<Selected>,
        /// The receiver.
        receiver: Receiver,
        /// Mode.
        mode: Option<Mode>,
        /// Filter 1..3.
        filter: Option<u8>,
        /// DATA mode.
        data_mode: Option<u8>,
    },
    /// A setting of the settings table changed.
    Setting {
        /// Which.
        id: SettingId,
        /// The receiver, for per-receiver settings.
        receiver: Option<Receiver>,
        /// The new value as the state shows it.
        value: Value,
    },
    /// Transmit state changed (`None`: unknown while the link is down).
    Ptt(Option<bool>),
    /// The radio was switched on or off.
    PowerState(bool),
    /// The selected receiver / VFO changed.
    ActiveChanged(Option<Selected>),
    /// The unselected VFO of an A/B radio changed.
    VfoBChanged {
        /// Frequency, Hz.
        freq: Option<u64>,
        /// Mode.
        mode: Option<Mode>,
        /// Filter.
        filter: Option<u8>,
    },
    /// Scope mode or edges changed.
    ScopeMeta {
        /// Mode 0..3.
        mode: Option<u8>,
        /// Lower edge, Hz.
        start_freq: u64,
        /// Upper edge, Hz.
        end_freq: u64,
        /// Receiver shown.
        receiver: Receiver,
    },
    /// The link or readiness changed.
    Connection {
        /// CI-V open.
        rig_connected: bool,
        /// Commands will work.
        radio_ready: bool,
        /// Logged in.
        control_connected: bool,
        /// Status.
        status: RadioStatus,
        /// What is wrong, if anything.
        message: Option<String>,
    },
    /// The transmit timeout released (or is releasing) PTT.
    TxTimeout {
        /// The unkey was confirmed by the radio.
        released: bool,
        /// The timeout, seconds.
        after_s: u64,
    },
    /// An unkey the radio must confirm failed; it is retried until confirmed.
    UnkeyFailed {
        /// Attempts so far.
        attempts: u32,
        /// Why the last one failed.
        message: String,
        /// When the next attempt goes out, ms.
        retry_in_ms: u64,
    },
}

fn label(v: Option<Selected>) -> Value {
    v.map_or(Value::Null, |s| json!(s.name()))
}

impl RadioEvent {
    /// The event's name on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            RadioEvent::FreqChanged { .. } => "freq_changed",
            RadioEvent::ModeChanged { .. } => "mode_changed",
            RadioEvent::Setting { id, .. } => crate::radio::table::settings::Setting::of(*id).event,
            RadioEvent::Ptt(_) => "ptt",
            RadioEvent::PowerState(_) => "power_state",
            RadioEvent::ActiveChanged(_) => "active_changed",
            RadioEvent::VfoBChanged { .. } => "vfo_b_changed",
            RadioEvent::ScopeMeta { .. } => "scope_meta",
            RadioEvent::Connection { .. } => "connection",
            RadioEvent::TxTimeout { .. } => "tx_timeout",
            RadioEvent::UnkeyFailed { .. } => "unkey_failed",
        }
    }

    /// The event's `data` object on the wire.
    pub fn data(&self) -> Value {
        match self {
            RadioEvent::FreqChanged {
                vfo,
                receiver,
                freq,
            } => json!({"vfo": label(*vfo), "receiver": receiver, "freq": freq}),
            RadioEvent::ModeChanged {
                vfo,
                receiver,
                mode,
                filter,
                data_mode,
            } => json!({
                "vfo": label(*vfo), "receiver": receiver, "mode": mode,
                "filter": filter.map(|f| format!("FIL{f}")), "data_mode": data_mode,
            }),
            RadioEvent::Setting {
                id,
                receiver,
                value,
            } => {
                let s = crate::radio::table::settings::Setting::of(*id);
                let mut m = serde_json::Map::new();
                if let Some(r) = receiver {
                    m.insert("receiver".into(), json!(r));
                }
                m.insert(s.key.into(), value.clone());
                Value::Object(m)
            }
            RadioEvent::Ptt(state) => json!({"state": state}),
            RadioEvent::PowerState(on) => json!({"on": on}),
            RadioEvent::ActiveChanged(a) => json!({"active": label(*a)}),
            RadioEvent::VfoBChanged { freq, mode, filter } => json!({
                "freq": freq, "mode": mode, "filter": filter.map(|f| format!("FIL{f}")),
            }),
            RadioEvent::ScopeMeta {
                mode,
                start_freq,
                end_freq,
                receiver,
            } => json!({
                "mode": mode, "start_freq": start_freq, "end_freq": end_freq, "receiver": receiver,
            }),
            RadioEvent::Connection {
                rig_connected,
                radio_ready,
                control_connected,
                status,
                message,
            } => json!({
                "rigConnected": rig_connected, "radioReady": radio_ready,
                "controlConnected": control_connected, "status": status.name(), "message": message,
            }),
            RadioEvent::TxTimeout { released, after_s } => {
                json!({"released": released, "after_s": after_s})
            }
            RadioEvent::UnkeyFailed {
                attempts,
                message,
                retry_in_ms,
            } => json!({"attempts": attempts, "message": message, "retry_in_ms": retry_in_ms}),
        }
    }
}

/// The label of receiver `r` in `content` (A/B radios: the selected VFO, if known).
fn vfo_label(content: &StateContent, receiver: Receiver) -> Option<Selected> {
    if content.radio.main.vfo_a.is_some() {
        return content.radio.active;
    }
    Some(match receiver {
        Receiver::Main => Selected::Main,
        Receiver::Sub => Selected::Sub,
    })
}

fn receiver_events(
    ev: &mut Vec<RadioEvent>,
    new: &StateContent,
    r: Receiver,
    a: &ReceiverState,
    b: &ReceiverState,
) {
    let vfo = vfo_label(new, r);
    if let Some(freq) = b.freq_hz.filter(|_| a.freq_hz != b.freq_hz) {
        ev.push(RadioEvent::FreqChanged {
            vfo,
            receiver: r,
            freq,
        });
    }
    if a.mode != b.mode || a.filter != b.filter || a.data_mode != b.data_mode {
        ev.push(RadioEvent::ModeChanged {
            vfo,
            receiver: r,
            mode: b.mode,
            filter: b.filter,
            data_mode: b.data_mode,
        });
    }
    // A swap or a retune of the selected VFO shows as freq_changed; only a change of the
    // unselected VFO alone gets its own event.
    if let Some(vb) = b
        .vfo_b
        .as_ref()
        .filter(|_| a.vfo_b != b.vfo_b && a.freq_hz == b.freq_hz)
    {
        ev.push(RadioEvent::VfoBChanged {
            freq: vb.freq_hz,
            mode: vb.mode,
            filter: vb.filter,
        });
    }
}

/// Events for the differences between two contents.
pub fn derive_events(old: &StateContent, new: &StateContent) -> Vec<RadioEvent> {
    let mut ev = Vec::new();
    let (o, n) = (&old.radio, &new.radio);
    receiver_events(&mut ev, new, Receiver::Main, &o.main, &n.main);
    if let (Some(a), Some(b)) = (&o.sub, &n.sub) {
        receiver_events(&mut ev, new, Receiver::Sub, a, b);
    }
    let receivers: &[Receiver] = if n.sub.is_some() {
        &Receiver::ALL
    } else {
        &[Receiver::Main]
    };
    for s in SETTINGS {
        let targets: &[Receiver] = match s.place {
            Place::Global => &[Receiver::Main],
            Place::Receiver => receivers,
            Place::ScopeReceiver => std::slice::from_ref(&n.scope.receiver),
        };
        for &rx in targets {
            let (before, after) = (o.setting(s.id, rx), n.setting(s.id, rx));
            if before != after
                && let Some(value) = after
            {
                let receiver = (s.place != Place::Global).then_some(rx);
                ev.push(RadioEvent::Setting {
                    id: s.id,
                    receiver,
                    value,
                });
            }
        }
    }
    if o.ptt != n.ptt {
        ev.push(RadioEvent::Ptt(n.ptt));
    }
    if let Some(on) = n.power_on.filter(|_| o.power_on != n.power_on) {
        ev.push(RadioEvent::PowerState(on));
    }
    if o.active != n.active {
        ev.push(RadioEvent::ActiveChanged(n.active));
    }
    let (os, ns) = (&o.scope, &n.scope);
    if os.settings.mode != ns.settings.mode
        || os.start_freq != ns.start_freq
        || os.end_freq != ns.end_freq
        || os.receiver != ns.receiver
    {
        ev.push(RadioEvent::ScopeMeta {
            mode: ns.settings.mode,
            start_freq: ns.start_freq,
            end_freq: ns.end_freq,
            receiver: ns.receiver,
        });
    }
    if old.connection != new.connection || old.detail.status != new.detail.status {
        let c = new.connection;
        ev.push(RadioEvent::Connection {
            rig_connected: c.rig_connected,
            radio_ready: c.radio_ready,
            control_connected: c.control_connected,
            status: new.detail.status,
            message: new.detail.message.clone(),
        });
    }
    ev
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::state::{RadioState, ReceiverState};

    fn content() -> StateContent {
        let main = ReceiverState::tuned(14_074_000, Mode::Usb, false);
        let sub = ReceiverState::tuned(7_074_000, Mode::Lsb, false);
        let mut radio = RadioState::new(main, Some(sub));
        radio.settings.power = Some(128);
        radio.ptt = Some(false);
        radio.power_on = Some(true);
        radio.active = Some(Selected::Main);
        StateContent::connecting(radio, "IC-7610")
    }

    /// A change made to a copy of the content.
    type Edit = fn(&mut StateContent);

    fn names(old: &StateContent, new: &StateContent) -> Vec<&'static str> {
        derive_events(old, new).iter().map(|e| e.name()).collect()
    }

    #[test]
    fn each_setting_that_changes_names_its_event_and_nothing_else() {
        let old = content();
        let cases: [(&str, Edit); 16] = [
            ("freq_changed", |c| c.radio.main.freq_hz = Some(14_074_100)),
            ("mode_changed", |c| c.radio.main.filter = Some(2)),
            ("att_changed", |c| {
                c.radio.sub.as_mut().unwrap().settings.att = Some(6)
            }),
            ("preamp_changed", |c| c.radio.main.settings.preamp = Some(1)),
            ("ptt", |c| c.radio.ptt = Some(true)),
            ("power_changed", |c| c.radio.settings.power = Some(200)),
            ("power_state", |c| c.radio.power_on = Some(false)),
            ("split_changed", |c| c.radio.settings.split = Some(true)),
            ("dual_watch_changed", |c| {
                c.radio.settings.dual_watch = Some(true)
            }),
            ("active_changed", |c| c.radio.active = Some(Selected::Sub)),
            ("scope_meta", |c| c.radio.scope.start_freq = 14_000_000),
            ("connection", |c| c.connection.radio_ready = true),
            ("af_gain_changed", |c| {
                c.radio.main.settings.af_gain = Some(10)
            }),
            ("agc_changed", |c| {
                c.radio.sub.as_mut().unwrap().settings.agc =
                    Some(crate::radio::table::values::Agc::Slow)
            }),
            ("tuner_changed", |c| {
                c.radio.settings.tuner = Some(crate::radio::table::values::Tuner::Tune)
            }),
            ("rit_offset_changed", |c| {
                c.radio.settings.rit_offset_hz = Some(-120)
            }),
        ];
        for (name, change) in cases {
            let mut new = old.clone();
            change(&mut new);
            assert_eq!(names(&old, &new), vec![name], "{name}");
        }
        assert!(names(&old, &old).is_empty());
        let mut new = old.clone();
        new.radio.sub.as_mut().unwrap().settings.agc = Some(crate::radio::table::values::Agc::Slow);
        let e = &derive_events(&old, &new)[0];
        assert_eq!(e.data(), json!({"receiver": 1, "mode": "slow"}));
        let mut sub = old.clone();
        sub.radio.sub.as_mut().unwrap().freq_hz = Some(7_100_000);
        assert_eq!(
            derive_events(&old, &sub)[0].data(),
            json!({"vfo": "SUB", "receiver": 1, "freq": 7_100_000})
        );
    }

    #[test]
    fn forgetting_a_value_is_not_an_event_but_ptt_unknown_is() {
        let old = content();
        let mut new = old.clone();
        new.radio.main.freq_hz = None;
        new.radio.settings.power = None;
        assert!(names(&old, &new).is_empty());
        new.radio.ptt = None;
        let ev = derive_events(&old, &new);
        assert_eq!(ev, vec![RadioEvent::Ptt(None)]);
        assert_eq!(ev[0].data(), json!({"state": null}));
    }

    #[test]
    fn the_unselected_vfo_has_its_own_event_only_when_the_selected_one_stays() {
        let main = ReceiverState::tuned(14_074_000, Mode::Usb, true);
        let mut radio = RadioState::new(main, None);
        radio.active = Some(Selected::A);
        let old = StateContent::connecting(radio, "IC-705");
        let mut b_only = old.clone();
        b_only.radio.main.vfo_b.as_mut().unwrap().freq_hz = Some(7_000_000);
        let ev = derive_events(&old, &b_only);
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].name(), "vfo_b_changed");
        assert_eq!(
            ev[0].data(),
            json!({"freq": 7_000_000, "mode": "USB", "filter": "FIL1"})
        );
        let mut swapped = b_only.clone();
        swapped.radio.main.freq_hz = Some(7_000_000);
        swapped.radio.main.vfo_b.as_mut().unwrap().freq_hz = Some(14_074_000);
        assert_eq!(names(&b_only, &swapped), vec!["freq_changed"]);
        assert_eq!(derive_events(&b_only, &swapped)[0].data()["vfo"], "A");
    }
}
