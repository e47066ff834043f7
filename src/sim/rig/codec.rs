//! Reply values and the small parsing/encoding helpers the command handlers share. Every
//! parser returns `None` on a wrong length or a BCD nibble above 9, which the handlers
//! answer with a NAK.

use crate::wire::civ::{
    bcd_byte, bcd_to_freq, bcd_to_level, freq_to_bcd, from_bcd_byte, level_to_bcd,
};

/// What a command handler answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reply {
    /// Nothing (transceive frames received, ...).
    Silent,
    /// `FB`.
    Ack,
    /// `FA`.
    Nak,
    /// A data reply: command byte and data (sub-command included).
    Data(u8, Vec<u8>),
}

impl Reply {
    /// A data reply made of `parts`.
    pub fn data(cmd: u8, parts: &[&[u8]]) -> Reply {
        Reply::Data(cmd, parts.concat())
    }

    /// `Ack` if `ok`, else `Nak`.
    pub fn ack_if(ok: bool) -> Reply {
        if ok { Reply::Ack } else { Reply::Nak }
    }
}

/// One BCD byte decoded.
pub(crate) fn bcd(b: u8) -> Option<u8> {
    from_bcd_byte(b).ok()
}

/// 0..=99 as one BCD byte (larger values saturate at 99).
pub(crate) fn to_bcd(v: u8) -> u8 {
    bcd_byte(v.min(99)).unwrap_or(0x99)
}

/// A 5-byte little-endian BCD frequency.
pub(crate) fn freq(data: &[u8]) -> Option<u64> {
    bcd_to_freq(data).ok()
}

/// A frequency as 5 bytes of little-endian BCD.
pub(crate) fn freq_bytes(hz: u64) -> [u8; 5] {
    freq_to_bcd(hz).unwrap_or([0x99; 5])
}

/// A 2-byte big-endian BCD level 0..=255.
pub(crate) fn level(data: &[u8]) -> Option<u16> {
    bcd_to_level(data).ok().filter(|v| *v <= 255)
}

/// A level as 2 bytes of big-endian BCD.
pub(crate) fn level_bytes(v: u16) -> [u8; 2] {
    level_to_bcd(v.min(9999)).unwrap_or([0, 0])
}

/// Exactly one byte, 00 or 01.
pub(crate) fn flag(data: &[u8]) -> Option<bool> {
    match data {
        [0x00] => Some(false),
        [0x01] => Some(true),
        _ => None,
    }
}

/// Exactly one BCD byte not above `max`.
pub(crate) fn small(data: &[u8], max: u8) -> Option<u8> {
    match data {
        [b] => bcd(*b).filter(|v| *v <= max),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_validate() {
        assert_eq!(bcd(0x45), Some(45));
        assert_eq!(bcd(0x4A), None);
        assert_eq!(to_bcd(45), 0x45);
        assert_eq!(to_bcd(200), 0x99);
        assert_eq!(freq(&[0x00, 0x40, 0x07, 0x14, 0x00]), Some(14_074_000));
        assert_eq!(freq(&[0x00, 0x40, 0x07, 0x14]), None);
        assert_eq!(freq(&[0x0A, 0x40, 0x07, 0x14, 0x00]), None);
        assert_eq!(freq_bytes(7_074_000), [0x00, 0x40, 0x07, 0x07, 0x00]);
        assert_eq!(level(&[0x02, 0x55]), Some(255));
        assert_eq!(level(&[0x02, 0x56]), None);
        assert_eq!(level(&[0x01]), None);
        assert_eq!(level_bytes(128), [0x01, 0x28]);
        assert_eq!(flag(&[1]), Some(true));
        assert_eq!(flag(&[2]), None);
        assert_eq!(flag(&[]), None);
        assert_eq!(small(&[0x03], 3), Some(3));
        assert_eq!(small(&[0x04], 3), None);
        use crate::wire::civ::cmd::{LEVEL, level::RF_POWER};
        assert_eq!(
            Reply::data(LEVEL, &[&[RF_POWER], &[1, 2]]),
            Reply::Data(LEVEL, vec![RF_POWER, 1, 2])
        );
        assert_eq!(Reply::ack_if(false), Reply::Nak);
    }
}
