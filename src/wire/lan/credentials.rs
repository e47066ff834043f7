//! Credential obfuscation for the login and conninfo packets (spec §2.4).
//! This is a position-dependent substitution, not encryption.

use crate::util::constant_time_eq;

/// Substitution table for byte values 0x20..=0x7E (index = value − 0x20).
const TABLE: [u8; 95] = [
    0x47, 0x5D, 0x4C, 0x42, 0x66, 0x20, 0x23, 0x46, 0x4E, 0x57, 0x45, 0x3D, 0x67, 0x76, 0x60,
    0x41, //
    0x62, 0x39, 0x59, 0x2D, 0x68, 0x7E, 0x7C, 0x65, 0x7D, 0x49, 0x29, 0x72, 0x73, 0x78, 0x21,
    0x6E, //
    0x5A, 0x5E, 0x4A, 0x3E, 0x71, 0x2C, 0x2A, 0x54, 0x3C, 0x3A, 0x63, 0x4F, 0x43, 0x75, 0x27,
    0x79, //
    0x5B, 0x35, 0x70, 0x48, 0x6B, 0x56, 0x6F, 0x34, 0x32, 0x6C, 0x30, 0x61, 0x6D, 0x7B, 0x2F,
    0x4B, //
    0x64, 0x38, 0x2B, 0x2E, 0x50, 0x40, 0x3F, 0x55, 0x33, 0x37, 0x25, 0x77, 0x24, 0x26, 0x74,
    0x6A, //
    0x28, 0x53, 0x4D, 0x69, 0x22, 0x5C, 0x44, 0x31, 0x36, 0x58, 0x3B, 0x7A, 0x51, 0x5F, 0x52,
];

/// Largest credential length the protocol carries.
pub const MAX_CREDENTIAL_LEN: usize = 16;

fn table(p: usize) -> u8 {
    if (0x20..=0x7E).contains(&p) {
        TABLE[p - 0x20]
    } else {
        0
    }
}

/// Encodes `text` (only its first 16 bytes) into the zero-padded 16-byte wire form.
pub fn encode(text: &str) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (i, &c) in text.as_bytes().iter().take(MAX_CREDENTIAL_LEN).enumerate() {
        let mut p = c as usize + i;
        if p > 126 {
            p = 32 + (p % 127);
        }
        out[i] = table(p);
    }
    out
}

/// The significant bytes of a 16-byte credential field: up to the first 0.
pub fn significant(field: &[u8; 16]) -> &[u8] {
    let end = field.iter().position(|&b| b == 0).unwrap_or(16);
    &field[..end]
}

/// True when `text` can be carried: 1 to 16 printable ASCII characters (the range the
/// obfuscation table covers; anything else would encode to 0 and end the field early).
pub fn is_encodable(text: &str) -> bool {
    (1..=MAX_CREDENTIAL_LEN).contains(&text.len())
        && text.bytes().all(|b| (0x20..=0x7E).contains(&b))
}

/// True when `received` (as sent on the wire) matches the configured plain `expected`:
/// the obfuscated form, or (as some radios accept) the plain text. An `expected` that
/// [`is_encodable`] rejects never matches.
pub fn matches(received: &[u8; 16], expected: &str) -> bool {
    if !is_encodable(expected) {
        return false;
    }
    let got = significant(received);
    let encoded = encode(expected);
    let want = significant(&encoded);
    let plain = &expected.as_bytes()[..expected.len().min(MAX_CREDENTIAL_LEN)];
    constant_time_eq(got, want) || constant_time_eq(got, plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unencodable_expectations_never_match() {
        assert!(
            !matches(&[0; 16], "€uro-secret"),
            "an all-zero field must not match"
        );
        let mut pass = [0u8; 16];
        pass[..4].copy_from_slice(&encode("pass")[..4]);
        assert!(!matches(&pass, "pass€word"));
        assert!(!matches(&[0; 16], ""), "empty credentials are refused");
        assert!(is_encodable("~ !"));
        assert!(!is_encodable("seventeen-chars-x"));
        assert!(!is_encodable("tab\t"));
    }
}
