//! Meters of the web interface: names (`meters_start`, profiles) and the `meter_id` of
//! the binary meter frame (interface.md §2.5).

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

    /// True for meters that only mean something while transmitting.
    pub fn is_tx(self) -> bool {
        matches!(
            self,
            MeterKind::Power | MeterKind::Swr | MeterKind::Alc | MeterKind::Comp | MeterKind::Id
        )
    }
}
