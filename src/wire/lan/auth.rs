//! The "token family" prefix shared by login, login response, token, status,
//! conninfo and capabilities (spec §2.2), bytes 0x10..0x30.

use crate::wire::{Result, field, need};

/// Bytes 0x10..0x30 of a token-family packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AuthPrefix {
    /// Total length − 0x10, **big-endian** on the wire.
    pub payload_size: u32,
    /// 0x01 for client requests, 0x02/0x03 for radio replies (per packet).
    pub request_reply: u8,
    /// The request type (login 0x00, token kind, conninfo 0x03, ...).
    pub request_type: u8,
    /// Auth inner sequence, **big-endian** on the wire.
    pub inner_seq: u16,
    /// Client-chosen request id, echoed by the radio (LE).
    pub tok_request: u16,
    /// Session token assigned by the radio (LE).
    pub token: u32,
    /// The 16-byte GUID / MAC area at 0x20 (packet dependent, often echoed verbatim).
    pub guid: [u8; 16],
}

impl AuthPrefix {
    /// Reads the prefix from a buffer of at least 0x30 bytes.
    pub fn parse(buf: &[u8]) -> Result<AuthPrefix> {
        need(buf, 0x30)?;
        Ok(AuthPrefix {
            payload_size: field::u32be(buf, 0x10),
            request_reply: buf[0x14],
            request_type: buf[0x15],
            inner_seq: field::u16be(buf, 0x16),
            tok_request: field::u16le(buf, 0x1A),
            token: field::u32le(buf, 0x1C),
            guid: field::array::<16>(buf, 0x20),
        })
    }

    /// Writes the prefix into `buf` (at least 0x30 bytes); bytes 0x18..0x1A are zeroed.
    pub fn emit(&self, buf: &mut [u8]) {
        field::put_u32be(buf, 0x10, self.payload_size);
        buf[0x14] = self.request_reply;
        buf[0x15] = self.request_type;
        field::put_u16be(buf, 0x16, self.inner_seq);
        buf[0x18] = 0;
        buf[0x19] = 0;
        field::put_u16le(buf, 0x1A, self.tok_request);
        field::put_u32le(buf, 0x1C, self.token);
        buf[0x20..0x30].copy_from_slice(&self.guid);
    }
}

/// The GUID area in "MAC form" (spec §2.2): commoncap 0x8010 at 0x27 (LE) and a MAC at 0x2A.
pub fn mac_form_guid(mac: [u8; 6]) -> [u8; 16] {
    let mut g = [0u8; 16];
    g[0x07] = 0x10;
    g[0x08] = 0x80;
    g[0x0A..0x10].copy_from_slice(&mac);
    g
}
