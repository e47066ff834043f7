//! `lan_session`: the sans-IO client sessions `ControlClient`, `CivClient` and
//! `AudioClient` fed a script of datagrams from "the radio" with time advancing by
//! input-chosen steps, driven like `lan::supervisor` / `lan::link_ports` drive them
//! (`poll(now)` after every datagram).
//!
//! First byte: bits 0-1 pick the session; unless bit 7 is set the harness first
//! completes discovery (a well-formed "I am here" and "I am ready" addressed to the
//! session's id); bit 6 makes the radio's id come from the input. Then each operation
//! is a time step, a session action (CI-V send, TX audio, stream request again) or a
//! datagram: raw bytes, raw bytes with the right ids patched in, or one of the packet
//! kinds of `peer::Peer` built with the ids, seqs, request id, token and GUID the
//! radio side knows (so login, token, conninfo, status, CI-V data and audio reach the
//! session's logic).
//!
//! Checks: no panic; every datagram sent fits UDP, parses as a client packet on the
//! session's port and carries the session's id; at most 16 datagrams per operation,
//! plus one per seq a retransmit request asks for; after `poll(now)` (at most three
//! times at the same `now`) `poll_timeout` is later than `now` (no busy loop) as long
//! as the session is alive; transport counters and `malformed()` never decrease;
//! `Ready` carries a CI-V port; CI-V frames delivered are well formed; audio blocks
//! are non-empty and within the packet limit.
#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use rigweb::lan::audio_client::{AudioClient, AudioEvent};
use rigweb::lan::civ_client::{CivClient, CivClientConfig, CivEvent};
use rigweb::lan::control::{ControlClient, ControlConfig, ControlEvent};
use rigweb::lan::discovery::DiscoveryConfig;
use rigweb::lan::stream::StreamStats;
use rigweb::wire::lan::{ControlRepr, MAX_AUDIO_PAYLOAD, Origin, Port, RetransmitRepr, ptype};
use rigweb_fuzz::common::{Bytes, check_civ_frame, check_datagram};
use rigweb_fuzz::peer::{DATAGRAM_KINDS, Peer};

const MY_ID: u32 = 0x0001_C351;
const TOK: u16 = 0x4242;

enum Session {
    Control(ControlClient),
    Civ(CivClient),
    Audio(AudioClient),
}

impl Session {
    fn port(&self) -> Port {
        match self {
            Session::Control(_) => Port::Control,
            Session::Civ(_) => Port::Civ,
            Session::Audio(_) => Port::Audio,
        }
    }

    fn receive(&mut self, d: &[u8], now: Instant, out: &mut Vec<Vec<u8>>) {
        match self {
            Session::Control(c) => c.receive(d, now, out),
            Session::Civ(c) => c.receive(d, now, out),
            Session::Audio(c) => c.receive(d, now, out),
        }
    }

    fn poll(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        match self {
            Session::Control(c) => c.poll(now, out),
            Session::Civ(c) => c.poll(now, out),
            Session::Audio(c) => c.poll(now, out),
        }
    }

    /// The session's next timer (an hour away when it has none).
    fn next_deadline(&self, now: Instant) -> Instant {
        let t = match self {
            Session::Control(c) => c.poll_timeout(),
            Session::Civ(c) => c.poll_timeout(),
            Session::Audio(c) => c.poll_timeout(),
        };
        t.unwrap_or(now + std::time::Duration::from_secs(3600))
    }

    fn stats(&self) -> Option<StreamStats> {
        match self {
            Session::Control(c) => c.stream_stats(),
            Session::Civ(c) => c.stream_stats(),
            Session::Audio(c) => c.stream_stats(),
        }
    }

    fn malformed(&self) -> u64 {
        match self {
            Session::Control(c) => c.malformed(),
            Session::Civ(c) => c.malformed(),
            Session::Audio(c) => c.malformed(),
        }
    }
}

fn stats_vec(s: &StreamStats) -> [u64; 10] {
    [
        s.tracked_sent,
        s.resent,
        s.fillers_sent,
        s.requests_sent,
        s.requests_received,
        s.pings_answered,
        s.foreign,
        s.rx.duplicates,
        s.rx.abandoned,
        s.rx.resets,
    ]
}

struct Harness {
    s: Session,
    peer: Peer,
    /// The session failed (control) or was closed: the drivers drop it.
    dead: bool,
    stats: Option<[u64; 10]>,
    malformed: u64,
}

impl Harness {
    /// Checks what the session sent in one operation and lets the radio side learn from it.
    fn sent(&mut self, what: &str, out: &mut Vec<Vec<u8>>, allowed: usize) {
        assert!(
            out.len() <= allowed,
            "{what}: {} datagrams sent for one operation (at most {allowed} expected)",
            out.len()
        );
        let port = self.s.port();
        for d in out.drain(..) {
            let p = check_datagram(what, &d, port, Origin::Client, &[MY_ID]);
            self.peer.learn(&p);
        }
        self.events();
        if let Some(s) = self.s.stats() {
            let v = stats_vec(&s);
            if let Some(old) = self.stats {
                for (i, (a, b)) in old.iter().zip(&v).enumerate() {
                    assert!(b >= a, "{what}: stream counter {i} went back {a} -> {b}");
                }
            }
            self.stats = Some(v);
        }
        let m = self.s.malformed();
        assert!(m >= self.malformed, "malformed() went back");
        self.malformed = m;
    }

    fn events(&mut self) {
        match &mut self.s {
            Session::Control(c) => {
                for e in c.take_events() {
                    match e {
                        ControlEvent::Ready { civ_port, .. } => {
                            assert_ne!(civ_port, 0, "Ready with CI-V port 0")
                        }
                        ControlEvent::Failed(f) => {
                            assert!(!f.message().is_empty());
                            self.dead = true;
                        }
                        _ => {}
                    }
                }
            }
            Session::Civ(c) => {
                for e in c.take_events() {
                    if let CivEvent::Frames(frames) = e {
                        assert!(!frames.is_empty(), "empty Frames event");
                        for f in &frames {
                            check_civ_frame("CI-V client", f);
                        }
                    }
                }
            }
            Session::Audio(c) => {
                for e in c.take_events() {
                    if let AudioEvent::Block(b) = e {
                        assert!(
                            !b.payload.is_empty() && b.payload.len() <= 4 * MAX_AUDIO_PAYLOAD,
                            "audio block of {} bytes",
                            b.payload.len()
                        );
                    }
                }
            }
        }
    }

    /// Runs the timers at `now` like the drivers do, and checks there is no busy loop.
    fn poll(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        for _ in 0..3 {
            self.s.poll(now, out);
            self.sent("poll", out, 16);
            if self.dead || self.s.next_deadline(now) > now {
                return;
            }
        }
        let d = self.s.next_deadline(now);
        panic!(
            "busy loop: next_deadline is {:?} in the past after three polls at the same time",
            now.saturating_duration_since(d)
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    let head = b.u8();
    let t0 = Instant::now();
    let mut now = t0;
    let remote = if head & 0x40 != 0 {
        b.u32().max(1)
    } else {
        0xDEAD_BEEF
    };
    let disc = DiscoveryConfig::default();
    let s = match head % 3 {
        0 => {
            let cfg = ControlConfig {
                user: "rigweb".into(),
                password: rigweb::util::Secret("rigweb".into()),
                ..ControlConfig::default()
            };
            Session::Control(ControlClient::new(cfg, MY_ID, (50_102, 50_103), TOK, now))
        }
        1 => Session::Civ(CivClient::new(
            CivClientConfig {
                discovery: disc,
                ..CivClientConfig::default()
            },
            MY_ID,
            now,
        )),
        _ => Session::Audio(AudioClient::new(disc, MY_ID, now)),
    };
    let mut peer = Peer::new(remote, MY_ID);
    peer.tok_request = TOK;
    let mut h = Harness {
        s,
        peer,
        dead: false,
        stats: None,
        malformed: 0,
    };
    let mut out = Vec::new();
    h.poll(now, &mut out);
    if head & 0x80 == 0 {
        for (ptype, seq) in [(ptype::I_AM_HERE, 0), (ptype::ARE_YOU_READY, 1)] {
            let d = ControlRepr {
                ptype,
                seq,
                sent_id: remote,
                rcvd_id: MY_ID,
            }
            .emit();
            h.s.receive(&d, now, &mut out);
            h.sent("handshake", &mut out, 16);
            h.poll(now, &mut out);
        }
    }

    let mut ops = 0;
    while !b.is_empty() && ops < 256 {
        ops += 1;
        let op = b.u8();
        match op % 4 {
            0 => {
                let ms = if op & 0x80 != 0 {
                    u64::from(b.u8()) * 1000
                } else {
                    u64::from(b.u16() % 4096)
                };
                now += Duration::from_millis(ms);
                h.poll(now, &mut out);
            }
            1 => {
                // a session action, as the link would do it
                match &mut h.s {
                    Session::Control(c) => c.request_streams(now, &mut out),
                    Session::Civ(c) => {
                        let bytes = b.chunk(255);
                        // the link only sends whole frames (never nothing)
                        if !bytes.is_empty() {
                            c.send(bytes, now, &mut out);
                        }
                    }
                    Session::Audio(c) => {
                        if op & 0x80 != 0 {
                            c.start_tx();
                        }
                        let n = usize::from(b.u16()) % 8192;
                        let fill = b.u8();
                        let samples: Vec<u8> = (0..n).map(|i| fill ^ i as u8).collect();
                        c.send(&samples, now, &mut out);
                    }
                }
                let allowed = 16 + 8192 / MAX_AUDIO_PAYLOAD;
                h.sent("action", &mut out, allowed);
                h.poll(now, &mut out);
            }
            _ => {
                let kind = b.u8() % DATAGRAM_KINDS;
                let d = h.peer.datagram(&mut b, kind);
                // a retransmit request may be answered with one datagram per seq
                let asked = RetransmitRepr::parse(&d).map_or(0, |r| r.seqs.len());
                h.s.receive(&d, now, &mut out);
                h.sent("receive", &mut out, 16 + asked);
                h.poll(now, &mut out);
            }
        }
    }

    // Leaving: logout / close must produce well-formed datagrams too.
    match &mut h.s {
        Session::Control(c) => c.logout(now, &mut out),
        Session::Civ(c) => c.close(now, &mut out),
        Session::Audio(c) => c.close(&mut out),
    }
    h.dead = true;
    h.sent("leave", &mut out, 16);
});
