//! `credentials`: the credential obfuscation `credentials::encode`, `significant`,
//! `matches` and `constant_time_eq` on arbitrary strings (`from_utf8_lossy`).
//!
//! The input is split at its first `0xFF` byte into a configured credential and a
//! received field. Checks: `encode` never panics, depends only on the first 16
//! bytes, and for printable ASCII gives one non-zero printable byte per character
//! then zeros; `is_encodable` is exactly "1 to 16 printable ASCII bytes"; for such a
//! credential the encoded form and the plain text both `matches`; for any other
//! credential nothing `matches` (not even an empty or all-zero field); `matches` of
//! an arbitrary field is true only when it equals the encoded or the plain form;
//! `constant_time_eq` agrees with `==`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::util::constant_time_eq;
use rigweb::wire::lan::credentials::{
    MAX_CREDENTIAL_LEN, encode, is_encodable, matches, significant,
};

fn field_of(b: &[u8]) -> [u8; 16] {
    let mut f = [0u8; 16];
    let n = b.len().min(16);
    f[..n].copy_from_slice(&b[..n]);
    f
}

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0xFF).unwrap_or(data.len());
    let (a, b) = (&data[..split], data.get(split + 1..).unwrap_or(&[]));
    let text = String::from_utf8_lossy(a);
    let enc = encode(&text);

    let bytes = text.as_bytes();
    let n = bytes.len().min(MAX_CREDENTIAL_LEN);
    assert!(
        enc[n..].iter().all(|&x| x == 0),
        "encode wrote past the text"
    );
    if text.is_char_boundary(n) {
        assert_eq!(encode(&text[..n]), enc, "encode reads past 16 bytes");
    }
    if bytes.iter().all(|c| c.is_ascii_graphic() || *c == b' ') {
        for &x in &enc[..n] {
            assert!(
                x.is_ascii_graphic() || x == b' ',
                "printable text encoded to a non-printable byte"
            );
        }
    }

    // Only 1..=16 printable ASCII bytes can be carried (and matched).
    let encodable = is_encodable(&text);
    assert_eq!(
        encodable,
        (1..=MAX_CREDENTIAL_LEN).contains(&bytes.len())
            && bytes.iter().all(|c| (0x20..=0x7E).contains(c)),
        "is_encodable({text:?})"
    );
    let plain = field_of(bytes);
    if encodable {
        // An encoded credential matches its text; so does the plain form.
        assert!(matches(&enc, &text), "encoded credential does not match");
        assert!(matches(&plain, &text), "plain credential does not match");
    } else {
        assert!(
            !matches(&enc, &text),
            "unencodable credential matched its encoding"
        );
        assert!(!matches(&plain, &text), "unencodable credential matched");
        assert!(!matches(&[0; 16], &text), "all-zero field matched");
    }

    // An arbitrary received field matches only the encoded or the plain form.
    let received = field_of(b);
    let got = significant(&received);
    assert!(!got.contains(&0) && got.len() <= 16);
    if matches(&received, &text) {
        assert!(
            encodable,
            "matches() accepted a field for an unencodable credential"
        );
        assert!(
            got == significant(&enc) || got == &bytes[..n],
            "matches() accepted a field that is neither form"
        );
    }

    assert_eq!(constant_time_eq(a, b), a == b);
    assert_eq!(constant_time_eq(got, &bytes[..n]), got == &bytes[..n]);
});
