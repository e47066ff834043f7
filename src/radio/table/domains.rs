//! Where the allowed values of parameters come from when they depend on the profile
//! (frequency ranges, modes, filters, attenuator steps, spans, ...), and the display
//! names of values the catalogue gives a page (ATT `6 dB`, preamp `P1`, spans `±2.5k`).

use crate::profile::Profile;
use crate::radio::table::params::Allowed;
use crate::wire::civ;

/// Characters `send_cw` takes (Icom CW keyer over CI-V `17`).
pub const CW_CHARSET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 /?.,-=+@:";
/// Longest `send_cw` text.
pub const CW_MAX_LEN: usize = 30;

pub(super) fn freq_bounds(p: &Profile) -> Allowed {
    let min = p.freq_ranges.iter().map(|r| r.start_hz).min().unwrap_or(0);
    let max = p.freq_ranges.iter().map(|r| r.end_hz).max().unwrap_or(0);
    Allowed::Range {
        min: min as i64,
        max: max as i64,
        step: 1,
    }
}

pub(super) fn antenna_label(v: i64) -> String {
    format!("ANT{v}")
}

pub(super) fn memory_channels(p: &Profile) -> Allowed {
    let (min, max) = p.memory.map_or((0, 0), |m| (m.first, m.last));
    Allowed::Range {
        min: i64::from(min),
        max: i64::from(max),
        step: 1,
    }
}

pub(super) fn modes(p: &Profile) -> Allowed {
    Allowed::Names(
        p.modes
            .list
            .iter()
            .map(|m| (m.name().to_string(), i64::from(m.code())))
            .collect(),
    )
}

pub(super) fn filters(p: &Profile) -> Allowed {
    Allowed::Names(
        p.filters
            .list
            .iter()
            .enumerate()
            .map(|(i, f)| (f.clone(), i as i64 + 1))
            .collect(),
    )
}

pub(super) fn data_modes(p: &Profile) -> Allowed {
    Allowed::Range {
        min: 0,
        max: i64::from(p.modes.data_modes),
        step: 1,
    }
}

pub(super) fn att_values(p: &Profile) -> Allowed {
    Allowed::Ints(p.attenuator.values.iter().map(|v| i64::from(*v)).collect())
}

pub(super) fn preamp_values(p: &Profile) -> Allowed {
    Allowed::Ints(p.preamp.values.iter().map(|v| i64::from(*v)).collect())
}

pub(super) fn fixed_edges(p: &Profile) -> Allowed {
    Allowed::Ints((1..=i64::from(p.scope.fixed_edges)).collect())
}

pub(super) fn spans(p: &Profile) -> Allowed {
    Allowed::Ints(p.scope.spans_hz.iter().map(|v| i64::from(*v)).collect())
}

pub(super) fn filter_widths(p: &Profile) -> Allowed {
    let (lo, hi) = p
        .modes
        .list
        .iter()
        .filter_map(|m| civ::width_range(m.code()))
        .fold((u32::MAX, 0), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)));
    Allowed::Range {
        min: i64::from(lo.min(hi)),
        max: i64::from(hi),
        step: 1,
    }
}

pub(super) fn cw_text(_: &Profile) -> Allowed {
    Allowed::Text {
        max_len: CW_MAX_LEN,
        charset: CW_CHARSET,
    }
}

pub(super) fn data_label(d: i64) -> String {
    if d == 0 {
        "Off".into()
    } else {
        format!("D{d}")
    }
}

pub(super) fn preamp_label(level: i64) -> String {
    if level == 0 {
        "Off".into()
    } else {
        format!("P{level}")
    }
}

pub(super) fn att_label(db: i64) -> String {
    if db == 0 {
        "Off".into()
    } else {
        format!("{db} dB")
    }
}

/// A half-span as the scope's control shows it (`±2.5k`, `±1M`).
pub(super) fn span_label(hz: i64) -> String {
    let (v, suffix) = match hz {
        1_000_000.. => (hz as f64 / 1e6, "M"),
        1_000.. => (hz as f64 / 1e3, "k"),
        _ => (hz as f64, ""),
    };
    format!("±{v}{suffix}")
}
