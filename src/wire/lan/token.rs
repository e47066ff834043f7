//! Token packets, 0x40 bytes both ways (spec §2.6): ack 0x02, renew 0x05, remove 0x01,
//! stop streams 0x04, and the radio's token reply.

use super::auth::AuthPrefix;
use super::header::Header;
use super::ptype;
use crate::wire::{Result, exact, field};

/// Length of a token datagram.
pub const TOKEN_LEN: usize = 0x40;

/// A token request (client → radio, `request_reply` 0x01) or reply (radio → client, 0x02).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRepr {
    /// Tracked outer seq.
    pub seq: u16,
    /// Sender id.
    pub sent_id: u32,
    /// Receiver id.
    pub rcvd_id: u32,
    /// 0x01 request, 0x02 reply.
    pub request_reply: u8,
    /// Token kind, see [`super::token_kind`].
    pub request_type: u8,
    /// Auth inner seq.
    pub inner_seq: u16,
    /// Request id from the login exchange.
    pub tok_request: u16,
    /// Session token.
    pub token: u32,
    /// The GUID area; a client request carries `resetcap` 0x0798 (BE) at 0x24.
    pub guid: [u8; 16],
    /// Reply code at 0x30 (LE): 0 = OK, 0xFFFFFFFF = rejected. Zero in requests.
    pub response: u32,
}

impl TokenRepr {
    /// A client request of `kind` with the `resetcap` field set as the spec requires.
    pub fn request(
        ids: (u32, u32),
        seq: u16,
        kind: u8,
        inner_seq: u16,
        tok_request: u16,
        token: u32,
    ) -> TokenRepr {
        let mut guid = [0u8; 16];
        guid[0x04] = 0x07;
        guid[0x05] = 0x98;
        TokenRepr {
            seq,
            sent_id: ids.0,
            rcvd_id: ids.1,
            request_reply: 0x01,
            request_type: kind,
            inner_seq,
            tok_request,
            token,
            guid,
            response: 0,
        }
    }

    /// Parses a 0x40-byte token packet.
    pub fn parse(buf: &[u8]) -> Result<TokenRepr> {
        exact(buf, TOKEN_LEN)?;
        let h = Header::parse(buf)?;
        let p = AuthPrefix::parse(buf)?;
        Ok(TokenRepr {
            seq: h.seq,
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
            request_reply: p.request_reply,
            request_type: p.request_type,
            inner_seq: p.inner_seq,
            tok_request: p.tok_request,
            token: p.token,
            guid: p.guid,
            response: field::u32le(buf, 0x30),
        })
    }

    /// The 0x40 bytes of this packet.
    pub fn emit(&self) -> Vec<u8> {
        let mut buf = vec![0u8; TOKEN_LEN];
        Header::new(TOKEN_LEN, ptype::DATA, self.seq, self.sent_id, self.rcvd_id).emit(&mut buf);
        AuthPrefix {
            payload_size: (TOKEN_LEN - 0x10) as u32,
            request_reply: self.request_reply,
            request_type: self.request_type,
            inner_seq: self.inner_seq,
            tok_request: self.tok_request,
            token: self.token,
            guid: self.guid,
        }
        .emit(&mut buf);
        field::put_u32le(&mut buf, 0x30, self.response);
        buf
    }

    /// True for a radio reply (as opposed to a client request).
    pub fn is_reply(&self) -> bool {
        self.request_reply == 0x02
    }
}
