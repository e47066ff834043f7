//! The capabilities of a profile as the API shows them: the `/api/v1/capabilities`
//! resource and the capability tags of `hello` and `/api/v1/info`.

use serde_json::{Map, Value, json};

use crate::profile::{Feature, Profile, ScopeSourceKind};
use crate::wire::lan::codec;

/// The capability tags of a profile (interface.md §2.1 `tags`).
pub fn capability_tags(profile: &Profile) -> Vec<String> {
    let mut tags: Vec<String> = profile
        .radio
        .features
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    if profile.scope.source != ScopeSourceKind::None && !tags.iter().any(|t| t == "scope") {
        tags.push("scope".into());
    }
    tags.sort();
    tags.dedup();
    tags
}

/// The capabilities resource of a profile.
pub fn capabilities_json(p: &Profile, rx_codec: u8) -> Value {
    let ranges: Vec<Value> = p
        .freq_ranges
        .iter()
        .map(|r| {
            let bands: Vec<Value> = r
                .bands
                .iter()
                .map(|b| {
                    let mut m = Map::new();
                    m.insert("name".into(), json!(b.name));
                    m.insert("start".into(), json!(b.start_hz));
                    m.insert("end".into(), json!(b.end_hz));
                    m.insert("default".into(), json!(b.default_hz));
                    if let Some(code) = b.bsr_code {
                        m.insert("bsrCode".into(), json!(code));
                    }
                    Value::Object(m)
                })
                .collect();
            json!({"label": r.label, "start": r.start_hz, "end": r.end_hz, "bands": bands})
        })
        .collect();
    let widths: Map<String, Value> = p
        .filters
        .widths
        .iter()
        .map(|(k, v)| (k.name().to_string(), json!(v)))
        .collect();
    let meter_ids: Map<String, Value> = p
        .meters
        .list
        .iter()
        .map(|m| (m.name().to_string(), json!(m.web_id())))
        .collect();
    let meter_info: Map<String, Value> = p
        .meters
        .list
        .iter()
        .map(|m| {
            let info = json!({"label": m.label(), "read": m.phase().name()});
            (m.name().to_string(), info)
        })
        .collect();
    json!({
        "model": p.model(),
        "id": p.id(),
        "receivers": p.radio.receivers,
        "vfoScheme": p.vfo.scheme.name(),
        "freqRanges": ranges,
        "scopeSource": p.scope.source.as_json(),
        "scopeConfig": {
            "defaultSpan": p.scope.default_span_hz,
            "pixels": p.scope.pixels,
            "amplitudeMax": 160,
            "centerMode": true,
        },
        "audioConfig": {
            "sampleRate": p.audio.sample_rate,
            "channels": codec::channels(rx_codec).unwrap_or(1),
            "codecs": ["opus", "pcm16"],
            "frameMs": 20,
            "jitterMinMs": 100,
            "jitterMaxMs": 200,
        },
        "modes": p.modes.list,
        "dataModes": p.modes.data_modes,
        "filters": p.filters.list,
        "filterWidths": widths,
        "attValues": p.attenuator.values,
        "preampValues": p.preamp.values,
        "power": {"minWatts": p.power.min_watts, "maxWatts": p.power.max_watts, "levelMax": 255},
        "meters": p.meters.list,
        "meterIds": meter_ids,
        "meterInfo": meter_info,
        "tags": capability_tags(p),
        "hasScope": p.scope.source != ScopeSourceKind::None,
        "hasAudio": p.has_feature(Feature::Audio),
        "hasTx": p.has_feature(Feature::Tx),
    })
}
