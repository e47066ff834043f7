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

    /// True for meters that only mean something while transmitting.
    pub fn is_tx(self) -> bool {
        matches!(
            self,
            MeterKind::Power | MeterKind::Swr | MeterKind::Alc | MeterKind::Comp | MeterKind::Id
        )
    }
}
