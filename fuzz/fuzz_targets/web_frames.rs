//! `web_frames`: the binary WebSocket frames `ScopeFrame::parse`,
//! `MeterFrame::parse` and `AudioFrame::parse` on arbitrary bytes.
//!
//! Checks: at most one of the three accepts a given buffer (distinct `msg_type`),
//! each accepts exactly what its length/type rule allows, `parse(emit(x)) == x`,
//! and `emit()` reproduces the input byte for byte, except the scope
//! `out_of_range` byte (13), which is normalised to its bit 0.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::wire::web::{
    AUDIO_HEADER_LEN, AUDIO_RX_FRAME, AUDIO_TX_FRAME, AudioFrame, METER_FRAME, MeterFrame,
    SCOPE_FRAME, SCOPE_HEADER_LEN, ScopeFrame,
};

fuzz_target!(|data: &[u8]| {
    let scope = ScopeFrame::parse(data);
    let scope_ok = data.len() >= SCOPE_HEADER_LEN
        && data[0] == SCOPE_FRAME
        && data.len() == SCOPE_HEADER_LEN + usize::from(u16::from_le_bytes([data[14], data[15]]));
    assert_eq!(scope.is_ok(), scope_ok, "scope acceptance");
    if let Ok(s) = &scope {
        let out = s.emit();
        assert_eq!(ScopeFrame::parse(&out).as_ref(), Ok(s), "scope round trip");
        let mut want = data.to_vec();
        want[13] &= 1;
        assert_eq!(out, want, "scope emit != input");
    }

    let meter = MeterFrame::parse(data);
    let meter_ok =
        data.len() >= 4 && data[0] == METER_FRAME && data.len() == 4 + 3 * usize::from(data[3]);
    assert_eq!(meter.is_ok(), meter_ok, "meter acceptance");
    if let Ok(m) = &meter {
        let out = m.emit();
        assert_eq!(MeterFrame::parse(&out).as_ref(), Ok(m), "meter round trip");
        assert_eq!(out, data, "meter emit != input");
    }

    let audio = AudioFrame::parse(data);
    let audio_ok = data.len() >= AUDIO_HEADER_LEN
        && (data[0] == AUDIO_RX_FRAME || data[0] == AUDIO_TX_FRAME)
        && (data[6] == 1 || data[6] == 2);
    assert_eq!(audio.is_ok(), audio_ok, "audio acceptance");
    if let Ok(a) = &audio {
        assert_eq!(a.sample_rate % 100, 0);
        let out = a.emit();
        assert_eq!(AudioFrame::parse(&out).as_ref(), Ok(a), "audio round trip");
        assert_eq!(out, data, "audio emit != input");
    }

    let accepted = [scope.is_ok(), meter.is_ok(), audio.is_ok()];
    assert!(
        accepted.iter().filter(|&&x| x).count() <= 1,
        "several web frame kinds accepted the same bytes"
    );
});
