//! Ping request and reply, 0x15 bytes (spec §1.5).

use super::header::{HEADER_LEN, Header};
use super::ptype;
use crate::wire::{Result, WireError, exact, field};

/// Length of a ping datagram.
pub const PING_LEN: usize = 0x15;

/// A ping: `seq` is the ping counter, `time` an opaque millisecond stamp of the requester.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PingRepr {
    /// Ping sequence (separate counter from the tracked seq).
    pub seq: u16,
    /// Sender id.
    pub sent_id: u32,
    /// Receiver id.
    pub rcvd_id: u32,
    /// False for a request, true for a reply.
    pub reply: bool,
    /// Requester's timestamp, echoed verbatim in the reply.
    pub time: u32,
}

impl PingRepr {
    /// Parses a 0x15-byte ping. The header `len` field is not checked (some peers send 0).
    pub fn parse(buf: &[u8]) -> Result<PingRepr> {
        exact(buf, PING_LEN)?;
        let h = Header::parse(buf)?;
        if h.ptype != ptype::PING {
            return Err(WireError::BadValue("ping type"));
        }
        let reply = match buf[0x10] {
            0 => false,
            1 => true,
            _ => return Err(WireError::BadValue("ping reply flag")),
        };
        Ok(PingRepr {
            seq: h.seq,
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
            reply,
            time: field::u32le(buf, 0x11),
        })
    }

    /// The 0x15 bytes of this ping (header `len` always 0x15).
    pub fn emit(&self) -> Vec<u8> {
        let mut buf = vec![0u8; PING_LEN];
        Header::new(PING_LEN, ptype::PING, self.seq, self.sent_id, self.rcvd_id).emit(&mut buf);
        buf[HEADER_LEN] = u8::from(self.reply);
        field::put_u32le(&mut buf, 0x11, self.time);
        buf
    }

    /// The reply a peer owes to this request, sent with the replier's ids.
    pub fn reply_to(&self, my_id: u32) -> PingRepr {
        PingRepr {
            seq: self.seq,
            sent_id: my_id,
            rcvd_id: self.sent_id,
            reply: true,
            time: self.time,
        }
    }
}
