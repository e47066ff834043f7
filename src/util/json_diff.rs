//! Leaf-level difference of two JSON documents, for `state_update` deltas: `changed`
//! is a nested partial object holding only the leaves that differ (arrays count as
//! leaves), `removed` lists the dotted paths of keys that disappeared.

use serde_json::{Map, Value};

/// The difference between two JSON objects.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Diff {
    /// Nested partial object of changed or new leaves.
    pub changed: Map<String, Value>,
    /// Dotted paths of removed keys.
    pub removed: Vec<String>,
}

impl Diff {
    /// True when nothing differs.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.removed.is_empty()
    }
}

/// Computes the leaf-level difference from `old` to `new` (both objects).
pub fn diff(old: &Map<String, Value>, new: &Map<String, Value>) -> Diff {
    let mut d = Diff::default();
    walk(old, new, &mut String::new(), &mut d.changed, &mut d.removed);
    d
}

/// Adds to `d` what [`diff`] of two objects reports for their entry `key`, whose
/// values are `old` and `new` (`None`: absent): for a caller that knows the other
/// entries are equal.
pub fn diff_entry(key: &str, old: Option<&Value>, new: Option<&Value>, d: &mut Diff) {
    match new {
        Some(nv) => entry(
            key,
            old,
            nv,
            &mut String::new(),
            &mut d.changed,
            &mut d.removed,
        ),
        None if old.is_some() => d.removed.push(key.to_string()),
        None => {}
    }
}

/// The difference of one entry present in the new object; `prefix` is the dotted
/// path of the object holding it (restored on return).
fn entry(
    key: &str,
    old: Option<&Value>,
    nv: &Value,
    prefix: &mut String,
    changed: &mut Map<String, Value>,
    removed: &mut Vec<String>,
) {
    match (old, nv) {
        (Some(Value::Object(oo)), Value::Object(no)) => {
            let len = prefix.len();
            prefix.push_str(key);
            prefix.push('.');
            let mut sub = Map::new();
            walk(oo, no, prefix, &mut sub, removed);
            prefix.truncate(len);
            if !sub.is_empty() {
                changed.insert(key.to_string(), Value::Object(sub));
            }
        }
        (Some(ov), nv) if ov == nv => {}
        (_, nv) => {
            changed.insert(key.to_string(), nv.clone());
        }
    }
}

fn walk(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    prefix: &mut String,
    changed: &mut Map<String, Value>,
    removed: &mut Vec<String>,
) {
    for (k, nv) in new {
        entry(k, old.get(k), nv, prefix, changed, removed);
    }
    for k in old.keys() {
        if !new.contains_key(k) {
            removed.push(format!("{prefix}{k}"));
        }
    }
}

/// Applies a diff to `doc` (the inverse of [`diff`]): used by tests and clients.
pub fn apply(doc: &mut Map<String, Value>, changed: &Map<String, Value>, removed: &[String]) {
    merge(doc, changed);
    for path in removed {
        let parts: Vec<&str> = path.split('.').collect();
        remove_path(doc, &parts);
    }
}

fn remove_path(doc: &mut Map<String, Value>, parts: &[&str]) {
    match parts {
        [] => {}
        [last] => {
            doc.remove(*last);
        }
        [first, rest @ ..] => {
            if let Some(Value::Object(o)) = doc.get_mut(*first) {
                remove_path(o, rest);
            }
        }
    }
}

fn merge(doc: &mut Map<String, Value>, changed: &Map<String, Value>) {
    for (k, v) in changed {
        match (doc.get_mut(k), v) {
            (Some(Value::Object(d)), Value::Object(c)) => merge(d, c),
            _ => {
                doc.insert(k.clone(), v.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn only_changed_leaves() {
        let a = obj(json!({"main": {"freqHz": 1, "mode": "USB"}, "ptt": false, "gone": {"x": 1}}));
        let b = obj(json!({"main": {"freqHz": 2, "mode": "USB"}, "ptt": false, "new": [1, 2]}));
        let d = diff(&a, &b);
        assert_eq!(
            Value::Object(d.changed.clone()),
            json!({"main": {"freqHz": 2}, "new": [1, 2]})
        );
        assert_eq!(d.removed, vec!["gone".to_string()]);
        let mut c = a.clone();
        apply(&mut c, &d.changed, &d.removed);
        assert_eq!(c, b);
    }

    #[test]
    fn nested_removal_and_type_change() {
        let a = obj(json!({"sub": {"att": 0, "x": {"y": 1}}, "v": {"k": 1}}));
        let b = obj(json!({"sub": {"att": 0}, "v": 3}));
        let d = diff(&a, &b);
        assert_eq!(d.removed, vec!["sub.x".to_string()]);
        let mut c = a.clone();
        apply(&mut c, &d.changed, &d.removed);
        assert_eq!(c, b);
        assert!(diff(&b, &b).is_empty());
    }

    #[test]
    fn an_entry_alone_is_reported_as_the_whole_diff_reports_it() {
        let a = obj(json!({"main": {"f": 1, "x": {"y": 1}}, "sub": {"f": 2}, "r": 1}));
        let b = obj(json!({"main": {"f": 3}, "r": 2}));
        let mut d = Diff::default();
        for k in ["main", "r", "sub"] {
            diff_entry(k, a.get(k), b.get(k), &mut d);
        }
        assert_eq!(d, diff(&a, &b));
        assert_eq!(d.removed, vec!["main.x".to_string(), "sub".to_string()]);
        let mut none = Diff::default();
        diff_entry("gone", None, None, &mut none);
        diff_entry("r", a.get("r"), a.get("r"), &mut none);
        assert!(none.is_empty());
    }
}
