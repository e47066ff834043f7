//! `strict_json`: the strict JSON parser (`util::strict_json`) every request body and
//! WebSocket message goes through, and `web::ws::messages::parse_message` on top of it.
//!
//! Checks: no panic; whatever serde_json accepts without duplicate keys and within
//! `strict_json::MAX_DEPTH` levels of nesting the strict parser accepts with the same
//! value; a duplicate-key refusal names a key that
//! occurs in the text; whatever the strict parser accepts serde_json accepts with the
//! same value; `parse_message` accepts exactly the JSON objects the strict parser
//! accepts, and its refusals carry a message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::util::strict_json;
use rigweb::web::ws::messages::parse_message;
use serde_json::Value;

/// Levels of arrays and objects around the deepest value of `v`.
fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

fuzz_target!(|data: &[u8]| {
    let strict = strict_json::parse_slice(data);
    let loose = serde_json::from_slice::<Value>(data);
    match (&strict, &loose) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "strict and serde_json disagree"),
        (Ok(_), Err(e)) => panic!("strict accepted what serde_json refuses: {e}"),
        (Err(_), Ok(v)) if depth(v) > strict_json::MAX_DEPTH => {}
        (Err(e), Ok(_)) => {
            let key = e
                .duplicate_key()
                .expect("strict refused valid JSON for another reason than a duplicate key");
            let text = String::from_utf8_lossy(data);
            // the key as it appears (escaped forms are possible, so look for its
            // serialised form or its raw text)
            let quoted = serde_json::to_string(key).expect("a string serialises");
            assert!(
                text.contains(&quoted)
                    || text.contains(key)
                    || key.is_empty()
                    || data.contains(&b'\\'),
                "duplicate key {key:?} not in the text"
            );
            assert!(e.line() >= 1 && e.column() >= 1);
        }
        (Err(_), Err(_)) => {}
    }
    if let Ok(text) = std::str::from_utf8(data) {
        match parse_message(text) {
            Ok(obj) => assert_eq!(
                strict.as_ref().ok(),
                Some(&Value::Object(obj)),
                "parse_message and the strict parser disagree"
            ),
            Err(e) => assert!(!e.message.is_empty(), "an error without a message"),
        }
    }
});
