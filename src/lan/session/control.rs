//! The client's control-port session, sans-IO (spec §2): discovery, login, token ack,
//! capabilities / radio conninfo (GUID echo), the stream request with codecs and
//! local ports, status (with error / civ-port-0 / disc handling), token renewal and a
//! clean logout (token remove + DISCONNECT).

use std::time::{Duration, Instant};

use super::discovery::DiscoveryConfig;
use super::port::{PortSession, Step};
use super::stream::{StreamConfig, StreamStats};
use crate::wire::lan::{
    self, LoginRepr, Packet, Port, StreamRequestRepr, TokenRepr, codec, credentials, mac_form_guid,
    ptype, token_kind,
};

/// Settings of the control session.
#[derive(Debug, Clone)]
pub struct ControlConfig {
    /// Radio user name.
    pub user: String,
    /// Radio password.
    pub password: crate::util::Secret,
    /// Name the radio shows for this client.
    pub computer_name: String,
    /// RX codec byte asked for.
    pub rx_codec: u8,
    /// TX codec byte asked for (mono).
    pub tx_codec: u8,
    /// Audio sample rate, Hz.
    pub sample_rate: u32,
    /// TX buffer, ms.
    pub tx_buffer_ms: u32,
    /// Discovery timing.
    pub discovery: DiscoveryConfig,
    /// Longest wait for the login response.
    pub login_timeout: Duration,
    /// A login not answered for this long is sent again, as a new login with a new
    /// request id: a lost first login leaves no gap the radio could ask to be resent
    /// (its receive window starts at the first seq it sees, spec §1.8).
    pub login_resend: Duration,
    /// Longest wait for the radio's conninfo after the token ack.
    pub conninfo_wait: Duration,
    /// Longest wait for a status after a stream request.
    pub status_timeout: Duration,
    /// Pause before asking again when the radio still holds a previous session.
    pub held_retry_delay: Duration,
    /// How many times to ask again before giving up.
    pub held_retries: u32,
    /// Token renewal period.
    pub token_renewal: Duration,
}

impl Default for ControlConfig {
    fn default() -> Self {
        ControlConfig {
            user: String::new(),
            password: crate::util::Secret(String::new()),
            computer_name: "rigweb".into(),
            rx_codec: codec::PCM16_MONO,
            tx_codec: codec::PCM16_MONO,
            sample_rate: 48_000,
            tx_buffer_ms: 150,
            discovery: DiscoveryConfig::default(),
            login_timeout: Duration::from_secs(3),
            login_resend: Duration::from_millis(700),
            conninfo_wait: Duration::from_millis(1000),
            status_timeout: Duration::from_secs(3),
            held_retry_delay: Duration::from_secs(10),
            held_retries: 3,
            token_renewal: Duration::from_secs(60),
        }
    }
}

/// Why a connection attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlFailure {
    /// No answer to "are you there".
    Unreachable,
    /// The radio refused the user name or password.
    BadCredentials,
    /// No login response in time.
    NoLoginResponse,
    /// The radio rejected the stream request (status error 0xFFFFFFFF).
    SessionRejected,
    /// The radio kept answering "CI-V port 0": it still holds a previous session.
    SessionHeld,
    /// No status in time.
    NoStatus,
    /// The radio sent DISCONNECT.
    RadioDisconnected,
}

impl ControlFailure {
    /// A sentence a user can act on.
    pub fn message(&self) -> &'static str {
        match self {
            ControlFailure::Unreachable => {
                "the radio does not answer on its control port: check the address, the port and that the radio's network is on"
            }
            ControlFailure::BadCredentials => {
                "the radio refused the user name or password (check the radio's Network User settings)"
            }
            ControlFailure::NoLoginResponse => "the radio did not answer the login",
            ControlFailure::SessionRejected => {
                "the radio rejected the session: it may still hold a previous one (wait 30-60 s) or refuse the audio settings"
            }
            ControlFailure::SessionHeld => {
                "the radio still holds a previous session; it is released 30-60 s after an unclean disconnect"
            }
            ControlFailure::NoStatus => "the radio did not confirm the stream request",
            ControlFailure::RadioDisconnected => "the radio closed the session",
        }
    }

    /// True when retrying cannot help without a change by the user.
    pub fn is_permanent(&self) -> bool {
        matches!(self, ControlFailure::BadCredentials)
    }
}

/// What the control session reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlEvent {
    /// The radio answered discovery.
    Discovered,
    /// Login accepted.
    LoggedIn {
        /// "FTTH" from a radio, "WFVIEW" from a wfview server.
        connection_type: String,
    },
    /// Identity from capabilities or conninfo.
    RadioInfo {
        /// Radio name, e.g. "IC-7610".
        name: String,
        /// CI-V address, when capabilities gave it.
        civ_addr: Option<u8>,
    },
    /// Another client uses the radio.
    InUseBy(String),
    /// Streams granted: the radio's CI-V and audio ports.
    Ready {
        /// Radio CI-V port.
        civ_port: u16,
        /// Radio audio port.
        audio_port: u16,
    },
    /// The radio closed the CI-V / audio streams (status `disc`).
    StreamsClosed,
    /// Token renewal accepted.
    TokenRenewed,
    /// Token renewal rejected; the stream request was sent again.
    TokenRejected,
    /// This attempt is over.
    Failed(ControlFailure),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Discovering,
    LoggingIn,
    AwaitingConnInfo,
    AwaitingStatus,
    HeldWait,
    Ready,
    Closed,
}

/// The control session of one connection attempt.
#[derive(Debug)]
pub struct ControlClient {
    cfg: ControlConfig,
    local_ports: (u16, u16),
    phase: Phase,
    port: PortSession,
    inner_seq: u16,
    tok_request: u16,
    token: u32,
    guid: Option<[u8; 16]>,
    radio_name: String,
    rx_codec: u8,
    tried_mono: bool,
    held_attempts: u32,
    deadline: Instant,
    login_resend_at: Instant,
    next_renewal: Instant,
    events: Vec<ControlEvent>,
}

impl ControlClient {
    /// Starts a session with id `my_id`, advertising local CI-V and audio ports `local_ports`.
    /// `tok_request` should be random and non-zero.
    pub fn new(
        cfg: ControlConfig,
        my_id: u32,
        local_ports: (u16, u16),
        tok_request: u16,
        now: Instant,
    ) -> ControlClient {
        ControlClient {
            port: PortSession::new(
                Port::Control,
                my_id,
                cfg.discovery.clone(),
                StreamConfig::client(true),
                now,
            ),
            rx_codec: cfg.rx_codec,
            cfg,
            local_ports,
            phase: Phase::Discovering,
            inner_seq: 0x30,
            tok_request: tok_request.max(1),
            token: 0,
            guid: None,
            radio_name: String::new(),
            tried_mono: false,
            held_attempts: 0,
            deadline: now,
            login_resend_at: now,
            next_renewal: now,
            events: Vec::new(),
        }
    }

    /// Events since the last call.
    pub fn take_events(&mut self) -> Vec<ControlEvent> {
        std::mem::take(&mut self.events)
    }

    /// The radio's name, once known.
    pub fn radio_name(&self) -> &str {
        &self.radio_name
    }

    /// The RX codec finally granted (may have fallen back to mono).
    pub fn rx_codec(&self) -> u8 {
        self.rx_codec
    }

    /// Transport counters, once discovery is done.
    pub fn stream_stats(&self) -> Option<StreamStats> {
        self.port.stream().map(|s| s.stats())
    }

    /// Datagrams that could not be parsed or carried foreign ids.
    pub fn malformed(&self) -> u64 {
        self.port.malformed() + self.port.foreign()
    }

    /// When the radio last sent anything on the control port.
    pub fn last_rx(&self) -> Option<Instant> {
        self.port.stream().map(|s| s.last_rx())
    }

    /// Handles one datagram from the radio; datagrams to send go to `out`.
    pub fn receive(&mut self, buf: &[u8], now: Instant, out: &mut Vec<Vec<u8>>) {
        let step = self.port.receive(buf, now, out);
        self.on_step(step, now, out);
    }

    fn on_step(&mut self, step: Step, now: Instant, out: &mut Vec<Vec<u8>>) {
        match step {
            Step::Nothing => {}
            Step::Discovered => {
                self.events.push(ControlEvent::Discovered);
                self.send_login(now, out);
                self.phase = Phase::LoggingIn;
                self.deadline = now + self.cfg.login_timeout;
            }
            Step::Unreachable => self.fail(ControlFailure::Unreachable),
            Step::Delivered(pkts) => {
                for p in pkts {
                    self.handle(p, now, out);
                }
            }
        }
    }

    /// Sends a login with the current request id; the next one is due after
    /// `login_resend` without an answer.
    fn send_login(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        let login_inner = self.next_inner();
        let cfg = &self.cfg;
        let tok = self.tok_request;
        if let Some(stream) = self.port.stream_mut() {
            let login = LoginRepr::new(
                (0, 0),
                0,
                login_inner,
                tok,
                &cfg.user,
                cfg.password.expose(),
                &cfg.computer_name,
            );
            stream.send_packet(now, out, login);
        }
        self.login_resend_at = now + self.cfg.login_resend;
    }

    fn next_inner(&mut self) -> u16 {
        let v = self.inner_seq;
        self.inner_seq = self.inner_seq.wrapping_add(1);
        v
    }

    fn fail(&mut self, why: ControlFailure) {
        if self.phase != Phase::Closed {
            self.phase = Phase::Closed;
            self.events.push(ControlEvent::Failed(why));
        }
    }

    fn handle(&mut self, pkt: Packet, now: Instant, out: &mut Vec<Vec<u8>>) {
        match pkt {
            Packet::LoginResponse(r) if self.phase == Phase::LoggingIn => {
                if r.tok_request != self.tok_request {
                    log::debug!("control: login response for another request id, ignored");
                    return;
                }
                if !r.is_ok() {
                    self.fail(ControlFailure::BadCredentials);
                    return;
                }
                self.token = r.token;
                self.events.push(ControlEvent::LoggedIn {
                    connection_type: r.connection_type,
                });
                self.send_token(token_kind::ACK, now, out);
                self.phase = Phase::AwaitingConnInfo;
                self.deadline = now + self.cfg.conninfo_wait;
                self.next_renewal = now + self.cfg.token_renewal;
            }
            Packet::Capabilities(c) => {
                if let Some(r) = c.radios.first() {
                    if self.guid.is_none() {
                        self.guid = Some(r.guid);
                    }
                    self.radio_name = r.name.clone();
                    self.events.push(ControlEvent::RadioInfo {
                        name: r.name.clone(),
                        civ_addr: Some(r.civ_addr),
                    });
                }
            }
            Packet::RadioConnInfo(c) => {
                if !c.radio_name.is_empty() {
                    self.radio_name = c.radio_name.clone();
                    self.events.push(ControlEvent::RadioInfo {
                        name: c.radio_name.clone(),
                        civ_addr: None,
                    });
                }
                if c.busy == 1
                    && !c.computer_name.is_empty()
                    && c.computer_name != self.cfg.computer_name
                {
                    self.events
                        .push(ControlEvent::InUseBy(c.computer_name.clone()));
                }
                // the radio's GUID, from any of its conninfos: one that comes after a
                // stream request it held (civ port 0) is what the retry must echo, if
                // the first was lost (spec §2.8)
                self.guid = Some(c.guid);
                if self.phase == Phase::AwaitingConnInfo {
                    self.send_stream_request(now, out);
                }
            }
            Packet::Status(s) => self.on_status(s, now),
            Packet::Token(t) if t.is_reply() => {
                if t.request_type == token_kind::RENEW {
                    if t.response == lan::ERROR_REJECTED {
                        self.events.push(ControlEvent::TokenRejected);
                        self.token = t.token;
                        self.send_stream_request(now, out);
                    } else {
                        self.events.push(ControlEvent::TokenRenewed);
                    }
                }
            }
            Packet::Disconnect(_) => self.fail(ControlFailure::RadioDisconnected),
            other => log::debug!(
                "control: {} ignored in phase {:?}",
                other.name(),
                self.phase
            ),
        }
    }

    fn on_status(&mut self, s: lan::StatusRepr, now: Instant) {
        match self.phase {
            Phase::AwaitingStatus => {
                if s.error == lan::ERROR_REJECTED {
                    let mono = match self.rx_codec {
                        codec::PCM16_STEREO => Some(codec::PCM16_MONO),
                        codec::ULAW_STEREO => Some(codec::ULAW_MONO),
                        codec::PCM8_STEREO => Some(codec::PCM8_MONO),
                        _ => None,
                    };
                    match mono {
                        Some(m) if !self.tried_mono => {
                            log::info!("radio rejected the stereo RX codec; retrying with mono");
                            self.tried_mono = true;
                            self.rx_codec = m;
                            self.phase = Phase::HeldWait;
                            self.deadline = now;
                        }
                        _ => self.fail(ControlFailure::SessionRejected),
                    }
                } else if s.civ_port == 0 {
                    if self.held_attempts < self.cfg.held_retries {
                        self.held_attempts += 1;
                        log::info!(
                            "radio still holds a previous session; asking again in {:?} ({}/{})",
                            self.cfg.held_retry_delay,
                            self.held_attempts,
                            self.cfg.held_retries
                        );
                        self.phase = Phase::HeldWait;
                        self.deadline = now + self.cfg.held_retry_delay;
                    } else {
                        self.fail(ControlFailure::SessionHeld);
                    }
                } else {
                    self.phase = Phase::Ready;
                    self.events.push(ControlEvent::Ready {
                        civ_port: s.civ_port,
                        audio_port: s.audio_port,
                    });
                }
            }
            Phase::Ready if s.disconnected => self.events.push(ControlEvent::StreamsClosed),
            _ => {}
        }
    }

    fn send_token(&mut self, kind: u8, now: Instant, out: &mut Vec<Vec<u8>>) {
        let inner = self.next_inner();
        let (tok_request, token) = (self.tok_request, self.token);
        if let Some(stream) = self.port.stream_mut() {
            let ids = stream.ids();
            stream.send_packet(
                now,
                out,
                TokenRepr::request(ids, 0, kind, inner, tok_request, token),
            );
        }
    }

    fn send_stream_request(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        let inner = self.next_inner();
        let Some(stream) = self.port.stream_mut() else {
            return;
        };
        let req = StreamRequestRepr {
            seq: 0,
            sent_id: 0,
            rcvd_id: 0,
            inner_seq: inner,
            tok_request: self.tok_request,
            token: self.token,
            guid: self.guid.unwrap_or_else(|| mac_form_guid([0; 6])),
            radio_name: self.radio_name.clone(),
            username: credentials::encode(&self.cfg.user),
            rx_enable: true,
            tx_enable: true,
            rx_codec: self.rx_codec,
            tx_codec: self.cfg.tx_codec,
            rx_sample_rate: self.cfg.sample_rate,
            tx_sample_rate: self.cfg.sample_rate,
            civ_port: u32::from(self.local_ports.0),
            audio_port: u32::from(self.local_ports.1),
            tx_buffer_ms: self.cfg.tx_buffer_ms,
            convert: 1,
        };
        stream.send_packet(now, out, req);
        self.phase = Phase::AwaitingStatus;
        self.deadline = now + self.cfg.status_timeout;
    }

    /// Asks for the CI-V and audio streams again (after the radio closed them).
    pub fn request_streams(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        if self.phase == Phase::Ready {
            self.send_stream_request(now, out);
        }
    }

    /// Runs the timers due at `now`.
    pub fn poll(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        if self.phase == Phase::Closed {
            return;
        }
        let step = self.port.poll(now, out);
        self.on_step(step, now, out);
        match self.phase {
            Phase::LoggingIn if now >= self.deadline => self.fail(ControlFailure::NoLoginResponse),
            Phase::LoggingIn if now >= self.login_resend_at => {
                // a new request id: only the answer to this login is taken, so the
                // token in hand is the one the radio issued last
                self.tok_request = self.tok_request.wrapping_add(1).max(1);
                log::debug!("control: no login response; sending the login again");
                self.send_login(now, out);
            }
            Phase::AwaitingConnInfo if now >= self.deadline => {
                log::debug!("control: no radio conninfo; sending the stream request anyway");
                self.send_stream_request(now, out);
            }
            Phase::AwaitingStatus if now >= self.deadline => self.fail(ControlFailure::NoStatus),
            Phase::HeldWait if now >= self.deadline => self.send_stream_request(now, out),
            Phase::Ready if now >= self.next_renewal => {
                self.send_token(token_kind::RENEW, now, out);
                self.next_renewal = now + self.cfg.token_renewal;
            }
            _ => {}
        }
    }

    /// The next instant [`ControlClient::poll`] has work (a closed session has none).
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.phase == Phase::Closed {
            return None;
        }
        let t = self.port.poll_timeout().unwrap_or(self.deadline);
        match self.phase {
            Phase::LoggingIn => Some(t.min(self.deadline).min(self.login_resend_at)),
            Phase::AwaitingConnInfo | Phase::AwaitingStatus | Phase::HeldWait => {
                Some(t.min(self.deadline))
            }
            Phase::Ready => Some(t.min(self.next_renewal)),
            _ => Some(t),
        }
    }

    /// Clean logout: token remove (tracked) then DISCONNECT. The session is closed afterwards.
    pub fn logout(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        if self.port.stream().is_some() && self.token != 0 {
            self.send_token(token_kind::REMOVE, now, out);
        }
        if let Some(stream) = self.port.stream() {
            out.push(stream.control(ptype::DISCONNECT, 0));
        }
        self.phase = Phase::Closed;
    }
}
