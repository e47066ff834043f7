//! The other end of a LAN session, played by the fuzzer: [`Peer`] learns the ids,
//! sequence numbers, token and GUID of the session it talks to, and builds datagrams of
//! every kind that get past its checks, their fields from the fuzz input.

use rigweb::wire::civ::Frame;
use rigweb::wire::lan::{
    AudioRepr, CapabilitiesRepr, CivDataRepr, ControlRepr, HEADER_LEN, LoginRepr,
    LoginResponseRepr, MAX_AUDIO_PAYLOAD, OpenCloseRepr, Packet, PingRepr, RadioCapability,
    RadioConnInfoRepr, RetransmitRepr, StatusRepr, StreamRequestRepr, TokenRepr, codec,
    credentials, ptype, token_kind,
};

use crate::common::Bytes;

/// Number of datagram kinds [`Peer::datagram`] builds.
pub const DATAGRAM_KINDS: u8 = 19;

/// Codec bytes a stream request may ask for (valid ones, Opus, and an unknown one).
pub const CODECS: [u8; 10] = [
    codec::ULAW_MONO,
    codec::PCM8_MONO,
    codec::PCM16_MONO,
    codec::PCM8_STEREO,
    codec::PCM16_STEREO,
    codec::ULAW_STEREO,
    codec::OPUS_MONO,
    codec::OPUS_STEREO,
    0x00,
    0x03,
];

/// Sample rates a stream request may ask for.
pub const RATES: [u32; 6] = [8_000, 16_000, 24_000, 48_000, 44_100, 0];

/// What the fuzzer-side peer of a session knows and uses to build datagrams that get
/// past the id, sequence, token and GUID checks.
#[derive(Debug, Clone)]
pub struct Peer {
    /// Our id on this port (`sent_id` of what we send).
    pub my_id: u32,
    /// The session's id (`rcvd_id` of what we send).
    pub their_id: u32,
    /// Next tracked seq we send.
    pub seq: u16,
    /// Next auth inner seq.
    pub inner: u16,
    /// Request id of the login exchange.
    pub tok_request: u16,
    /// Session token (learned from a login response, or the one we handed out).
    pub token: u32,
    /// GUID (learned from capabilities / conninfo).
    pub guid: [u8; 16],
    /// Latest tracked seq the session sent.
    pub their_seq: u16,
    /// Seq of the session's last ping request.
    pub their_ping: Option<u16>,
    /// CI-V address of the radio (for CI-V frames we send).
    pub civ_addr: u8,
    /// User name and password of a well-formed login.
    pub user: &'static str,
    /// Password of a well-formed login.
    pub password: &'static str,
}

impl Peer {
    /// A peer with id `my_id` talking to a session with id `their_id`.
    pub fn new(my_id: u32, their_id: u32) -> Peer {
        Peer {
            my_id,
            their_id,
            seq: 1,
            inner: 0x30,
            tok_request: 0x4242,
            token: 0x1234_5678,
            guid: [0; 16],
            their_seq: 0,
            their_ping: None,
            civ_addr: 0x98,
            user: "rigweb",
            password: "rigweb",
        }
    }

    /// Learns ids, seqs, tokens and GUIDs from a datagram the session sent.
    pub fn learn(&mut self, p: &Packet) {
        match p {
            Packet::Ping(x) if !x.reply => self.their_ping = Some(x.seq),
            Packet::Ping(_) | Packet::Retransmit(_) => {}
            Packet::AreYouThere(_) | Packet::IAmHere(_) | Packet::AreYouReady(_) => {}
            Packet::Disconnect(_) => {}
            other => self.their_seq = other.seq(),
        }
        match p {
            Packet::LoginResponse(r) if r.is_ok() => self.token = r.token,
            Packet::Login(l) => self.tok_request = l.tok_request,
            Packet::Capabilities(c) => {
                if let Some(r) = c.radios.first() {
                    self.guid = r.guid;
                }
            }
            Packet::RadioConnInfo(c) => self.guid = c.guid,
            _ => {}
        }
    }

    fn ids(&self, b: &mut Bytes, flags: u8) -> (u32, u32) {
        if flags & 1 != 0 {
            (b.u32(), b.u32())
        } else {
            (self.my_id, self.their_id)
        }
    }

    fn next_seq(&mut self, b: &mut Bytes, flags: u8) -> u16 {
        if flags & 2 != 0 {
            return b.u16();
        }
        let s = self.seq;
        self.seq = s.wrapping_add(1);
        s
    }

    fn next_inner(&mut self) -> u16 {
        let v = self.inner;
        self.inner = v.wrapping_add(1);
        v
    }

    fn text(b: &mut Bytes, known: &[&'static str]) -> String {
        let i = b.u8();
        match known.get(usize::from(i)) {
            Some(s) => s.to_string(),
            None => String::from_utf8_lossy(b.chunk(20)).into_owned(),
        }
    }

    /// A CI-V payload: a few frames to the radio (or elsewhere), or raw bytes.
    pub fn civ_payload(&self, b: &mut Bytes) -> Vec<u8> {
        let flags = b.u8();
        if flags & 0x80 != 0 {
            return b.chunk(255).to_vec();
        }
        let mut out = Vec::new();
        for _ in 0..=(flags & 3) {
            let to = match b.u8() % 4 {
                0 => 0x00,
                1 => b.u8(),
                _ => self.civ_addr,
            };
            let from = if flags & 4 != 0 { b.u8() } else { 0xE0 };
            let cmd = b.u8();
            let mut data = b.chunk(24).to_vec();
            if flags & 8 == 0 {
                data.retain(|&x| x != 0xFD);
            }
            out.extend(Frame::new(to, from, cmd, &data).emit());
        }
        if out.is_empty() {
            out.push(0);
        }
        out
    }

    /// One datagram of kind `kind % DATAGRAM_KINDS`, its fields from `b` or from what the
    /// peer knows. Flags (next byte): bit 0 raw ids, bit 1 raw seq, bit 2 raw tokens /
    /// request ids, bit 3 raw GUID, bits 4-7 kind-specific.
    pub fn datagram(&mut self, b: &mut Bytes, kind: u8) -> Vec<u8> {
        let flags = b.u8();
        let ids = self.ids(b, flags);
        let ctl = |ptype, seq| {
            ControlRepr {
                ptype,
                seq,
                sent_id: ids.0,
                rcvd_id: ids.1,
            }
            .emit()
        };
        let tok_request = if flags & 4 != 0 {
            b.u16()
        } else {
            self.tok_request
        };
        let token = if flags & 4 != 0 { b.u32() } else { self.token };
        let guid = if flags & 8 != 0 {
            let mut g = [0u8; 16];
            g.copy_from_slice(&{
                let mut v = b.take(16).to_vec();
                v.resize(16, 0);
                v
            });
            g
        } else {
            self.guid
        };
        match kind % DATAGRAM_KINDS {
            0 => b.long_chunk(1500).to_vec(),
            1 => {
                // raw bytes with our ids (and a type) patched in
                let mut d = b.long_chunk(1500).to_vec();
                if d.len() >= HEADER_LEN {
                    d[8..12].copy_from_slice(&self.my_id.to_le_bytes());
                    d[12..16].copy_from_slice(&self.their_id.to_le_bytes());
                    if flags & 0x10 != 0 {
                        d[4..6].copy_from_slice(&[b.u8() % 8, 0]);
                    }
                }
                d
            }
            2 => ctl(ptype::ARE_YOU_THERE, 0),
            3 => ctl(ptype::I_AM_HERE, 0),
            4 => ctl(ptype::ARE_YOU_READY, b.u8().into()),
            5 => ctl(ptype::DISCONNECT, 0),
            6 => {
                let seq = self.next_seq(b, flags);
                ctl(ptype::DATA, seq)
            }
            7 => {
                let reply = flags & 0x10 != 0;
                let seq = match self.their_ping {
                    Some(s) if reply && flags & 2 == 0 => s,
                    _ => b.u16(),
                };
                PingRepr {
                    seq,
                    sent_id: ids.0,
                    rcvd_id: ids.1,
                    reply,
                    time: b.u32(),
                }
                .emit()
            }
            8 => {
                // seqs at and before the session's latest, or raw
                let n = 1 + usize::from(b.u8());
                let back = b.u8();
                let seqs: Vec<u16> = if flags & 0x10 != 0 {
                    (0..n).map(|_| b.u16()).collect()
                } else {
                    (0..n)
                        .map(|i| {
                            self.their_seq
                                .wrapping_sub(u16::from(back))
                                .wrapping_add(i as u16)
                        })
                        .collect()
                };
                let mut seqs = seqs;
                seqs.sort_unstable();
                seqs.dedup();
                RetransmitRepr {
                    sent_id: ids.0,
                    rcvd_id: ids.1,
                    seqs,
                }
                .emit()
            }
            9 => {
                let seq = self.next_seq(b, flags);
                let inner = self.next_inner();
                let (user, pass) = if flags & 0x10 != 0 {
                    (
                        Self::text(b, &["", "rigweb", "admin"]),
                        Self::text(b, &["", "rigweb", "password"]),
                    )
                } else {
                    (self.user.to_string(), self.password.to_string())
                };
                let name = Self::text(b, &["fuzz", "rigweb", ""]);
                LoginRepr::new(ids, seq, inner, tok_request, &user, &pass, &name).emit()
            }
            10 => {
                let seq = self.next_seq(b, flags);
                LoginResponseRepr {
                    seq,
                    sent_id: ids.0,
                    rcvd_id: ids.1,
                    inner_seq: b.u16(),
                    tok_request,
                    token,
                    auth_start_id: b.u16(),
                    error: match flags >> 4 & 3 {
                        0 | 1 => 0,
                        2 => rigweb::wire::lan::LOGIN_ERROR_BAD_CREDENTIALS,
                        _ => b.u32(),
                    },
                    connection_type: Self::text(b, &["FTTH", "WFVIEW"]),
                }
                .emit()
            }
            11 => {
                let seq = self.next_seq(b, flags);
                let kind = match flags >> 4 & 7 {
                    0 | 1 => token_kind::RENEW,
                    2 => token_kind::ACK,
                    3 => token_kind::REMOVE,
                    4 => token_kind::STOP_STREAMS,
                    _ => b.u8(),
                };
                let mut t =
                    TokenRepr::request(ids, seq, kind, self.next_inner(), tok_request, token);
                if flags & 0x80 != 0 {
                    // a reply (radio -> client)
                    t.request_reply = 0x02;
                    t.response = if b.bool() {
                        0
                    } else {
                        rigweb::wire::lan::ERROR_REJECTED
                    };
                }
                t.emit()
            }
            12 => {
                let seq = self.next_seq(b, flags);
                let n = 1 + usize::from(b.u8() % 3);
                let radios = (0..n)
                    .map(|_| RadioCapability {
                        guid,
                        name: Self::text(b, &["IC-7610", "IC-705", "IC-9700", "IC-7100"]),
                        audio_name: "ICOM_VAUDIO".into(),
                        conn_type: 0x073F,
                        civ_addr: b.u8(),
                        rx_caps: 0x8B01,
                        tx_caps: 0x8B01,
                        enable: [1, 1, 1],
                        baud: 115_200,
                        capf: 0x5001,
                        capg: 0x0190,
                    })
                    .collect();
                CapabilitiesRepr {
                    seq,
                    sent_id: ids.0,
                    rcvd_id: ids.1,
                    inner_seq: self.next_inner(),
                    tok_request,
                    token,
                    radios,
                }
                .emit()
            }
            13 => {
                let seq = self.next_seq(b, flags);
                RadioConnInfoRepr {
                    seq,
                    sent_id: ids.0,
                    rcvd_id: ids.1,
                    inner_seq: self.next_inner(),
                    tok_request,
                    token,
                    guid,
                    radio_name: Self::text(b, &["IC-7610", ""]),
                    busy: u32::from(flags >> 4 & 1),
                    computer_name: Self::text(b, &["", "rigweb", "other-pc"]),
                    user_ip: b.u32(),
                }
                .emit()
            }
            14 => {
                let seq = self.next_seq(b, flags);
                let raw_audio = flags & 0x10 != 0;
                let pick_codec = |b: &mut Bytes| if raw_audio { b.u8() } else { b.pick(&CODECS) };
                let pick_rate = |b: &mut Bytes| if raw_audio { b.u32() } else { b.pick(&RATES) };
                StreamRequestRepr {
                    seq,
                    sent_id: ids.0,
                    rcvd_id: ids.1,
                    inner_seq: self.next_inner(),
                    tok_request,
                    token,
                    guid,
                    radio_name: "IC-7610".into(),
                    username: credentials::encode(self.user),
                    rx_enable: flags & 0x20 == 0,
                    tx_enable: flags & 0x40 == 0,
                    rx_codec: pick_codec(b),
                    tx_codec: pick_codec(b),
                    rx_sample_rate: pick_rate(b),
                    tx_sample_rate: pick_rate(b),
                    civ_port: 50_002,
                    audio_port: 50_003,
                    tx_buffer_ms: 150,
                    convert: 1,
                }
                .emit()
            }
            15 => {
                let seq = self.next_seq(b, flags);
                StatusRepr {
                    seq,
                    sent_id: ids.0,
                    rcvd_id: ids.1,
                    inner_seq: self.next_inner(),
                    tok_request,
                    token,
                    guid,
                    error: match flags >> 4 & 3 {
                        0 | 1 => 0,
                        2 => rigweb::wire::lan::ERROR_REJECTED,
                        _ => b.u32(),
                    },
                    disconnected: flags & 0x40 != 0,
                    civ_port: if flags & 0x80 != 0 { 0 } else { 50_002 },
                    audio_port: 50_003,
                }
                .emit()
            }
            16 => {
                let seq = self.next_seq(b, flags);
                CivDataRepr {
                    seq,
                    sent_id: ids.0,
                    rcvd_id: ids.1,
                    inner_seq: self.next_inner(),
                    payload: self.civ_payload(b),
                }
                .emit()
            }
            17 => {
                let seq = self.next_seq(b, flags);
                OpenCloseRepr {
                    seq,
                    sent_id: ids.0,
                    rcvd_id: ids.1,
                    inner_seq: self.next_inner(),
                    open: flags & 0x10 == 0,
                }
                .emit()
            }
            _ => {
                let seq = self.next_seq(b, flags);
                let n = usize::from(b.u16()) % (MAX_AUDIO_PAYLOAD + 1);
                let fill = b.u8();
                let mut payload: Vec<u8> = (0..n).map(|i| fill.wrapping_mul(i as u8)).collect();
                if payload.is_empty() {
                    payload.push(fill);
                }
                AudioRepr::new(ids, seq, b.u16(), payload).emit()
            }
        }
    }
}
