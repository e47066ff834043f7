//! `sim_protocol`: the simulated radio's sans-IO LAN side, `SimProtocol::receive` and
//! `tick`, for an embedded profile chosen by the first byte, with datagrams on all three
//! ports from three clients (each with its own control / CI-V / audio address) and a
//! stranger, time advancing by input-chosen steps.
//!
//! Each client is played by `peer::Peer`s that learn the radio's ids, tokens and GUID
//! from what the radio sends, so scripts can log in (the simulator's default
//! credentials), ask for streams, open the CI-V and audio ports and send CI-V frames and
//! audio, as well as send raw or slightly wrong datagrams.
//!
//! Checks: no panic; every datagram sent fits UDP, parses as a radio packet on its port,
//! goes to an address that sent something, and carries the radio's one id of that port;
//! a datagram is answered with at most 64 datagrams plus one per seq of a retransmit
//! request, a tick sends at most 64 per client plus 256; `stats()` counters never
//! decrease and at most 8 clients are kept; after `tick(now)` (at most three at the
//! same `now`) `poll_timeout()` is later than `now` (no busy loop).
#![no_main]

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use rigweb::sim::protocol::{Outbox, SimProtocol};
use rigweb::sim::server::{SimAddrs, SimConfig, SimStats};
use rigweb::sim::{SimRig, SimRigConfig};
use rigweb::wire::lan::{Origin, Port, RetransmitRepr};
use rigweb_fuzz::common::{Bytes, check_datagram, profiles};
use rigweb_fuzz::peer::{DATAGRAM_KINDS, Peer};

const PORTS: [Port; 3] = [Port::Control, Port::Civ, Port::Audio];

fn port_index(p: Port) -> usize {
    match p {
        Port::Control => 0,
        Port::Civ => 1,
        Port::Audio => 2,
    }
}

fn counters(s: &SimStats) -> [u64; 18] {
    [
        s.logins_ok,
        s.logins_rejected,
        s.streams_granted,
        s.streams_held,
        s.streams_rejected,
        s.guid_mismatches,
        s.clean_logouts,
        s.vanished,
        s.civ_frames_in,
        s.civ_frames_out,
        s.scope_sweeps,
        s.audio_packets_out,
        s.tx_audio_packets_in,
        s.malformed,
        s.foreign,
        s.resent,
        s.requests_received,
        s.tx_released,
    ]
}

const NAMES: [&str; 18] = [
    "logins_ok",
    "logins_rejected",
    "streams_granted",
    "streams_held",
    "streams_rejected",
    "guid_mismatches",
    "clean_logouts",
    "vanished",
    "civ_frames_in",
    "civ_frames_out",
    "scope_sweeps",
    "audio_packets_out",
    "tx_audio_packets_in",
    "malformed",
    "foreign",
    "resent",
    "requests_received",
    "tx_released",
];

struct Harness {
    proto: SimProtocol,
    /// Peers by (address, port).
    peers: HashMap<(SocketAddr, usize), Peer>,
    /// Addresses that sent something.
    senders: HashSet<SocketAddr>,
    /// The radio's id per port, once seen.
    radio_ids: [Option<u32>; 3],
    stats: [u64; 18],
}

impl Harness {
    fn check(&mut self, what: &str, out: &mut Outbox, allowed: usize) {
        assert!(
            out.len() <= allowed,
            "{what}: {} datagrams (at most {allowed} expected)",
            out.len()
        );
        for (port, addr, d) in out.drain(..) {
            let k = port_index(port);
            assert!(
                self.senders.contains(&addr),
                "{what}: datagram to {addr}, which never sent anything"
            );
            let id = match self.radio_ids[k] {
                Some(id) => id,
                None if d.len() >= 12 => {
                    let id = u32::from_le_bytes([d[8], d[9], d[10], d[11]]);
                    self.radio_ids[k] = Some(id);
                    id
                }
                None => 0,
            };
            let p = check_datagram(what, &d, port, Origin::Radio, &[id]);
            if let Some(peer) = self.peers.get_mut(&(addr, k)) {
                peer.their_id = id;
                peer.learn(&p);
            }
        }
        let s = self.proto.stats();
        assert!(s.clients <= 8, "{} clients kept", s.clients);
        let c = counters(&s);
        for (i, (a, b)) in self.stats.iter().zip(&c).enumerate() {
            assert!(b >= a, "{what}: stats().{} went back {a} -> {b}", NAMES[i]);
        }
        self.stats = c;
    }

    fn tick(&mut self, now: Instant) {
        for _ in 0..3 {
            let mut out = Vec::new();
            self.proto.tick(now, &mut out);
            let clients = self.proto.stats().clients as usize;
            self.check("tick", &mut out, 64 * clients.max(1) + 256);
            match self.proto.poll_timeout() {
                Some(t) if t <= now => {}
                _ => return,
            }
        }
        let t = self.proto.poll_timeout().expect("checked above");
        panic!(
            "busy loop: poll_timeout() is {:?} in the past after three ticks at the same time",
            now.saturating_duration_since(t)
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    let all = profiles();
    let profile = all[usize::from(b.u8()) % all.len()].clone();
    let t0 = Instant::now();
    let mut now = t0;
    let radio: SocketAddr = "127.0.0.1:50001".parse().unwrap();
    let addrs = SimAddrs {
        control: radio,
        civ: "127.0.0.1:50002".parse().unwrap(),
        audio: "127.0.0.1:50003".parse().unwrap(),
    };
    let cfg = SimConfig::new(profile.clone());
    let rig = SimRig::new(profile.clone(), SimRigConfig::default());
    let proto = SimProtocol::new(cfg, rig, addrs, now);

    // Three clients (ports 40001-40003 on their own IP) and a stranger.
    let mut peers = HashMap::new();
    let mut book: Vec<[SocketAddr; 3]> = Vec::new();
    for k in 0..3u8 {
        let set: [SocketAddr; 3] =
            [0, 1, 2].map(|p| SocketAddr::from(([127, 0, 0, 10 + k], 40_001 + p as u16)));
        for (p, a) in set.iter().enumerate() {
            let mut peer = Peer::new(0x1000_0000 + u32::from(k) * 16 + p as u32, 0);
            peer.civ_addr = profile.radio.civ_addr;
            peer.tok_request = 0x4200 + u16::from(k);
            peers.insert((*a, p), peer);
        }
        book.push(set);
    }
    let stranger = SocketAddr::from(([127, 0, 0, 99], 9_999));
    for p in 0..3 {
        peers.insert((stranger, p), Peer::new(0x0BAD_0000 + p as u32, 0));
    }
    let mut h = Harness {
        proto,
        peers,
        senders: HashSet::new(),
        radio_ids: [None; 3],
        stats: [0; 18],
    };

    let mut ops = 0;
    while !b.is_empty() && ops < 256 {
        ops += 1;
        let op = b.u8();
        if op.is_multiple_of(4) {
            let ms = if op & 0x80 != 0 {
                u64::from(b.u8()) * 500
            } else {
                u64::from(b.u16() % 4096)
            };
            now += Duration::from_millis(ms);
            h.tick(now);
            continue;
        }
        // op bits 2-3: client (3 = stranger); bits 4-5: port; then the datagram kind
        let client = usize::from(op >> 2 & 3);
        let port_k = usize::from(op >> 4 & 3) % 3;
        // bit 6: send from the client's address of another port (wrong-port tests)
        let from_k = if op & 0x40 != 0 {
            (port_k + 1) % 3
        } else {
            port_k
        };
        let addr = if client == 3 {
            stranger
        } else {
            book[client][from_k]
        };
        let kind = b.u8() % DATAGRAM_KINDS;
        let peer = h
            .peers
            .get_mut(&(addr, from_k))
            .expect("every address has a peer");
        // a peer talks to the radio's session on the port it sends to
        let d = peer.datagram(&mut b, kind);
        let asked = RetransmitRepr::parse(&d).map_or(0, |r| r.seqs.len());
        h.senders.insert(addr);
        let mut out = Vec::new();
        h.proto.receive(PORTS[port_k], addr, &d, now, &mut out);
        h.check("receive", &mut out, 64 + asked);
        h.tick(now);
    }
});
