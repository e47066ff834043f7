//! The query string of a station-data route, checked: every parameter known, none
//! twice, values of the right kind; a bad one is a 400 `invalid_param` naming it.

use crate::web::response::{self, Reply};

/// Parameters every route ignores: a cache-buster and a token a client may add.
const IGNORED: &[&str] = &["_", "token"];

/// A decoded query string.
#[derive(Debug, Default)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

/// A 400 `invalid_param` about `name`.
pub fn invalid(name: &str, what: impl std::fmt::Display) -> Reply {
    response::error(400, "invalid_param", format!("{name}: {what}"))
}

impl Query {
    /// The query of request target `url`; parameters other than `allowed` are refused.
    pub fn parse(url: &str, allowed: &[&str]) -> Result<Query, Reply> {
        let mut q = Query::default();
        let Some((_, qs)) = url.split_once('?') else {
            return Ok(q);
        };
        for kv in qs.split('&').filter(|kv| !kv.is_empty()) {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            let (k, v) = (decode(k), decode(v));
            if IGNORED.contains(&k.as_str()) {
                continue;
            }
            if !allowed.contains(&k.as_str()) {
                let list = if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                };
                return Err(invalid(&k, format!("unknown parameter; allowed: {list}")));
            }
            if q.pairs.iter().any(|(n, _)| *n == k) {
                return Err(invalid(&k, "given twice"));
            }
            q.pairs.push((k, v));
        }
        Ok(q)
    }

    /// The value of `name` (None when absent or empty).
    pub fn str(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }

    /// A whole number in `min..=max`.
    pub fn u64(&self, name: &str, min: u64, max: u64) -> Result<Option<u64>, Reply> {
        let Some(v) = self.str(name) else {
            return Ok(None);
        };
        match v.parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(invalid(
                name,
                format!("{v:?} is not a whole number from {min} to {max}"),
            )),
        }
    }

    /// `true`/`false` (also `1`/`0`, any case).
    pub fn bool(&self, name: &str) -> Result<Option<bool>, Reply> {
        match self.str(name).map(str::to_ascii_lowercase).as_deref() {
            None => Ok(None),
            Some("true" | "1") => Ok(Some(true)),
            Some("false" | "0") => Ok(Some(false)),
            Some(v) => Err(invalid(name, format!("{v:?} is not true or false"))),
        }
    }

    /// Text of at most `max` characters.
    pub fn text(&self, name: &str, max: usize) -> Result<Option<String>, Reply> {
        match self.str(name) {
            Some(v) if v.chars().count() > max => {
                Err(invalid(name, format!("at most {max} characters")))
            }
            v => Ok(v.map(str::to_string)),
        }
    }
}

/// `%XX` and `+` decoded (bad escapes kept as they are, bytes that are not UTF-8
/// replaced).
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b[i], hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status<T>(r: Result<T, Reply>) -> u16 {
        r.err().map_or(200, |e| e.status_code().0)
    }

    fn ok<T>(r: Result<T, Reply>) -> T {
        match r {
            Ok(v) => v,
            Err(e) => panic!("refused with {}", e.status_code().0),
        }
    }

    #[test]
    fn parameters_are_decoded_checked_and_typed() {
        let q = ok(Query::parse(
            "/x?q=Radio+Ma%C3%B1ana&limit=5&on_air=TRUE&_=1&token=x",
            &["q", "limit", "on_air"],
        ));
        assert_eq!(q.str("q"), Some("Radio Mañana"));
        assert_eq!(ok(q.u64("limit", 1, 500)), Some(5));
        assert_eq!(ok(q.bool("on_air")), Some(true));
        assert_eq!(ok(q.u64("absent", 1, 5)), None);
        assert_eq!(status(Query::parse("/x?limt=5", &["limit"])), 400);
        assert_eq!(status(Query::parse("/x?limit=5&limit=6", &["limit"])), 400);
        let q = ok(Query::parse(
            "/x?limit=abc&n=0&b=yes&t=%ZZ%4",
            &["limit", "n", "b", "t"],
        ));
        assert_eq!(status(q.u64("limit", 1, 500)), 400);
        assert_eq!(status(q.u64("n", 1, 500)), 400);
        assert_eq!(status(q.bool("b")), 400);
        assert_eq!(q.str("t"), Some("%ZZ%4"));
        assert_eq!(status(q.text("t", 3)), 400);
        assert!(ok(Query::parse("/x", &[])).str("a").is_none());
        assert_eq!(
            ok(Query::parse("/x?a=%FF", &["a"])).str("a"),
            Some("\u{FFFD}")
        );
    }
}
