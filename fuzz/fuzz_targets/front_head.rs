//! `front_head`: the front door's request-head parser (`web::front::head`) and its
//! chunked-body decoder (`web::front::chunked`): the first bytes an untrusted LAN client
//! sends, before any token is checked.
//!
//! Input: the bytes of a connection; the first byte picks the head limit (64..=16 KiB)
//! and where the input is cut for the incremental scan.
//!
//! Checks: no panic; `parse` is `Ok(None)` only below the limit; a complete head ends
//! in CRLF CRLF within the limit, and `parse_complete` of its bytes gives the same
//! head; header names and values hold no CR or LF; the path is a prefix of the target;
//! scanning in two parts (the second call starting where the first stopped) agrees
//! with one scan; the chunked decoder, fed the rest in two parts, never claims more
//! bytes than it was given nor yields more data than it read (up to a refusal: the
//! data of the refused part before its fault counts as read).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::web::front::chunked::ChunkedDecoder;
use rigweb::web::front::head::{Progress, parse, parse_complete, scan};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, buf)) = data.split_first() else {
        return;
    };
    let max = 64 + usize::from(sel) * 64;
    let whole = scan(buf, 0, max);
    // incremental: the first part, then all of it from where the first part stopped
    let cut = (usize::from(sel) * 7) % (buf.len() + 1);
    let first = scan(&buf[..cut], 0, max);
    match first {
        Ok(Progress::Incomplete) => {
            let resumed = scan(buf, cut.saturating_sub(1), max);
            assert_eq!(
                resumed.as_ref().map_err(|e| e.status),
                whole.as_ref().map_err(|e| e.status),
                "incremental scan disagrees"
            );
        }
        Ok(Progress::Complete(n)) => {
            assert_eq!(whole.as_ref().ok(), Some(&Progress::Complete(n)));
        }
        Err(_) => assert!(whole.is_err(), "a refused prefix, an accepted whole"),
    }
    match parse(buf, max) {
        Ok(None) => assert!(buf.len() < max, "incomplete beyond the limit"),
        Ok(Some((head, len))) => {
            assert!(len <= buf.len() && len <= max, "head length {len}");
            assert!(buf[..len].ends_with(b"\r\n\r\n"), "head end");
            let again = parse_complete(&buf[..len]).expect("the same bytes parse again");
            assert_eq!(again, head, "parse_complete disagrees");
            for (k, v) in &head.headers {
                assert!(!k.is_empty(), "an empty header name");
                assert!(
                    !k.contains(['\r', '\n']) && !v.contains(['\r', '\n']),
                    "CR/LF in a header"
                );
            }
            assert!(head.target.starts_with(head.path()), "path of the target");
            let _ = head.keep_alive();
            // the body that follows, as chunked
            let rest = &buf[len..];
            let mid = rest.len() / 2;
            let mut dec = ChunkedDecoder::default();
            let mut out = Vec::new();
            let mut read = 0;
            for part in [&rest[..mid], &rest[mid..]] {
                if dec.done() {
                    break;
                }
                match dec.feed(part, Some(&mut out)) {
                    Ok(n) => {
                        assert!(n <= part.len(), "claimed {n} of {} bytes", part.len());
                        read += n;
                        if n < part.len() {
                            assert!(dec.done(), "stopped early without being done");
                        }
                    }
                    Err(e) => {
                        assert!(e.status >= 400, "refusal status {}", e.status);
                        // the data before the fault in this part was read (and the
                        // request is refused: the caller drops the body)
                        read += part.len();
                        break;
                    }
                }
            }
            assert!(out.len() <= read, "{} data bytes from {read}", out.len());
        }
        Err(e) => assert!((400..600).contains(&e.status), "status {}", e.status),
    }
});
