//! Settings as data, one line each: a value of the radio with its id, the state field
//! that keeps it (name, type and name in the state resource), its CI-V command and
//! prefix, how its bytes encode it, the profile feature it needs, and the event its
//! change raises with the key of the value. Where it lives (global, per receiver, per
//! scope receiver) is the block it sits in. From these lines come [`SettingId`],
//! [`SETTINGS`] and the state's [`ReceiverSettings`], [`GlobalSettings`] and
//! [`ScopeSettings`]; the engine's encoder, the decoder of replies and transceive frames,
//! the fetch and the change events all read the rows. Adding a level or a switch is one
//! line here and one command row (`rows.rs`).

use serde::Serialize;
use serde_json::Value;

use crate::profile::Feature;
use crate::radio::table::codec::Codec;
use crate::radio::table::values::{Agc, ScopeSpeed, SettingValue, Tenths, Tuner};
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
    /// The field's path in the state resource (relative to the receiver object for
    /// per-receiver settings).
    pub path: &'static str,
    /// The event its change raises.
    pub event: &'static str,
    /// The key of the value in that event's data (and in command results).
    pub key: &'static str,
    /// Read by the state fetch (false for settings only sets and transceive reports
    /// reveal: antenna selection, spec pitfall 23).
    pub polled: bool,
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

/// The values of one place's settings: a struct with a field per line of its block.
macro_rules! values {
    ($(#[$meta:meta])* $name:ident { $($(#[$doc:meta])* $id:ident $f:ident $t:ty = $json:literal;)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
        pub struct $name {
            $(
                $(#[$doc])*
                #[serde(rename = $json)]
                pub $f: Option<$t>,
            )*
        }

        impl $name {
            /// The value of setting `id` as the state shows it (`None`: unknown, or not
            /// a setting of this place).
            pub fn get(&self, id: SettingId) -> Option<Value> {
                match id {
                    $(SettingId::$id => self.$f.map(SettingValue::shown),)*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            /// Sets setting `id` from its raw value; false when it is not one of the
            /// setting's values or not a setting of this place.
            pub fn set(&mut self, id: SettingId, raw: i64) -> bool {
                match id {
                    $(SettingId::$id => match <$t as SettingValue>::from_raw(raw) {
                        Some(v) => {
                            self.$f = Some(v);
                            true
                        }
                        None => false,
                    },)*
                    #[allow(unreachable_patterns)]
                    _ => false,
                }
            }
        }
    };
}

/// One row of [`SETTINGS`].
macro_rules! row {
    ($id:ident, $place:ident, $path:expr, $cmd:expr, [$($pre:expr),*], $codec:expr, $feat:ident,
     $event:literal, $key:literal $(, [$off:expr, $on:expr])? $(, polled = $polled:literal)?) => {
        Setting {
            id: SettingId::$id,
            cmd: $cmd,
            prefix: &[$($pre),*],
            set_bytes: row!(@set $([$off, $on])?),
            place: Place::$place,
            codec: $codec,
            feature: Some(Feature::$feat),
            path: $path,
            event: $event,
            key: $key,
            polled: row!(@polled $($polled)?),
        }
    };
    (@polled) => { true };
    (@polled $polled:literal) => { $polled };
    (@set) => { None };
    (@set [$off:expr, $on:expr]) => { Some([$off, $on]) };
}

/// The settings table: [`SettingId`], [`SETTINGS`] and the value structs from one line
/// per setting.
macro_rules! settings {
    ($(
        $block:ident $values:ident $place:ident ($prefix:literal) {
            $($(#[$doc:meta])* $id:ident => $f:ident: $t:ty = $json:literal, $cmd:expr,
              [$($pre:expr),*], $codec:expr, $feat:ident, $event:literal, $key:literal
              $(, set [$off:expr, $on:expr])? $(, polled = $polled:literal)?;)*
        }
    )*) => {
        /// Every setting the table knows (the closed vocabulary of [`SETTINGS`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum SettingId {
            $($($(#[$doc])* $id,)*)*
        }

        /// The settings table, indexed by [`SettingId`].
        pub static SETTINGS: &[Setting] = &[
            $($(row!($id, $place, concat!($prefix, $json), $cmd, [$($pre),*], $codec,
                     $feat, $event, $key $(, [$off, $on])? $(, polled = $polled)?),)*)*
        ];

        $(values! {
            #[doc = concat!("The ", stringify!($block), " settings of the settings table.")]
            $values { $($(#[$doc])* $id $f $t = $json;)* }
        })*
    };
}

use Codec::{Flag, Level};

settings! {
    receiver ReceiverSettings Receiver ("") {
        /// AF gain 0..255.
        AfGain => af_gain: u16 = "afGain", cmd::LEVEL, [level::AF], Level, AfGain, "af_gain_changed", "level";
        /// RF gain 0..255.
        RfGain => rf_gain: u16 = "rfGain", cmd::LEVEL, [level::RF_GAIN], Level, RfGain, "rf_gain_changed", "level";
        /// Squelch 0..255.
        Squelch => squelch: u16 = "squelch", cmd::LEVEL, [level::SQUELCH], Level, Squelch, "squelch_changed", "level";
        /// Noise reduction level 0..255.
        NrLevel => nr_level: u16 = "nrLevel", cmd::LEVEL, [level::NR], Level, Nr, "nr_level_changed", "level";
        /// Noise blanker level 0..255.
        NbLevel => nb_level: u16 = "nbLevel", cmd::LEVEL, [level::NB], Level, Nb, "nb_level_changed", "level";
        /// Attenuator, dB.
        Att => att: u8 = "att", cmd::ATTENUATOR, [], Codec::Byte { max: 99 }, Attenuator, "att_changed", "db";
        /// Preamp level (0 off).
        Preamp => preamp: u8 = "preamp", cmd::FUNCTION, [function::PREAMP], Codec::Byte { max: 3 }, Preamp, "preamp_changed", "level";
        /// AGC time constant.
        Agc => agc: Agc = "agc", cmd::FUNCTION, [function::AGC], Codec::Byte { max: 3 }, Agc, "agc_changed", "mode";
        /// Noise blanker on.
        Nb => nb: bool = "nb", cmd::FUNCTION, [function::NB], Flag, Nb, "nb_changed", "on";
        /// Noise reduction on.
        Nr => nr: bool = "nr", cmd::FUNCTION, [function::NR], Flag, Nr, "nr_changed", "on";
        /// Auto notch on.
        AutoNotch => auto_notch: bool = "autoNotch", cmd::FUNCTION, [function::AUTO_NOTCH], Flag, AutoNotch, "auto_notch_changed", "on";
        /// Manual notch on.
        ManualNotch => manual_notch: bool = "manualNotch", cmd::FUNCTION, [function::MANUAL_NOTCH], Flag, AutoNotch, "manual_notch_changed", "on";
        /// Manual notch position 0..255.
        NotchPosition => notch_position: u16 = "notchPosition", cmd::LEVEL, [level::NOTCH], Level, AutoNotch, "notch_position_changed", "position";
        /// IF filter width, Hz.
        FilterWidth => filter_width: u32 = "filterWidth", cmd::EXT, [cmd::ext::FILTER_WIDTH], Codec::FilterWidth, FilterWidth, "filter_width_changed", "hz";
        /// DIGI-SEL preselector on.
        Digisel => digisel: bool = "digisel", cmd::FUNCTION, [function::DIGI_SEL], Flag, Digisel, "digisel_changed", "on";
        /// IP+ on.
        IpPlus => ip_plus: bool = "ipPlus", cmd::FUNCTION, [function::IP_PLUS], Flag, IpPlus, "ip_plus_changed", "on";
        /// Audio peak filter on (a radio with APF widths reports 1..3, all "on").
        Apf => apf: bool = "apf", cmd::FUNCTION, [function::APF], Codec::Switch { max: 3 }, Apf, "apf_changed", "on";
        /// Antenna connector 1 or 2 (first byte of `12 <ant> <rx-ant>`; set with `set_antenna`,
        /// never polled: spec pitfall 23).
        Antenna => antenna: u8 = "antenna", cmd::ANTENNA, [], Codec::AntennaPort, Antenna, "antenna_changed", "ant", polled = false;
        /// RX antenna input in use (second byte of `12 <ant> <rx-ant>`).
        RxAntenna => rx_antenna: bool = "rxAntenna", cmd::ANTENNA, [], Codec::RxAntenna, Antenna, "rx_antenna_changed", "rx_ant", polled = false;
    }
    global GlobalSettings Global ("") {
        /// RF power level 0..255.
        Power => power: u16 = "power", cmd::LEVEL, [level::RF_POWER], Level, Tx, "power_changed", "level";
        /// Microphone gain 0..255.
        MicGain => mic_gain: u16 = "micGain", cmd::LEVEL, [level::MIC_GAIN], Level, MicGain, "mic_gain_changed", "level";
        /// CW key speed, WPM.
        CwSpeed => cw_speed: u8 = "cwSpeed", cmd::LEVEL, [level::KEY_SPEED], Codec::KeySpeed, Cw, "cw_speed_changed", "wpm";
        /// Speech compressor level 0..255.
        CompLevel => comp_level: u16 = "compLevel", cmd::LEVEL, [level::COMP], Level, Comp, "comp_level_changed", "level";
        /// Speech compressor on.
        Comp => comp: bool = "comp", cmd::FUNCTION, [function::COMP], Flag, Comp, "comp_changed", "on";
        /// Split.
        Split => split: bool = "split", cmd::SPLIT, [], Flag, Split, "split_changed", "on";
        /// Dual watch (set `07 C0`/`07 C1`, read `07 C2`).
        DualWatch => dual_watch: bool = "dualWatch", cmd::VFO, [vfo::DUAL_WATCH], Flag, DualWatch, "dual_watch_changed", "on", set [vfo::DUAL_WATCH_OFF, vfo::DUAL_WATCH_ON];
        /// RIT on.
        Rit => rit: bool = "rit", cmd::RIT, [rit::ON], Flag, Rit, "rit_changed", "on";
        /// RIT offset, Hz.
        RitOffset => rit_offset_hz: i32 = "ritOffsetHz", cmd::RIT, [rit::OFFSET], Codec::RitOffset, Rit, "rit_offset_changed", "offset_hz";
        /// XIT (∆TX) on; its offset is the RIT offset.
        Xit => xit: bool = "xit", cmd::RIT, [rit::DELTA_TX], Flag, Xit, "xit_changed", "on";
        /// Antenna tuner.
        Tuner => tuner: Tuner = "tuner", cmd::TX, [tx::TUNER], Codec::Byte { max: 2 }, Tuner, "tuner_changed", "state";
        /// Monitor gain 0..255 (hearing one's own transmission).
        MonitorGain => monitor_gain: u16 = "monitorGain", cmd::LEVEL, [level::MONITOR], Level, Tx, "monitor_gain_changed", "level";
        /// VOX gain 0..255.
        VoxGain => vox_gain: u16 = "voxGain", cmd::LEVEL, [level::VOX], Level, Tx, "vox_gain_changed", "level";
        /// Monitor on (hearing one's own transmission).
        Monitor => monitor: bool = "monitor", cmd::FUNCTION, [function::MONITOR], Flag, Tx, "monitor_changed", "on";
        /// VOX on.
        Vox => vox: bool = "vox", cmd::FUNCTION, [function::VOX], Flag, Tx, "vox_changed", "on";
    }
    scope ScopeSettings ScopeReceiver ("scope.") {
        /// Scope mode: 0 center, 1 fixed, 2 scroll-C, 3 scroll-F.
        ScopeMode => mode: u8 = "mode", cmd::SCOPE, [scope::MODE], Codec::Byte { max: 3 }, Scope, "scope_mode_changed", "mode";
        /// Scope half-span in center mode, Hz.
        ScopeSpan => span_hz: u64 = "spanHz", cmd::SCOPE, [scope::SPAN], Codec::Span, Scope, "scope_span_changed", "span_hz";
        /// Scope reference level (kept in tenths of a dB, shown in dB).
        ScopeRef => ref_db: Tenths = "refDb", cmd::SCOPE, [scope::REF_LEVEL], Codec::RefLevel, Scope, "scope_ref_changed", "ref_db";
        /// Scope sweep speed.
        ScopeSpeed => speed: ScopeSpeed = "speed", cmd::SCOPE, [scope::SPEED], Codec::Byte { max: 2 }, Scope, "scope_speed_changed", "speed";
        /// Scope hold.
        ScopeHold => hold: bool = "hold", cmd::SCOPE, [scope::HOLD], Flag, Scope, "scope_hold_changed", "hold";
        /// Fixed-edge set shown in fixed mode (1..=4).
        ScopeEdge => edge: u8 = "edge", cmd::SCOPE, [scope::EDGE], Codec::Byte { max: 4 }, Scope, "scope_edge_changed", "edge";
    }
}

/// The settings a frame's `cmd` and data (after any command-29 prefix) carry (one, or
/// several sharing a frame: `12 <ant> <rx-ant>`), each with the scope receiver byte (for
/// [`Place::ScopeReceiver`]) and the value bytes.
pub fn lookup(cmd: u8, data: &[u8]) -> impl Iterator<Item = (&'static Setting, Option<u8>, &[u8])> {
    SETTINGS.iter().filter_map(move |s| {
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
        for s in SETTINGS {
            let mut data = s.prefix.to_vec();
            if s.place == Place::ScopeReceiver {
                data.push(0);
            }
            data.push(0);
            let found: Vec<_> = lookup(s.cmd, &data).map(|(f, _, _)| f.id).collect();
            assert!(found.contains(&s.id), "{:?}", s.id);
            // rows sharing a frame have the same command and prefix
            for id in found {
                assert_eq!(
                    Setting::of(id).prefix,
                    s.prefix,
                    "{id:?} shadows {:?}",
                    s.id
                );
            }
        }
    }
}
