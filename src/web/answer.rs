//! The `result` JSON of a command's response (docs/API.md), from its typed [`Answer`].

use serde_json::{Map, Value, json};

use crate::radio::answer::{Answer, BandChange, Given, MemoryChannel, Written};

/// A write's answer: `receiver` (a receiver's settings) and each parameter as given.
fn written_json(w: &Written) -> Value {
    let mut m = Map::new();
    if let Some(r) = w.receiver {
        m.insert("receiver".into(), r.code().into());
    }
    for (name, given) in &w.values {
        let v = match given {
            Given::Bool(b) => Value::Bool(*b),
            Given::Int(i) => Value::from(*i),
            Given::Real(x) => serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number),
            Given::Text(t) => Value::String(t.clone()),
        };
        m.insert((*name).into(), v);
    }
    Value::Object(m)
}

/// The `result` of a response to a command that answered `answer`.
pub fn result_json(answer: &Answer) -> Value {
    match answer {
        Answer::Done => json!({}),
        Answer::Written(w) => written_json(w),
        Answer::Memories(channels) => {
            json!({"channels": channels.iter().map(memory_json).collect::<Vec<_>>()})
        }
        Answer::Memory(channel) => memory_json(channel),
        Answer::Tuned { target, hz } => json!({"vfo": target.label(), "freq": hz}),
        Answer::ModeSet {
            target,
            mode,
            filter,
            data,
        } => json!({
            "vfo": target.label(),
            "mode": mode,
            "filter": filter.map(|f| format!("FIL{f}")),
            "data": data,
        }),
        Answer::Ptt { on, read_back } => with_read_back(json!({"state": on}), read_back),
        Answer::Power { on, read_back } => {
            with_read_back(json!({"state": if *on { "on" } else { "off" }}), read_back)
        }
        Answer::Band(b) => band_json(b),
        Answer::CwSent { chars } => json!({"sent": chars}),
        Answer::Meters(values) => Value::Object(
            values
                .iter()
                .map(|(k, v)| (k.name().to_string(), json!(v)))
                .collect::<Map<_, _>>(),
        ),
        Answer::ModInput { data_mode, value } => json!({"data_mode": data_mode, "value": value}),
        Answer::ScopeOutput(on) => json!({"output": on}),
        Answer::ScopeDual(on) => json!({"dual": on}),
        Answer::Throttled => json!({"throttled": true}),
    }
}

/// `readBack: true` and the `note` of a command the radio did not confirm but reads
/// back as asked.
fn with_read_back(mut v: Value, read_back: &Option<String>) -> Value {
    if let Some(note) = read_back {
        v["readBack"] = json!(true);
        v["note"] = json!(note);
    }
    v
}

fn band_json(b: &BandChange) -> Value {
    let mut m = Map::new();
    m.insert("band".into(), json!(b.band));
    if let Some(name) = &b.name {
        m.insert("name".into(), json!(name));
    }
    m.insert("source".into(), json!(b.source.as_str()));
    if let Some(freq) = b.freq {
        m.insert("freq".into(), json!(freq));
    }
    m.insert("retuned".into(), json!(b.freq.is_some()));
    Value::Object(m)
}

/// A memory channel as `list_memories`, `recall_memory` and `store_memory` answer it.
fn memory_json(c: &MemoryChannel) -> Value {
    match &c.content {
        None => {
            json!({"channel": c.channel, "empty": true, "freq": null, "mode": null, "name": null})
        }
        Some(m) => json!({
            "channel": c.channel,
            "empty": false,
            "freq": m.freq_hz,
            "mode": m.mode.map(|x| x.name()),
            "name": m.name,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::answer::BandSource;
    use crate::radio::command::Target;
    use crate::wire::civ::{Mode, Receiver};
    use crate::wire::meter::MeterKind;

    #[test]
    fn answers_become_the_documented_results() {
        let main = Target::Receiver(Receiver::Main);
        let cases = [
            (Answer::Done, json!({})),
            (
                Answer::Written(Written {
                    receiver: Some(Receiver::Sub),
                    values: vec![
                        ("level", Given::Int(3)),
                        ("offset", Given::Real(3.5)),
                        ("state", Given::Bool(true)),
                        ("mode", Given::Text("fast".into())),
                    ],
                }),
                json!({"receiver": 1, "level": 3, "offset": 3.5, "state": true, "mode": "fast"}),
            ),
            (
                Answer::Written(Written {
                    receiver: None,
                    values: vec![("span", Given::Int(50_000))],
                }),
                json!({"span": 50_000}),
            ),
            (
                Answer::Tuned {
                    target: main,
                    hz: 14_074_000,
                },
                json!({"vfo": "MAIN", "freq": 14_074_000}),
            ),
            (
                Answer::ModeSet {
                    target: Target::Vfo(1),
                    mode: Mode::Usb,
                    filter: Some(2),
                    data: None,
                },
                json!({"vfo": "B", "mode": "USB", "filter": "FIL2", "data": null}),
            ),
            (
                Answer::Ptt {
                    on: false,
                    read_back: None,
                },
                json!({"state": false}),
            ),
            (
                Answer::Ptt {
                    on: true,
                    read_back: Some("why".into()),
                },
                json!({"state": true, "readBack": true, "note": "why"}),
            ),
            (
                Answer::Power {
                    on: false,
                    read_back: None,
                },
                json!({"state": "off"}),
            ),
            (
                Answer::Band(BandChange::unknown(3)),
                json!({"band": 3, "source": "none", "retuned": false}),
            ),
            (
                Answer::Band(BandChange {
                    band: 5,
                    name: Some("20m".into()),
                    source: BandSource::Default,
                    freq: Some(14_100_000),
                }),
                json!({"band": 5, "name": "20m", "source": "default", "freq": 14_100_000, "retuned": true}),
            ),
            (Answer::CwSent { chars: 4 }, json!({"sent": 4})),
            (
                Answer::Meters(vec![(MeterKind::Smeter, 120), (MeterKind::Swr, 3)]),
                json!({"smeter": 120, "swr": 3}),
            ),
            (
                Answer::ModInput {
                    data_mode: 1,
                    value: 3,
                },
                json!({"data_mode": 1, "value": 3}),
            ),
            (Answer::ScopeOutput(true), json!({"output": true})),
            (Answer::ScopeDual(false), json!({"dual": false})),
            (Answer::Throttled, json!({"throttled": true})),
        ];
        for (answer, want) in cases {
            assert_eq!(result_json(&answer), want, "{answer:?}");
        }
    }
}
