//! `json_diff`: `util::json_diff::{diff, apply}` (the `state_update` deltas) on two
//! JSON objects from the input, split at its first `0xFF` byte (inputs whose halves are
//! not both JSON objects are skipped).
//!
//! Checks: `apply(old, diff(old, new)) == new`; `diff(x, x)` is empty; `changed` holds
//! only keys of `new` and `removed` only paths of `old`; a diff is empty exactly when
//! the objects are equal. `removed` holds dotted paths, so the round trip is asserted
//! only when no key (at any depth) contains a `.`: a key like `"a.b"` cannot be told
//! from `a` → `b` (known limitation, harmless for the state document, whose keys are
//! fixed field names; see `fuzz/README.md`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::util::json_diff::{apply, diff};
use serde_json::{Map, Value};

fn has_dotted_key(m: &Map<String, Value>) -> bool {
    m.iter().any(|(k, v)| {
        k.contains('.')
            || match v {
                Value::Object(o) => has_dotted_key(o),
                _ => false,
            }
    })
}

/// True if the dotted `path` names a key of `m` (walking objects).
fn has_path(m: &Map<String, Value>, path: &str) -> bool {
    let mut cur = m;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, p) in parts.iter().enumerate() {
        match cur.get(*p) {
            Some(Value::Object(o)) if i + 1 < parts.len() => cur = o,
            Some(_) if i + 1 == parts.len() => return true,
            _ => return false,
        }
    }
    false
}

/// True if every key of the partial object `changed` is in `new` (recursively).
fn within(changed: &Map<String, Value>, new: &Map<String, Value>) -> bool {
    changed.iter().all(|(k, v)| match (new.get(k), v) {
        (Some(Value::Object(n)), Value::Object(c)) => within(c, n) || n == c,
        (Some(n), v) => n == v,
        (None, _) => false,
    })
}

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0xFF).unwrap_or(data.len());
    let (a, b) = (&data[..split], data.get(split + 1..).unwrap_or(&[]));
    let (Ok(Value::Object(old)), Ok(Value::Object(new))) = (
        serde_json::from_slice::<Value>(a),
        serde_json::from_slice::<Value>(b),
    ) else {
        return;
    };

    assert!(diff(&old, &old).is_empty(), "diff(x, x) not empty");
    let d = diff(&old, &new);
    assert_eq!(d.is_empty(), old == new, "empty diff for different objects");
    let mut doc = old.clone();
    apply(&mut doc, &d.changed, &d.removed);
    if has_dotted_key(&old) || has_dotted_key(&new) {
        return;
    }
    assert_eq!(doc, new, "apply(old, diff(old, new)) != new");
    assert!(
        within(&d.changed, &new),
        "changed holds keys or values not in new"
    );
    for p in &d.removed {
        assert!(has_path(&old, p), "removed path {p:?} is not in old");
        assert!(!has_path(&new, p), "removed path {p:?} is still in new");
    }
});
