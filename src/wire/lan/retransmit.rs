//! Retransmit requests (spec §1.6). A single missing seq is a bare 0x10 header with
//! type 0x01 and `seq` = the missing seq ([`super::ControlRepr`]); several are sent as
//! `0x10 + 4·n` bytes whose payload holds each seq twice (LE u16 `seq, seq`).

use super::header::{HEADER_LEN, Header};
use super::ptype;
use crate::wire::{Result, WireError, field, need};

/// Largest number of seqs one multi-request carries (keeps datagrams small).
pub const MAX_RETRANSMIT_ENTRIES: usize = 64;

/// A retransmit request for one or more sequence numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetransmitRepr {
    /// Sender id.
    pub sent_id: u32,
    /// Receiver id.
    pub rcvd_id: u32,
    /// Requested seqs, in order, without duplicates.
    pub seqs: Vec<u16>,
}

impl RetransmitRepr {
    /// Parses either form. For the multi form every 2-byte entry is read and repeated
    /// values are folded, so a well-formed `seq, seq` pair yields one seq.
    pub fn parse(buf: &[u8]) -> Result<RetransmitRepr> {
        need(buf, HEADER_LEN)?;
        let h = Header::parse(buf)?;
        if h.ptype != ptype::RETRANSMIT {
            return Err(WireError::BadValue("retransmit type"));
        }
        let seqs = if buf.len() == HEADER_LEN {
            vec![h.seq]
        } else {
            let body = &buf[HEADER_LEN..];
            if !body.len().is_multiple_of(2) {
                return Err(WireError::BadValue("retransmit payload length"));
            }
            let mut seqs: Vec<u16> = Vec::with_capacity(body.len() / 4);
            for i in (0..body.len()).step_by(2) {
                let s = field::u16le(body, i);
                if !seqs.contains(&s) {
                    seqs.push(s);
                }
                if seqs.len() > MAX_RETRANSMIT_ENTRIES * 4 {
                    return Err(WireError::BadValue("too many retransmit entries"));
                }
            }
            seqs
        };
        Ok(RetransmitRepr {
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
            seqs,
        })
    }

    /// The bytes of this request: the single form for one seq, else the multi form.
    pub fn emit(&self) -> Vec<u8> {
        if self.seqs.len() == 1 {
            let mut buf = vec![0u8; HEADER_LEN];
            Header::new(
                HEADER_LEN,
                ptype::RETRANSMIT,
                self.seqs[0],
                self.sent_id,
                self.rcvd_id,
            )
            .emit(&mut buf);
            return buf;
        }
        let len = HEADER_LEN + 4 * self.seqs.len();
        let mut buf = vec![0u8; len];
        Header::new(len, ptype::RETRANSMIT, 0, self.sent_id, self.rcvd_id).emit(&mut buf);
        for (i, &s) in self.seqs.iter().enumerate() {
            field::put_u16le(&mut buf, HEADER_LEN + 4 * i, s);
            field::put_u16le(&mut buf, HEADER_LEN + 4 * i + 2, s);
        }
        buf
    }
}
