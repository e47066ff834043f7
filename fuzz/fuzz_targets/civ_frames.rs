//! `civ_frames`: the CI-V frame scanner `split_frames` and `Frame::parse` on
//! arbitrary bytes.
//!
//! Checks: the iterator terminates (at most one item per input byte); every `Ok`
//! frame has no `FE` in `to` and no `FD` anywhere, fits `MAX_FRAME_LEN`, and
//! `Frame::parse(frame.emit()) == frame`; `sub()`/`payload()` split `data` as
//! documented; a command-29 frame unwraps to `(rx, inner)` with
//! `inner.wrap_receiver(rx) == frame`; `wrap_receiver(rx)` of any frame unwraps
//! back to `(rx, frame)` and, when it still fits, survives emit/parse;
//! `Frame::parse(data)` succeeds only when `split_frames` yields exactly that one
//! frame. Also checks that the mode table maps names and codes both ways.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::wire::civ::{
    self, Frame, MAX_FRAME_LEN, Mode, PREAMBLE, TERMINATOR, has_sub, split_frames,
};

fn check_frame(f: &Frame) {
    assert_ne!(f.to, PREAMBLE, "frame starts with a padding FE");
    assert!(
        f.to != TERMINATOR
            && f.from != TERMINATOR
            && f.cmd != TERMINATOR
            && !f.data.contains(&TERMINATOR),
        "frame holds its terminator"
    );
    let bytes = f.emit();
    assert!(
        bytes.len() <= MAX_FRAME_LEN,
        "frame longer than MAX_FRAME_LEN"
    );
    assert_eq!(bytes.len(), 6 + f.data.len());
    assert_eq!(
        Frame::parse(&bytes).as_ref(),
        Ok(f),
        "emit/parse round trip"
    );

    if has_sub(f.cmd) && !f.data.is_empty() {
        assert_eq!(f.sub(), Some(f.data[0]));
        assert_eq!(f.payload(), &f.data[1..]);
    } else {
        assert_eq!(f.payload(), &f.data[..]);
    }
    assert_eq!(f.is_ack(), f.cmd == civ::ACK && f.data.is_empty());
    assert_eq!(f.is_nak(), f.cmd == civ::NAK && f.data.is_empty());

    if let Some((rx, inner)) = f.unwrap_receiver() {
        assert_eq!(f.cmd, civ::CMD_RECEIVER_PREFIX);
        assert_eq!(f.data[0], rx.code(), "the receiver is the prefix byte");
        assert_eq!(&inner.wrap_receiver(rx), f, "unwrap/wrap round trip");
        assert_eq!(Frame::parse(&inner.emit()).as_ref(), Ok(&inner));
    }
    for rx in civ::Receiver::ALL {
        let w = f.wrap_receiver(rx);
        assert_eq!(
            w.unwrap_receiver(),
            Some((rx, f.clone())),
            "wrap/unwrap round trip"
        );
        let wb = w.emit();
        if wb.len() <= MAX_FRAME_LEN {
            assert_eq!(Frame::parse(&wb), Ok(w), "wrapped frame emit/parse");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut items = Vec::new();
    for item in split_frames(data) {
        items.push(item);
        assert!(items.len() <= data.len(), "split_frames does not terminate");
    }
    for f in items.iter().flatten() {
        check_frame(f);
    }

    match Frame::parse(data) {
        Ok(f) => {
            assert_eq!(items.len(), 1, "Frame::parse accepted several frames");
            assert_eq!(items[0].as_ref(), Ok(&f));
        }
        Err(_) => assert!(
            items.len() != 1 || items[0].is_err(),
            "Frame::parse rejected a single good frame"
        ),
    }

    if let Some(&b) = data.first()
        && let Some(mode) = Mode::from_code(b)
    {
        assert_eq!(
            Mode::from_name(mode.name()),
            Some(mode),
            "mode table not bijective"
        );
        assert_eq!(mode.code(), b, "mode table not bijective");
    }
});
