//! One client connection's HTTP/1.x exchange as a pure state machine, fed bytes and
//! time; the front door's loop does the I/O around it.
//!
//! ```text
//!            bytes                 head complete             body complete
//!  Idle ───────────────► Head ───────────────────► Body ───────────────────► Busy
//!   ▲  idle deadline:      │ head deadline: 408      │ body deadline: 408       │
//!   │  close silently      │ bad head: 4xx/505       │ too large: 413           │
//!   └──────────────────────┴─────────────────────────┴──── response_done ◄─────┘
//! ```
//!
//! A request leaves as [`Event::Request`] with its whole body (chunked bodies decoded),
//! and the machine waits in `Busy` until the response has been sent; bytes a client
//! sends meanwhile (pipelining) are kept, within the head limit, for the next round.
//! Every refusal is an [`Event::Refuse`] after which the connection closes.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::chunked::ChunkedDecoder;
use super::head::{self, BodyFraming, Progress, RequestHead};
use super::reply::Refusal;

/// Limits of one connection.
#[derive(Debug, Clone)]
pub struct SessionLimits {
    /// Largest request head.
    pub max_head: usize,
    /// Largest request body.
    pub max_body: usize,
    /// Time for a head to arrive, from its first byte (or from the connection's start).
    pub head_timeout: Duration,
    /// Time for a body to arrive, from the end of its head.
    pub body_timeout: Duration,
    /// How long a kept-alive connection may wait for its next request.
    pub idle_timeout: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            max_head: 16 * 1024,
            max_body: 64 * 1024,
            head_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(30),
        }
    }
}

/// A complete request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Its head.
    pub head: RequestHead,
    /// Its body (decoded when it was chunked).
    pub body: Vec<u8>,
}

/// What the connection must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Send `100 Continue` (the client waits for it before sending its body).
    Continue,
    /// Serve this request, then call [`Session::response_done`].
    Request(Request),
    /// Answer with this refusal and close.
    Refuse(Refusal),
    /// Close without a word (idle, or the client left between requests).
    Close,
}

#[derive(Debug)]
enum State {
    Idle {
        deadline: Instant,
    },
    Head {
        deadline: Instant,
        scanned: usize,
    },
    Body {
        head: RequestHead,
        body: Vec<u8>,
        framing: BodyState,
        deadline: Instant,
    },
    Busy,
    Closed,
}

#[derive(Debug)]
enum BodyState {
    Length(u64),
    Chunked(ChunkedDecoder),
}

/// See the module docs.
#[derive(Debug)]
pub struct Session {
    limits: SessionLimits,
    state: State,
    buf: Vec<u8>,
    events: VecDeque<Event>,
    /// The client closed its sending side.
    peer_done: bool,
    /// The next request waits (the connection's unsent output is too large).
    held: bool,
}

impl Session {
    /// A session for a connection that opened at `now`: its first head must arrive
    /// within the head timeout.
    pub fn new(limits: SessionLimits, now: Instant) -> Session {
        Session {
            state: State::Idle {
                deadline: now + limits.head_timeout,
            },
            limits,
            buf: Vec::new(),
            events: VecDeque::new(),
            peer_done: false,
            held: false,
        }
    }

    /// True while the connection should read from the client: never after its end of
    /// stream (a level-triggered poll would report that end again and again while a
    /// response is on its way).
    pub fn wants_input(&self) -> bool {
        match self.state {
            State::Closed => false,
            _ if self.held => false,
            State::Busy => !self.peer_done && self.buf.len() < self.limits.max_head,
            _ => !self.peer_done,
        }
    }

    /// Holds the next request back (`on`) or lets it start: the connection holds it
    /// while its client has not read enough of the answers so far (backpressure on
    /// pipelining). A held session reads nothing and has no deadline of its own.
    pub fn hold(&mut self, on: bool, now: Instant) {
        if self.held == on {
            return;
        }
        self.held = on;
        if !on {
            if let State::Idle { deadline } = &mut self.state {
                *deadline = now + self.limits.idle_timeout;
            }
            self.advance(now);
        }
    }

    /// True while the next request is held back.
    pub fn held(&self) -> bool {
        self.held
    }

    /// Bytes from the client.
    pub fn input(&mut self, data: &[u8], now: Instant) {
        if matches!(self.state, State::Closed) {
            return;
        }
        self.buf.extend_from_slice(data);
        self.advance(now);
    }

    /// The client closed its sending side (end of stream).
    pub fn peer_closed(&mut self, _now: Instant) {
        self.peer_done = true;
        match self.state {
            // the response to a request still goes out; then the connection closes
            State::Busy | State::Closed => {}
            _ => self.close(Event::Close),
        }
    }

    /// The response to the last request has been sent; `keep_alive` says whether the
    /// connection stays open for another.
    pub fn response_done(&mut self, keep_alive: bool, now: Instant) {
        if !matches!(self.state, State::Busy) {
            return;
        }
        if !keep_alive || self.peer_done && self.buf.is_empty() {
            self.close(Event::Close);
            return;
        }
        self.state = State::Idle {
            deadline: now + self.limits.idle_timeout,
        };
        self.advance(now);
    }

    /// The next thing to do.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When [`Session::handle_timeout`] must run next.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.held {
            return None;
        }
        match &self.state {
            State::Idle { deadline } | State::Head { deadline, .. } => Some(*deadline),
            State::Body { deadline, .. } => Some(*deadline),
            State::Busy | State::Closed => None,
        }
    }

    /// Deadlines: an idle connection closes silently, a late head or body gets 408.
    pub fn handle_timeout(&mut self, now: Instant) {
        match &self.state {
            State::Idle { deadline } if now >= *deadline => self.close(Event::Close),
            State::Head { deadline, .. } if now >= *deadline => {
                self.close(Event::Refuse(Refusal::new(
                    408,
                    "request_timeout",
                    format!(
                        "the request head did not arrive within {} s",
                        self.limits.head_timeout.as_secs_f32()
                    ),
                )))
            }
            State::Body { deadline, .. } if now >= *deadline => {
                self.close(Event::Refuse(Refusal::new(
                    408,
                    "request_timeout",
                    "the request body did not arrive in time; send the whole body at once",
                )))
            }
            _ => {}
        }
    }

    /// Takes the bytes received past the last request (for an upgraded connection).
    pub fn take_buffer(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }

    /// True once the session has ended.
    pub fn closed(&self) -> bool {
        matches!(self.state, State::Closed)
    }

    fn close(&mut self, why: Event) {
        self.state = State::Closed;
        self.buf = Vec::new();
        self.events.push_back(why);
    }

    fn advance(&mut self, now: Instant) {
        loop {
            match &mut self.state {
                State::Idle { .. } if self.held => return,
                State::Idle { .. } => {
                    // empty lines before a request line are ignored (RFC 9112 §2.2)
                    let blank = self.buf.chunks(2).take_while(|c| *c == b"\r\n").count();
                    self.buf.drain(..blank * 2);
                    if self.buf.is_empty() || self.buf == b"\r" {
                        return;
                    }
                    self.state = State::Head {
                        deadline: now + self.limits.head_timeout,
                        scanned: 0,
                    };
                }
                State::Head { scanned, .. } => {
                    match head::scan(&self.buf, *scanned, self.limits.max_head) {
                        Err(r) => return self.close(Event::Refuse(r)),
                        Ok(Progress::Incomplete) => {
                            *scanned = self.buf.len();
                            return;
                        }
                        Ok(Progress::Complete(len)) => {
                            let parsed = head::parse_complete(&self.buf[..len]);
                            self.buf.drain(..len);
                            match parsed {
                                Ok(h) => self.start_body(h, now),
                                Err(r) => return self.close(Event::Refuse(r)),
                            }
                        }
                    }
                }
                State::Body { .. } => {
                    if !self.take_body() {
                        return;
                    }
                }
                State::Busy | State::Closed => return,
            }
        }
    }

    fn start_body(&mut self, head: RequestHead, now: Instant) {
        let framing = match head.body {
            BodyFraming::None => {
                self.state = State::Busy;
                self.events.push_back(Event::Request(Request {
                    head,
                    body: Vec::new(),
                }));
                return;
            }
            BodyFraming::Length(n) if n > self.limits.max_body as u64 => {
                return self.close(Event::Refuse(too_large(n, self.limits.max_body)));
            }
            BodyFraming::Length(n) => BodyState::Length(n),
            BodyFraming::Chunked => BodyState::Chunked(ChunkedDecoder::default()),
        };
        if head.expects_continue && self.buf.is_empty() {
            self.events.push_back(Event::Continue);
        }
        self.state = State::Body {
            head,
            body: Vec::new(),
            framing,
            deadline: now + self.limits.body_timeout,
        };
    }

    /// Moves body bytes from the buffer; true when the request is complete (or refused).
    fn take_body(&mut self) -> bool {
        let max = self.limits.max_body;
        let State::Body { body, framing, .. } = &mut self.state else {
            return false;
        };
        let complete = match framing {
            BodyState::Length(left) => {
                let n = (*left).min(self.buf.len() as u64) as usize;
                body.extend(self.buf.drain(..n));
                *left -= n as u64;
                *left == 0
            }
            BodyState::Chunked(dec) => match dec.feed(&self.buf, Some(body)) {
                Ok(used) => {
                    self.buf.drain(..used);
                    if body.len() > max {
                        let n = body.len() as u64;
                        self.close(Event::Refuse(too_large(n, max)));
                        return true;
                    }
                    dec.done()
                }
                Err(r) => {
                    self.close(Event::Refuse(r));
                    return true;
                }
            },
        };
        if !complete {
            return false;
        }
        let State::Body { head, body, .. } = std::mem::replace(&mut self.state, State::Busy) else {
            return false;
        };
        self.events
            .push_back(Event::Request(Request { head, body }));
        true
    }
}

fn too_large(n: u64, max: usize) -> Refusal {
    Refusal::new(
        413,
        "request_too_large",
        format!("the body is {n} bytes or more; the limit is {max}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> (Session, Instant) {
        let now = Instant::now();
        (Session::new(SessionLimits::default(), now), now)
    }

    fn events(s: &mut Session) -> Vec<Event> {
        std::iter::from_fn(|| s.poll_event()).collect()
    }

    fn request(e: &Event) -> &Request {
        match e {
            Event::Request(r) => r,
            other => panic!("not a request: {other:?}"),
        }
    }

    fn refusal(e: &[Event]) -> (u16, &'static str) {
        match e {
            [Event::Refuse(r)] => (r.status, r.code),
            other => panic!("not one refusal: {other:?}"),
        }
    }

    #[test]
    fn keep_alive_and_pipelining() {
        let (mut s, now) = session();
        s.input(
            b"\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nab",
            now,
        );
        let e = events(&mut s);
        assert_eq!(e.len(), 1, "one request at a time: {e:?}");
        assert_eq!(request(&e[0]).head.target, "/a");
        assert!(s.wants_input());
        s.response_done(true, now);
        assert!(events(&mut s).is_empty(), "the body is not complete");
        s.input(b"c", now);
        let e = events(&mut s);
        assert_eq!(request(&e[0]).body, b"abc");
        s.response_done(true, now);
        assert_eq!(s.poll_timeout(), Some(now + Duration::from_secs(30)));
        s.handle_timeout(now + Duration::from_secs(31));
        assert_eq!(events(&mut s), vec![Event::Close], "idle: closed silently");
    }

    #[test]
    fn chunked_bodies_and_continue() {
        let (mut s, now) = session();
        s.input(
            b"POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n",
            now,
        );
        assert_eq!(events(&mut s), vec![Event::Continue]);
        s.input(b"3\r\n{}\n\r\n0\r\n\r\n", now);
        let e = events(&mut s);
        assert_eq!(request(&e[0]).body, b"{}\n");
    }

    #[test]
    fn refusals() {
        let (mut s, now) = session();
        s.input(
            b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n\r\n",
            now,
        );
        assert_eq!(refusal(&events(&mut s)), (413, "request_too_large"));
        assert!(!s.wants_input() && s.closed());
        let (mut s, now) = session();
        s.input(
            b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
            now,
        );
        for _ in 0..20 {
            s.input(b"1000\r\n", now);
            s.input(&[b'a'; 4096], now);
            s.input(b"\r\n", now);
        }
        assert_eq!(refusal(&events(&mut s)), (413, "request_too_large"));
        let (mut s, now) = session();
        s.input(b"GET / HTTP/1.1\r\nHost: x\r\nX: y", now);
        s.handle_timeout(now + Duration::from_secs(11));
        assert_eq!(refusal(&events(&mut s)), (408, "request_timeout"));
        let (mut s, now) = session();
        s.input(
            b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n{",
            now,
        );
        s.handle_timeout(now + Duration::from_secs(31));
        assert_eq!(refusal(&events(&mut s)), (408, "request_timeout"));
    }

    #[test]
    fn a_trickled_head_costs_one_scan() {
        let (mut s, now) = session();
        let head = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n\r\n";
        for b in head {
            s.input(&[*b], now);
        }
        let e = events(&mut s);
        assert_eq!(request(&e[0]).head.header("x-slow"), Some("1"));
    }

    #[test]
    fn the_client_leaving() {
        let (mut s, now) = session();
        s.input(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", now);
        s.peer_closed(now);
        assert!(matches!(events(&mut s)[..], [Event::Request(_)]));
        s.response_done(true, now);
        assert_eq!(events(&mut s), vec![Event::Close], "answered, then closed");
        let (mut s, now) = session();
        s.input(b"GET / HT", now);
        s.peer_closed(now);
        assert_eq!(events(&mut s), vec![Event::Close]);
    }

    #[test]
    fn no_input_is_wanted_after_the_end_of_stream_while_a_request_is_served() {
        // review: wants_input stayed true in Busy after EOF, so poll woke the loop on
        // the EOF again and again until the response came (up to 60 s of a busy core)
        let (mut s, now) = session();
        s.input(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", now);
        assert!(matches!(events(&mut s)[..], [Event::Request(_)]));
        assert!(s.wants_input(), "pipelined requests may follow");
        s.peer_closed(now);
        assert!(!s.wants_input());
        s.response_done(true, now);
        assert_eq!(events(&mut s), vec![Event::Close]);
    }

    #[test]
    fn a_held_session_starts_no_request_until_released() {
        let (mut s, now) = session();
        s.input(
            b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n",
            now,
        );
        assert_eq!(request(&events(&mut s)[0]).head.target, "/a");
        s.hold(true, now);
        s.response_done(true, now);
        assert!(events(&mut s).is_empty(), "/b waits");
        assert!(!s.wants_input() && s.poll_timeout().is_none());
        let later = now + Duration::from_secs(100);
        s.hold(false, later);
        assert_eq!(request(&events(&mut s)[0]).head.target, "/b");
        s.response_done(true, later);
        assert_eq!(s.poll_timeout(), Some(later + Duration::from_secs(30)));
    }

    #[test]
    fn upgrades_keep_what_followed_the_head() {
        let (mut s, now) = session();
        s.input(b"GET /ws HTTP/1.1\r\nHost: x\r\n\r\n\x81\x80", now);
        assert!(matches!(events(&mut s)[..], [Event::Request(_)]));
        assert_eq!(s.take_buffer(), b"\x81\x80");
    }
}
