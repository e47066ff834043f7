//! The CI-V port's packets (spec §3.1, §3.2): CI-V data (marker 0xC1, 0x15-byte header)
//! and OpenClose (marker 0xC0, 0x16 bytes).

use super::header::{HEADER_LEN, Header};
use super::ptype;
use crate::wire::{Result, WireError, exact, field, need};

/// Length of the CI-V data header.
pub const CIV_HEADER_LEN: usize = 0x15;
/// Length of an OpenClose datagram.
pub const OPENCLOSE_LEN: usize = 0x16;

const MARKER_DATA: u8 = 0xC1;
const MARKER_OPENCLOSE: u8 = 0xC0;

/// CI-V bytes carried over the LAN (one or more complete `FE FE … FD` frames).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CivDataRepr {
    /// Tracked outer seq.
    pub seq: u16,
    /// Sender id.
    pub sent_id: u32,
    /// Receiver id.
    pub rcvd_id: u32,
    /// Inner CI-V send seq (BE at 0x13), shared with OpenClose; not validated on receipt.
    pub inner_seq: u16,
    /// The CI-V bytes.
    pub payload: Vec<u8>,
}

impl CivDataRepr {
    /// A packet carrying `payload`; the seq and ids are filled in when sent ([`super::Tracked`]).
    pub fn new(inner_seq: u16, payload: Vec<u8>) -> CivDataRepr {
        CivDataRepr {
            seq: 0,
            sent_id: 0,
            rcvd_id: 0,
            inner_seq,
            payload,
        }
    }

    /// Parses a CI-V data packet. `datalen` (LE at 0x11) must fit the datagram; bytes past
    /// it are ignored.
    pub fn parse(buf: &[u8]) -> Result<CivDataRepr> {
        need(buf, CIV_HEADER_LEN + 1)?;
        let h = Header::parse(buf)?;
        if h.ptype != ptype::DATA || buf[0x10] != MARKER_DATA {
            return Err(WireError::BadValue("CI-V data marker"));
        }
        let datalen = field::u16le(buf, 0x11) as usize;
        let avail = buf.len() - CIV_HEADER_LEN;
        if datalen == 0 || datalen > avail {
            return Err(WireError::BadValue("CI-V datalen"));
        }
        Ok(CivDataRepr {
            seq: h.seq,
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
            inner_seq: field::u16be(buf, 0x13),
            payload: buf[CIV_HEADER_LEN..CIV_HEADER_LEN + datalen].to_vec(),
        })
    }

    /// The bytes of this packet.
    pub fn emit(&self) -> Vec<u8> {
        let len = CIV_HEADER_LEN + self.payload.len();
        let mut buf = vec![0u8; len];
        Header::new(len, ptype::DATA, self.seq, self.sent_id, self.rcvd_id).emit(&mut buf);
        buf[0x10] = MARKER_DATA;
        field::put_u16le(&mut buf, 0x11, self.payload.len() as u16);
        field::put_u16be(&mut buf, 0x13, self.inner_seq);
        buf[CIV_HEADER_LEN..].copy_from_slice(&self.payload);
        buf
    }

    /// True when `buf` carries the CI-V data marker at 0x10 (cheap pre-check).
    pub fn has_marker(buf: &[u8]) -> bool {
        buf.len() > CIV_HEADER_LEN && buf[0x10] == MARKER_DATA
    }
}

/// OpenClose: opens (magic 0x04) or closes (0x00) the CI-V stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenCloseRepr {
    /// Tracked outer seq.
    pub seq: u16,
    /// Sender id.
    pub sent_id: u32,
    /// Receiver id.
    pub rcvd_id: u32,
    /// Inner send seq (BE), same counter as CI-V data.
    pub inner_seq: u16,
    /// True to open the stream, false to close it.
    pub open: bool,
}

impl OpenCloseRepr {
    /// An OpenClose; the seq and ids are filled in when sent ([`super::Tracked`]).
    pub fn new(inner_seq: u16, open: bool) -> OpenCloseRepr {
        OpenCloseRepr {
            seq: 0,
            sent_id: 0,
            rcvd_id: 0,
            inner_seq,
            open,
        }
    }

    /// Parses a 0x16-byte OpenClose.
    pub fn parse(buf: &[u8]) -> Result<OpenCloseRepr> {
        exact(buf, OPENCLOSE_LEN)?;
        let h = Header::parse(buf)?;
        if h.ptype != ptype::DATA || buf[0x10] != MARKER_OPENCLOSE {
            return Err(WireError::BadValue("OpenClose marker"));
        }
        let open = match buf[0x15] {
            0x04 => true,
            0x00 => false,
            _ => return Err(WireError::BadValue("OpenClose magic")),
        };
        Ok(OpenCloseRepr {
            seq: h.seq,
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
            inner_seq: field::u16be(buf, 0x13),
            open,
        })
    }

    /// The 0x16 bytes of this packet.
    pub fn emit(&self) -> Vec<u8> {
        let mut buf = vec![0u8; OPENCLOSE_LEN];
        Header::new(
            OPENCLOSE_LEN,
            ptype::DATA,
            self.seq,
            self.sent_id,
            self.rcvd_id,
        )
        .emit(&mut buf);
        buf[0x10] = MARKER_OPENCLOSE;
        buf[0x11] = 0x01;
        buf[0x12] = 0x00;
        field::put_u16be(&mut buf, 0x13, self.inner_seq);
        buf[0x15] = if self.open { 0x04 } else { 0x00 };
        buf
    }
}

/// Keeps [`HEADER_LEN`] referenced for readers comparing the two header sizes.
const _: () = assert!(CIV_HEADER_LEN == HEADER_LEN + 5);
