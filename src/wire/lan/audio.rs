//! Audio packets on the audio port, 0x18-byte header (spec §3.3).

use super::header::Header;
use super::ptype;
use crate::wire::{Result, WireError, field, need};

/// Length of the audio header.
pub const AUDIO_HEADER_LEN: usize = 0x18;
/// Largest audio payload a radio accepts in one packet (the IC-7610 drops larger ones).
pub const MAX_AUDIO_PAYLOAD: usize = 1364;

/// `ident` for ordinary packets.
pub const IDENT_NORMAL: u16 = 0x0080;
/// `ident` wfview uses for 160-byte payloads.
pub const IDENT_160: u16 = 0x9781;

/// One block of audio samples in the negotiated codec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AudioRepr {
    /// Tracked outer seq.
    pub seq: u16,
    /// Sender id.
    pub sent_id: u32,
    /// Receiver id.
    pub rcvd_id: u32,
    /// `ident` (LE at 0x10).
    pub ident: u16,
    /// Audio send seq (BE at 0x12), per stream.
    pub send_seq: u16,
    /// The samples. On receipt: every byte after the header (`datalen` is not trusted).
    pub payload: Vec<u8>,
}

impl AudioRepr {
    /// An audio packet with the `ident` the spec prescribes for this payload length.
    pub fn new(ids: (u32, u32), seq: u16, send_seq: u16, payload: Vec<u8>) -> AudioRepr {
        let ident = if payload.len() == 0xA0 {
            IDENT_160
        } else {
            IDENT_NORMAL
        };
        AudioRepr {
            seq,
            sent_id: ids.0,
            rcvd_id: ids.1,
            ident,
            send_seq,
            payload,
        }
    }

    /// Parses an audio packet (datagram longer than 0x18 bytes, type 0).
    pub fn parse(buf: &[u8]) -> Result<AudioRepr> {
        need(buf, AUDIO_HEADER_LEN + 1)?;
        let h = Header::parse(buf)?;
        if h.ptype != ptype::DATA {
            return Err(WireError::BadValue("audio type"));
        }
        if buf.len() - AUDIO_HEADER_LEN > MAX_AUDIO_PAYLOAD * 4 {
            return Err(WireError::BadValue("audio payload too large"));
        }
        Ok(AudioRepr {
            seq: h.seq,
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
            ident: field::u16le(buf, 0x10),
            send_seq: field::u16be(buf, 0x12),
            payload: buf[AUDIO_HEADER_LEN..].to_vec(),
        })
    }

    /// The bytes of this packet.
    pub fn emit(&self) -> Vec<u8> {
        let len = AUDIO_HEADER_LEN + self.payload.len();
        let mut buf = vec![0u8; len];
        Header::new(len, ptype::DATA, self.seq, self.sent_id, self.rcvd_id).emit(&mut buf);
        field::put_u16le(&mut buf, 0x10, self.ident);
        field::put_u16be(&mut buf, 0x12, self.send_seq);
        field::put_u16be(&mut buf, 0x16, self.payload.len() as u16);
        buf[AUDIO_HEADER_LEN..].copy_from_slice(&self.payload);
        buf
    }
}
