//! `lan_auth`: the token-family Repr parsers (`LoginRepr`, `LoginResponseRepr`,
//! `TokenRepr`, `CapabilitiesRepr`, `RadioConnInfoRepr`, `StreamRequestRepr`,
//! `StatusRepr`), chosen by the first byte.
//!
//! Selector byte: `sel % 7` picks the parser. If bit 7 is clear the rest of the
//! input is zero-padded / truncated to that packet's length (for capabilities
//! `0x42 + 0x66 * n` with `n = 1 + sel >> 3`, 1..=16, or 17 (over the limit) when
//! bit 2 is also set) so that the accepting paths are hit at once; if set, the
//! bytes are used as they are (length checks).
//!
//! Checks: the parser accepts exactly what its length rule allows, `emit()` of an
//! accepted Repr parses back to an equal Repr, and `emit()` reproduces the input
//! outside the fields the Repr normalises (see `rigweb_fuzz::*_NORM`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::wire::lan::{
    CAPABILITIES_HEADER_LEN, CAPABILITY_ENTRY_LEN, CONNINFO_LEN, LOGIN_LEN, LOGIN_RESPONSE_LEN,
    STATUS_LEN, TOKEN_LEN,
};
use rigweb_fuzz as f;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let which = sel % 7;
    let natural = match which {
        0 => LOGIN_LEN,
        1 => LOGIN_RESPONSE_LEN,
        2 => TOKEN_LEN,
        3 => {
            let n = if sel & 0x04 != 0 {
                17
            } else {
                1 + usize::from(sel >> 3 & 0xF)
            };
            CAPABILITIES_HEADER_LEN + CAPABILITY_ENTRY_LEN * n
        }
        4 | 5 => CONNINFO_LEN,
        _ => STATUS_LEN,
    };
    let mut owned;
    let buf = if sel & 0x80 != 0 {
        rest
    } else {
        owned = rest.to_vec();
        owned.resize(natural, 0);
        &owned[..]
    };
    match which {
        0 => f::check_login(buf),
        1 => f::check_login_response(buf),
        2 => f::check_token(buf),
        3 => f::check_capabilities(buf),
        4 => f::check_radio_conninfo(buf),
        5 => f::check_stream_request(buf),
        _ => f::check_status(buf),
    }
});
