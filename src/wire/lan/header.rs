//! The 16-byte header every LAN datagram starts with (spec §1.2).

use crate::wire::{Result, field, need};

/// Length of the common header.
pub const HEADER_LEN: usize = 0x10;

/// The common header: `len` (LE u32), `type` (LE u16), `seq` (LE u16), `sentid`, `rcvdid` (LE u32).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    /// Total datagram length as written by the sender (not trusted for dispatch).
    pub len: u32,
    /// Packet type, see [`super::ptype`].
    pub ptype: u16,
    /// Outer sequence number (tracked, ping counter, echo or requested seq, by type).
    pub seq: u16,
    /// The sender's connection id.
    pub sent_id: u32,
    /// The receiver's connection id (0 while unknown).
    pub rcvd_id: u32,
}

impl Header {
    /// Parses the first 16 bytes of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Header> {
        need(buf, HEADER_LEN)?;
        Ok(Header {
            len: field::u32le(buf, 0x00),
            ptype: field::u16le(buf, 0x04),
            seq: field::u16le(buf, 0x06),
            sent_id: field::u32le(buf, 0x08),
            rcvd_id: field::u32le(buf, 0x0C),
        })
    }

    /// Writes the header into the first 16 bytes of `buf` (which must be long enough).
    pub fn emit(&self, buf: &mut [u8]) {
        field::put_u32le(buf, 0x00, self.len);
        field::put_u16le(buf, 0x04, self.ptype);
        field::put_u16le(buf, 0x06, self.seq);
        field::put_u32le(buf, 0x08, self.sent_id);
        field::put_u32le(buf, 0x0C, self.rcvd_id);
    }

    /// A header for a datagram of `len` bytes.
    pub fn new(len: usize, ptype: u16, seq: u16, sent_id: u32, rcvd_id: u32) -> Header {
        Header {
            len: len as u32,
            ptype,
            seq,
            sent_id,
            rcvd_id,
        }
    }
}
