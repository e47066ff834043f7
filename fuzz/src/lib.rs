//! Shared checks for the `rigweb::wire` fuzz targets.
//!
//! Each `check_*` function takes arbitrary bytes, runs one parser, and when it
//! succeeds asserts that:
//!
//! * the parser accepted exactly what its documented acceptance rule allows
//!   (length, type, marker, flag bytes, ...);
//! * `emit()` of the parsed Repr parses again to an equal Repr;
//! * for the fixed-layout packets, `emit()` reproduces the input byte for byte
//!   except the ranges the Repr deliberately normalises (see the `*_NORM`
//!   tables below and `fuzz/README.md`). NUL-padded ASCII fields are compared
//!   in canonical form (text up to the first NUL, printable bytes only, then
//!   zero padding).
//!
//! [`common`] holds what the stateful targets share: the script reader, the
//! embedded profiles, CI-V frame / datagram checks; [`peer`] holds `Peer`, the
//! fuzzer's side of a LAN session.

// The `*_NORM` tables are lists of ranges, some of which hold a single range.
#![allow(clippy::single_range_in_vec_init)]

use std::ops::Range;

pub mod common;
pub mod peer;

use rigweb::wire::WireError;
use rigweb::wire::lan::{
    AUDIO_HEADER_LEN, AudioRepr, CAPABILITIES_HEADER_LEN, CAPABILITY_ENTRY_LEN, CIV_HEADER_LEN,
    CONNINFO_LEN, CapabilitiesRepr, CivDataRepr, ControlRepr, HEADER_LEN, LOGIN_LEN,
    LOGIN_RESPONSE_LEN, LoginRepr, LoginResponseRepr, MAX_AUDIO_PAYLOAD, OPENCLOSE_LEN,
    OpenCloseRepr, Origin, PING_LEN, Packet, PingRepr, Port, RadioConnInfoRepr, RetransmitRepr,
    STATUS_LEN, StatusRepr, StreamRequestRepr, TOKEN_LEN, TokenRepr, ptype,
};

/// Largest number of distinct seqs a multi retransmit request may carry
/// (`MAX_RETRANSMIT_ENTRIES * 4` in `retransmit.rs`).
pub const MAX_RETRANSMIT_SEQS: usize = 64 * 4;
/// Largest radio count a capabilities packet may carry (`MAX_RADIOS`).
pub const MAX_RADIOS: usize = 16;

fn u16le(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}

/// The canonical form of a NUL-padded ASCII field: its text (up to the first NUL,
/// printable bytes and spaces only) followed by zeros up to the field's length.
pub fn canonical_ascii(field: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = field
        .iter()
        .take_while(|&&c| c != 0)
        .filter(|&&c| c.is_ascii_graphic() || c == b' ')
        .copied()
        .collect();
    out.resize(field.len(), 0);
    out
}

/// How `emit()` treats a byte range of the parsed input.
pub struct Layout {
    /// Ranges `emit()` rewrites with canonical values (ignored by the comparison).
    pub normalised: &'static [Range<usize>],
    /// NUL-padded ASCII fields, compared in canonical form.
    pub ascii: &'static [Range<usize>],
}

impl Layout {
    /// Asserts that `emitted` equals `input` outside the normalised ranges.
    pub fn check(&self, what: &str, input: &[u8], emitted: &[u8]) {
        assert_eq!(
            emitted.len(),
            input.len(),
            "{what}: emit() changed the length"
        );
        for r in self.ascii {
            assert_eq!(
                emitted[r.clone()],
                canonical_ascii(&input[r.clone()])[..],
                "{what}: ascii field {r:?} not canonical after emit()"
            );
        }
        for i in 0..input.len() {
            let skipped = self
                .normalised
                .iter()
                .chain(self.ascii)
                .any(|r| r.contains(&i));
            if !skipped {
                assert_eq!(
                    emitted[i], input[i],
                    "{what}: emit() changed byte 0x{i:02x} (not a normalised field)"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Normalised ranges, per packet.
//
// Every packet: the header `len` (0x00..0x04) is rewritten with the real length.
// Token family (auth prefix 0x10..0x30): `payload_size` (0x10..0x14) is rewritten,
// 0x18..0x1A zeroed, and the header `type` (0x04..0x06) is not checked by the
// parsers and always emitted as DATA (0).
// ---------------------------------------------------------------------------

/// Control / idle: only the header `len`.
pub const CONTROL_NORM: Layout = Layout {
    normalised: &[0x00..0x04],
    ascii: &[],
};
/// Ping: only the header `len` (the reply flag is validated to 0/1).
pub const PING_NORM: Layout = Layout {
    normalised: &[0x00..0x04],
    ascii: &[],
};
/// OpenClose: `len` and the constant bytes 0x11..0x13 (emitted `01 00`, not checked).
pub const OPENCLOSE_NORM: Layout = Layout {
    normalised: &[0x00..0x04, 0x11..0x13],
    ascii: &[],
};
/// Audio: `len`, and 0x14..0x18 (zero, then the BE payload length; not trusted on receipt).
pub const AUDIO_NORM: Layout = Layout {
    normalised: &[0x00..0x04, 0x14..0x18],
    ascii: &[],
};
/// CI-V data, compared against `input[..0x15 + datalen]` (bytes past `datalen` are dropped).
pub const CIV_DATA_NORM: Layout = Layout {
    normalised: &[0x00..0x04],
    ascii: &[],
};
/// Login: request_reply/type (0x14..0x16), token and GUID (0x1C..0x30, zero in a login),
/// the unused 0x30..0x40 and 0x70..0x80.
pub const LOGIN_NORM: Layout = Layout {
    normalised: &[0x00..0x06, 0x10..0x16, 0x18..0x1A, 0x1C..0x40, 0x70..0x80],
    ascii: &[0x60..0x70],
};
/// Login response: request_reply/type, GUID area except `authstartid` (0x20..0x22),
/// 0x34..0x40 and 0x50..0x60.
pub const LOGIN_RESPONSE_NORM: Layout = Layout {
    normalised: &[
        0x00..0x06,
        0x10..0x16,
        0x18..0x1A,
        0x22..0x30,
        0x34..0x40,
        0x50..0x60,
    ],
    ascii: &[0x40..0x50],
};
/// Token: request_reply/type and GUID are kept; 0x34..0x40 is dropped.
pub const TOKEN_NORM: Layout = Layout {
    normalised: &[0x00..0x06, 0x10..0x14, 0x18..0x1A, 0x34..0x40],
    ascii: &[],
};
/// Status: request_reply/type, 0x34..0x40, the `disc` byte 0x40 (normalised to 0/1),
/// 0x41, 0x44..0x46 and 0x48..0x50.
pub const STATUS_NORM: Layout = Layout {
    normalised: &[
        0x00..0x06,
        0x10..0x16,
        0x18..0x1A,
        0x34..0x42,
        0x44..0x46,
        0x48..0x50,
    ],
    ascii: &[],
};
/// Radio conninfo: request_reply/type, 0x30..0x40, 0x74..0x84 and 0x88..0x90.
pub const RADIO_CONNINFO_NORM: Layout = Layout {
    normalised: &[
        0x00..0x06,
        0x10..0x16,
        0x18..0x1A,
        0x30..0x40,
        0x74..0x84,
        0x88..0x90,
    ],
    ascii: &[0x40..0x60, 0x64..0x74],
};
/// Stream request: request_reply/type, 0x30..0x40, the RX/TX enable flags 0x70/0x71
/// (normalised to 0/1) and 0x89..0x90.
pub const STREAM_REQUEST_NORM: Layout = Layout {
    normalised: &[
        0x00..0x06,
        0x10..0x16,
        0x18..0x1A,
        0x30..0x40,
        0x70..0x72,
        0x89..0x90,
    ],
    ascii: &[0x40..0x60],
};
/// Capabilities, fixed part: request_reply/type, token-family GUID (zero), 0x30..0x40
/// and the radio count 0x40..0x42 (rewritten from the length).
pub const CAPABILITIES_HEAD_NORM: Layout = Layout {
    normalised: &[0x00..0x06, 0x10..0x16, 0x18..0x1A, 0x20..0x42],
    ascii: &[],
};
/// Capabilities, one radio entry (offsets inside the entry): 0x60 and 0x63..0x66 unused.
pub const CAPABILITY_ENTRY_NORM: Layout = Layout {
    normalised: &[0x60..0x61, 0x63..0x66],
    ascii: &[0x10..0x30, 0x30..0x50],
};

// ---------------------------------------------------------------------------
// Acceptance rules, as documented by each parser.
// ---------------------------------------------------------------------------

fn ptype_of(buf: &[u8]) -> u16 {
    u16le(buf, 0x04)
}

/// Whether `RetransmitRepr::parse` must accept `buf`.
pub fn retransmit_ok(buf: &[u8]) -> bool {
    if buf.len() < HEADER_LEN || ptype_of(buf) != ptype::RETRANSMIT {
        return false;
    }
    if buf.len() == HEADER_LEN {
        return true;
    }
    let body = &buf[HEADER_LEN..];
    if !body.len().is_multiple_of(2) {
        return false;
    }
    let mut seen = std::collections::BTreeSet::new();
    for c in body.chunks(2) {
        seen.insert(u16le(c, 0));
        if seen.len() > MAX_RETRANSMIT_SEQS {
            return false;
        }
    }
    true
}

/// Whether `CapabilitiesRepr::parse` must accept a buffer of `len` bytes.
pub fn capabilities_len_ok(len: usize) -> bool {
    len >= CAPABILITIES_HEADER_LEN + CAPABILITY_ENTRY_LEN
        && (len - CAPABILITIES_HEADER_LEN).is_multiple_of(CAPABILITY_ENTRY_LEN)
        && (len - CAPABILITIES_HEADER_LEN) / CAPABILITY_ENTRY_LEN <= MAX_RADIOS
}

/// Short inputs must fail with `Truncated` or `BadLength`, never `BadValue`.
fn assert_length_error<T: std::fmt::Debug>(what: &str, r: &Result<T, WireError>, min: usize) {
    if let Err(e) = r {
        if let WireError::Truncated { needed, got } = *e {
            assert!(got < needed, "{what}: Truncated with got >= needed: {e:?}");
            assert!(
                needed >= min,
                "{what}: Truncated needs fewer bytes than the layout"
            );
        }
        if let WireError::BadLength { expected, got } = *e {
            assert_ne!(expected, got, "{what}: BadLength with a matching length");
        }
        // Display must not panic either.
        let _ = e.to_string();
    }
}

// ---------------------------------------------------------------------------
// Per-Repr checks.
// ---------------------------------------------------------------------------

/// `ControlRepr`: accepts exactly 0x10 bytes of any content.
pub fn check_control(buf: &[u8]) {
    let r = ControlRepr::parse(buf);
    assert_length_error("control", &r, HEADER_LEN);
    assert_eq!(r.is_ok(), buf.len() == HEADER_LEN, "control acceptance");
    if let Ok(c) = r {
        let out = c.emit();
        assert_eq!(ControlRepr::parse(&out), Ok(c), "control round trip");
        CONTROL_NORM.check("control", buf, &out);
        assert_eq!(c.is_idle(), c.ptype == ptype::DATA);
    }
}

/// `PingRepr`: 0x15 bytes, type 0x07, reply flag 0 or 1.
pub fn check_ping(buf: &[u8]) {
    let r = PingRepr::parse(buf);
    assert_length_error("ping", &r, PING_LEN);
    let ok = buf.len() == PING_LEN && ptype_of(buf) == ptype::PING && buf[0x10] <= 1;
    assert_eq!(r.is_ok(), ok, "ping acceptance");
    if let Ok(p) = r {
        let out = p.emit();
        assert_eq!(PingRepr::parse(&out), Ok(p), "ping round trip");
        PING_NORM.check("ping", buf, &out);
        let reply = p.reply_to(0x1234_5678);
        assert_eq!(PingRepr::parse(&reply.emit()), Ok(reply));
    }
}

/// `RetransmitRepr`: single (0x10 bytes) or multi form; the multi form folds repeated
/// seqs, so only Repr equality and the emitted shape are checked.
pub fn check_retransmit(buf: &[u8]) {
    let r = RetransmitRepr::parse(buf);
    assert_length_error("retransmit", &r, HEADER_LEN);
    assert_eq!(r.is_ok(), retransmit_ok(buf), "retransmit acceptance");
    if let Ok(rt) = r {
        assert!(!rt.seqs.is_empty(), "retransmit without seqs");
        assert!(rt.seqs.len() <= MAX_RETRANSMIT_SEQS);
        let mut sorted = rt.seqs.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), rt.seqs.len(), "retransmit seqs not unique");
        let out = rt.emit();
        let want_len = if rt.seqs.len() == 1 {
            HEADER_LEN
        } else {
            HEADER_LEN + 4 * rt.seqs.len()
        };
        assert_eq!(out.len(), want_len, "retransmit emitted length");
        assert_eq!(
            RetransmitRepr::parse(&out).as_ref(),
            Ok(&rt),
            "retransmit round trip"
        );
        if buf.len() == HEADER_LEN {
            CONTROL_NORM.check("retransmit (single)", buf, &out);
        }
    }
}

/// `CivDataRepr`: type 0, marker 0xC1, 1 <= datalen <= bytes after the 0x15 header.
pub fn check_civ_data(buf: &[u8]) {
    let r = CivDataRepr::parse(buf);
    assert_length_error("civ data", &r, CIV_HEADER_LEN + 1);
    let datalen = if buf.len() > CIV_HEADER_LEN {
        u16le(buf, 0x11) as usize
    } else {
        0
    };
    let ok = buf.len() > CIV_HEADER_LEN
        && ptype_of(buf) == ptype::DATA
        && buf[0x10] == 0xC1
        && datalen >= 1
        && datalen <= buf.len() - CIV_HEADER_LEN;
    assert_eq!(r.is_ok(), ok, "civ data acceptance");
    assert_eq!(
        CivDataRepr::has_marker(buf),
        buf.len() > CIV_HEADER_LEN && buf[0x10] == 0xC1
    );
    if let Ok(c) = r {
        assert_eq!(c.payload.len(), datalen);
        let out = c.emit();
        assert_eq!(
            CivDataRepr::parse(&out).as_ref(),
            Ok(&c),
            "civ data round trip"
        );
        CIV_DATA_NORM.check("civ data", &buf[..CIV_HEADER_LEN + datalen], &out);
    }
}

/// `OpenCloseRepr`: 0x16 bytes, type 0, marker 0xC0, magic 0x04 (open) or 0x00 (close).
pub fn check_openclose(buf: &[u8]) {
    let r = OpenCloseRepr::parse(buf);
    assert_length_error("openclose", &r, OPENCLOSE_LEN);
    let ok = buf.len() == OPENCLOSE_LEN
        && ptype_of(buf) == ptype::DATA
        && buf[0x10] == 0xC0
        && (buf[0x15] == 0x00 || buf[0x15] == 0x04);
    assert_eq!(r.is_ok(), ok, "openclose acceptance");
    if let Ok(o) = r {
        let out = o.emit();
        assert_eq!(OpenCloseRepr::parse(&out), Ok(o), "openclose round trip");
        OPENCLOSE_NORM.check("openclose", buf, &out);
    }
}

/// `AudioRepr`: type 0, more than 0x18 bytes, payload at most 4 * MAX_AUDIO_PAYLOAD.
pub fn check_audio(buf: &[u8]) {
    let r = AudioRepr::parse(buf);
    assert_length_error("audio", &r, AUDIO_HEADER_LEN + 1);
    let ok = buf.len() > AUDIO_HEADER_LEN
        && ptype_of(buf) == ptype::DATA
        && buf.len() - AUDIO_HEADER_LEN <= MAX_AUDIO_PAYLOAD * 4;
    assert_eq!(r.is_ok(), ok, "audio acceptance");
    if let Ok(a) = r {
        let out = a.emit();
        assert_eq!(AudioRepr::parse(&out).as_ref(), Ok(&a), "audio round trip");
        AUDIO_NORM.check("audio", buf, &out);
    }
}

/// The token-family Reprs accept any content of their exact length.
macro_rules! fixed_len_check {
    ($(#[$doc:meta])* $name:ident, $repr:ty, $len:expr, $layout:expr, $what:literal) => {
        $(#[$doc])*
        pub fn $name(buf: &[u8]) {
            let r = <$repr>::parse(buf);
            assert_length_error($what, &r, $len);
            assert_eq!(r.is_ok(), buf.len() == $len, concat!($what, " acceptance"));
            if let Ok(p) = r {
                let out = p.emit();
                assert_eq!(
                    <$repr>::parse(&out).as_ref(),
                    Ok(&p),
                    concat!($what, " round trip")
                );
                $layout.check($what, buf, &out);
            }
        }
    };
}

fixed_len_check!(
    /// `LoginRepr`: any 0x80 bytes.
    check_login, LoginRepr, LOGIN_LEN, LOGIN_NORM, "login"
);
fixed_len_check!(
    /// `LoginResponseRepr`: any 0x60 bytes.
    check_login_response,
    LoginResponseRepr,
    LOGIN_RESPONSE_LEN,
    LOGIN_RESPONSE_NORM,
    "login response"
);
fixed_len_check!(
    /// `TokenRepr`: any 0x40 bytes.
    check_token, TokenRepr, TOKEN_LEN, TOKEN_NORM, "token"
);
fixed_len_check!(
    /// `StatusRepr`: any 0x50 bytes.
    check_status, StatusRepr, STATUS_LEN, STATUS_NORM, "status"
);
fixed_len_check!(
    /// `RadioConnInfoRepr`: any 0x90 bytes.
    check_radio_conninfo,
    RadioConnInfoRepr,
    CONNINFO_LEN,
    RADIO_CONNINFO_NORM,
    "radio conninfo"
);
fixed_len_check!(
    /// `StreamRequestRepr`: any 0x90 bytes.
    check_stream_request,
    StreamRequestRepr,
    CONNINFO_LEN,
    STREAM_REQUEST_NORM,
    "stream request"
);

/// `CapabilitiesRepr`: 0x42 + 0x66·n bytes with 1 <= n <= 16.
pub fn check_capabilities(buf: &[u8]) {
    let r = CapabilitiesRepr::parse(buf);
    assert_length_error(
        "capabilities",
        &r,
        CAPABILITIES_HEADER_LEN + CAPABILITY_ENTRY_LEN,
    );
    assert_eq!(
        r.is_ok(),
        capabilities_len_ok(buf.len()),
        "capabilities acceptance"
    );
    if let Ok(c) = r {
        assert_eq!(
            c.radios.len(),
            (buf.len() - CAPABILITIES_HEADER_LEN) / CAPABILITY_ENTRY_LEN
        );
        let out = c.emit();
        assert_eq!(
            CapabilitiesRepr::parse(&out).as_ref(),
            Ok(&c),
            "capabilities round trip"
        );
        assert_eq!(out.len(), buf.len(), "capabilities emitted length");
        CAPABILITIES_HEAD_NORM.check(
            "capabilities header",
            &buf[..CAPABILITIES_HEADER_LEN],
            &out[..CAPABILITIES_HEADER_LEN],
        );
        let n = u16::from_be_bytes([out[0x40], out[0x41]]) as usize;
        assert_eq!(n, c.radios.len(), "capabilities radio count");
        for k in 0..n {
            let e = CAPABILITIES_HEADER_LEN + k * CAPABILITY_ENTRY_LEN;
            let r = e..e + CAPABILITY_ENTRY_LEN;
            CAPABILITY_ENTRY_NORM.check("capability entry", &buf[r.clone()], &out[r]);
        }
    }
}

// ---------------------------------------------------------------------------
// Packet dispatch.
// ---------------------------------------------------------------------------

/// All ports and origins.
pub const PORTS: [(Port, Origin); 6] = [
    (Port::Control, Origin::Radio),
    (Port::Control, Origin::Client),
    (Port::Civ, Origin::Radio),
    (Port::Civ, Origin::Client),
    (Port::Audio, Origin::Radio),
    (Port::Audio, Origin::Client),
];

/// The bytes of a parsed packet, through its Repr's `emit()`.
pub fn emit_packet(p: &Packet) -> Vec<u8> {
    match p {
        Packet::AreYouThere(c)
        | Packet::IAmHere(c)
        | Packet::AreYouReady(c)
        | Packet::Disconnect(c)
        | Packet::Idle(c) => c.emit(),
        Packet::Retransmit(r) => r.emit(),
        Packet::Ping(r) => r.emit(),
        Packet::Login(r) => r.emit(),
        Packet::LoginResponse(r) => r.emit(),
        Packet::Token(r) => r.emit(),
        Packet::Capabilities(r) => r.emit(),
        Packet::RadioConnInfo(r) => r.emit(),
        Packet::StreamRequest(r) => r.emit(),
        Packet::Status(r) => r.emit(),
        Packet::CivData(r) => r.emit(),
        Packet::OpenClose(r) => r.emit(),
        Packet::Audio(r) => r.emit(),
    }
}

/// The Repr parser named by the packet kind gives the same value on the same bytes.
fn assert_repr_agrees(buf: &[u8], p: &Packet) {
    let same = match p {
        Packet::AreYouThere(c)
        | Packet::IAmHere(c)
        | Packet::AreYouReady(c)
        | Packet::Disconnect(c)
        | Packet::Idle(c) => {
            let want = match p {
                Packet::AreYouThere(_) => ptype::ARE_YOU_THERE,
                Packet::IAmHere(_) => ptype::I_AM_HERE,
                Packet::AreYouReady(_) => ptype::ARE_YOU_READY,
                Packet::Disconnect(_) => ptype::DISCONNECT,
                _ => ptype::DATA,
            };
            c.ptype == want && ControlRepr::parse(buf).as_ref() == Ok(c)
        }
        Packet::Retransmit(r) => RetransmitRepr::parse(buf).as_ref() == Ok(r),
        Packet::Ping(r) => PingRepr::parse(buf).as_ref() == Ok(r),
        Packet::Login(r) => LoginRepr::parse(buf).as_ref() == Ok(r),
        Packet::LoginResponse(r) => LoginResponseRepr::parse(buf).as_ref() == Ok(r),
        Packet::Token(r) => TokenRepr::parse(buf).as_ref() == Ok(r),
        Packet::Capabilities(r) => CapabilitiesRepr::parse(buf).as_ref() == Ok(r),
        Packet::RadioConnInfo(r) => RadioConnInfoRepr::parse(buf).as_ref() == Ok(r),
        Packet::StreamRequest(r) => StreamRequestRepr::parse(buf).as_ref() == Ok(r),
        Packet::Status(r) => StatusRepr::parse(buf).as_ref() == Ok(r),
        Packet::CivData(r) => CivDataRepr::parse(buf).as_ref() == Ok(r),
        Packet::OpenClose(r) => OpenCloseRepr::parse(buf).as_ref() == Ok(r),
        Packet::Audio(r) => AudioRepr::parse(buf).as_ref() == Ok(r),
    };
    assert!(same, "Packet::parse disagrees with the {} Repr", p.name());
}

/// Parses `buf` on `port` from `origin` and checks the result.
pub fn check_packet(buf: &[u8], port: Port, origin: Origin) -> Result<Packet, WireError> {
    let r = Packet::parse(buf, port, origin);
    if buf.len() < HEADER_LEN {
        assert!(
            matches!(r, Err(WireError::Truncated { .. })),
            "short datagram not Truncated: {r:?}"
        );
    }
    if let Ok(p) = &r {
        assert_repr_agrees(buf, p);
        assert!(!p.name().is_empty());
        if !matches!(p, Packet::Retransmit(_)) {
            assert_eq!(p.seq(), u16le(buf, 0x06), "{}: seq()", p.name());
        }
        let out = emit_packet(p);
        assert_eq!(
            Packet::parse(&out, port, origin).as_ref(),
            Ok(p),
            "{} on {port:?}/{origin:?}: emit() does not parse back",
            p.name()
        );
    }
    r
}
