//! Status (radio → client, 0x50 bytes), spec §2.9.

use super::auth::AuthPrefix;
use super::header::Header;
use super::ptype;
use crate::wire::{Result, exact, field};

/// Length of a status datagram.
pub const STATUS_LEN: usize = 0x50;

/// The radio's answer to a stream request, and later notices (`disc`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusRepr {
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
    /// GUID area copied from the client's conninfo.
    pub guid: [u8; 16],
    /// 0 = OK, [`super::ERROR_REJECTED`] = session rejected (LE at 0x30).
    pub error: u32,
    /// True when the radio closed the CI-V/audio streams (0x40 = 1).
    pub disconnected: bool,
    /// CI-V UDP port on the radio (BE at 0x42); 0 = session not ready.
    pub civ_port: u16,
    /// Audio UDP port on the radio (BE at 0x46).
    pub audio_port: u16,
}

impl StatusRepr {
    /// Parses a 0x50-byte status.
    pub fn parse(buf: &[u8]) -> Result<StatusRepr> {
        exact(buf, STATUS_LEN)?;
        let h = Header::parse(buf)?;
        let p = AuthPrefix::parse(buf)?;
        Ok(StatusRepr {
            seq: h.seq,
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
            inner_seq: p.inner_seq,
            tok_request: p.tok_request,
            token: p.token,
            guid: p.guid,
            error: field::u32le(buf, 0x30),
            disconnected: buf[0x40] == 0x01,
            civ_port: field::u16be(buf, 0x42),
            audio_port: field::u16be(buf, 0x46),
        })
    }

    /// The 0x50 bytes of this packet.
    pub fn emit(&self) -> Vec<u8> {
        let mut buf = vec![0u8; STATUS_LEN];
        Header::new(
            STATUS_LEN,
            ptype::DATA,
            self.seq,
            self.sent_id,
            self.rcvd_id,
        )
        .emit(&mut buf);
        AuthPrefix {
            payload_size: (STATUS_LEN - 0x10) as u32,
            request_reply: 0x02,
            request_type: 0x03,
            inner_seq: self.inner_seq,
            tok_request: self.tok_request,
            token: self.token,
            guid: self.guid,
        }
        .emit(&mut buf);
        field::put_u32le(&mut buf, 0x30, self.error);
        buf[0x40] = u8::from(self.disconnected);
        field::put_u16be(&mut buf, 0x42, self.civ_port);
        field::put_u16be(&mut buf, 0x46, self.audio_port);
        buf
    }
}
