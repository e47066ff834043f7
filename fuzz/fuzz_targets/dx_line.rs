//! `dx_line`: what a DX-cluster node sends, byte by byte: the line splitter
//! (`station::dx::line`, telnet commands, the 4 KiB limit) and the spot parser
//! (`station::dx::spot`) on every line it yields.
//!
//! Input: the node's bytes; the first byte picks where they are cut into two reads.
//!
//! Checks: no panic; no line longer than the limit; splitting in two reads yields the
//! same lines as one; a parsed spot has a frequency in range, a call sign of letters,
//! digits and `/`, a comment within its cap and no control characters, a time that is
//! empty or `HHMMZ`; parsing the Latin-1 or UTF-8 text is deterministic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::station::dx::line::{LineSplitter, MAX_LINE};
use rigweb::station::dx::spot::{MAX_COMMENT, decode, parse_spot};

fn lines(parts: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut s = LineSplitter::default();
    let mut out = Vec::new();
    for p in parts {
        s.push(p, |l| out.push(l.to_vec()));
    }
    assert!(
        s.pending().len() <= MAX_LINE,
        "pending {}",
        s.pending().len()
    );
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let cut = usize::from(sel) * bytes.len() / 256;
    let whole = lines(&[bytes]);
    let split = lines(&[&bytes[..cut], &bytes[cut..]]);
    assert_eq!(whole, split, "split at {cut}");
    for l in &whole {
        assert!(l.len() <= MAX_LINE, "line of {}", l.len());
    }
    // every line, and the whole input as one line (the parser also sees what it is given)
    for l in whole
        .iter()
        .map(Vec::as_slice)
        .chain(std::iter::once(bytes))
    {
        let text = decode(l);
        let Some(s) = parse_spot(&text) else {
            continue;
        };
        assert_eq!(parse_spot(&text), Some(s.clone()), "deterministic");
        assert!(
            (10_000..=300_000_000_000).contains(&s.freq_hz),
            "{}",
            s.freq_hz
        );
        assert!(
            !s.call.is_empty()
                && s.call
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'/')
        );
        assert!(
            s.call.bytes().all(|b| !b.is_ascii_lowercase()),
            "upper case"
        );
        assert!(!s.spotter.is_empty() && s.spotter.len() <= 20);
        assert!(s.comment.chars().count() <= MAX_COMMENT);
        assert!(!s.comment.chars().any(char::is_control));
        assert!(s.time_utc.is_empty() || (s.time_utc.len() == 5 && s.time_utc.ends_with('Z')));
        if let Some(loc) = &s.locator {
            assert!(loc.len() == 4 || loc.len() == 6);
        }
    }
});
