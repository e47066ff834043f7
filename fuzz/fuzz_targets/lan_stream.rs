//! `lan_stream`: the header-based Repr parsers (`ControlRepr`, `PingRepr`,
//! `RetransmitRepr`, `CivDataRepr`, `OpenCloseRepr`, `AudioRepr`), chosen by the
//! first byte.
//!
//! Selector byte: `sel % 6` picks the parser. If bit 7 is clear the input is
//! shaped: the fixed-length packets (control 0x10, ping 0x15, OpenClose 0x16) are
//! zero-padded / truncated to their length; a retransmit request gets
//! `254 + (sel >> 3 & 7)` distinct `seq, seq` pairs appended after its 16-byte
//! header (around the 256-seq limit); an audio packet, when bit 6 is set, is padded
//! to the payload limit or one byte past it (bit 5). Otherwise the bytes are used
//! as they are.
//!
//! Checks: the parser accepts exactly what its rule allows (length, type, marker,
//! flag and `datalen` bytes, retransmit seq count), `emit()` of an accepted Repr
//! parses back to an equal Repr, and `emit()` reproduces the input outside the
//! normalised fields (header `len`, audio 0x14..0x18, OpenClose 0x11..0x13, CI-V
//! bytes past `datalen`; retransmit multi requests are compared as Reprs only).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::wire::lan::{AUDIO_HEADER_LEN, HEADER_LEN, MAX_AUDIO_PAYLOAD, OPENCLOSE_LEN, PING_LEN};
use rigweb_fuzz as f;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let which = sel % 6;
    let shaped = sel & 0x80 == 0;
    let natural = match which {
        0 => Some(HEADER_LEN),
        1 => Some(PING_LEN),
        4 => Some(OPENCLOSE_LEN),
        5 if sel & 0x40 != 0 => {
            Some(AUDIO_HEADER_LEN + 4 * MAX_AUDIO_PAYLOAD + usize::from(sel >> 5 & 1))
        }
        _ => None,
    };
    let mut owned;
    let buf = match natural {
        Some(n) if shaped => {
            owned = rest.to_vec();
            owned.resize(n, 0);
            &owned[..]
        }
        None if shaped && which == 2 => {
            owned = rest.to_vec();
            owned.resize(HEADER_LEN, 0);
            for s in 0..254 + u16::from(sel >> 3 & 7) {
                let seq = s.wrapping_mul(0x9E37).to_le_bytes();
                owned.extend_from_slice(&[seq[0], seq[1], seq[0], seq[1]]);
            }
            &owned[..]
        }
        _ => rest,
    };
    match which {
        0 => f::check_control(buf),
        1 => f::check_ping(buf),
        2 => f::check_retransmit(buf),
        3 => f::check_civ_data(buf),
        4 => f::check_openclose(buf),
        _ => f::check_audio(buf),
    }
});
