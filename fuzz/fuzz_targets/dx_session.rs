//! `dx_session`: the DX-cluster session machine (`station::dx::session`) fed a script
//! of node bytes, time steps, connects, failures and closes, driven as the feed thread
//! drives it (`poll_action(now)` until it has nothing, after every input).
//!
//! Each operation (first byte): node bytes (a chunk), a time step (up to ~17 min), the
//! TCP connection up, connecting failed, the connection closed.
//!
//! Checks: no panic; nothing is written before the connection is up, and before a
//! prompt or the prompt wait, nothing but the call; a write is the call, the password
//! or the heartbeat, each ending in CRLF; `Connect` only while disconnected; the
//! reconnect delay is within 1 s .. 5 min; `poll_timeout` after a poll is later than
//! `now` unless an action waits; at most a few actions per poll.
#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use rigweb::station::dx::session::{Action, Session, SessionConfig};
use rigweb::util::Secret;
use rigweb_fuzz::common::Bytes;

const CALL: &[u8] = b"N0CALL\r\n";
const PASSWORD: &[u8] = b"pw\r\n";

fuzz_target!(|data: &[u8]| {
    let mut input = Bytes::new(data);
    let with_password = input.bool();
    let cfg = SessionConfig::new("N0CALL", with_password.then(|| Secret("pw".into())));
    let t0 = Instant::now();
    let mut now = t0;
    let mut s = Session::new(cfg, now);
    let mut up = false;
    let mut connecting = false;
    let mut since_up: Option<Instant> = None;
    let mut heard_prompt_bytes = false;
    for _ in 0..256 {
        if input.is_empty() {
            break;
        }
        match input.u8() % 5 {
            0 => {
                let bytes = input.chunk(255);
                if up && !bytes.is_empty() {
                    heard_prompt_bytes = true;
                }
                s.on_data(bytes, now);
            }
            1 => now += Duration::from_millis(u64::from(input.u16()) * 16),
            2 if connecting => {
                s.on_connected(now);
                up = true;
                connecting = false;
                since_up = Some(now);
                heard_prompt_bytes = false;
            }
            3 if connecting => {
                s.on_connect_failed(now, "refused");
                connecting = false;
            }
            4 if up => {
                s.on_closed(now, "closed");
                up = false;
            }
            _ => {}
        }
        let mut n = 0;
        while let Some(a) = s.poll_action(now) {
            n += 1;
            assert!(n <= 8, "too many actions at one instant");
            match a {
                Action::Connect => {
                    assert!(!up && !connecting, "connect while connected");
                    connecting = true;
                }
                Action::Write(b) => {
                    assert!(up, "a write without a connection");
                    assert!(b == CALL || b == PASSWORD || b == b"\r\n", "wrote {b:?}");
                    if b == CALL {
                        let waited = since_up.is_some_and(|t| now >= t + Duration::from_secs(10));
                        assert!(heard_prompt_bytes || waited, "the call before any prompt");
                    }
                    if b == PASSWORD {
                        assert!(with_password);
                    }
                }
                Action::Close => {
                    assert!(up, "close without a connection");
                    s.on_closed(now, "closed by us");
                    up = false;
                }
            }
        }
        if let Some(t) = s.poll_timeout()
            && !connecting
        {
            assert!(t > now, "a timer in the past: {:?} before now", now - t);
            assert!(
                t <= now + Duration::from_secs(301),
                "a timer too far: {:?}",
                t - now
            );
        }
        while s.poll_event().is_some() {}
        let _ = (s.connected(), s.logged_in(), s.error(), s.dropped_lines());
    }
});
