//! Meters: names, web ids (interface.md §2.5) and the CI-V `15 xx` reads behind them.

/// One meter the web interface knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MeterKind {
    /// S-meter of the MAIN receiver.
    Smeter,
    /// S-meter of the SUB receiver (dual-receiver radios).
    SmeterSub,
    /// TX output power (Po).
    Power,
    /// SWR (valid during TX).
    Swr,
    /// ALC (valid during TX).
    Alc,
    /// Speech compressor level.
    Comp,
    /// PA drain current.
    Id,
    /// PA drain voltage.
    Vd,
    /// PA temperature.
    Temp,
}

impl MeterKind {
    /// Every meter, in web-id order.
    pub const ALL: [MeterKind; 9] = [
        MeterKind::Smeter,
        MeterKind::SmeterSub,
        MeterKind::Power,
        MeterKind::Swr,
        MeterKind::Alc,
        MeterKind::Comp,
        MeterKind::Id,
        MeterKind::Vd,
        MeterKind::Temp,
    ];

    /// The name used in profiles and in `meters_start`.
    pub fn name(self) -> &'static str {
        match self {
            MeterKind::Smeter => "smeter",
            MeterKind::SmeterSub => "smeter_sub",
            MeterKind::Power => "power",
            MeterKind::Swr => "swr",
            MeterKind::Alc => "alc",
            MeterKind::Comp => "comp",
            MeterKind::Id => "id",
            MeterKind::Vd => "vd",
            MeterKind::Temp => "temp",
        }
    }

    /// Parses a meter name.
    pub fn from_name(name: &str) -> Option<MeterKind> {
        MeterKind::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The `meter_id` of the binary meter frame.
    pub fn web_id(self) -> u8 {
        match self {
            MeterKind::Smeter => 0x01,
            MeterKind::SmeterSub => 0x02,
            MeterKind::Power => 0x03,
            MeterKind::Swr => 0x04,
            MeterKind::Alc => 0x05,
            MeterKind::Comp => 0x06,
            MeterKind::Id => 0x07,
            MeterKind::Vd => 0x08,
            MeterKind::Temp => 0x09,
        }
    }

    /// The CI-V `15 <sub>` read and, for a receiver's meter, the receiver it reads.
    pub fn civ_read(self) -> Option<(u8, Option<u8>)> {
        use crate::wire::civ::cmd::meter;
        Some(match self {
            MeterKind::Smeter => (meter::S_METER, Some(0)),
            MeterKind::SmeterSub => (meter::S_METER, Some(1)),
            MeterKind::Power => (meter::PO, None),
            MeterKind::Swr => (meter::SWR, None),
            MeterKind::Alc => (meter::ALC, None),
            MeterKind::Comp => (meter::COMP, None),
            MeterKind::Vd => (meter::VD, None),
            MeterKind::Id => (meter::ID, None),
            MeterKind::Temp => return None,
        })
    }

    /// True for meters that only mean something while transmitting.
    pub fn is_tx(self) -> bool {
        matches!(
            self,
            MeterKind::Power | MeterKind::Swr | MeterKind::Alc | MeterKind::Comp | MeterKind::Id
        )
    }
}
