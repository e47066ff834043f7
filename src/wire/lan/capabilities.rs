//! Capabilities (radio → client, 0x42 + 0x66·n bytes), spec §2.7.

use super::auth::AuthPrefix;
use super::header::Header;
use super::ptype;
use crate::wire::{Result, WireError, field, need};

/// Length of the capabilities header part.
pub const CAPABILITIES_HEADER_LEN: usize = 0x42;
/// Length of one radio entry.
pub const CAPABILITY_ENTRY_LEN: usize = 0x66;
/// Largest number of radio entries accepted in one packet.
const MAX_RADIOS: usize = 16;

/// One radio described by a capabilities packet.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RadioCapability {
    /// GUID or MAC form identity, echoed in the client's conninfo.
    pub guid: [u8; 16],
    /// Radio name, e.g. "IC-7610".
    pub name: String,
    /// Audio device name, e.g. "ICOM_VAUDIO".
    pub audio_name: String,
    /// Connection type: 0x073F Ethernet, 0x0707 WiFi.
    pub conn_type: u16,
    /// The radio's CI-V address.
    pub civ_addr: u8,
    /// RX sample-rate capability word (LE).
    pub rx_caps: u16,
    /// TX sample-rate capability word (LE); 0 = no TX audio.
    pub tx_caps: u16,
    /// enablea, enableb, enablec.
    pub enable: [u8; 3],
    /// CI-V baud rate (BE on the wire).
    pub baud: u32,
    /// capf (LE).
    pub capf: u16,
    /// capg (LE).
    pub capg: u16,
}

impl RadioCapability {
    fn parse(e: &[u8]) -> RadioCapability {
        RadioCapability {
            guid: field::array::<16>(e, 0x00),
            name: field::ascii(e, 0x10, 32),
            audio_name: field::ascii(e, 0x30, 32),
            conn_type: field::u16le(e, 0x50),
            civ_addr: e[0x52],
            rx_caps: field::u16le(e, 0x53),
            tx_caps: field::u16le(e, 0x55),
            enable: [e[0x57], e[0x58], e[0x59]],
            baud: field::u32be(e, 0x5A),
            capf: field::u16le(e, 0x5E),
            capg: field::u16le(e, 0x61),
        }
    }

    fn emit(&self, e: &mut [u8]) {
        e[0x00..0x10].copy_from_slice(&self.guid);
        field::put_ascii(e, 0x10, 32, &self.name);
        field::put_ascii(e, 0x30, 32, &self.audio_name);
        field::put_u16le(e, 0x50, self.conn_type);
        e[0x52] = self.civ_addr;
        field::put_u16le(e, 0x53, self.rx_caps);
        field::put_u16le(e, 0x55, self.tx_caps);
        e[0x57..0x5A].copy_from_slice(&self.enable);
        field::put_u32be(e, 0x5A, self.baud);
        field::put_u16le(e, 0x5E, self.capf);
        field::put_u16le(e, 0x61, self.capg);
    }
}

/// The capabilities packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapabilitiesRepr {
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
    /// The radios (real radios send one).
    pub radios: Vec<RadioCapability>,
}

impl CapabilitiesRepr {
    /// Parses a capabilities packet; the radio count comes from the length, not 0x40.
    pub fn parse(buf: &[u8]) -> Result<CapabilitiesRepr> {
        need(buf, CAPABILITIES_HEADER_LEN + CAPABILITY_ENTRY_LEN)?;
        let body = buf.len() - CAPABILITIES_HEADER_LEN;
        if !body.is_multiple_of(CAPABILITY_ENTRY_LEN) {
            return Err(WireError::BadValue("capabilities length"));
        }
        let n = body / CAPABILITY_ENTRY_LEN;
        if n > MAX_RADIOS {
            return Err(WireError::BadValue("too many radios"));
        }
        let h = Header::parse(buf)?;
        let p = AuthPrefix::parse(buf)?;
        let radios = (0..n)
            .map(|k| {
                let off = CAPABILITIES_HEADER_LEN + k * CAPABILITY_ENTRY_LEN;
                RadioCapability::parse(&buf[off..off + CAPABILITY_ENTRY_LEN])
            })
            .collect();
        Ok(CapabilitiesRepr {
            seq: h.seq,
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
            inner_seq: p.inner_seq,
            tok_request: p.tok_request,
            token: p.token,
            radios,
        })
    }

    /// The bytes of this packet.
    pub fn emit(&self) -> Vec<u8> {
        let len = CAPABILITIES_HEADER_LEN + CAPABILITY_ENTRY_LEN * self.radios.len();
        let mut buf = vec![0u8; len];
        Header::new(len, ptype::DATA, self.seq, self.sent_id, self.rcvd_id).emit(&mut buf);
        AuthPrefix {
            payload_size: (len - 0x10) as u32,
            request_reply: 0x02,
            request_type: 0x02,
            inner_seq: self.inner_seq,
            tok_request: self.tok_request,
            token: self.token,
            guid: [0; 16],
        }
        .emit(&mut buf);
        field::put_u16be(&mut buf, 0x40, self.radios.len() as u16);
        for (k, r) in self.radios.iter().enumerate() {
            let off = CAPABILITIES_HEADER_LEN + k * CAPABILITY_ENTRY_LEN;
            r.emit(&mut buf[off..off + CAPABILITY_ENTRY_LEN]);
        }
        buf
    }
}
