//! The cluster session as a sans-IO machine: fed the node's bytes and the time, it says
//! when to connect, what to write and when to give up; the thread around it
//! (`client.rs`) only moves bytes.
//!
//! ```text
//!            connect due           TCP up                 prompt seen (or 10 s of silence: once)
//!  Waiting ──────────────► Connecting ─────► AwaitingPrompt ─────────────────────► LoggedIn
//!     ▲                        │ failed          │ closed                              │ closed / silent 5 min
//!     └──── backoff 1 s .. 5 min ◄───────────────┴─────────────────────────────────────┘
//! ```
//!
//! Facts from the cluster programs: never write before the node prompts (some AR-Cluster
//! and CC-Cluster nodes drop a client that sends unasked); DXSpider prompts `login: `
//! without a newline, AR/CC banners end in "enter your call" (`Please enter your call: `
//! on RBN); answer `password:` when a password is configured. After login a `\r\n`
//! heartbeat goes out after 60 s without a byte from the node.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::line::LineSplitter;
use super::spot::{SpotLine, decode, parse_spot};
use crate::util::Secret;

/// Timers and credentials of a session.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// Our call sign, sent at the login prompt.
    pub callsign: String,
    /// The answer to a `password:` prompt.
    pub password: Option<Secret>,
    /// A node that never prompts gets the call once after this long.
    pub prompt_timeout: Duration,
    /// A heartbeat goes out after this long without a byte from the node.
    pub heartbeat_after: Duration,
    /// The connection is given up after this long without a byte.
    pub dead_after: Duration,
    /// First reconnect delay.
    pub backoff_min: Duration,
    /// Longest reconnect delay.
    pub backoff_max: Duration,
    /// A session logged in this long resets the backoff.
    pub stable_after: Duration,
}

impl SessionConfig {
    /// The timers of the issue: 10 s prompt wait, 60 s heartbeat, backoff 1 s .. 5 min.
    pub fn new(callsign: &str, password: Option<Secret>) -> SessionConfig {
        SessionConfig {
            callsign: callsign.to_string(),
            password,
            prompt_timeout: Duration::from_secs(10),
            heartbeat_after: Duration::from_secs(60),
            dead_after: Duration::from_secs(300),
            backoff_min: Duration::from_secs(1),
            backoff_max: Duration::from_secs(300),
            stable_after: Duration::from_secs(60),
        }
    }
}

/// What the thread must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Open the TCP connection (then call [`Session::on_connected`] or
    /// [`Session::on_connect_failed`]).
    Connect,
    /// Write these bytes.
    Write(Vec<u8>),
    /// Close the connection (then call [`Session::on_closed`]).
    Close,
}

/// What the session learnt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A spot line.
    Spot(SpotLine),
    /// The call was sent: the session is up.
    LoggedIn,
    /// The node named itself (`<ourcall> de <NODE> ... >` prompt lines).
    Node(String),
}

/// How long after the call a `password:` prompt is answered.
const PASSWORD_WINDOW: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Waiting { connect_at: Instant },
    Connecting,
    AwaitingPrompt { since: Instant },
    LoggedIn { since: Instant },
}

/// What a prompt asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prompt {
    Call,
    Password,
}

/// See the module docs.
#[derive(Debug)]
pub struct Session {
    cfg: SessionConfig,
    phase: Phase,
    lines: LineSplitter,
    actions: VecDeque<Action>,
    events: VecDeque<Event>,
    backoff: Duration,
    last_rx: Instant,
    last_heartbeat: Option<Instant>,
    password_sent: bool,
    /// A `password:` prompt is answered only this soon after the call went out (never
    /// to a talk line ending in "password:" later on).
    password_until: Option<Instant>,
    error: Option<String>,
    closing: bool,
}

impl Session {
    /// A session that connects at once.
    pub fn new(cfg: SessionConfig, now: Instant) -> Session {
        let backoff = cfg.backoff_min;
        Session {
            cfg,
            phase: Phase::Waiting { connect_at: now },
            lines: LineSplitter::default(),
            actions: VecDeque::new(),
            events: VecDeque::new(),
            backoff,
            last_rx: now,
            last_heartbeat: None,
            password_sent: false,
            password_until: None,
            error: None,
            closing: false,
        }
    }

    /// True once the call was sent on the current connection.
    pub fn logged_in(&self) -> bool {
        matches!(self.phase, Phase::LoggedIn { .. })
    }

    /// True while a TCP connection is up (or being opened).
    pub fn connected(&self) -> bool {
        matches!(
            self.phase,
            Phase::AwaitingPrompt { .. } | Phase::LoggedIn { .. }
        )
    }

    /// Why the last connection failed or ended, if it did.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Lines dropped for being too long.
    pub fn dropped_lines(&self) -> u64 {
        self.lines.dropped()
    }

    /// The next thing to do.
    pub fn poll_action(&mut self, now: Instant) -> Option<Action> {
        self.handle_timeout(now);
        if let Some(a) = self.actions.pop_front() {
            return Some(a);
        }
        match self.phase {
            Phase::Waiting { connect_at } if now >= connect_at => {
                self.phase = Phase::Connecting;
                Some(Action::Connect)
            }
            _ => None,
        }
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When the session next needs [`Session::poll_action`] without new bytes.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if !self.actions.is_empty() {
            // due at once: any instant in the past will do
            return Some(self.last_rx);
        }
        match self.phase {
            Phase::Waiting { connect_at } => Some(connect_at),
            Phase::Connecting => None,
            Phase::AwaitingPrompt { since } => {
                let prompt = since + self.cfg.prompt_timeout;
                Some(prompt.min(self.last_rx + self.cfg.dead_after))
            }
            Phase::LoggedIn { .. } => {
                let beat = self
                    .last_heartbeat
                    .map_or(self.last_rx, |h| h.max(self.last_rx))
                    + self.cfg.heartbeat_after;
                Some(beat.min(self.last_rx + self.cfg.dead_after))
            }
        }
    }

    /// The TCP connection is up.
    pub fn on_connected(&mut self, now: Instant) {
        self.phase = Phase::AwaitingPrompt { since: now };
        self.lines = LineSplitter::default();
        self.last_rx = now;
        self.last_heartbeat = None;
        self.password_sent = false;
        self.password_until = None;
        self.closing = false;
        self.actions.clear();
    }

    /// The connection could not be opened.
    pub fn on_connect_failed(&mut self, now: Instant, why: &str) {
        self.error = Some(format!("connecting failed: {why}"));
        self.retry_later(now);
    }

    /// The connection ended (closed by either side, or an I/O error).
    pub fn on_closed(&mut self, now: Instant, why: &str) {
        if let Phase::LoggedIn { since } = self.phase
            && now.saturating_duration_since(since) >= self.cfg.stable_after
        {
            self.backoff = self.cfg.backoff_min;
        }
        if !self.closing || self.error.is_none() {
            self.error = Some(why.to_string());
        }
        self.actions.clear();
        self.retry_later(now);
    }

    fn retry_later(&mut self, now: Instant) {
        self.phase = Phase::Waiting {
            connect_at: now + self.backoff,
        };
        self.backoff = (self.backoff * 2).min(self.cfg.backoff_max);
        self.closing = false;
    }

    /// Bytes from the node.
    pub fn on_data(&mut self, bytes: &[u8], now: Instant) {
        if !self.connected() || self.closing {
            return;
        }
        self.last_rx = now;
        let mut lines = Vec::new();
        self.lines
            .push(bytes, |l| lines.push(decode(l).into_owned()));
        for line in &lines {
            self.on_line(line, now);
        }
        let password_due = self.password_until.is_some_and(|t| now <= t) && !self.password_sent;
        if matches!(self.phase, Phase::AwaitingPrompt { .. }) || password_due {
            let pending = decode(self.lines.pending()).into_owned();
            if let Some(p) = prompt_in(&pending) {
                self.lines.clear_pending();
                self.answer(p, now);
            }
        }
    }

    fn on_line(&mut self, line: &str, now: Instant) {
        if let Phase::LoggedIn { .. } = self.phase {
            if let Some(spot) = parse_spot(line) {
                self.events.push_back(Event::Spot(spot));
                return;
            }
            if let Some(node) = node_in_prompt(line, &self.cfg.callsign) {
                self.events.push_back(Event::Node(node));
            }
        }
        if let Some(p) = prompt_in(line) {
            self.answer(p, now);
        }
    }

    fn answer(&mut self, prompt: Prompt, now: Instant) {
        match (prompt, self.phase) {
            (Prompt::Call, Phase::AwaitingPrompt { .. }) => self.send_call(now),
            (Prompt::Password, _)
                if self.password_sent || self.password_until.is_none_or(|t| now > t) => {}
            (Prompt::Password, _) => match &self.cfg.password {
                Some(p) => {
                    let mut bytes = p.expose().as_bytes().to_vec();
                    bytes.extend_from_slice(b"\r\n");
                    self.actions.push_back(Action::Write(bytes));
                    self.password_sent = true;
                }
                None => {
                    self.error = Some(
                        "the node asks for a password: give --dx-cluster-password-file".into(),
                    );
                    self.closing = true;
                    self.actions.push_back(Action::Close);
                }
            },
            _ => {}
        }
    }

    fn send_call(&mut self, now: Instant) {
        let mut bytes = self.cfg.callsign.as_bytes().to_vec();
        bytes.extend_from_slice(b"\r\n");
        self.actions.push_back(Action::Write(bytes));
        self.phase = Phase::LoggedIn { since: now };
        self.password_until = Some(now + PASSWORD_WINDOW);
        self.error = None;
        self.events.push_back(Event::LoggedIn);
    }

    fn handle_timeout(&mut self, now: Instant) {
        match self.phase {
            Phase::AwaitingPrompt { since } if now >= since + self.cfg.prompt_timeout => {
                // a node that never prompts: the call once, then wait
                self.send_call(now);
            }
            Phase::LoggedIn { .. } => {
                let beat_from = self
                    .last_heartbeat
                    .map_or(self.last_rx, |h| h.max(self.last_rx));
                if now >= self.last_rx + self.cfg.dead_after && !self.closing {
                    self.error = Some(format!(
                        "nothing from the node for {} s",
                        self.cfg.dead_after.as_secs()
                    ));
                    self.closing = true;
                    self.actions.push_back(Action::Close);
                } else if now >= beat_from + self.cfg.heartbeat_after && !self.closing {
                    self.last_heartbeat = Some(now);
                    self.actions.push_back(Action::Write(b"\r\n".to_vec()));
                }
            }
            _ => {}
        }
    }
}

/// The prompt `text` ends with, if any.
fn prompt_in(text: &str) -> Option<Prompt> {
    let t = text.trim_end().to_ascii_lowercase();
    if t.ends_with("password:") {
        return Some(Prompt::Password);
    }
    let asks_call = t.ends_with("login:")
        || t.ends_with("call:")
        || t.ends_with("callsign:")
        || t.ends_with("call?")
        || t.contains("enter your call");
    asks_call.then_some(Prompt::Call)
}

/// `G0ABC de GB7DJK 21-Mar-2024 1530Z dxspider >` names the node `GB7DJK`.
fn node_in_prompt(line: &str, callsign: &str) -> Option<String> {
    let mut words = line.split_whitespace();
    let first = words.next()?;
    if !first.eq_ignore_ascii_case(callsign) || words.next()? != "de" {
        return None;
    }
    let node = words.next()?;
    (line.trim_end().ends_with('>')
        && node.len() <= 16
        && node.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
    .then(|| node.to_string())
}

#[cfg(test)]
mod tests;
