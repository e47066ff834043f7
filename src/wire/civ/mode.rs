//! Icom operating-mode codes (spec §4.4). Codes are BCD bytes (PSK = 0x12, not 18).
//! Which modes a radio supports comes from its profile; this table only names codes.

/// Every mode code known to the protocol, with its canonical name.
pub const MODES: &[(u8, &str)] = &[
    (0x00, "LSB"),
    (0x01, "USB"),
    (0x02, "AM"),
    (0x03, "CW"),
    (0x04, "RTTY"),
    (0x05, "FM"),
    (0x06, "WFM"),
    (0x07, "CW-R"),
    (0x08, "RTTY-R"),
    (0x12, "PSK"),
    (0x13, "PSK-R"),
    (0x17, "DV"),
    (0x22, "DD"),
];

/// The name of a mode code, if known.
pub fn mode_name(code: u8) -> Option<&'static str> {
    MODES.iter().find(|(c, _)| *c == code).map(|(_, n)| *n)
}

/// The code of a mode name (exact, upper case), if known.
pub fn mode_code(name: &str) -> Option<u8> {
    MODES.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
}

/// Mode codes by name, for code that matches on them.
pub mod code {
    /// LSB.
    pub const LSB: u8 = 0x00;
    /// USB.
    pub const USB: u8 = 0x01;
    /// AM.
    pub const AM: u8 = 0x02;
    /// CW.
    pub const CW: u8 = 0x03;
    /// RTTY.
    pub const RTTY: u8 = 0x04;
    /// FM.
    pub const FM: u8 = 0x05;
    /// Wide FM.
    pub const WFM: u8 = 0x06;
    /// CW reverse.
    pub const CW_R: u8 = 0x07;
    /// RTTY reverse.
    pub const RTTY_R: u8 = 0x08;
    /// PSK.
    pub const PSK: u8 = 0x12;
    /// PSK reverse.
    pub const PSK_R: u8 = 0x13;
    /// D-STAR voice.
    pub const DV: u8 = 0x17;
    /// D-STAR data.
    pub const DD: u8 = 0x22;
}

/// True for modes whose `06`/`26` set carries no filter byte (WFM, spec §4.5).
pub fn has_filter(code: u8) -> bool {
    code != code::WFM
}
