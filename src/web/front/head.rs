//! The request head as the front door accepts it: a pure parser over bytes, with every
//! refusal a [`Refusal`] (status, code, message) the front door answers with JSON.
//!
//! Accepted: `METHOD SP origin-form SP HTTP/1.0|HTTP/1.1 CRLF`, header lines
//! `name: value CRLF`, an empty line. Refused: a head over the size limit (431), another
//! protocol version (505), a bare LF anywhere or other malformed lines, folded header
//! lines, a missing or repeated `Host` on HTTP/1.1, conflicting or invalid
//! `Content-Length`, `Content-Length` together with `Transfer-Encoding`, a transfer
//! coding other than `chunked` (501), and any `Expect` but `100-continue` (417).

use super::reply::Refusal;

/// HTTP version of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// HTTP/1.0.
    Http10,
    /// HTTP/1.1.
    Http11,
}

/// How the body of a request is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFraming {
    /// No body.
    None,
    /// Exactly this many bytes.
    Length(u64),
    /// `Transfer-Encoding: chunked`.
    Chunked,
}

/// A checked request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHead {
    /// Method, as sent (methods are case-sensitive).
    pub method: String,
    /// Request target (origin form: path and query).
    pub target: String,
    /// Protocol version.
    pub version: Version,
    /// Header lines in order (names as sent, values trimmed).
    pub headers: Vec<(String, String)>,
    /// Body framing.
    pub body: BodyFraming,
    /// The client sent `Expect: 100-continue`.
    pub expects_continue: bool,
}

impl RequestHead {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The path (the target without its query).
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("/")
    }

    /// True if `Connection` lists `token` (case-insensitive).
    pub fn connection_has(&self, token: &str) -> bool {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("connection"))
            .flat_map(|(_, v)| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case(token))
    }

    /// True when the connection stays open after this request's response.
    pub fn keep_alive(&self) -> bool {
        match self.version {
            Version::Http11 => !self.connection_has("close"),
            Version::Http10 => self.connection_has("keep-alive"),
        }
    }
}

/// Where a head ends in `buf` (just past its CRLF CRLF), if it does.
pub fn head_end_crlf(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// How far a head has arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Not complete yet, within the limit so far.
    Incomplete,
    /// Complete: the head is this many bytes (its empty line included).
    Complete(usize),
}

/// Looks for the end of the head in `buf`, checking line endings on the way. Bytes
/// before `from` were checked by an earlier call (so trickled heads cost O(n) in all).
/// A bare LF is refused at once, not when the head would end.
pub fn scan(buf: &[u8], from: usize, max_head: usize) -> Result<Progress, Refusal> {
    let stop = buf.len().min(max_head);
    for i in from..stop {
        if buf[i] != b'\n' {
            continue;
        }
        if i == 0 || buf[i - 1] != b'\r' {
            return Err(bad("a line ends in a bare LF; HTTP lines end in CRLF"));
        }
        if i >= 3 && &buf[i - 3..=i] == b"\r\n\r\n" {
            return Ok(Progress::Complete(i + 1));
        }
    }
    if buf.len() >= max_head {
        return Err(Refusal::new(
            431,
            "request_header_too_large",
            format!("the request head is larger than {max_head} bytes"),
        ));
    }
    Ok(Progress::Incomplete)
}

/// Parses the head at the start of `buf`. `Ok(None)`: not complete yet (and within
/// `max_head` so far). `Ok(Some((head, len)))`: the head and its length in bytes.
pub fn parse(buf: &[u8], max_head: usize) -> Result<Option<(RequestHead, usize)>, Refusal> {
    match scan(buf, 0, max_head)? {
        Progress::Incomplete => Ok(None),
        Progress::Complete(len) => Ok(Some((parse_complete(&buf[..len])?, len))),
    }
}

/// Parses a complete head (as [`scan`] delimited it, its empty line included).
///
/// The request line and header names are ASCII. Header values are opaque bytes (RFC 9110
/// `obs-text` included): UTF-8 or not, they are accepted; one that is not UTF-8 is kept
/// with U+FFFD for its invalid bytes (no header the server reads is valid so).
pub fn parse_complete(head: &[u8]) -> Result<RequestHead, Refusal> {
    let body = head.strip_suffix(b"\r\n\r\n").unwrap_or(head);
    let mut lines = split_crlf(body);
    let request_line = lines.next().unwrap_or_default();
    if body.contains(&b'\r') && split_crlf(body).any(|l| l.contains(&b'\r')) {
        return Err(bad("a bare CR in the request head; HTTP lines end in CRLF"));
    }
    let request_line = std::str::from_utf8(request_line)
        .ok()
        .filter(|l| l.is_ascii())
        .ok_or_else(|| bad("the request line is not ASCII"))?;
    let (method, target, version) = request_line_parts(request_line)?;
    let mut headers = Vec::new();
    for line in lines {
        if line.starts_with(b" ") || line.starts_with(b"\t") {
            return Err(bad("folded header lines are not accepted"));
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return Err(bad(format!(
                "header line without a colon: {:?}",
                clip(&String::from_utf8_lossy(line))
            )));
        };
        let (name, value) = (&line[..colon], &line[colon + 1..]);
        if name.is_empty() || !name.iter().copied().all(is_token) {
            return Err(bad(format!(
                "invalid header name {:?}",
                clip(&String::from_utf8_lossy(name))
            )));
        }
        // tokens are ASCII: the name converts as it is
        let name = String::from_utf8_lossy(name).into_owned();
        let value = trim_blanks(value);
        if value.iter().any(|&b| b < 0x20 && b != b'\t' || b == 0x7f) {
            return Err(bad(format!("control character in header {name}")));
        }
        headers.push((name, String::from_utf8_lossy(value).into_owned()));
    }
    let mut head = RequestHead {
        method: method.to_string(),
        target: target.to_string(),
        version,
        headers,
        body: BodyFraming::None,
        expects_continue: false,
    };
    check_host(&head)?;
    head.body = body_framing(&head)?;
    head.expects_continue = expectation(&head)?;
    Ok(head)
}

/// `bytes` without the spaces and tabs around it.
fn trim_blanks(bytes: &[u8]) -> &[u8] {
    let blank = |b: &u8| matches!(b, b' ' | b'\t');
    let start = bytes.iter().position(|b| !blank(b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |e| e + 1);
    &bytes[start..end.max(start)]
}

/// The lines of `bytes` split at CRLF.
fn split_crlf(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(bytes);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.windows(2).position(|w| w == b"\r\n") {
            Some(i) => {
                rest = Some(&r[i + 2..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

fn bad(message: impl Into<String>) -> Refusal {
    Refusal::new(400, "bad_request", message)
}

/// At most 64 characters of `s` for a message.
fn clip(s: &str) -> String {
    s.chars().take(64).collect()
}

/// RFC 9110 `tchar`.
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn request_line_parts(line: &str) -> Result<(&str, &str, Version), Refusal> {
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad(format!(
            "malformed request line {:?}; expected METHOD /path HTTP/1.1",
            clip(line)
        )));
    };
    if method.is_empty() || !method.bytes().all(is_token) {
        return Err(bad(format!("invalid method {:?}", clip(method))));
    }
    let version = match version {
        "HTTP/1.1" => Version::Http11,
        "HTTP/1.0" => Version::Http10,
        v if v.starts_with("HTTP/") => {
            return Err(Refusal::new(
                505,
                "http_version_not_supported",
                format!("{} is not supported; use HTTP/1.1", clip(v)),
            ));
        }
        v => return Err(bad(format!("unknown protocol {:?}", clip(v)))),
    };
    let origin_form = target.starts_with('/') || (target == "*" && method == "OPTIONS");
    if !origin_form || !target.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(bad(format!(
            "invalid request target {:?}; send a path such as /api/v1/state",
            clip(target)
        )));
    }
    Ok((method, target, version))
}

fn values<'a>(head: &'a RequestHead, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    head.headers
        .iter()
        .filter(move |(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn check_host(head: &RequestHead) -> Result<(), Refusal> {
    let hosts: Vec<&str> = values(head, "host").collect();
    match (hosts.len(), head.version) {
        (0, Version::Http11) => Err(bad("HTTP/1.1 requests need a Host header")),
        (n, _) if n > 1 => Err(bad("more than one Host header")),
        _ => Ok(()),
    }
}

fn body_framing(head: &RequestHead) -> Result<BodyFraming, Refusal> {
    let mut length: Option<u64> = None;
    for v in values(head, "content-length") {
        // a list ("5, 5") counts as its members
        for item in v.split(',') {
            let item = item.trim();
            if item.is_empty() || item.len() > 19 || !item.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad(format!("invalid Content-Length {:?}", clip(item))));
            }
            let n: u64 = item
                .parse()
                .map_err(|_| bad(format!("invalid Content-Length {:?}", clip(item))))?;
            match length {
                Some(m) if m != n => {
                    return Err(bad(format!(
                        "conflicting Content-Length headers ({m} and {n})"
                    )));
                }
                _ => length = Some(n),
            }
        }
    }
    let codings: Vec<String> = values(head, "transfer-encoding")
        .flat_map(|v| v.split(','))
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty())
        .collect();
    if codings.is_empty() {
        return Ok(match length {
            Some(0) | None => BodyFraming::None,
            Some(n) => BodyFraming::Length(n),
        });
    }
    if length.is_some() {
        return Err(bad(
            "Content-Length and Transfer-Encoding together are refused",
        ));
    }
    if head.version == Version::Http10 {
        return Err(bad("Transfer-Encoding is not allowed in HTTP/1.0"));
    }
    if codings != ["chunked"] {
        return Err(Refusal::new(
            501,
            "not_implemented",
            format!(
                "Transfer-Encoding {:?} is not supported; send Content-Length or chunked",
                codings.join(", ")
            ),
        ));
    }
    Ok(BodyFraming::Chunked)
}

fn expectation(head: &RequestHead) -> Result<bool, Refusal> {
    let mut continues = false;
    for v in values(head, "expect") {
        if v.eq_ignore_ascii_case("100-continue") {
            continues = true;
        } else {
            return Err(Refusal::new(
                417,
                "expectation_failed",
                format!("Expect: {:?} is not supported (only 100-continue)", clip(v)),
            ));
        }
    }
    Ok(continues && head.body != BodyFraming::None)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: usize = 16 * 1024;

    fn ok(text: &str) -> RequestHead {
        let (h, len) = parse(text.as_bytes(), MAX).unwrap().expect("complete");
        assert_eq!(len, text.find("\r\n\r\n").unwrap() + 4);
        h
    }

    fn refused(text: &[u8]) -> (u16, &'static str) {
        let r = parse(text, MAX).expect_err("refused");
        (r.status, r.code)
    }

    #[test]
    fn a_plain_get() {
        let h = ok("GET /api/v1/state?x=1 HTTP/1.1\r\nHost: a\r\nX-Y:  v \r\n\r\nrest");
        assert_eq!(h.method, "GET");
        assert_eq!(h.path(), "/api/v1/state");
        assert_eq!(h.header("x-y"), Some("v"));
        assert_eq!(h.body, BodyFraming::None);
        assert!(h.keep_alive());
        let h10 = ok("GET / HTTP/1.0\r\n\r\n");
        assert!(!h10.keep_alive(), "1.0 closes unless asked");
        let h10 = ok("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n");
        assert!(h10.keep_alive());
        assert!(!ok("GET / HTTP/1.1\r\nHost: a\r\nConnection: x, close\r\n\r\n").keep_alive());
    }

    #[test]
    fn incomplete_heads_wait_until_the_limit() {
        assert_eq!(parse(b"GET / HTTP/1.1\r\nHost: a\r\n", MAX).unwrap(), None);
        assert_eq!(parse(b"", MAX).unwrap(), None);
        let mut big = b"GET / HTTP/1.1\r\nX: ".to_vec();
        big.resize(MAX, b'a');
        assert_eq!(refused(&big), (431, "request_header_too_large"));
        // a complete head past the limit is refused too
        let mut long = b"GET / HTTP/1.1\r\nHost: a\r\nX: ".to_vec();
        long.extend(std::iter::repeat_n(b'a', MAX));
        long.extend_from_slice(b"\r\n\r\n");
        assert_eq!(refused(&long), (431, "request_header_too_large"));
    }

    #[test]
    fn versions() {
        assert_eq!(
            refused(b"GET / HTTP/2.0\r\nHost: a\r\n\r\n"),
            (505, "http_version_not_supported")
        );
        assert_eq!(refused(b"GET / HTTP/0.9\r\n\r\n").0, 505);
        assert_eq!(refused(b"GET / SPDY/3\r\n\r\n").0, 400);
        assert_eq!(refused(b"THIS IS NOT HTTP\r\n\r\n").0, 400);
        assert_eq!(refused(b"GET /\r\n\r\n").0, 400);
        assert_eq!(refused(b"GET http://x/ HTTP/1.1\r\nHost: a\r\n\r\n").0, 400);
        assert_eq!(refused(b"G(T / HTTP/1.1\r\nHost: a\r\n\r\n").0, 400);
    }

    #[test]
    fn line_endings() {
        assert_eq!(refused(b"GET / HTTP/1.1\nHost: a\n\n").0, 400);
        assert_eq!(refused(b"GET / HTTP/1.1\r\nHost: a\n\r\n").0, 400);
        // refused before the head is complete: no waiting for CRLF CRLF
        assert_eq!(refused(b"GET / HTTP/1.1\nHost: a\n").0, 400);
        assert_eq!(refused(b"GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n").0, 400);
        assert_eq!(
            refused(b"GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n").0,
            400
        );
        assert_eq!(refused(b"GET / HTTP/1.1\r\nHost a\r\n\r\n").0, 400);
        assert_eq!(refused(b"GET / HTTP/1.1\r\nHo st: a\r\n\r\n").0, 400);
        assert_eq!(refused(b"GET / HTTP/1.1\r\nHost: a\x01\r\n\r\n").0, 400);
        // LF in the body that follows the head is not the head's business
        ok("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n\n\n");
    }

    #[test]
    fn host() {
        assert_eq!(refused(b"GET / HTTP/1.1\r\n\r\n").0, 400);
        assert_eq!(
            refused(b"GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n").0,
            400
        );
    }

    #[test]
    fn content_length() {
        let h = ok("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\n");
        assert_eq!(h.body, BodyFraming::Length(12));
        let h = ok("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n");
        assert_eq!(
            h.body,
            BodyFraming::Length(5),
            "equal repeats are one length"
        );
        assert_eq!(
            refused(
                b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"
            ),
            (400, "bad_request")
        );
        assert_eq!(
            refused(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 6\r\n\r\n").0,
            400
        );
        assert_eq!(
            refused(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n").0,
            400
        );
        assert_eq!(
            refused(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n").0,
            400
        );
        assert_eq!(
            refused(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n")
                .0,
            400
        );
        let h = ok("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n");
        assert_eq!(h.body, BodyFraming::Chunked);
        assert_eq!(
            refused(b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n").0,
            400
        );
        assert_eq!(
            refused(b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"),
            (501, "not_implemented")
        );
    }

    #[test]
    fn expect() {
        let h =
            ok("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\n");
        assert!(h.expects_continue);
        assert_eq!(
            refused(b"GET / HTTP/1.1\r\nHost: a\r\nExpect: foo\r\n\r\n"),
            (417, "expectation_failed")
        );
    }

    #[test]
    fn header_values_are_opaque_bytes() {
        // issue 15.7: a UTF-8 (non-ASCII) header value ended in a 502 further on
        let h = parse(
            b"GET / HTTP/1.1\r\nHost: a\r\nUser-Agent: caf\xc3\xa9\r\nX-Latin: caf\xe9 \r\n\r\n",
            MAX,
        )
        .unwrap()
        .unwrap()
        .0;
        assert_eq!(h.header("user-agent"), Some("café"));
        assert_eq!(
            h.header("x-latin"),
            Some("caf\u{fffd}"),
            "not UTF-8: kept lossily"
        );
        // the request line and the names stay ASCII; control characters stay refused
        assert_eq!(
            refused(b"GET /caf\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n").0,
            400
        );
        assert_eq!(
            refused(b"GET / HTTP/1.1\r\nHost: a\r\nCaf\xc3\xa9: x\r\n\r\n").0,
            400
        );
        assert_eq!(
            refused(b"GET / HTTP/1.1\r\nHost: a\r\nX: \x0cb\r\n\r\n").0,
            400
        );
        assert_eq!(
            refused(b"GET / HTTP/1.1\r\nHost: a\r\nX: b\xc3\x7f\r\n\r\n").0,
            400
        );
        let h = ok("GET / HTTP/1.1\r\nHost: a\r\nX: \t \r\nY:\r\n\r\n");
        assert_eq!((h.header("x"), h.header("y")), (Some(""), Some("")));
    }

    #[test]
    fn random_heads_of_odd_bytes_parse_consistently() {
        // the fuzz target's invariants (fuzz/fuzz_targets/front_head.rs) over heads built
        // from pieces that matter: CR, LF, colons, blanks, non-ASCII and control bytes
        const PIECES: [&[u8]; 14] = [
            b"\r\n",
            b"\r",
            b"\n",
            b":",
            b" ",
            b"\t",
            b"Host: a",
            b"X",
            b"caf\xc3\xa9",
            b"\xe9",
            b"\xff",
            b"\x01",
            b"GET / HTTP/1.1\r\n",
            b"\r\n\r\n",
        ];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let mut buf = b"GET / HTTP/1.1\r\n".to_vec();
            for _ in 0..(next() % 12) {
                buf.extend_from_slice(PIECES[(next() % PIECES.len() as u64) as usize]);
            }
            buf.extend_from_slice(b"\r\n\r\n");
            if let Ok(Some((head, len))) = parse(&buf, MAX) {
                assert_eq!(parse_complete(&buf[..len]).ok(), Some(head.clone()));
                for (k, v) in &head.headers {
                    assert!(!k.is_empty() && k.is_ascii());
                    assert!(!k.contains(['\r', '\n']) && !v.contains(['\r', '\n']));
                }
            }
        }
    }

    #[test]
    fn never_panics_on_odd_bytes() {
        for text in [
            &b"\r\n\r\n"[..],
            b"\r\n",
            b" / HTTP/1.1\r\n\r\n",
            b"GET  / HTTP/1.1\r\n\r\n",
            b"\xff\xfe\r\n\r\n",
            b"GET / HTTP/1.1\r\n:\r\n\r\n",
            b"\n",
            b"\r",
        ] {
            let _ = parse(text, MAX);
            let _ = parse(text, 2);
        }
    }
}
