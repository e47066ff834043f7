//! One client as the simulated radio sees it: its control session (login, token,
//! conninfo, status) and, once streams are granted, its CI-V and audio sessions.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::lan::stream::{Stream, StreamConfig};
use crate::wire::lan::codec;

/// Audio settings granted by a stream request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AudioGrant {
    /// RX codec byte.
    pub rx_codec: u8,
    /// TX codec byte.
    pub tx_codec: u8,
    /// RX sample rate, Hz.
    pub rx_rate: u32,
    /// TX sample rate, Hz.
    pub tx_rate: u32,
    /// RX audio wanted.
    pub rx_enable: bool,
}

impl AudioGrant {
    /// Channels of the RX codec.
    pub fn rx_channels(&self) -> u8 {
        codec::channels(self.rx_codec).unwrap_or(1)
    }
}

/// A radio-side port session of a client (CI-V or audio).
#[derive(Debug)]
pub struct PortLink {
    /// Where the client sends from (and where we answer).
    pub addr: SocketAddr,
    /// The stream (radio role).
    pub stream: Stream,
    /// "Are you ready" seen.
    pub ready: bool,
}

/// The state the radio keeps per client.
#[derive(Debug)]
pub struct SimClient {
    /// Control-port address of the client.
    pub ctrl_addr: SocketAddr,
    /// Control stream (radio role).
    pub ctrl: Stream,
    /// Discovery ("are you there" / "are you ready") was seen again on this session: the
    /// client may have restarted with the same ids, and a login now starts afresh.
    pub rediscovered: bool,
    /// Logged in with good credentials.
    pub logged_in: bool,
    /// Session token.
    pub token: u32,
    /// Client's request id.
    pub tok_request: u16,
    /// Next inner seq of our replies.
    pub inner_seq: u16,
    /// Name the client gave.
    pub computer_name: String,
    /// Streams granted, with their audio settings.
    pub grant: Option<AudioGrant>,
    /// CI-V session.
    pub civ: Option<PortLink>,
    /// CI-V stream opened with OpenClose.
    pub civ_open: bool,
    /// Audio session.
    pub audio: Option<PortLink>,
    /// Next RX audio block.
    pub audio_next: Option<Instant>,
    /// RX audio inner send seq.
    pub audio_seq: u16,
    /// CI-V inner send seq.
    pub civ_seq: u16,
    /// The session end the client asked for in this round of datagrams (token remove,
    /// control DISCONNECT), carried out at the round's end ([`SessionEnd`]).
    pub ending: Option<SessionEnd>,
}

/// A session end a client asked for. The radio carries it out at the end of the round
/// in which it came (`SimProtocol::tick`), so that datagrams of the same round on the
/// other ports (a CI-V command sent just before the logout, read after it) are served
/// first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SessionEnd {
    /// Token remove: the streams close, the login ends, the control session stays.
    LoggedOut,
    /// Control `DISCONNECT`: the client is forgotten (a clean departure).
    Disconnected,
}

impl SimClient {
    /// A client that just sent "are you there" from `ctrl_addr` with id `client_id`. The
    /// radio's idles on the control port run from the first packet on (spec §1.10).
    pub fn new(ctrl_addr: SocketAddr, radio_id: u32, client_id: u32, now: Instant) -> SimClient {
        SimClient {
            ctrl_addr,
            ctrl: Stream::new(
                StreamConfig::radio(100, true, true),
                radio_id,
                client_id,
                1,
                now,
            ),
            rediscovered: false,
            logged_in: false,
            token: 0,
            tok_request: 0,
            inner_seq: 0,
            computer_name: String::new(),
            grant: None,
            civ: None,
            civ_open: false,
            audio: None,
            audio_next: None,
            audio_seq: 0,
            civ_seq: 0,
            ending: None,
        }
    }

    /// The live streams of this client (control, then CI-V and audio when open).
    pub fn streams(&self) -> impl Iterator<Item = &Stream> {
        std::iter::once(&self.ctrl)
            .chain(self.civ.as_ref().map(|l| &l.stream))
            .chain(self.audio.as_ref().map(|l| &l.stream))
    }

    /// The client's session on the CI-V or audio port, if open.
    pub fn port_link(&self, port: crate::wire::lan::Port) -> Option<&PortLink> {
        match port {
            crate::wire::lan::Port::Civ => self.civ.as_ref(),
            crate::wire::lan::Port::Audio => self.audio.as_ref(),
            crate::wire::lan::Port::Control => None,
        }
    }

    /// When anything was last heard from this client, on any port.
    pub fn last_heard(&self) -> Instant {
        let mut t = self.ctrl.last_rx();
        if let Some(c) = &self.civ {
            t = t.max(c.stream.last_rx());
        }
        if let Some(a) = &self.audio {
            t = t.max(a.stream.last_rx());
        }
        t
    }

    /// True when nothing was heard for `timeout`.
    pub fn is_stale(&self, now: Instant, timeout: Duration) -> bool {
        now.saturating_duration_since(self.last_heard()) >= timeout
    }

    /// Closes the CI-V and audio sessions (the control session stays).
    pub fn close_streams(&mut self) {
        self.grant = None;
        self.civ = None;
        self.civ_open = false;
        self.audio = None;
        self.audio_next = None;
    }

    /// The client's IPv4 address as a big-endian u32 (0 for IPv6).
    pub fn ipv4(&self) -> u32 {
        match self.ctrl_addr.ip() {
            std::net::IpAddr::V4(v4) => u32::from(v4),
            std::net::IpAddr::V6(_) => 0,
        }
    }
}
