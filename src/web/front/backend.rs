//! The way to tiny_http: checked requests go to it over a few kept-alive connections on
//! an internal loopback listener, one request at a time per connection, and its
//! responses come back through [`ResponseReader`], which finds where each ends and
//! sets the `Connection` header the client should see.
//!
//! Requests are rebuilt from the checked head, not copied: hop-by-hop headers go,
//! the body (already complete, chunked ones decoded) gets its `Content-Length`, and an
//! internal header carries a per-process secret, so that tiny_http serves only what
//! came through the front door. Header values that are not ASCII are left out: tiny_http
//! reads only ASCII header lines (it drops the connection on anything else), and the
//! headers the REST routes read (`Authorization`, `Content-Type`, `Accept-Encoding`,
//! `If-None-Match`) have ASCII values when valid.

use std::collections::VecDeque;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use super::chunked::ChunkedDecoder;
use super::session::Request;

/// The internal header that marks a request as checked by the front door.
pub const FRONT_HEADER: &str = "X-Rigweb-Front";
/// The internal header with the client's address.
pub const PEER_HEADER: &str = "X-Rigweb-Peer";
/// Largest response head accepted from tiny_http.
const MAX_RESPONSE_HEAD: usize = 64 * 1024;

/// Headers that are not passed on to tiny_http.
const HOP_BY_HOP: [&str; 10] = [
    "connection",
    "keep-alive",
    "content-length",
    "transfer-encoding",
    "te",
    "expect",
    "upgrade",
    "proxy-connection",
    "x-rigweb-front",
    "x-rigweb-peer",
];

/// The bytes of `req` as tiny_http gets them.
pub fn encode_request(req: &Request, secret: &str, peer: SocketAddr) -> Vec<u8> {
    let mut head = format!("{} {} HTTP/1.1\r\n", req.head.method, req.head.target);
    for (k, v) in &req.head.headers {
        if !HOP_BY_HOP.iter().any(|h| k.eq_ignore_ascii_case(h)) && v.is_ascii() {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    if !req.body.is_empty() || req.head.method == "POST" || req.head.method == "PUT" {
        head.push_str(&format!("Content-Length: {}\r\n", req.body.len()));
    }
    head.push_str(&format!(
        "{FRONT_HEADER}: {secret}\r\n{PEER_HEADER}: {peer}\r\n\r\n"
    ));
    let mut out = head.into_bytes();
    out.extend_from_slice(&req.body);
    out
}

/// Why a response could not be relayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadResponse(pub String);

#[derive(Debug)]
enum Body {
    Length(u64),
    Chunked(ChunkedDecoder),
    Done,
}

/// Reads one response of tiny_http, incrementally; see the module docs.
#[derive(Debug)]
pub struct ResponseReader {
    head_only: bool,
    close: bool,
    head: Vec<u8>,
    body: Option<Body>,
}

impl ResponseReader {
    /// A reader for the response to a request (`head_only`: a HEAD request, whose
    /// response has no body); `close` marks the response as the connection's last.
    pub fn new(head_only: bool, close: bool) -> ResponseReader {
        ResponseReader {
            head_only,
            close,
            head: Vec::new(),
            body: None,
        }
    }

    /// True once anything of the response has gone to the client (its head).
    pub fn started(&self) -> bool {
        self.body.is_some()
    }

    /// True once the whole response has been read.
    pub fn done(&self) -> bool {
        matches!(self.body, Some(Body::Done))
    }

    /// Takes bytes from tiny_http; appends what goes to the client to `out`. Returns
    /// how many bytes of `input` belong to this response.
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<usize, BadResponse> {
        let mut used = 0;
        if self.body.is_none() {
            let before = self.head.len();
            self.head.extend_from_slice(input);
            let Some(end) = super::head::head_end_crlf(&self.head) else {
                if self.head.len() > MAX_RESPONSE_HEAD {
                    return Err(BadResponse("response head too large".into()));
                }
                return Ok(input.len());
            };
            used = end - before;
            self.head.truncate(end);
            let (rewritten, body) = self.rewrite_head()?;
            out.extend_from_slice(&rewritten);
            self.body = Some(body);
        }
        let rest = &input[used..];
        let n = match self.body.as_mut() {
            Some(Body::Length(left)) => {
                let n = (*left).min(rest.len() as u64) as usize;
                *left -= n as u64;
                if *left == 0 {
                    self.body = Some(Body::Done);
                }
                n
            }
            Some(Body::Chunked(dec)) => {
                let n = dec
                    .feed(rest, None)
                    .map_err(|r| BadResponse(format!("bad chunked response: {}", r.message)))?;
                if dec.done() {
                    self.body = Some(Body::Done);
                }
                n
            }
            Some(Body::Done) | None => 0,
        };
        out.extend_from_slice(&rest[..n]);
        Ok(used + n)
    }

    fn rewrite_head(&self) -> Result<(Vec<u8>, Body), BadResponse> {
        let text = std::str::from_utf8(&self.head)
            .map_err(|_| BadResponse("response head is not UTF-8".into()))?;
        let mut lines = text.trim_end_matches("\r\n").split("\r\n");
        let status_line = lines.next().unwrap_or("");
        let status: u16 = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| BadResponse(format!("bad status line {status_line:?}")))?;
        let mut out = format!("{status_line}\r\n");
        let mut length = None;
        let mut chunked = false;
        for line in lines {
            let (k, v) = line.split_once(':').unwrap_or((line, ""));
            let v = v.trim();
            if k.eq_ignore_ascii_case("connection") || k.eq_ignore_ascii_case("keep-alive") {
                continue;
            }
            if k.eq_ignore_ascii_case("content-length") {
                length = Some(
                    v.parse::<u64>()
                        .map_err(|_| BadResponse(format!("bad Content-Length {v:?}")))?,
                );
            }
            if k.eq_ignore_ascii_case("transfer-encoding") {
                chunked = v.to_ascii_lowercase().contains("chunked");
            }
            out.push_str(line);
            out.push_str("\r\n");
        }
        if self.close {
            out.push_str("Connection: close\r\n");
        }
        out.push_str("\r\n");
        let no_body = self.head_only || status < 200 || status == 204 || status == 304;
        let body = match (no_body, chunked, length) {
            (true, _, _) => Body::Done,
            (false, true, _) => Body::Chunked(ChunkedDecoder::default()),
            (false, false, Some(0)) => Body::Done,
            (false, false, Some(n)) => Body::Length(n),
            (false, false, None) => {
                return Err(BadResponse("response without a length".into()));
            }
        };
        Ok((out.into_bytes(), body))
    }
}

/// Who waits for a backend response: a client key and its generation (a slot reused
/// by a newer client has another).
pub type ClientRef = (usize, u64);

/// A request waiting for a connection to tiny_http.
#[derive(Debug)]
pub struct Job {
    /// The client that sent it (`None` once it left).
    pub client: Option<ClientRef>,
    /// The request as tiny_http gets it.
    pub bytes: Vec<u8>,
    /// The response's reader.
    pub reader: ResponseReader,
}

/// A request in flight on a backend connection.
#[derive(Debug)]
pub struct InFlight {
    /// The job.
    pub job: Job,
    /// Bytes of the request already written.
    pub written: usize,
    /// When to give up on tiny_http (504).
    pub deadline: Instant,
}

/// One kept-alive connection to tiny_http.
#[derive(Debug)]
pub struct BackendConn {
    /// Its id, stable while it lives (positions in [`Backend::conns`] shift when a
    /// connection is removed).
    pub id: u64,
    /// The socket (non-blocking).
    pub stream: TcpStream,
    /// The request it carries, if any.
    pub busy: Option<InFlight>,
}

/// What came of driving a backend connection.
#[derive(Debug)]
pub enum Progress {
    /// Nothing finished.
    Pending,
    /// The response is complete (the connection is free again).
    Done(Job),
    /// The connection failed; the job (if any) has no complete response.
    Failed(Option<Job>, String),
}

impl BackendConn {
    /// Connects to tiny_http at `addr`; `id` names the connection.
    pub fn connect(addr: SocketAddr, id: u64) -> io::Result<BackendConn> {
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
        stream.set_nodelay(true)?;
        stream.set_nonblocking(true)?;
        Ok(BackendConn {
            id,
            stream,
            busy: None,
        })
    }

    /// True while request bytes wait for the socket.
    pub fn wants_write(&self) -> bool {
        self.busy
            .as_ref()
            .is_some_and(|b| b.written < b.job.bytes.len())
    }

    /// Writes what it can of the request, then reads what it can of the response,
    /// appending bytes for the client to `out` while `out` is shorter than `limit` (the
    /// rest waits in the socket: backpressure from a client that does not read).
    pub fn drive(&mut self, out: &mut Vec<u8>, limit: usize) -> Progress {
        let Some(b) = self.busy.as_mut() else {
            // an idle connection that turns readable was closed by tiny_http
            let mut probe = [0u8; 64];
            return match self.stream.read(&mut probe) {
                Err(e) if e.kind() == ErrorKind::WouldBlock => Progress::Pending,
                _ => Progress::Failed(None, "closed while idle".into()),
            };
        };
        while b.written < b.job.bytes.len() {
            match self.stream.write(&b.job.bytes[b.written..]) {
                Ok(0) => return self.fail("write returned 0"),
                Ok(n) => b.written += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return self.fail(&e.to_string()),
            }
        }
        let mut buf = [0u8; 16 * 1024];
        loop {
            let Some(b) = self.busy.as_mut() else {
                return Progress::Pending;
            };
            if out.len() >= limit {
                return Progress::Pending;
            }
            match self.stream.read(&mut buf) {
                Ok(0) => return self.fail("tiny_http closed the connection"),
                Ok(n) => match b.job.reader.feed(&buf[..n], out) {
                    Ok(used) if b.job.reader.done() => {
                        if used < n {
                            return self.fail("response longer than announced");
                        }
                        let done = self.busy.take().map(|b| b.job);
                        return done.map_or(Progress::Pending, Progress::Done);
                    }
                    Ok(_) => {}
                    Err(e) => return self.fail(&e.0),
                },
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Progress::Pending,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return self.fail(&e.to_string()),
            }
        }
    }

    fn fail(&mut self, why: &str) -> Progress {
        Progress::Failed(self.busy.take().map(|b| b.job), why.to_string())
    }
}

/// The connections to tiny_http and the requests waiting for one.
#[derive(Debug)]
pub struct Backend {
    /// tiny_http's internal address.
    pub addr: SocketAddr,
    /// The secret of [`FRONT_HEADER`].
    pub secret: String,
    /// Open connections.
    pub conns: Vec<BackendConn>,
    /// Requests waiting for a free connection.
    pub queue: VecDeque<Job>,
    /// Most connections.
    pub max_conns: usize,
    /// Time tiny_http has for a response.
    pub timeout: Duration,
    /// The id of the next connection.
    pub next_id: u64,
}

impl Backend {
    /// Where the connection `id` is in [`Backend::conns`] (`None` once it is gone).
    pub fn position(&self, id: u64) -> Option<usize> {
        self.conns.iter().position(|c| c.id == id)
    }

    /// True if a waiting request could start now (a connection is free, or another may
    /// be opened).
    pub fn has_room(&self) -> bool {
        self.conns.len() < self.max_conns || self.conns.iter().any(|c| c.busy.is_none())
    }

    /// The ids of the connections with request bytes to write.
    pub fn writers(&self) -> Vec<u64> {
        self.conns
            .iter()
            .filter(|c| c.wants_write())
            .map(|c| c.id)
            .collect()
    }

    /// Starts the next waiting jobs on free connections (opening new ones up to the
    /// maximum). Returns the jobs that could not get a connection at all.
    pub fn dispatch(&mut self, now: Instant) -> Vec<(Job, String)> {
        let mut failed = Vec::new();
        while let Some(job) = self.queue.pop_front() {
            let free = self.conns.iter().position(|c| c.busy.is_none());
            let idx = match free {
                Some(i) => i,
                None if self.conns.len() < self.max_conns => {
                    self.next_id += 1;
                    match BackendConn::connect(self.addr, self.next_id) {
                        Ok(c) => {
                            self.conns.push(c);
                            self.conns.len() - 1
                        }
                        Err(e) => {
                            failed.push((job, format!("cannot reach tiny_http: {e}")));
                            continue;
                        }
                    }
                }
                None => {
                    self.queue.push_front(job);
                    break;
                }
            };
            self.conns[idx].busy = Some(InFlight {
                job,
                written: 0,
                deadline: now + self.timeout,
            });
        }
        failed
    }

    /// The earliest response deadline.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.conns
            .iter()
            .filter_map(|c| c.busy.as_ref().map(|b| b.deadline))
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::front::head::{BodyFraming, RequestHead, Version};

    #[test]
    fn requests_are_rebuilt_without_hop_by_hop_headers_or_non_ascii_values() {
        // issue 15.7: tiny_http drops a connection whose head is not ASCII (a 502)
        let req = Request {
            head: RequestHead {
                method: "POST".into(),
                target: "/api/v1/radio/power".into(),
                version: Version::Http10,
                headers: vec![
                    ("Host".into(), "x".into()),
                    ("Transfer-Encoding".into(), "chunked".into()),
                    ("X-Rigweb-Front".into(), "forged".into()),
                    ("Connection".into(), "keep-alive".into()),
                    ("User-Agent".into(), "café".into()),
                    ("Content-Type".into(), "application/json".into()),
                ],
                body: BodyFraming::Chunked,
                expects_continue: false,
            },
            body: b"{}".to_vec(),
        };
        let peer: SocketAddr = "127.0.0.1:5".parse().unwrap();
        let text = String::from_utf8(encode_request(&req, "s3", peer)).unwrap();
        assert_eq!(
            text,
            "POST /api/v1/radio/power HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Content-Length: 2\r\nX-Rigweb-Front: s3\r\nX-Rigweb-Peer: 127.0.0.1:5\r\n\r\n{}"
        );
    }

    #[test]
    fn responses_end_where_their_length_says() {
        let resp =
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\nhelloHTTP/1.1";
        for piece in [1, 3, resp.len()] {
            let mut r = ResponseReader::new(false, true);
            let mut out = Vec::new();
            let mut used = 0;
            for chunk in resp.chunks(piece) {
                used += r.feed(chunk, &mut out).unwrap();
                if r.done() {
                    break;
                }
            }
            assert!(r.done());
            assert_eq!(used, resp.len() - 8);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
            );
        }
        let mut head = ResponseReader::new(true, false);
        let mut out = Vec::new();
        head.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", &mut out)
            .unwrap();
        assert!(head.done(), "HEAD: no body");
        let mut not_modified = ResponseReader::new(false, false);
        not_modified
            .feed(
                b"HTTP/1.1 304 Not Modified\r\nETag: \"1\"\r\n\r\n",
                &mut out,
            )
            .unwrap();
        assert!(not_modified.done());
        let mut chunked = ResponseReader::new(false, false);
        let mut out = Vec::new();
        chunked
            .feed(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
                &mut out,
            )
            .unwrap();
        assert!(chunked.done());
        assert!(out.ends_with(b"2\r\nok\r\n0\r\n\r\n"));
        assert!(
            ResponseReader::new(false, false)
                .feed(b"HTTP/1.1 200 OK\r\n\r\n", &mut out)
                .is_err()
        );
    }
}
