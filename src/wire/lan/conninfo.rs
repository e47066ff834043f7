//! Conninfo, 0x90 bytes, with a different layout per direction (spec §2.8):
//! the radio's [`RadioConnInfoRepr`] and the client's [`StreamRequestRepr`].

use super::auth::AuthPrefix;
use super::header::Header;
use super::ptype;
use crate::wire::{Result, exact, field};

/// Length of a conninfo datagram.
pub const CONNINFO_LEN: usize = 0x90;

/// Radio → client conninfo: identity, busy flag and the current user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RadioConnInfoRepr {
    /// Tracked outer seq.
    pub seq: u16,
    /// Radio id.
    pub sent_id: u32,
    /// Client id.
    pub rcvd_id: u32,
    /// Auth inner seq.
    pub inner_seq: u16,
    /// Request id.
    pub tok_request: u16,
    /// Session token.
    pub token: u32,
    /// The radio's GUID / MAC area; a client echoes it in its stream request.
    pub guid: [u8; 16],
    /// Radio name (0x40, 32 bytes).
    pub radio_name: String,
    /// 0 = free, 1 = in use / streaming, 2 = radio unavailable (LE at 0x60).
    pub busy: u32,
    /// Computer name of the current user (0x64, 16 bytes).
    pub computer_name: String,
    /// IPv4 address of the current user (BE at 0x84).
    pub user_ip: u32,
}

impl RadioConnInfoRepr {
    /// Parses a 0x90-byte radio conninfo.
    pub fn parse(buf: &[u8]) -> Result<RadioConnInfoRepr> {
        exact(buf, CONNINFO_LEN)?;
        let h = Header::parse(buf)?;
        let p = AuthPrefix::parse(buf)?;
        Ok(RadioConnInfoRepr {
            seq: h.seq,
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
            inner_seq: p.inner_seq,
            tok_request: p.tok_request,
            token: p.token,
            guid: p.guid,
            radio_name: field::ascii(buf, 0x40, 32),
            busy: field::u32le(buf, 0x60),
            computer_name: field::ascii(buf, 0x64, 16),
            user_ip: field::u32be(buf, 0x84),
        })
    }

    /// The 0x90 bytes of this packet.
    pub fn emit(&self) -> Vec<u8> {
        let mut buf = vec![0u8; CONNINFO_LEN];
        Header::new(
            CONNINFO_LEN,
            ptype::DATA,
            self.seq,
            self.sent_id,
            self.rcvd_id,
        )
        .emit(&mut buf);
        AuthPrefix {
            payload_size: (CONNINFO_LEN - 0x10) as u32,
            request_reply: 0x03,
            request_type: 0x00,
            inner_seq: self.inner_seq,
            tok_request: self.tok_request,
            token: self.token,
            guid: self.guid,
        }
        .emit(&mut buf);
        field::put_ascii(&mut buf, 0x40, 32, &self.radio_name);
        field::put_u32le(&mut buf, 0x60, self.busy);
        field::put_ascii(&mut buf, 0x64, 16, &self.computer_name);
        field::put_u32be(&mut buf, 0x84, self.user_ip);
        buf
    }
}

/// Client → radio conninfo ("stream request"): codecs, rates and the client's local ports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamRequestRepr {
    /// Tracked outer seq.
    pub seq: u16,
    /// Client id.
    pub sent_id: u32,
    /// Radio id.
    pub rcvd_id: u32,
    /// Auth inner seq.
    pub inner_seq: u16,
    /// Request id from the login response.
    pub tok_request: u16,
    /// Token from the login response.
    pub token: u32,
    /// The radio's GUID / MAC area, echoed verbatim.
    pub guid: [u8; 16],
    /// Radio name (0x40, 32 bytes).
    pub radio_name: String,
    /// Obfuscated user name (0x60).
    pub username: [u8; 16],
    /// RX audio wanted.
    pub rx_enable: bool,
    /// TX audio wanted.
    pub tx_enable: bool,
    /// RX codec byte, see [`super::codec`].
    pub rx_codec: u8,
    /// TX codec byte (mono on IC-7610).
    pub tx_codec: u8,
    /// RX sample rate, Hz (BE).
    pub rx_sample_rate: u32,
    /// TX sample rate, Hz (BE).
    pub tx_sample_rate: u32,
    /// Client's local CI-V UDP port (BE).
    pub civ_port: u32,
    /// Client's local audio UDP port (BE).
    pub audio_port: u32,
    /// TX buffer / latency, ms (BE).
    pub tx_buffer_ms: u32,
    /// `convert` flag (1).
    pub convert: u8,
}

impl StreamRequestRepr {
    /// Parses a 0x90-byte stream request.
    pub fn parse(buf: &[u8]) -> Result<StreamRequestRepr> {
        exact(buf, CONNINFO_LEN)?;
        let h = Header::parse(buf)?;
        let p = AuthPrefix::parse(buf)?;
        Ok(StreamRequestRepr {
            seq: h.seq,
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
            inner_seq: p.inner_seq,
            tok_request: p.tok_request,
            token: p.token,
            guid: p.guid,
            radio_name: field::ascii(buf, 0x40, 32),
            username: field::array::<16>(buf, 0x60),
            rx_enable: buf[0x70] != 0,
            tx_enable: buf[0x71] != 0,
            rx_codec: buf[0x72],
            tx_codec: buf[0x73],
            rx_sample_rate: field::u32be(buf, 0x74),
            tx_sample_rate: field::u32be(buf, 0x78),
            civ_port: field::u32be(buf, 0x7C),
            audio_port: field::u32be(buf, 0x80),
            tx_buffer_ms: field::u32be(buf, 0x84),
            convert: buf[0x88],
        })
    }

    /// The 0x90 bytes of this packet.
    pub fn emit(&self) -> Vec<u8> {
        let mut buf = vec![0u8; CONNINFO_LEN];
        Header::new(
            CONNINFO_LEN,
            ptype::DATA,
            self.seq,
            self.sent_id,
            self.rcvd_id,
        )
        .emit(&mut buf);
        AuthPrefix {
            payload_size: (CONNINFO_LEN - 0x10) as u32,
            request_reply: 0x01,
            request_type: 0x03,
            inner_seq: self.inner_seq,
            tok_request: self.tok_request,
            token: self.token,
            guid: self.guid,
        }
        .emit(&mut buf);
        field::put_ascii(&mut buf, 0x40, 32, &self.radio_name);
        buf[0x60..0x70].copy_from_slice(&self.username);
        buf[0x70] = u8::from(self.rx_enable);
        buf[0x71] = u8::from(self.tx_enable);
        buf[0x72] = self.rx_codec;
        buf[0x73] = self.tx_codec;
        field::put_u32be(&mut buf, 0x74, self.rx_sample_rate);
        field::put_u32be(&mut buf, 0x78, self.tx_sample_rate);
        field::put_u32be(&mut buf, 0x7C, self.civ_port);
        field::put_u32be(&mut buf, 0x80, self.audio_port);
        field::put_u32be(&mut buf, 0x84, self.tx_buffer_ms);
        buf[0x88] = self.convert;
        buf
    }

    /// True when this looks like a client stream request (`requestreply` 0x01, type 0x03).
    pub fn is_stream_request(buf: &[u8]) -> bool {
        buf.len() == CONNINFO_LEN && buf[0x14] == 0x01 && buf[0x15] == 0x03
    }
}
