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
