//! Capability tags of a profile (`[radio] features`) as a closed vocabulary: an unknown
//! name is a load error, so a typo never silently hides a command.

use serde::{Deserialize, Serialize};

/// One capability a radio model may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    /// LAN audio (RX and TX).
    Audio,
    /// The radio can transmit (PTT, RF power).
    Tx,
    /// Internal antenna tuner (`1C 01`).
    Tuner,
    /// CW keying over CI-V (`17`) and key speed (`14 0C`).
    Cw,
    /// Meter reads (`15 xx`).
    Meters,
    /// Hardware spectrum scope (`27`).
    Scope,
    /// Split (`0F`).
    Split,
    /// Two receivers.
    DualRx,
    /// Dual watch (`07 C0/C1/C2`).
    DualWatch,
    /// Attenuator (`11`).
    Attenuator,
    /// Preamp (`16 02`).
    Preamp,
    /// Power on/off over CI-V (`18`).
    PowerControl,
    /// Band stacking registers (`1A 01`).
    Bsr,
    /// DATA modes (`1A 06`, `26`).
    DataMode,
    /// RIT (`21`).
    Rit,
    /// IF filter width (`1A 03`).
    FilterWidth,
    /// AF gain (`14 01`).
    AfGain,
    /// RF gain (`14 02`).
    RfGain,
    /// Squelch (`14 03`).
    Squelch,
    /// AGC time constant (`16 12`).
    Agc,
    /// Noise blanker (`16 22`, level `14 12`).
    Nb,
    /// Noise reduction (`16 40`, level `14 06`).
    Nr,
    /// Auto notch (`16 41`).
    AutoNotch,
    /// Speech compressor (`16 44`, level `14 0E`).
    Comp,
    /// Microphone gain (`14 0B`).
    MicGain,
    /// Frequency and mode of the selected and the unselected receiver or VFO, read and
    /// set without switching (`25`/`26`; IC-705, IC-9700, IC-7610 — not the IC-7100).
    UnselectedVfo,
}

impl Feature {
    /// The tag as profiles and the web interface write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Feature::Audio => "audio",
            Feature::Tx => "tx",
            Feature::Tuner => "tuner",
            Feature::Cw => "cw",
            Feature::Meters => "meters",
            Feature::Scope => "scope",
            Feature::Split => "split",
            Feature::DualRx => "dual_rx",
            Feature::DualWatch => "dual_watch",
            Feature::Attenuator => "attenuator",
            Feature::Preamp => "preamp",
            Feature::PowerControl => "power_control",
            Feature::Bsr => "bsr",
            Feature::DataMode => "data_mode",
            Feature::Rit => "rit",
            Feature::FilterWidth => "filter_width",
            Feature::AfGain => "af_gain",
            Feature::RfGain => "rf_gain",
            Feature::Squelch => "squelch",
            Feature::Agc => "agc",
            Feature::Nb => "nb",
            Feature::Nr => "nr",
            Feature::AutoNotch => "auto_notch",
            Feature::Comp => "comp",
            Feature::MicGain => "mic_gain",
            Feature::UnselectedVfo => "unselected_vfo",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde() {
        for f in [Feature::DualWatch, Feature::AfGain, Feature::PowerControl] {
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(json, format!("\"{}\"", f.as_str()));
            assert_eq!(serde_json::from_str::<Feature>(&json).unwrap(), f);
        }
        assert!(serde_json::from_str::<Feature>("\"warp_drive\"").is_err());
    }
}
