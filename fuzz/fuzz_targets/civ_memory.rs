//! `civ_memory`: the memory-channel codecs of `wire::civ::memory` on arbitrary bytes.
//!
//! `channel_of` on 2-byte windows and the whole input: succeeds exactly for two BCD
//! bytes and re-encodes (`channel_bytes`) to them. `parse` on the whole input and on
//! every suffix: `Ok(None)` exactly for `[FF]`; shorter than `CONTENT_LEN` (and not
//! `[FF]`) is `Err`; a parsed content has a filter 1..=3, DATA 0..=3, a name of at most
//! `NAME_LEN` printable characters without trailing spaces, and `encode` of it parses
//! back to the same content.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::wire::civ::memory::{
    CONTENT_LEN, EMPTY, NAME_LEN, channel_bytes, channel_of, encode, parse,
};

fn check_channel(b: &[u8]) {
    let bcd = b.len() == 2 && b.iter().all(|&x| x >> 4 <= 9 && x & 0x0F <= 9);
    let ch = channel_of(b);
    assert_eq!(ch.is_some(), bcd, "channel_of {b:02X?}");
    if let Some(ch) = ch {
        assert_eq!(channel_bytes(ch).as_ref().map(|x| &x[..]), Some(b));
    }
}

fn check_content(b: &[u8]) {
    let r = parse(b);
    if b == [EMPTY] {
        assert_eq!(r, Ok(None));
        return;
    }
    if b.len() < CONTENT_LEN {
        assert!(r.is_err(), "{} bytes parsed", b.len());
        return;
    }
    if let Ok(Some(m)) = r {
        assert!((1..=3).contains(&m.filter) && m.data <= 3);
        assert!(m.name.len() <= NAME_LEN && !m.name.ends_with(' '));
        assert!(m.name.bytes().all(|c| c.is_ascii_graphic() || c == b' '));
        let again = encode(&m).expect("a parsed content encodes");
        assert_eq!(again.len(), CONTENT_LEN);
        assert_eq!(parse(&again), Ok(Some(m)), "encode/parse");
    }
}

fuzz_target!(|data: &[u8]| {
    check_channel(data);
    for w in data.windows(2) {
        check_channel(w);
    }
    for i in 0..data.len().min(64) {
        check_content(&data[i..]);
    }
    check_content(data);
});
