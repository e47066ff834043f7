//! 0x10-byte control packets: AYT, IAH, AYR / I-am-ready, DISCONNECT, idle and the
//! single retransmit request (spec §1.4). They are a bare header.

use super::header::{HEADER_LEN, Header};
use super::ptype;
use crate::wire::{Result, exact};

/// A header-only packet. `ptype` says which one; `seq` is the tracked seq (idle),
/// the echoed seq (IAH, I-am-ready), the missing seq (retransmit) or 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlRepr {
    /// Packet type ([`ptype::ARE_YOU_THERE`], [`ptype::DATA`] for idle, ...).
    pub ptype: u16,
    /// Sequence field, meaning per type.
    pub seq: u16,
    /// Sender id.
    pub sent_id: u32,
    /// Receiver id.
    pub rcvd_id: u32,
}

impl ControlRepr {
    /// Parses a datagram of exactly 0x10 bytes.
    pub fn parse(buf: &[u8]) -> Result<ControlRepr> {
        exact(buf, HEADER_LEN)?;
        let h = Header::parse(buf)?;
        Ok(ControlRepr {
            ptype: h.ptype,
            seq: h.seq,
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
        })
    }

    /// The 16 bytes of this packet.
    pub fn emit(&self) -> Vec<u8> {
        let mut buf = vec![0u8; HEADER_LEN];
        Header::new(HEADER_LEN, self.ptype, self.seq, self.sent_id, self.rcvd_id).emit(&mut buf);
        buf
    }

    /// True for an idle / keep-alive (type 0, header only).
    pub fn is_idle(&self) -> bool {
        self.ptype == ptype::DATA
    }
}
