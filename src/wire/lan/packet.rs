//! Dispatch of a datagram to its packet kind, by port, datagram length and type
//! (spec §1.2 "dispatch rule" and §1.3).

use super::audio::{AUDIO_HEADER_LEN, AudioRepr};
use super::capabilities::{CAPABILITIES_HEADER_LEN, CAPABILITY_ENTRY_LEN, CapabilitiesRepr};
use super::civ_data::{CIV_HEADER_LEN, CivDataRepr, OPENCLOSE_LEN, OpenCloseRepr};
use super::conninfo::{CONNINFO_LEN, RadioConnInfoRepr, StreamRequestRepr};
use super::control::ControlRepr;
use super::header::{HEADER_LEN, Header};
use super::login::{LOGIN_LEN, LOGIN_RESPONSE_LEN, LoginRepr, LoginResponseRepr};
use super::ping::{PING_LEN, PingRepr};
use super::ptype;
use super::retransmit::RetransmitRepr;
use super::status::{STATUS_LEN, StatusRepr};
use super::token::{TOKEN_LEN, TokenRepr};
use crate::wire::{Result, WireError, need};

/// Which of the three UDP ports a datagram arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Port {
    /// Control port (50001): discovery, login, token, conninfo, status.
    Control,
    /// CI-V port (50002).
    Civ,
    /// Audio port (50003).
    Audio,
}

/// Who sent a datagram; the conninfo layout differs per direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Sent by the radio (parsed by a client).
    Radio,
    /// Sent by a client (parsed by the radio / simulator).
    Client,
}

/// Any LAN packet, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Packet {
    /// AYT (0x03).
    AreYouThere(ControlRepr),
    /// IAH (0x04).
    IAmHere(ControlRepr),
    /// AYR / I-am-ready (0x06).
    AreYouReady(ControlRepr),
    /// DISCONNECT (0x05).
    Disconnect(ControlRepr),
    /// Idle / keep-alive (type 0, 0x10 bytes), tracked unless it is a retransmit filler.
    Idle(ControlRepr),
    /// Retransmit request (single or multi).
    Retransmit(RetransmitRepr),
    /// Ping request or reply.
    Ping(PingRepr),
    /// Login (client → radio).
    Login(LoginRepr),
    /// Login response (radio → client).
    LoginResponse(LoginResponseRepr),
    /// Token request or reply.
    Token(TokenRepr),
    /// Capabilities (radio → client).
    Capabilities(CapabilitiesRepr),
    /// Conninfo from the radio.
    RadioConnInfo(RadioConnInfoRepr),
    /// Conninfo from the client (stream request).
    StreamRequest(StreamRequestRepr),
    /// Status (radio → client).
    Status(StatusRepr),
    /// CI-V data.
    CivData(CivDataRepr),
    /// OpenClose (CI-V port; some clients also send it on the audio port).
    OpenClose(OpenCloseRepr),
    /// Audio samples.
    Audio(AudioRepr),
}

impl Packet {
    /// Parses a datagram received on `port` from `origin`.
    pub fn parse(buf: &[u8], port: Port, origin: Origin) -> Result<Packet> {
        need(buf, HEADER_LEN)?;
        let h = Header::parse(buf)?;
        if buf.len() == HEADER_LEN {
            return parse_control(buf, h.ptype);
        }
        if h.ptype == ptype::RETRANSMIT {
            return RetransmitRepr::parse(buf).map(Packet::Retransmit);
        }
        if buf.len() == PING_LEN && h.ptype == ptype::PING {
            return PingRepr::parse(buf).map(Packet::Ping);
        }
        if h.ptype != ptype::DATA {
            return Err(WireError::BadValue("packet type for this length"));
        }
        match port {
            Port::Control => parse_control_port(buf, origin),
            Port::Civ => {
                if buf.len() == OPENCLOSE_LEN && buf[0x10] == 0xC0 {
                    OpenCloseRepr::parse(buf).map(Packet::OpenClose)
                } else if buf.len() > CIV_HEADER_LEN {
                    CivDataRepr::parse(buf).map(Packet::CivData)
                } else {
                    Err(WireError::BadValue("CI-V port packet length"))
                }
            }
            Port::Audio => {
                if buf.len() == OPENCLOSE_LEN && buf[0x10] == 0xC0 {
                    OpenCloseRepr::parse(buf).map(Packet::OpenClose)
                } else if buf.len() > AUDIO_HEADER_LEN {
                    AudioRepr::parse(buf).map(Packet::Audio)
                } else {
                    Err(WireError::BadValue("audio port packet length"))
                }
            }
        }
    }

    /// The outer sequence field of the packet.
    pub fn seq(&self) -> u16 {
        match self {
            Packet::AreYouThere(c)
            | Packet::IAmHere(c)
            | Packet::AreYouReady(c)
            | Packet::Disconnect(c)
            | Packet::Idle(c) => c.seq,
            Packet::Retransmit(_) => 0,
            Packet::Ping(p) => p.seq,
            Packet::Login(p) => p.seq,
            Packet::LoginResponse(p) => p.seq,
            Packet::Token(p) => p.seq,
            Packet::Capabilities(p) => p.seq,
            Packet::RadioConnInfo(p) => p.seq,
            Packet::StreamRequest(p) => p.seq,
            Packet::Status(p) => p.seq,
            Packet::CivData(p) => p.seq,
            Packet::OpenClose(p) => p.seq,
            Packet::Audio(p) => p.seq,
        }
    }

    /// Short name for logs and counters.
    pub fn name(&self) -> &'static str {
        match self {
            Packet::AreYouThere(_) => "are-you-there",
            Packet::IAmHere(_) => "i-am-here",
            Packet::AreYouReady(_) => "are-you-ready",
            Packet::Disconnect(_) => "disconnect",
            Packet::Idle(_) => "idle",
            Packet::Retransmit(_) => "retransmit",
            Packet::Ping(_) => "ping",
            Packet::Login(_) => "login",
            Packet::LoginResponse(_) => "login-response",
            Packet::Token(_) => "token",
            Packet::Capabilities(_) => "capabilities",
            Packet::RadioConnInfo(_) => "radio-conninfo",
            Packet::StreamRequest(_) => "stream-request",
            Packet::Status(_) => "status",
            Packet::CivData(_) => "civ-data",
            Packet::OpenClose(_) => "openclose",
            Packet::Audio(_) => "audio",
        }
    }
}

fn parse_control(buf: &[u8], ptype_value: u16) -> Result<Packet> {
    let c = ControlRepr::parse(buf)?;
    Ok(match ptype_value {
        ptype::DATA => Packet::Idle(c),
        ptype::RETRANSMIT => Packet::Retransmit(RetransmitRepr::parse(buf)?),
        ptype::ARE_YOU_THERE => Packet::AreYouThere(c),
        ptype::I_AM_HERE => Packet::IAmHere(c),
        ptype::DISCONNECT => Packet::Disconnect(c),
        ptype::ARE_YOU_READY => Packet::AreYouReady(c),
        _ => return Err(WireError::BadValue("control packet type")),
    })
}

fn parse_control_port(buf: &[u8], origin: Origin) -> Result<Packet> {
    match buf.len() {
        TOKEN_LEN => TokenRepr::parse(buf).map(Packet::Token),
        STATUS_LEN => StatusRepr::parse(buf).map(Packet::Status),
        LOGIN_RESPONSE_LEN => LoginResponseRepr::parse(buf).map(Packet::LoginResponse),
        LOGIN_LEN => LoginRepr::parse(buf).map(Packet::Login),
        CONNINFO_LEN => match origin {
            Origin::Radio => RadioConnInfoRepr::parse(buf).map(Packet::RadioConnInfo),
            Origin::Client => StreamRequestRepr::parse(buf).map(Packet::StreamRequest),
        },
        n if n > CAPABILITIES_HEADER_LEN
            && (n - CAPABILITIES_HEADER_LEN).is_multiple_of(CAPABILITY_ENTRY_LEN) =>
        {
            CapabilitiesRepr::parse(buf).map(Packet::Capabilities)
        }
        _ => Err(WireError::BadValue("control port packet length")),
    }
}
