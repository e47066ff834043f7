//! Capability tags of a profile (`[radio] features`) as a closed vocabulary, one line
//! each: an unknown name is a load error, so a typo never silently hides a command.

use crate::util::vocabulary::vocabulary;

vocabulary! {
    /// One capability a radio model may have.
    pub enum Feature {
        /// LAN audio (RX and TX).
        Audio = "audio",
        /// The radio can transmit (PTT, RF power).
        Tx = "tx",
        /// Internal antenna tuner (`1C 01`).
        Tuner = "tuner",
        /// CW keying over CI-V (`17`) and key speed (`14 0C`).
        Cw = "cw",
        /// Meter reads (`15 xx`).
        Meters = "meters",
        /// Hardware spectrum scope (`27`).
        Scope = "scope",
        /// Split (`0F`).
        Split = "split",
        /// Two receivers.
        DualRx = "dual_rx",
        /// Dual watch (`07 C0/C1/C2`).
        DualWatch = "dual_watch",
        /// Attenuator (`11`).
        Attenuator = "attenuator",
        /// Preamp (`16 02`).
        Preamp = "preamp",
        /// Power on/off over CI-V (`18`).
        PowerControl = "power_control",
        /// Band stacking registers (`1A 01`).
        Bsr = "bsr",
        /// DATA modes (`1A 06`, `26`).
        DataMode = "data_mode",
        /// RIT (`21 00`, `21 01`).
        Rit = "rit",
        /// XIT / ∆TX on/off (`21 02`; the offset is RIT's, `21 00`).
        Xit = "xit",
        /// Antenna selection ANT1/ANT2 and the RX antenna input (`12`, per receiver).
        Antenna = "antenna",
        /// DIGI-SEL preselector (`16 4E`, per receiver).
        Digisel = "digisel",
        /// IP+ (`16 65`, per receiver).
        IpPlus = "ip_plus",
        /// Audio peak filter for CW (`16 32`, per receiver).
        Apf = "apf",
        /// Memory channels: content read (`1A 00`), select (`08`), write (`09`), memory to
        /// VFO (`0A`); the channel range is the profile's `[memory]`.
        Memory = "memory",
        /// IF filter width (`1A 03`).
        FilterWidth = "filter_width",
        /// AF gain (`14 01`).
        AfGain = "af_gain",
        /// RF gain (`14 02`).
        RfGain = "rf_gain",
        /// Squelch (`14 03`).
        Squelch = "squelch",
        /// AGC time constant (`16 12`).
        Agc = "agc",
        /// Noise blanker (`16 22`, level `14 12`).
        Nb = "nb",
        /// Noise reduction (`16 40`, level `14 06`).
        Nr = "nr",
        /// Notch filters: auto (`16 41`) and manual (`16 48`, position `14 0D`).
        AutoNotch = "auto_notch",
        /// Speech compressor (`16 44`, level `14 0E`).
        Comp = "comp",
        /// Microphone gain (`14 0B`).
        MicGain = "mic_gain",
        /// Frequency and mode of the selected and the unselected receiver or VFO, read and
        /// set without switching (`25`/`26`; IC-705, IC-9700, IC-7610 — not the IC-7100).
        UnselectedVfo = "unselected_vfo",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde() {
        for f in Feature::ALL {
            let json = serde_json::to_string(f).unwrap();
            assert_eq!(json, format!("\"{}\"", f.name()));
            assert_eq!(serde_json::from_str::<Feature>(&json).unwrap(), *f);
        }
        let e = serde_json::from_str::<Feature>("\"warp_drive\"").unwrap_err();
        assert!(
            e.to_string().contains("unknown feature \"warp_drive\""),
            "{e}"
        );
    }
}
