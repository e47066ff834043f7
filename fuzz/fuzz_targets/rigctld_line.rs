//! `rigctld_line`: the rigctld protocol core on any bytes — `conn::LineBuffer` cutting
//! the stream into lines, `parse::parse_line`, `respond::plan` against every embedded
//! profile's initial state (and a state with values), `reply::render`.
//!
//! Checks besides "no panic": lines stay within `MAX_LINE` and hold no newline; a
//! request has at most three arguments, none empty or holding whitespace; an unknown
//! command (empty name) ends its line; every answer is non-empty and ends with a
//! newline; a failure answers exactly `RPRT -n` (plain) or ends with `RPRT -n`
//! (extended); planning is deterministic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::radio::service::initial_content;
use rigweb::radio::state::{RadioState, ReceiverState, Selected};
use rigweb::rigctld::conn::{Line, LineBuffer, MAX_LINE};
use rigweb::rigctld::overlay::Overlay;
use rigweb::rigctld::parse::{Format, parse_line};
use rigweb::rigctld::reply::{Reply, render};
use rigweb::rigctld::respond::{Plan, plan};
use rigweb::rigctld::view::View;
use rigweb::wire::civ::Mode;
use rigweb_fuzz::common::profiles;

fn tuned(ab: bool, dual: bool) -> RadioState {
    let mut r = RadioState::new(
        ReceiverState::tuned(14_074_000, Mode::Usb, ab),
        dual.then(|| ReceiverState::tuned(7_074_000, Mode::Lsb, false)),
    );
    r.active = Some(if ab { Selected::A } else { Selected::Main });
    r.ptt = Some(false);
    r.power_on = Some(true);
    r.settings.split = Some(false);
    r
}

fuzz_target!(|data: &[u8]| {
    let mut buf = LineBuffer::default();
    let mut lines = Vec::new();
    for chunk in data.chunks(97) {
        for l in buf.push(chunk) {
            if let Line::Text(t) = &l {
                assert!(t.len() <= MAX_LINE && !t.contains(&b'\n'));
            }
            lines.push(l);
        }
    }
    for p in profiles() {
        let ab = p.vfo.scheme == rigweb::profile::VfoScheme::Ab;
        let states = [initial_content(p).radio, tuned(ab, p.is_dual())];
        for radio in &states {
            let overlay = Overlay::default();
            for current in [None, Some(1)] {
                let view = View {
                    profile: p,
                    radio,
                    overlay: &overlay,
                    current,
                };
                for line in &lines {
                    let Line::Text(text) = line else { continue };
                    let reqs = parse_line(text);
                    for (i, req) in reqs.iter().enumerate() {
                        assert!(req.args.len() <= 3);
                        assert!(req.args.iter().all(|a| {
                            !a.is_empty()
                                && !a.bytes().any(|b| b.is_ascii_whitespace() || b == 0x0b)
                        }));
                        if req.name.is_empty() {
                            assert_eq!(i, reqs.len() - 1, "an unknown command ends the line");
                        }
                        let reply = match &req.cmd {
                            Ok(cmd) => {
                                let a = plan(cmd, &view);
                                assert_eq!(a, plan(cmd, &view), "deterministic");
                                match a {
                                    Plan::Reply(r) => r,
                                    _ => Reply::Done,
                                }
                            }
                            Err(e) => Reply::Failed(*e),
                        };
                        let mut out = String::new();
                        render(req, &reply, &mut out);
                        assert!(out.ends_with('\n'), "{out:?}");
                        if let Reply::Failed(e) = reply {
                            let want = format!("RPRT {}\n", e.code());
                            match req.format {
                                Format::Plain => assert_eq!(out, want),
                                Format::Extended(_) => assert!(out.ends_with(&want)),
                            }
                        }
                    }
                }
            }
        }
    }
});
