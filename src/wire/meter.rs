//! Meters of the web interface: names (`meters_start`, profiles) and the `meter_id` of
//! the binary meter frame (interface.md §2.5).

use crate::util::vocabulary::vocabulary;

vocabulary! {
    /// One meter the web interface knows; its value is the `meter_id` of the binary
    /// meter frame.
    pub enum MeterKind: u8 {
        /// S-meter of the MAIN receiver.
        Smeter = "smeter" => 0x01,
        /// S-meter of the SUB receiver (dual-receiver radios).
        SmeterSub = "smeter_sub" => 0x02,
        /// TX output power (Po).
        Power = "power" => 0x03,
        /// SWR (valid during TX).
        Swr = "swr" => 0x04,
        /// ALC (valid during TX).
        Alc = "alc" => 0x05,
        /// Speech compressor level.
        Comp = "comp" => 0x06,
        /// PA drain current.
        Id = "id" => 0x07,
        /// PA drain voltage.
        Vd = "vd" => 0x08,
        /// PA temperature.
        Temp = "temp" => 0x09,
    }
}

impl MeterKind {
    /// The `meter_id` of the binary meter frame.
    pub fn web_id(self) -> u8 {
        self.value()
    }

    /// When the meter means something, and so when it is read.
    pub fn phase(self) -> MeterPhase {
        match self {
            MeterKind::Smeter | MeterKind::SmeterSub => MeterPhase::Receiving,
            MeterKind::Power
            | MeterKind::Swr
            | MeterKind::Alc
            | MeterKind::Comp
            | MeterKind::Id => MeterPhase::Transmitting,
            MeterKind::Vd | MeterKind::Temp => MeterPhase::Always,
        }
    }

    /// The short label a meter panel shows (a radio's own).
    pub fn label(self) -> &'static str {
        match self {
            MeterKind::Smeter => "S",
            MeterKind::SmeterSub => "S (SUB)",
            MeterKind::Power => "Po",
            MeterKind::Swr => "SWR",
            MeterKind::Alc => "ALC",
            MeterKind::Comp => "COMP",
            MeterKind::Id => "Id",
            MeterKind::Vd => "Vd",
            MeterKind::Temp => "TEMP",
        }
    }
}

/// When a meter means something: the S-meters while receiving, the TX meters while
/// transmitting, the PA's supply voltage and temperature always (they move slowly).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeterPhase {
    /// While receiving.
    Receiving,
    /// While transmitting.
    Transmitting,
    /// Both.
    Always,
}

impl MeterPhase {
    /// Its name in the capabilities (`meterInfo`).
    pub fn name(self) -> &'static str {
        match self {
            MeterPhase::Receiving => "rx",
            MeterPhase::Transmitting => "tx",
            MeterPhase::Always => "always",
        }
    }

    /// True if a meter of this phase means something while `transmitting` or not.
    pub fn applies(self, transmitting: bool) -> bool {
        match self {
            MeterPhase::Receiving => !transmitting,
            MeterPhase::Transmitting => transmitting,
            MeterPhase::Always => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_say_when_a_meter_applies() {
        assert!(MeterKind::Smeter.phase().applies(false));
        assert!(!MeterKind::SmeterSub.phase().applies(true));
        assert!(MeterKind::Swr.phase().applies(true));
        assert!(!MeterKind::Power.phase().applies(false));
        for k in [MeterKind::Vd, MeterKind::Temp] {
            assert!(k.phase().applies(true) && k.phase().applies(false), "{k:?}");
        }
        let phases: Vec<&str> = MeterKind::ALL.iter().map(|k| k.phase().name()).collect();
        assert_eq!(
            phases,
            ["rx", "rx", "tx", "tx", "tx", "tx", "tx", "always", "always"]
        );
    }
}
