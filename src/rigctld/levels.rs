//! Hamlib levels (`l`/`L`) and functions (`u`/`U`) as data: for each, its `RIG_LEVEL_*`
//! / `RIG_FUNC_*` bit, where its value is read (a state field, or a meter reading of the
//! meter pump) and the command of the command table that sets it. A profile has a level
//! or function when its command-table row (or meter) is supported; `\dump_state`
//! advertises exactly those.
//!
//! Meter readings (0..255) become Hamlib's units through the calibration points of
//! icom-lan-protocol.md "Meters" (the same the browser UI's meter scales use).

use serde_json::{Value, json};

use crate::profile::{Feature, Profile};
use crate::radio::state::{RadioState, ReceiverState};
use crate::radio::table;
use crate::radio::table::values::{Agc, Tuner};
use crate::wire::civ::Receiver;
use crate::wire::meter::MeterKind;

/// Where a level's value comes from and how it is set.
#[derive(Debug, Clone, Copy)]
pub enum LevelSource {
    /// A 0..255 setting shown as 0.0..1.0: read by `read`, set by table command `cmd`
    /// (`level` parameter; `on` too for the commands that require it: NR, NB, COMP).
    Gain {
        /// Command-table name.
        cmd: &'static str,
        /// The raw value in the state (receiver index given).
        read: ReadGain,
        /// For `set_nr`-like commands: the current on/off, which a level change keeps.
        on: Option<ReadOn>,
    },
    /// Attenuator, dB.
    Att,
    /// Preamp, dB (level × 10).
    Preamp,
    /// AGC, Hamlib's `RIG_AGC_*` number.
    Agc,
    /// CW key speed, WPM.
    KeySpeed,
    /// A meter (read only), in `unit`s.
    Meter(MeterKind, MeterUnit),
}

/// How a meter reading is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeterUnit {
    /// dB relative to S9 (integer), `STRENGTH`.
    DbOverS9,
    /// The raw 0..255 value (integer), `RAWSTR`.
    Raw,
    /// SWR (1.0 ...).
    Swr,
    /// 0.0..1.0 of the ALC zone.
    Alc,
    /// 0.0..1.0 of the rated power.
    PowerFraction,
    /// Watts.
    Watts,
    /// Compression, dB.
    CompDb,
    /// Volts.
    Volts,
    /// Amperes.
    Amps,
}

/// One Hamlib level.
#[derive(Debug, Clone, Copy)]
pub struct LevelDef {
    /// Name on the wire.
    pub name: &'static str,
    /// `RIG_LEVEL_*` bit number.
    pub bit: u8,
    /// Printed as an integer (else `%f`).
    pub int: bool,
    /// Source.
    pub source: LevelSource,
}

impl PartialEq for LevelDef {
    /// Levels are told apart by name.
    fn eq(&self, other: &LevelDef) -> bool {
        self.name == other.name
    }
}

fn rx(s: &RadioState, r: Receiver) -> Option<&ReceiverState> {
    s.receiver(r)
}

type ReadGain = fn(&RadioState, Receiver) -> Option<u16>;
type ReadOn = fn(&RadioState, Receiver) -> Option<bool>;

const fn gain(name: &'static str, bit: u8, cmd: &'static str, read: ReadGain) -> LevelDef {
    LevelDef {
        name,
        bit,
        int: false,
        source: LevelSource::Gain {
            cmd,
            read,
            on: None,
        },
    }
}

/// A level of a command that also takes (and requires) `on`.
const fn gain_on(
    name: &'static str,
    bit: u8,
    cmd: &'static str,
    read: ReadGain,
    on: ReadOn,
) -> LevelDef {
    LevelDef {
        name,
        bit,
        int: false,
        source: LevelSource::Gain {
            cmd,
            read,
            on: Some(on),
        },
    }
}

const fn meter(name: &'static str, bit: u8, kind: MeterKind, unit: MeterUnit) -> LevelDef {
    LevelDef {
        name,
        bit,
        int: matches!(unit, MeterUnit::DbOverS9 | MeterUnit::Raw),
        source: LevelSource::Meter(kind, unit),
    }
}

/// Every level this server maps.
pub static LEVELS: &[LevelDef] = &[
    gain("AF", 3, "set_af_gain", |s, r| rx(s, r)?.settings.af_gain),
    gain("RF", 4, "set_rf_gain", |s, r| rx(s, r)?.settings.rf_gain),
    gain("SQL", 5, "set_squelch", |s, r| rx(s, r)?.settings.squelch),
    gain_on(
        "NR",
        8,
        "set_nr",
        |s, r| rx(s, r)?.settings.nr_level,
        |s, r| rx(s, r)?.settings.nr,
    ),
    gain("RFPOWER", 12, "set_power", |s, _| s.settings.power),
    gain("MICGAIN", 13, "set_mic_gain", |s, _| s.settings.mic_gain),
    gain_on(
        "COMP",
        16,
        "set_comp",
        |s, _| s.settings.comp_level,
        |s, _| s.settings.comp,
    ),
    gain("VOXGAIN", 21, "set_vox_gain", |s, _| s.settings.vox_gain),
    gain("MONITOR_GAIN", 37, "set_monitor_gain", |s, _| {
        s.settings.monitor_gain
    }),
    gain_on(
        "NB",
        38,
        "set_nb",
        |s, r| rx(s, r)?.settings.nb_level,
        |s, r| rx(s, r)?.settings.nb,
    ),
    LevelDef {
        name: "PREAMP",
        bit: 0,
        int: true,
        source: LevelSource::Preamp,
    },
    LevelDef {
        name: "ATT",
        bit: 1,
        int: true,
        source: LevelSource::Att,
    },
    LevelDef {
        name: "KEYSPD",
        bit: 14,
        int: true,
        source: LevelSource::KeySpeed,
    },
    LevelDef {
        name: "AGC",
        bit: 17,
        int: true,
        source: LevelSource::Agc,
    },
    meter("RAWSTR", 26, MeterKind::Smeter, MeterUnit::Raw),
    meter("SWR", 28, MeterKind::Swr, MeterUnit::Swr),
    meter("ALC", 29, MeterKind::Alc, MeterUnit::Alc),
    meter("STRENGTH", 30, MeterKind::Smeter, MeterUnit::DbOverS9),
    meter(
        "RFPOWER_METER",
        32,
        MeterKind::Power,
        MeterUnit::PowerFraction,
    ),
    meter("COMP_METER", 33, MeterKind::Comp, MeterUnit::CompDb),
    meter("VD_METER", 34, MeterKind::Vd, MeterUnit::Volts),
    meter("ID_METER", 35, MeterKind::Id, MeterUnit::Amps),
    meter(
        "RFPOWER_METER_WATTS",
        39,
        MeterKind::Power,
        MeterUnit::Watts,
    ),
];

/// The table command that sets a level, if it can be set.
pub fn set_command(l: &LevelDef) -> Option<&'static str> {
    match l.source {
        LevelSource::Gain { cmd, .. } => Some(cmd),
        LevelSource::Att => Some("set_att"),
        LevelSource::Preamp => Some("set_preamp"),
        LevelSource::Agc => Some("set_agc"),
        LevelSource::KeySpeed => Some("set_cw_speed"),
        LevelSource::Meter(..) => None,
    }
}

fn row_supported(cmd: &str, p: &Profile) -> bool {
    table::spec(cmd).is_some_and(|s| s.supported(p))
}

/// True if `p` can read level `l`.
pub fn readable(l: &LevelDef, p: &Profile) -> bool {
    match (l.source, set_command(l)) {
        (LevelSource::Meter(kind, _), _) => p.has_feature(Feature::Meters) && p.has_meter(kind),
        (_, Some(cmd)) => row_supported(cmd, p),
        (_, None) => false,
    }
}

/// True if `p` can set level `l`.
pub fn settable(l: &LevelDef, p: &Profile) -> bool {
    set_command(l).is_some_and(|cmd| row_supported(cmd, p))
}

/// The level called `name` (case-insensitive).
pub fn level(name: &str) -> Option<&'static LevelDef> {
    LEVELS.iter().find(|l| l.name.eq_ignore_ascii_case(name))
}

/// The `RIG_LEVEL_*` mask of the levels `p` can read, and of those it can set.
pub fn level_masks(p: &Profile) -> (u64, u64) {
    LEVELS.iter().fold((0, 0), |(get, set), l| {
        (
            get | u64::from(readable(l, p)) << l.bit,
            set | u64::from(settable(l, p)) << l.bit,
        )
    })
}

/// `RIG_AGC_*` of an AGC setting (FAST 2, SLOW 3, MEDIUM 5).
pub fn agc_number(a: Agc) -> i64 {
    match a {
        Agc::Fast => 2,
        Agc::Mid => 5,
        Agc::Slow => 3,
    }
}

/// The AGC setting of a `RIG_AGC_*` number (SUPERFAST reads as FAST, AUTO as SLOW).
pub fn agc_choice(n: i64) -> Option<Agc> {
    match n {
        1 | 2 => Some(Agc::Fast),
        5 => Some(Agc::Mid),
        3 | 6 => Some(Agc::Slow),
        _ => None,
    }
}

/// `agc_levels` of `\dump_state`.
pub const AGC_LEVELS: &str = "2=FAST 5=MEDIUM 3=SLOW";

/// One Hamlib function.
#[derive(Debug, Clone, Copy)]
pub struct FuncDef {
    /// Name on the wire.
    pub name: &'static str,
    /// `RIG_FUNC_*` bit number.
    pub bit: u8,
    /// Command-table name.
    pub cmd: &'static str,
    /// Current state (receiver index given).
    pub read: fn(&RadioState, Receiver) -> Option<bool>,
    /// The command's parameters for on / off.
    pub params: fn(bool) -> Value,
}

fn on(b: bool) -> Value {
    json!({ "on": b })
}

/// Every function this server maps.
pub static FUNCS: &[FuncDef] = &[
    FuncDef {
        name: "NB",
        bit: 1,
        cmd: "set_nb",
        read: |s, r| rx(s, r)?.settings.nb,
        params: on,
    },
    FuncDef {
        name: "COMP",
        bit: 2,
        cmd: "set_comp",
        read: |s, _| s.settings.comp,
        params: on,
    },
    FuncDef {
        name: "VOX",
        bit: 3,
        cmd: "set_vox",
        read: |s, _| s.settings.vox,
        params: on,
    },
    FuncDef {
        name: "ANF",
        bit: 8,
        cmd: "set_auto_notch",
        read: |s, r| rx(s, r)?.settings.auto_notch,
        params: on,
    },
    FuncDef {
        name: "NR",
        bit: 9,
        cmd: "set_nr",
        read: |s, r| rx(s, r)?.settings.nr,
        params: on,
    },
    FuncDef {
        name: "APF",
        bit: 11,
        cmd: "set_apf",
        read: |s, r| rx(s, r)?.settings.apf,
        params: on,
    },
    FuncDef {
        name: "MON",
        bit: 12,
        cmd: "set_monitor",
        read: |s, _| s.settings.monitor,
        params: on,
    },
    FuncDef {
        name: "MN",
        bit: 13,
        cmd: "set_manual_notch",
        read: |s, r| rx(s, r)?.settings.manual_notch,
        params: on,
    },
    FuncDef {
        name: "RIT",
        bit: 24,
        cmd: "set_rit",
        read: |s, _| s.settings.rit,
        params: on,
    },
    FuncDef {
        name: "TUNER",
        bit: 30,
        cmd: "set_tuner",
        read: |s, _| s.settings.tuner.map(|t| t != Tuner::Off),
        params: |b| json!({ "state": if b { "on" } else { "off" } }),
    },
    FuncDef {
        name: "XIT",
        bit: 31,
        cmd: "set_xit",
        read: |s, _| s.settings.xit,
        params: on,
    },
    FuncDef {
        name: "DUAL_WATCH",
        bit: 37,
        cmd: "set_dual_watch",
        read: |s, _| s.settings.dual_watch,
        params: on,
    },
];

/// The function called `name` (case-insensitive).
pub fn func(name: &str) -> Option<&'static FuncDef> {
    FUNCS.iter().find(|f| f.name.eq_ignore_ascii_case(name))
}

/// True if `p` has function `f`.
pub fn func_supported(f: &FuncDef, p: &Profile) -> bool {
    row_supported(f.cmd, p)
}

/// The `RIG_FUNC_*` mask of the functions `p` has (read and set alike).
pub fn func_mask(p: &Profile) -> u64 {
    FUNCS
        .iter()
        .filter(|f| func_supported(f, p))
        .fold(0, |m, f| m | 1 << f.bit)
}

/// Piecewise-linear interpolation through `points` (raw ascending), extended past the
/// last segment and clamped below the first point.
fn interpolate(points: &[(f64, f64)], raw: f64) -> f64 {
    let n = points.len();
    let Some(&(x0, y0)) = points.first() else {
        return 0.0;
    };
    if n < 2 || raw <= x0 {
        return y0;
    }
    let i = points
        .iter()
        .position(|&(x, _)| raw <= x)
        .unwrap_or(n - 1)
        .max(1);
    let ((a, ya), (b, yb)) = (points[i - 1], points[i]);
    ya + (raw - a) * (yb - ya) / (b - a)
}

/// The S-meter scale: 0 = S0 (S9 − 54 dB), 120 = S9, 241 = S9 + 60 dB.
const S_METER: &[(f64, f64)] = &[(0.0, -54.0), (120.0, 0.0), (241.0, 60.0)];
/// Po: % of the rated power.
const POWER: &[(f64, f64)] = &[(0.0, 0.0), (143.0, 50.0), (213.0, 100.0), (255.0, 120.0)];
/// SWR (255 = 6.0 or worse).
const SWR: &[(f64, f64)] = &[
    (0.0, 1.0),
    (48.0, 1.5),
    (80.0, 2.0),
    (120.0, 3.0),
    (255.0, 6.0),
];
/// ALC: 120 = the top of the ALC zone.
const ALC: &[(f64, f64)] = &[(0.0, 0.0), (120.0, 1.0)];
/// Compression, dB.
const COMP: &[(f64, f64)] = &[(0.0, 0.0), (130.0, 15.0), (241.0, 30.0)];
/// Vd, volts.
const VD: &[(f64, f64)] = &[(0.0, 0.0), (151.0, 10.0), (185.0, 13.8), (211.0, 16.0)];
/// Id, amperes.
const ID: &[(f64, f64)] = &[(0.0, 0.0), (77.0, 10.0), (165.0, 20.0), (241.0, 30.0)];

/// A meter reading `raw` (0..255) in `unit` on a radio of `max_watts`.
pub fn meter_value(unit: MeterUnit, raw: u16, max_watts: u32) -> f64 {
    let r = f64::from(raw.min(255));
    match unit {
        MeterUnit::DbOverS9 => interpolate(S_METER, r).round(),
        MeterUnit::Raw => r,
        MeterUnit::Swr => interpolate(SWR, r),
        MeterUnit::Alc => interpolate(ALC, r),
        MeterUnit::PowerFraction => interpolate(POWER, r) / 100.0,
        MeterUnit::Watts => interpolate(POWER, r) / 100.0 * f64::from(max_watts),
        MeterUnit::CompDb => interpolate(COMP, r),
        MeterUnit::Volts => interpolate(VD, r),
        MeterUnit::Amps => interpolate(ID, r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ProfileRegistry;

    #[test]
    fn meter_scales() {
        assert_eq!(meter_value(MeterUnit::DbOverS9, 120, 100), 0.0);
        assert_eq!(meter_value(MeterUnit::DbOverS9, 0, 100), -54.0);
        assert_eq!(meter_value(MeterUnit::DbOverS9, 241, 100), 60.0);
        assert_eq!(meter_value(MeterUnit::Swr, 80, 100), 2.0);
        assert_eq!(meter_value(MeterUnit::Swr, 0, 100), 1.0);
        assert_eq!(meter_value(MeterUnit::Watts, 213, 100), 100.0);
        assert_eq!(meter_value(MeterUnit::Watts, 143, 10), 5.0);
        assert_eq!(meter_value(MeterUnit::PowerFraction, 213, 100), 1.0);
        assert_eq!(meter_value(MeterUnit::Alc, 60, 100), 0.5);
        assert!((meter_value(MeterUnit::Volts, 185, 100) - 13.8).abs() < 1e-9);
        assert_eq!(meter_value(MeterUnit::Raw, 300, 100), 255.0);
    }

    #[test]
    fn profiles_have_what_their_table_rows_have() {
        let reg = ProfileRegistry::embedded();
        let ic7610 = reg.get("ic7610").unwrap();
        let ic7100 = reg.get("ic7100").unwrap();
        for name in ["AF", "RF", "SQL", "RFPOWER", "STRENGTH", "SWR", "ALC"] {
            assert!(readable(level(name).unwrap(), &ic7610), "{name}");
        }
        assert!(settable(level("rfpower").unwrap(), &ic7610));
        assert!(
            !settable(level("SWR").unwrap(), &ic7610),
            "meters are read only"
        );
        assert!(readable(level("RFPOWER_METER_WATTS").unwrap(), &ic7610));
        assert!(
            !readable(level("VD_METER").unwrap(), &ic7100),
            "the IC-7100 profile has no Vd meter"
        );
        let (get, set) = level_masks(&ic7610);
        assert_ne!(get & 1 << 30, 0, "STRENGTH");
        assert_ne!(get & 1 << 39, 0, "RFPOWER_METER_WATTS");
        assert_eq!(set & 1 << 30, 0);
        assert_ne!(set & 1 << 12, 0, "RFPOWER");
        assert_ne!(func_mask(&ic7610) & 1 << 30, 0, "the IC-7610 has a tuner");
        assert_eq!(
            func_mask(&ic7100) & 1 << 30,
            0,
            "the IC-7100 profile has none"
        );
        assert!(level("NOPE").is_none() && func("NOPE").is_none());
    }

    #[test]
    fn agc_numbers_round_trip() {
        for &a in Agc::ALL {
            assert_eq!(agc_choice(agc_number(a)), Some(a));
        }
        assert_eq!(agc_choice(1), Some(Agc::Fast));
        assert_eq!(agc_choice(6), Some(Agc::Slow));
        assert_eq!(agc_choice(0), None);
    }
}
