//! Settings as data: each row names a value of the radio by its CI-V command and prefix,
//! where it lives (global, per receiver, per scope receiver), how its bytes encode it,
//! the profile feature it needs, the state field that shows it, the event its change
//! raises, and whether the state fetch reads it. The engine's encoder, the decoder of
//! replies and transceive frames, the fetch and the change events all come from here:
//! adding a level command is one row here, one state field and one command row.

use super::codec::Codec;
use super::fields::{
    Field, agc, byte, db_of_tenths, flag, hz32, hz64, json, level, offset, scope_mode, speed,
    tenths, tuner,
};
use crate::profile::Feature;
use crate::wire::civ::cmd::{self, function, level, rit, scope, tx, vfo};

/// Where a setting lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// One value for the radio.
    Global,
    /// One value per receiver: command 29 where the profile routes it, else the
    /// selected receiver (the other one by selecting it for the duration).
    Receiver,
    /// One value per scope receiver: the receiver byte follows the prefix (`27 14 <rx>`).
    ScopeReceiver,
}

/// Every setting the table knows (the closed vocabulary of [`SETTINGS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SettingId {
    /// AF gain.
    AfGain,
    /// RF gain.
    RfGain,
    /// Squelch.
    Squelch,
    /// Noise reduction level.
    NrLevel,
    /// Noise blanker level.
    NbLevel,
    /// RF power.
    Power,
    /// Microphone gain.
    MicGain,
    /// CW key speed.
    CwSpeed,
    /// Speech compressor level.
    CompLevel,
    /// Attenuator.
    Att,
    /// Preamp.
    Preamp,
    /// AGC.
    Agc,
    /// Noise blanker.
    Nb,
    /// Noise reduction.
    Nr,
    /// Auto notch.
    AutoNotch,
    /// Speech compressor.
    Comp,
    /// IF filter width.
    FilterWidth,
    /// Split.
    Split,
    /// Dual watch.
    DualWatch,
    /// RIT on.
    Rit,
    /// RIT offset.
    RitOffset,
    /// Antenna tuner.
    Tuner,
    /// Scope mode.
    ScopeMode,
    /// Scope half-span.
    ScopeSpan,
    /// Scope reference level.
    ScopeRef,
    /// Scope sweep speed.
    ScopeSpeed,
    /// Scope hold.
    ScopeHold,
    /// Scope fixed-edge set.
    ScopeEdge,
    /// Monitor gain (hearing one's own transmission).
    MonitorGain,
    /// VOX gain.
    VoxGain,
}

/// One row of the settings table.
#[derive(Debug)]
pub struct Setting {
    /// Its id (the row's index in [`SETTINGS`]).
    pub id: SettingId,
    /// CI-V command byte.
    pub cmd: u8,
    /// Data bytes after the command that name the setting in reads and replies.
    pub prefix: &'static [u8],
    /// For settings set with other bytes than they are read with (dual watch:
    /// `07 C0`/`07 C1`, read `07 C2`): the set bytes for values 0 and 1.
    pub set_bytes: Option<[u8; 2]>,
    /// Where it lives.
    pub place: Place,
    /// How its value is encoded.
    pub codec: Codec,
    /// The profile feature it needs.
    pub feature: Option<Feature>,
    /// The state field that shows it.
    pub field: Field,
    /// The event its change raises.
    pub event: &'static str,
    /// The key of the value in that event's data (and in command results).
    pub key: &'static str,
}

impl Setting {
    /// The row of `id`.
    pub fn of(id: SettingId) -> &'static Setting {
        &SETTINGS[id as usize]
    }

    /// The sub-command byte, for the command-29 route check.
    pub fn sub(&self) -> Option<u8> {
        if crate::wire::civ::has_sub(self.cmd) {
            self.prefix.first().copied()
        } else {
            None
        }
    }

    /// True if `profile` has it.
    pub fn supported(&self, profile: &crate::profile::Profile) -> bool {
        self.feature.is_none_or(|f| profile.has_feature(f))
    }
}

#[allow(clippy::too_many_arguments)]
const fn row(
    id: SettingId,
    cmd: u8,
    prefix: &'static [u8],
    place: Place,
    codec: Codec,
    feature: Option<Feature>,
    field: Field,
    event: &'static str,
    key: &'static str,
) -> Setting {
    Setting {
        id,
        cmd,
        prefix,
        set_bytes: None,
        place,
        codec,
        feature,
        field,
        event,
        key,
    }
}

use Codec::{Flag, Level};
use Place::{Global, Receiver, ScopeReceiver};

/// The settings table, indexed by [`SettingId`].
pub static SETTINGS: [Setting; 30] = [
    row(
        SettingId::AfGain,
        cmd::LEVEL,
        &[level::AF],
        Receiver,
        Level,
        Some(Feature::AfGain),
        rx_field!(af_gain, level, "afGain"),
        "af_gain_changed",
        "level",
    ),
    row(
        SettingId::RfGain,
        cmd::LEVEL,
        &[level::RF_GAIN],
        Receiver,
        Level,
        Some(Feature::RfGain),
        rx_field!(rf_gain, level, "rfGain"),
        "rf_gain_changed",
        "level",
    ),
    row(
        SettingId::Squelch,
        cmd::LEVEL,
        &[level::SQUELCH],
        Receiver,
        Level,
        Some(Feature::Squelch),
        rx_field!(squelch, level, "squelch"),
        "squelch_changed",
        "level",
    ),
    row(
        SettingId::NrLevel,
        cmd::LEVEL,
        &[level::NR],
        Receiver,
        Level,
        Some(Feature::Nr),
        rx_field!(nr_level, level, "nrLevel"),
        "nr_level_changed",
        "level",
    ),
    row(
        SettingId::NbLevel,
        cmd::LEVEL,
        &[level::NB],
        Receiver,
        Level,
        Some(Feature::Nb),
        rx_field!(nb_level, level, "nbLevel"),
        "nb_level_changed",
        "level",
    ),
    row(
        SettingId::Power,
        cmd::LEVEL,
        &[level::RF_POWER],
        Global,
        Level,
        Some(Feature::Tx),
        global_field!(power, level, "power"),
        "power_changed",
        "level",
    ),
    row(
        SettingId::MicGain,
        cmd::LEVEL,
        &[level::MIC_GAIN],
        Global,
        Level,
        Some(Feature::MicGain),
        global_field!(mic_gain, level, "micGain"),
        "mic_gain_changed",
        "level",
    ),
    row(
        SettingId::CwSpeed,
        cmd::LEVEL,
        &[level::KEY_SPEED],
        Global,
        Codec::KeySpeed,
        Some(Feature::Cw),
        global_field!(cw_speed, byte, "cwSpeed"),
        "cw_speed_changed",
        "wpm",
    ),
    row(
        SettingId::CompLevel,
        cmd::LEVEL,
        &[level::COMP],
        Global,
        Level,
        Some(Feature::Comp),
        global_field!(comp_level, level, "compLevel"),
        "comp_level_changed",
        "level",
    ),
    row(
        SettingId::Att,
        cmd::ATTENUATOR,
        &[],
        Receiver,
        Codec::Byte { max: 99 },
        Some(Feature::Attenuator),
        rx_field!(att, byte, "att"),
        "att_changed",
        "db",
    ),
    row(
        SettingId::Preamp,
        cmd::FUNCTION,
        &[function::PREAMP],
        Receiver,
        Codec::Byte { max: 3 },
        Some(Feature::Preamp),
        rx_field!(preamp, byte, "preamp"),
        "preamp_changed",
        "level",
    ),
    row(
        SettingId::Agc,
        cmd::FUNCTION,
        &[function::AGC],
        Receiver,
        Codec::Byte { max: 3 },
        Some(Feature::Agc),
        rx_field!(agc, agc, "agc"),
        "agc_changed",
        "mode",
    ),
    row(
        SettingId::Nb,
        cmd::FUNCTION,
        &[function::NB],
        Receiver,
        Flag,
        Some(Feature::Nb),
        rx_field!(nb, flag, "nb"),
        "nb_changed",
        "on",
    ),
    row(
        SettingId::Nr,
        cmd::FUNCTION,
        &[function::NR],
        Receiver,
        Flag,
        Some(Feature::Nr),
        rx_field!(nr, flag, "nr"),
        "nr_changed",
        "on",
    ),
    row(
        SettingId::AutoNotch,
        cmd::FUNCTION,
        &[function::AUTO_NOTCH],
        Receiver,
        Flag,
        Some(Feature::AutoNotch),
        rx_field!(auto_notch, flag, "autoNotch"),
        "auto_notch_changed",
        "on",
    ),
    row(
        SettingId::Comp,
        cmd::FUNCTION,
        &[function::COMP],
        Global,
        Flag,
        Some(Feature::Comp),
        global_field!(comp, flag, "comp"),
        "comp_changed",
        "on",
    ),
    row(
        SettingId::FilterWidth,
        cmd::EXT,
        &[cmd::ext::FILTER_WIDTH],
        Receiver,
        Codec::FilterWidth,
        Some(Feature::FilterWidth),
        rx_field!(filter_width, hz32, "filterWidth"),
        "filter_width_changed",
        "hz",
    ),
    row(
        SettingId::Split,
        cmd::SPLIT,
        &[],
        Global,
        Flag,
        Some(Feature::Split),
        global_field!(split, flag, "split"),
        "split_changed",
        "on",
    ),
    Setting {
        set_bytes: Some([vfo::DUAL_WATCH_OFF, vfo::DUAL_WATCH_ON]),
        ..row(
            SettingId::DualWatch,
            cmd::VFO,
            &[vfo::DUAL_WATCH],
            Global,
            Flag,
            Some(Feature::DualWatch),
            global_field!(dual_watch, flag, "dualWatch"),
            "dual_watch_changed",
            "on",
        )
    },
    row(
        SettingId::Rit,
        cmd::RIT,
        &[rit::ON],
        Global,
        Flag,
        Some(Feature::Rit),
        global_field!(rit, flag, "rit"),
        "rit_changed",
        "on",
    ),
    row(
        SettingId::RitOffset,
        cmd::RIT,
        &[rit::OFFSET],
        Global,
        Codec::RitOffset,
        Some(Feature::Rit),
        global_field!(rit_offset_hz, offset, "ritOffsetHz"),
        "rit_offset_changed",
        "offset_hz",
    ),
    row(
        SettingId::Tuner,
        cmd::TX,
        &[tx::TUNER],
        Global,
        Codec::Byte { max: 2 },
        Some(Feature::Tuner),
        global_field!(tuner, tuner, "tuner"),
        "tuner_changed",
        "state",
    ),
    row(
        SettingId::ScopeMode,
        cmd::SCOPE,
        &[scope::MODE],
        ScopeReceiver,
        Codec::Byte { max: 3 },
        Some(Feature::Scope),
        scope_field!(mode, scope_mode, "scope.mode"),
        "scope_mode_changed",
        "mode",
    ),
    row(
        SettingId::ScopeSpan,
        cmd::SCOPE,
        &[scope::SPAN],
        ScopeReceiver,
        Codec::Span,
        Some(Feature::Scope),
        scope_field!(span_hz, hz64, "scope.spanHz"),
        "scope_span_changed",
        "span_hz",
    ),
    row(
        SettingId::ScopeRef,
        cmd::SCOPE,
        &[scope::REF_LEVEL],
        ScopeReceiver,
        Codec::RefLevel,
        Some(Feature::Scope),
        scope_field!(ref_tenths_db, tenths, "scope.refDb", db_of_tenths),
        "scope_ref_changed",
        "ref_db",
    ),
    row(
        SettingId::ScopeSpeed,
        cmd::SCOPE,
        &[scope::SPEED],
        ScopeReceiver,
        Codec::Byte { max: 2 },
        Some(Feature::Scope),
        scope_field!(speed, speed, "scope.speed"),
        "scope_speed_changed",
        "speed",
    ),
    row(
        SettingId::ScopeHold,
        cmd::SCOPE,
        &[scope::HOLD],
        ScopeReceiver,
        Flag,
        Some(Feature::Scope),
        scope_field!(hold, flag, "scope.hold"),
        "scope_hold_changed",
        "hold",
    ),
    row(
        SettingId::ScopeEdge,
        cmd::SCOPE,
        &[scope::EDGE],
        ScopeReceiver,
        Codec::Byte { max: 4 },
        Some(Feature::Scope),
        scope_field!(edge, byte, "scope.edge"),
        "scope_edge_changed",
        "edge",
    ),
    row(
        SettingId::MonitorGain,
        cmd::LEVEL,
        &[level::MONITOR],
        Global,
        Level,
        Some(Feature::Tx),
        global_field!(monitor_gain, level, "monitorGain"),
        "monitor_gain_changed",
        "level",
    ),
    row(
        SettingId::VoxGain,
        cmd::LEVEL,
        &[level::VOX],
        Global,
        Level,
        Some(Feature::Tx),
        global_field!(vox_gain, level, "voxGain"),
        "vox_gain_changed",
        "level",
    ),
];

/// The setting a frame's `cmd` and data (after any command-29 prefix) belong to, with the
/// scope receiver byte (for [`Place::ScopeReceiver`]) and the value bytes.
pub fn lookup(cmd: u8, data: &[u8]) -> Option<(&'static Setting, Option<u8>, &[u8])> {
    SETTINGS.iter().find_map(|s| {
        if s.cmd != cmd {
            return None;
        }
        let rest = data.strip_prefix(s.prefix)?;
        match s.place {
            Place::ScopeReceiver => {
                let (rx, value) = rest.split_first()?;
                Some((s, Some(*rx), value))
            }
            _ => Some((s, None, rest)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_sit_at_their_ids_and_prefixes_do_not_shadow_each_other() {
        for (i, s) in SETTINGS.iter().enumerate() {
            assert_eq!(s.id as usize, i, "{:?}", s.id);
            assert_eq!(Setting::of(s.id).id, s.id);
        }
        // a lookup by a row's own prefix finds that row
        for s in &SETTINGS {
            let mut data = s.prefix.to_vec();
            if s.place == Place::ScopeReceiver {
                data.push(0);
            }
            data.push(0);
            let (found, _, _) = lookup(s.cmd, &data).unwrap();
            assert_eq!(found.id, s.id);
        }
    }
}
