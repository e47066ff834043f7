//! `lan_window`: the transport pieces under every LAN session, driven directly:
//! `RxWindow` (first byte bit 7 clear) and `Stream` (bit 7 set), with sequences of
//! seqs close to the expected one (in order, duplicates, gaps, reordering, wrap-around)
//! or anywhere, retransmit rounds, and time steps.
//!
//! Every packet carries a unique tag, so "delivered at most once" is checked per
//! packet, and per sequence position: the harness keeps the absolute position of the
//! window's next expected seq (it moves forward by less than 0x8000 per call), maps each
//! delivered seq to its absolute position, and asserts that no position is delivered
//! twice and, in ordered mode, that positions are delivered in increasing order. It
//! also checks that every delivered packet was accepted, a `Duplicate` is never
//! delivered, an unordered `New` is delivered at once, and `has_missing` matches the
//! retransmit requests.
//!
//! For `Stream`: datagrams it sends parse and carry its id; a retransmit request is
//! answered with at most one datagram per seq, each carrying a requested seq and, unless
//! it is a filler, the bytes first sent with that seq; counters never decrease;
//! `poll_timeout` is later than `now` (or none) after `poll(now)`; every received packet is
//! delivered at most once (positions and order are checked on `RxWindow` only: the
//! stream keeps its window private, and seq 0 is outside gap tracking there).
#![no_main]

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use rigweb::lan::rx_window::{Accepted, RxWindow};
use rigweb::lan::stream::{Stream, StreamConfig};
use rigweb::wire::lan::{
    CivDataRepr, ControlRepr, HEADER_LEN, MAX_RETRANSMIT_ENTRIES, Origin, Packet, PingRepr, Port,
    RetransmitRepr, ptype,
};
use rigweb_fuzz::common::{Bytes, check_datagram};

/// Absolute positions of delivered seqs, relative to the window's expected seq.
struct Positions {
    ordered: bool,
    /// Absolute position of the expected seq (`None` before the first packet).
    expected: Option<u64>,
    delivered: HashSet<u64>,
    last: Option<u64>,
}

const BASE: u64 = 1 << 40;

impl Positions {
    fn new(ordered: bool) -> Positions {
        Positions {
            ordered,
            expected: None,
            delivered: HashSet::new(),
            last: None,
        }
    }

    /// Records the deliveries of one call made while the window expected `exp_before`
    /// (absolute `abs_before`), and the window's new expected seq.
    fn record(
        &mut self,
        exp_before: Option<u16>,
        seqs: &[u16],
        exp_after: Option<u16>,
        first_seq: u16,
    ) {
        let (rel_base, abs_base) = match (exp_before, self.expected) {
            (Some(e), Some(a)) => (e, a),
            (None, _) => (first_seq, BASE + u64::from(first_seq)),
            (Some(_), None) => unreachable!("window expected a seq the harness did not see"),
        };
        for &s in seqs {
            let d = s.wrapping_sub(rel_base);
            assert!(
                d < 0x8000,
                "delivered seq {s} behind the window (expected {rel_base})"
            );
            let abs = abs_base + u64::from(d);
            assert!(
                self.delivered.insert(abs),
                "seq {s} delivered twice at the same position"
            );
            if self.ordered {
                if let Some(l) = self.last {
                    assert!(abs > l, "ordered window delivered seq {s} out of order");
                }
                self.last = Some(abs);
            }
        }
        if let Some(after) = exp_after {
            let new_abs = abs_base + u64::from(after.wrapping_sub(rel_base));
            if let Some(old) = self.expected {
                assert!(new_abs >= old, "expected seq moved backwards");
            }
            if self.ordered {
                for &s in seqs {
                    let abs = abs_base + u64::from(s.wrapping_sub(rel_base));
                    assert!(
                        abs < new_abs,
                        "ordered window delivered seq {s} ahead of expected"
                    );
                }
            }
            self.expected = Some(new_abs);
        }
    }
}

fn idle(seq: u16, tag: u32) -> Packet {
    Packet::Idle(ControlRepr {
        ptype: ptype::DATA,
        seq,
        sent_id: tag,
        rcvd_id: 0,
    })
}

fn tag_of(p: &Packet) -> u32 {
    match p {
        Packet::Idle(c) => c.sent_id,
        Packet::CivData(c) => {
            u32::from_le_bytes([c.payload[0], c.payload[1], c.payload[2], c.payload[3]])
        }
        other => panic!("unexpected packet delivered: {other:?}"),
    }
}

/// The next seq of the script: near the last one (in order, repeats, small gaps and
/// reordering, either side of a wrap) or anywhere.
fn next_seq(b: &mut Bytes, last: u16) -> u16 {
    let x = b.u8();
    match x >> 6 {
        0 | 1 => last.wrapping_add(1 + u16::from(x & 3)),
        2 => last.wrapping_add(u16::from(x & 0x3F)).wrapping_sub(32),
        _ => {
            if x & 1 == 0 {
                b.u16()
            } else {
                last.wrapping_add(b.u16() & 0x7FFF)
            }
        }
    }
}

fn window(b: &mut Bytes, ordered: bool) {
    let max_missing = b.u16() % 1024;
    let max_requests = b.u8() % 8;
    let mut w = RxWindow::new(ordered, max_missing, max_requests);
    let mut pos = Positions::new(ordered);
    let mut accepted: HashMap<u32, u16> = HashMap::new();
    let mut dropped: HashSet<u32> = HashSet::new();
    let mut delivered: HashSet<u32> = HashSet::new();
    let mut last = b.u16();
    let mut tag = 0u32;
    let mut ops = 0;
    while !b.is_empty() && ops < 512 {
        ops += 1;
        let exp_before = w.expected_seq();
        let mut out = Vec::new();
        let op = b.u8();
        let first = match op % 8 {
            0 => {
                let missing = w.has_missing();
                let req = w.due_requests(&mut out);
                if !missing {
                    assert!(req.is_empty(), "requests while nothing is missing");
                }
                let mut sorted = req.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(
                    sorted.len(),
                    req.len(),
                    "a seq requested twice in one round"
                );
                assert!(req.len() <= usize::from(max_missing) + 1);
                0
            }
            _ => {
                let seq = if op & 0x80 != 0 {
                    last
                } else {
                    next_seq(b, last)
                };
                last = seq;
                tag += 1;
                let pkt = (op & 0x40 == 0).then(|| idle(seq, tag));
                let r = w.accept(seq, pkt.clone(), &mut out);
                if pkt.is_some() {
                    accepted.insert(tag, seq);
                    match r {
                        Accepted::Duplicate => {
                            dropped.insert(tag);
                            assert!(out.iter().all(|p| tag_of(p) != tag));
                        }
                        Accepted::New | Accepted::NewWithGap => {
                            if !ordered {
                                assert!(
                                    out.iter().any(|p| tag_of(p) == tag),
                                    "unordered window held a new packet"
                                );
                            }
                        }
                    }
                }
                seq
            }
        };
        let mut seqs = Vec::new();
        for p in &out {
            let t = tag_of(p);
            assert!(delivered.insert(t), "packet {t} delivered twice");
            assert!(!dropped.contains(&t), "a Duplicate was delivered");
            let s = *accepted.get(&t).expect("delivered a packet never accepted");
            assert_eq!(p.seq(), s);
            seqs.push(s);
        }
        pos.record(exp_before, &seqs, w.expected_seq(), first);
    }
}

fn stream(b: &mut Bytes, ordered: bool) {
    let radio = b.bool();
    let mut cfg = if radio {
        StreamConfig::radio(u64::from(b.u8() % 200) + 1, b.bool(), ordered)
    } else {
        StreamConfig::client(ordered)
    };
    let max_missing = b.u16() % 512;
    cfg.max_missing = max_missing;
    cfg.tx_buffer_len = usize::from(b.u16() % 600);
    let (me, peer) = (0x0A0A_0A0A, 0x0B0B_0B0B);
    let t0 = Instant::now();
    let mut now = t0;
    let first_seq = b.u16();
    let mut s = Stream::new(cfg, me, peer, first_seq, now);
    let mut sent: HashMap<u16, Vec<u8>> = HashMap::new();
    let mut delivered: HashSet<u32> = HashSet::new();
    let mut accepted: HashMap<u32, u16> = HashMap::new();
    let mut counters = [0u64; 6];
    let mut last = b.u16();
    let mut tag = 0u32;
    let mut ops = 0;
    let port = Port::Civ;
    let record_sent = |out: &[Vec<u8>], sent: &mut HashMap<u16, Vec<u8>>| {
        for d in out {
            let p = check_datagram("stream", d, port, Origin::Client, &[me]);
            if let Packet::Idle(c) = &p {
                sent.insert(c.seq, d.clone());
            }
        }
    };
    while !b.is_empty() && ops < 512 {
        ops += 1;
        let op = b.u8();
        let mut out = Vec::new();
        let mut deliver = Vec::new();
        match op % 8 {
            0 => {
                now += Duration::from_millis(u64::from(b.u16() % 2048));
                // a ping, an idle, and the missing seqs in requests of 64
                let most = 2 + (usize::from(max_missing) + 1).div_ceil(MAX_RETRANSMIT_ENTRIES);
                for _ in 0..3 {
                    let before = out.len();
                    s.poll(now, &mut out, &mut deliver);
                    assert!(
                        out.len() - before <= most,
                        "{} datagrams from one poll",
                        out.len() - before
                    );
                    if s.poll_timeout().is_none_or(|t| t > now) {
                        break;
                    }
                }
                assert!(s.poll_timeout().is_none_or(|t| t > now), "stream busy loop");
                record_sent(&out, &mut sent);
            }
            1 => {
                // a tracked packet of ours
                let n = usize::from(b.u8());
                s.send_tracked(now, &mut out, |seq| {
                    let d = CivDataRepr {
                        seq,
                        sent_id: me,
                        rcvd_id: peer,
                        inner_seq: 0,
                        payload: vec![0xEE; n + 1],
                    }
                    .emit();
                    sent.insert(seq, d.clone());
                    d
                });
                assert_eq!(out.len(), 1);
                record_sent(&out, &mut sent);
            }
            2 => {
                // a retransmit request from the peer
                let n = 1 + usize::from(b.u8() % 64);
                let base = b.u16();
                let mut seqs: Vec<u16> = (0..n)
                    .map(|i| base.wrapping_add(b.u8() as u16 + i as u16))
                    .collect();
                seqs.sort_unstable();
                seqs.dedup();
                let req = RetransmitRepr {
                    sent_id: peer,
                    rcvd_id: me,
                    seqs: seqs.clone(),
                };
                s.receive(Packet::Retransmit(req), now, &mut out, &mut deliver);
                assert!(out.len() <= seqs.len(), "more answers than seqs requested");
                for d in &out {
                    let p = check_datagram("resend", d, port, Origin::Client, &[me]);
                    let seq = p.seq();
                    assert!(
                        seqs.contains(&seq),
                        "answered seq {seq} that was not requested"
                    );
                    let filler = d.len() == HEADER_LEN;
                    if !filler {
                        assert_eq!(
                            sent.get(&seq),
                            Some(d),
                            "resent bytes differ from what was sent with seq {seq}"
                        );
                    }
                }
            }
            3 => {
                let reply = b.bool();
                let p = PingRepr {
                    seq: b.u16(),
                    sent_id: peer,
                    rcvd_id: me,
                    reply,
                    time: b.u32(),
                };
                s.receive(Packet::Ping(p), now, &mut out, &mut deliver);
                assert!(out.len() <= 1);
                record_sent(&out, &mut sent);
            }
            _ => {
                // tracked data from the peer: an idle or CI-V data carrying a tag
                let seq = if op & 0x80 != 0 {
                    last
                } else {
                    next_seq(b, last)
                };
                last = seq;
                tag += 1;
                let pkt = if op & 0x40 != 0 {
                    idle(seq, tag)
                } else {
                    Packet::CivData(CivDataRepr {
                        seq,
                        sent_id: peer,
                        rcvd_id: me,
                        inner_seq: 0,
                        payload: tag.to_le_bytes().to_vec(),
                    })
                };
                if op & 0x40 == 0 {
                    accepted.insert(tag, seq);
                }
                s.receive(pkt, now, &mut out, &mut deliver);
                assert!(out.is_empty(), "data answered with a datagram");
            }
        }
        for p in &deliver {
            let t = tag_of(p);
            assert!(delivered.insert(t), "packet {t} delivered twice");
            let seq = *accepted.get(&t).expect("delivered a packet never received");
            assert_eq!(p.seq(), seq);
        }
        let st = s.stats();
        let now_counters = [
            st.tracked_sent,
            st.resent,
            st.fillers_sent,
            st.requests_sent,
            st.requests_received,
            st.pings_answered,
        ];
        for (a, b) in counters.iter().zip(&now_counters) {
            assert!(b >= a, "stream counter went back");
        }
        counters = now_counters;
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    let head = b.u8();
    let ordered = head & 1 == 1;
    if head & 0x80 == 0 {
        window(&mut b, ordered);
    } else {
        stream(&mut b, ordered);
    }
});
