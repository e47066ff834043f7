//! The Icom LAN UDP packets (spec `icom-lan-protocol.md` §1–§3).
//!
//! Every datagram starts with the 16-byte [`Header`] (little-endian). What follows
//! depends on the port and on the datagram's *length* (never on the header's `len`
//! field alone: some peers send ping requests with `len = 0`). [`Packet::parse`]
//! does that dispatch; each packet kind also has its own `Repr` with `parse` and
//! `emit` so that sessions can build exactly the bytes the spec shows.

mod audio;
pub mod audio_codec;
mod auth;
mod capabilities;
mod civ_data;
mod conninfo;
mod control;
pub mod credentials;
mod header;
mod login;
mod packet;
mod ping;
mod retransmit;
mod status;
mod token;

pub use audio::{AUDIO_HEADER_LEN, AudioRepr, MAX_AUDIO_PAYLOAD};
pub use auth::{AuthPrefix, mac_form_guid};
pub use capabilities::{
    CAPABILITIES_HEADER_LEN, CAPABILITY_ENTRY_LEN, CapabilitiesRepr, RadioCapability,
};
pub use civ_data::{CIV_HEADER_LEN, CivDataRepr, OPENCLOSE_LEN, OpenCloseRepr};
pub use conninfo::{CONNINFO_LEN, RadioConnInfoRepr, StreamRequestRepr};
pub use control::ControlRepr;
pub use header::{HEADER_LEN, Header};
pub use login::{LOGIN_LEN, LOGIN_RESPONSE_LEN, LoginRepr, LoginResponseRepr};
pub use packet::{Origin, Packet, Port};
pub use ping::{PING_LEN, PingRepr};
pub use retransmit::{MAX_RETRANSMIT_ENTRIES, RetransmitRepr};
pub use status::{STATUS_LEN, StatusRepr};
pub use token::{TOKEN_LEN, TokenRepr};

/// A tracked packet whose outer seq and ids are filled in when it is sent (the stream
/// assigns the seq).
pub trait Tracked {
    /// Sets the outer seq and `(sent_id, rcvd_id)`.
    fn set_header(&mut self, seq: u16, ids: (u32, u32));
    /// The bytes of the packet.
    fn to_bytes(&self) -> Vec<u8>;
    /// Sets the header and returns the bytes.
    fn emit_tracked(mut self, seq: u16, ids: (u32, u32)) -> Vec<u8>
    where
        Self: Sized,
    {
        self.set_header(seq, ids);
        self.to_bytes()
    }
}

macro_rules! tracked {
    ($($t:ty),* $(,)?) => {$(
        impl Tracked for $t {
            fn set_header(&mut self, seq: u16, ids: (u32, u32)) {
                self.seq = seq;
                self.sent_id = ids.0;
                self.rcvd_id = ids.1;
            }
            fn to_bytes(&self) -> Vec<u8> {
                self.emit()
            }
        }
    )*};
}

tracked!(
    LoginRepr,
    LoginResponseRepr,
    TokenRepr,
    CapabilitiesRepr,
    RadioConnInfoRepr,
    StreamRequestRepr,
    StatusRepr,
    CivDataRepr,
    OpenCloseRepr,
    AudioRepr,
);

/// Packet `type` values of the common header (offset 0x04).
pub mod ptype {
    /// Data packet; a bare 0x10-byte type-0 packet is an idle / keep-alive.
    pub const DATA: u16 = 0x00;
    /// Retransmit request (single: 0x10 bytes; multi: 0x10 + 4·n bytes).
    pub const RETRANSMIT: u16 = 0x01;
    /// "Are you there" (client discovery).
    pub const ARE_YOU_THERE: u16 = 0x03;
    /// "I am here" (the radio's answer to AYT).
    pub const I_AM_HERE: u16 = 0x04;
    /// Disconnect (either direction, untracked).
    pub const DISCONNECT: u16 = 0x05;
    /// "Are you ready" / "I am ready" (same type both ways).
    pub const ARE_YOU_READY: u16 = 0x06;
    /// Ping request and reply.
    pub const PING: u16 = 0x07;
}

/// Status `error` value meaning "invalid username/password" in a login response.
pub const LOGIN_ERROR_BAD_CREDENTIALS: u32 = 0xFEFF_FFFF;
/// Status / token `error` value meaning "rejected".
pub const ERROR_REJECTED: u32 = 0xFFFF_FFFF;

/// Token `requesttype` values (spec §2.6).
pub mod token_kind {
    /// Token removal (logout).
    pub const REMOVE: u8 = 0x01;
    /// Token ack / create, right after the login response.
    pub const ACK: u8 = 0x02;
    /// Stop CI-V and audio streams.
    pub const STOP_STREAMS: u8 = 0x04;
    /// Token renewal (every 60 s).
    pub const RENEW: u8 = 0x05;
}

/// Audio codec byte values of the conninfo stream request (spec §2.8).
pub mod codec {
    use crate::util::vocabulary::vocabulary;

    /// µ-law mono, 8 bit.
    pub const ULAW_MONO: u8 = 0x01;
    /// Linear PCM mono, unsigned 8 bit.
    pub const PCM8_MONO: u8 = 0x02;
    /// Linear PCM mono, signed 16 bit little-endian.
    pub const PCM16_MONO: u8 = 0x04;
    /// Linear PCM stereo, unsigned 8 bit, interleaved.
    pub const PCM8_STEREO: u8 = 0x08;
    /// Linear PCM stereo, signed 16 bit little-endian, interleaved L,R.
    pub const PCM16_STEREO: u8 = 0x10;
    /// µ-law stereo, 8 bit.
    pub const ULAW_STEREO: u8 = 0x20;
    /// Opus mono (only when the server says "WFVIEW").
    pub const OPUS_MONO: u8 = 0x40;
    /// Opus stereo (only when the server says "WFVIEW").
    pub const OPUS_STEREO: u8 = 0x41;

    vocabulary! {
        /// The codecs a profile may name (`[audio] rx_codecs`, `tx_codec`); the value is
        /// the conninfo byte.
        pub enum LanCodec: u8 {
            /// µ-law mono.
            UlawMono = "ulaw_mono" => ULAW_MONO,
            /// PCM mono, 8 bit.
            Pcm8Mono = "pcm8_mono" => PCM8_MONO,
            /// PCM mono, 16 bit.
            Pcm16Mono = "pcm16_mono" => PCM16_MONO,
            /// PCM stereo, 8 bit.
            Pcm8Stereo = "pcm8_stereo" => PCM8_STEREO,
            /// PCM stereo, 16 bit.
            Pcm16Stereo = "pcm16_stereo" => PCM16_STEREO,
            /// µ-law stereo.
            UlawStereo = "ulaw_stereo" => ULAW_STEREO,
        }
    }

    /// Number of channels a codec byte carries, or `None` for an unknown byte.
    pub fn channels(codec: u8) -> Option<u8> {
        match codec {
            ULAW_MONO | PCM8_MONO | PCM16_MONO | OPUS_MONO => Some(1),
            PCM8_STEREO | PCM16_STEREO | ULAW_STEREO | OPUS_STEREO => Some(2),
            _ => None,
        }
    }

    /// Bytes per sample per channel for the PCM/µ-law codecs, `None` otherwise.
    pub fn bytes_per_sample(codec: u8) -> Option<usize> {
        match codec {
            ULAW_MONO | PCM8_MONO | PCM8_STEREO | ULAW_STEREO => Some(1),
            PCM16_MONO | PCM16_STEREO => Some(2),
            _ => None,
        }
    }
}
