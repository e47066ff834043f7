//! `bcd`: the CI-V BCD codecs on arbitrary bytes and integers.
//!
//! Decoders (`bcd_to_freq` on 5-byte windows, `bcd_to_level` on 2-byte windows,
//! `from_bcd_byte` on every byte, and all three on the whole input): they fail on
//! a wrong length or any nibble above 9 and otherwise succeed; a decoded value is
//! in range and re-encodes to exactly the input bytes.
//!
//! Encoders (`freq_to_bcd`, `level_to_bcd`, `bcd_byte`) on integers read from the
//! input, raw and reduced into range: they succeed exactly for in-range values
//! and decode back to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::wire::civ::{
    MAX_FREQ_HZ, bcd_byte, bcd_to_freq, bcd_to_level, freq_to_bcd, from_bcd_byte, level_to_bcd,
};

fn valid_bcd(b: &[u8]) -> bool {
    b.iter().all(|&x| x >> 4 <= 9 && x & 0x0F <= 9)
}

fn check_freq(hz: u64) {
    let r = freq_to_bcd(hz);
    assert_eq!(r.is_ok(), hz <= MAX_FREQ_HZ, "freq_to_bcd range");
    if let Ok(b) = r {
        assert!(valid_bcd(&b));
        assert_eq!(bcd_to_freq(&b), Ok(hz), "freq encode/decode");
    }
}

fn check_level(v: u16) {
    let r = level_to_bcd(v);
    assert_eq!(r.is_ok(), v <= 9999, "level_to_bcd range");
    if let Ok(b) = r {
        assert!(valid_bcd(&b));
        assert_eq!(bcd_to_level(&b), Ok(v), "level encode/decode");
    }
}

fn check_byte_value(v: u8) {
    let r = bcd_byte(v);
    assert_eq!(r.is_ok(), v <= 99, "bcd_byte range");
    if let Ok(b) = r {
        assert_eq!(from_bcd_byte(b), Ok(v), "byte encode/decode");
    }
}

fuzz_target!(|data: &[u8]| {
    // Decoders on the whole input (length checks).
    let f = bcd_to_freq(data);
    assert_eq!(f.is_ok(), data.len() == 5 && valid_bcd(data));
    let l = bcd_to_level(data);
    assert_eq!(l.is_ok(), data.len() == 2 && valid_bcd(data));

    // Decoders on every window / byte.
    for w in data.windows(5) {
        match bcd_to_freq(w) {
            Ok(hz) => {
                assert!(hz <= MAX_FREQ_HZ);
                assert_eq!(freq_to_bcd(hz).as_ref().map(|b| &b[..]), Ok(w));
            }
            Err(_) => assert!(!valid_bcd(w), "valid BCD frequency rejected"),
        }
    }
    for w in data.windows(2) {
        match bcd_to_level(w) {
            Ok(v) => {
                assert!(v <= 9999);
                assert_eq!(level_to_bcd(v).as_ref().map(|b| &b[..]), Ok(w));
            }
            Err(_) => assert!(!valid_bcd(w), "valid BCD level rejected"),
        }
    }
    for &b in data {
        match from_bcd_byte(b) {
            Ok(v) => {
                assert!(v <= 99);
                assert_eq!(bcd_byte(v), Ok(b));
            }
            Err(_) => assert!(!valid_bcd(&[b]), "valid BCD byte rejected"),
        }
        check_byte_value(b);
        check_byte_value(b % 100);
    }

    // Encoders on integers taken from the input.
    for c in data.chunks_exact(8) {
        let x = u64::from_le_bytes(c.try_into().unwrap());
        check_freq(x);
        check_freq(x % (MAX_FREQ_HZ + 1));
    }
    for c in data.chunks_exact(2) {
        let x = u16::from_le_bytes([c[0], c[1]]);
        check_level(x);
        check_level(x % 10_000);
    }
});
