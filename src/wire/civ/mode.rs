//! Icom operating modes (spec §4.4). Codes are BCD bytes (PSK = 0x12, not 18). Which
//! modes a radio supports comes from its profile; this table names every mode the
//! protocol knows, once: its variant, its CI-V code and its name (in profiles and on the
//! web interface).

use crate::util::vocabulary::vocabulary;

/// Declares [`Mode`] and the code constants from one line per mode.
macro_rules! modes {
    ($($(#[$doc:meta])* $variant:ident = $code:ident $value:literal $name:literal,)*) => {
        /// Mode codes by name, for code that matches on the byte (the simulated radio).
        pub mod code {
            $($(#[$doc])* pub const $code: u8 = $value;)*
        }

        vocabulary! {
            /// An operating mode: its CI-V code is its [`Mode::value`].
            pub enum Mode: u8 {
                $($(#[$doc])* $variant = $name => code::$code,)*
            }
        }
    };
}

modes! {
    /// Lower sideband.
    Lsb = LSB 0x00 "LSB",
    /// Upper sideband.
    Usb = USB 0x01 "USB",
    /// AM.
    Am = AM 0x02 "AM",
    /// CW.
    Cw = CW 0x03 "CW",
    /// RTTY.
    Rtty = RTTY 0x04 "RTTY",
    /// FM.
    Fm = FM 0x05 "FM",
    /// Wide FM.
    Wfm = WFM 0x06 "WFM",
    /// CW reverse.
    CwR = CW_R 0x07 "CW-R",
    /// RTTY reverse.
    RttyR = RTTY_R 0x08 "RTTY-R",
    /// PSK.
    Psk = PSK 0x12 "PSK",
    /// PSK reverse.
    PskR = PSK_R 0x13 "PSK-R",
    /// D-STAR voice.
    Dv = DV 0x17 "DV",
    /// D-STAR data.
    Dd = DD 0x22 "DD",
}

impl Mode {
    /// The CI-V code.
    pub const fn code(self) -> u8 {
        self.value()
    }

    /// The mode of a CI-V code, if known.
    pub fn from_code(code: u8) -> Option<Mode> {
        Mode::from_value(code)
    }

    /// True for modes whose `06`/`26` set carries a filter byte (all but WFM, spec §4.5).
    pub fn has_filter(self) -> bool {
        self != Mode::Wfm
    }

    /// True for the CW modes (CW, CW-R).
    pub fn is_cw(self) -> bool {
        matches!(self, Mode::Cw | Mode::CwR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_round_trip() {
        for m in Mode::ALL {
            assert_eq!(Mode::from_code(m.code()), Some(*m));
            assert_eq!(Mode::from_name(m.name()), Some(*m));
        }
        assert_eq!(Mode::Psk.code(), 0x12, "BCD, not 18");
        assert_eq!(Mode::from_name("usb"), None, "names are exact");
        assert_eq!(serde_json::to_string(&Mode::CwR).unwrap(), "\"CW-R\"");
        let e = serde_json::from_str::<Mode>("\"XYZ\"").unwrap_err();
        assert!(e.to_string().contains("unknown mode \"XYZ\""), "{e}");
        assert!(!Mode::Wfm.has_filter() && Mode::Fm.has_filter());
    }
}
