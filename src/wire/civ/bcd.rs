//! BCD encodings used by CI-V (spec §4.3).
//!
//! * frequency: 5 bytes, 10 digits, little-endian BCD (`14 074 000` → `00 40 07 14 00`);
//! * level / meter 0–9999: 2 bytes, big-endian BCD (`128` → `01 28`);
//! * single byte 0–99: `(v / 10) << 4 | v % 10`.
//!
//! Decoders reject nibbles above 9.

use crate::wire::{Result, WireError, exact};

/// Largest frequency a 5-byte BCD field can hold.
pub const MAX_FREQ_HZ: u64 = 9_999_999_999;

fn nibbles(b: u8) -> Result<(u8, u8)> {
    let hi = b >> 4;
    let lo = b & 0x0F;
    if hi > 9 || lo > 9 {
        Err(WireError::BadValue("BCD nibble above 9"))
    } else {
        Ok((hi, lo))
    }
}

/// Encodes `hz` as 5-byte little-endian BCD.
pub fn freq_to_bcd(hz: u64) -> Result<[u8; 5]> {
    if hz > MAX_FREQ_HZ {
        return Err(WireError::BadValue("frequency above 9 999 999 999 Hz"));
    }
    let mut out = [0u8; 5];
    let mut v = hz;
    for byte in &mut out {
        let lo = (v % 10) as u8;
        v /= 10;
        let hi = (v % 10) as u8;
        v /= 10;
        *byte = (hi << 4) | lo;
    }
    Ok(out)
}

/// Decodes exactly 5 bytes of little-endian BCD into Hz.
pub fn bcd_to_freq(b: &[u8]) -> Result<u64> {
    exact(b, 5)?;
    let mut hz = 0u64;
    for &byte in b.iter().rev() {
        let (hi, lo) = nibbles(byte)?;
        hz = hz * 100 + u64::from(hi) * 10 + u64::from(lo);
    }
    Ok(hz)
}

/// Encodes 0–9999 as 2-byte big-endian BCD.
pub fn level_to_bcd(v: u16) -> Result<[u8; 2]> {
    if v > 9999 {
        return Err(WireError::BadValue("level above 9999"));
    }
    Ok([bcd_byte((v / 100) as u8)?, bcd_byte((v % 100) as u8)?])
}

/// Decodes exactly 2 bytes of big-endian BCD.
pub fn bcd_to_level(b: &[u8]) -> Result<u16> {
    exact(b, 2)?;
    Ok(u16::from(from_bcd_byte(b[0])?) * 100 + u16::from(from_bcd_byte(b[1])?))
}

/// Encodes 0–99 as one BCD byte.
pub fn bcd_byte(v: u8) -> Result<u8> {
    if v > 99 {
        return Err(WireError::BadValue("BCD byte above 99"));
    }
    Ok(((v / 10) << 4) | (v % 10))
}

/// Decodes one BCD byte.
pub fn from_bcd_byte(b: u8) -> Result<u8> {
    let (hi, lo) = nibbles(b)?;
    Ok(hi * 10 + lo)
}
