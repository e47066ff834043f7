//! Tests of the CI-V session against a scripted radio: discovery, the OpenClose retries
//! and pings answered at every stage.

use super::*;
use crate::wire::lan::{ControlRepr, Origin, PingRepr, Tracked};

const ME: u32 = 0x0001_8234;
const RADIO: u32 = 0x5A5A_0002;

fn header_only(kind: u16, seq: u16) -> Vec<u8> {
    ControlRepr {
        ptype: kind,
        seq,
        sent_id: RADIO,
        rcvd_id: ME,
    }
    .emit()
}

/// What the client sent, parsed as the radio would.
fn sent(out: &[Vec<u8>]) -> Vec<Packet> {
    out.iter()
        .filter_map(|b| Packet::parse(b, Port::Civ, Origin::Client).ok())
        .collect()
}

fn opencloses(out: &[Vec<u8>]) -> usize {
    sent(out)
        .iter()
        .filter(|p| matches!(p, Packet::OpenClose(o) if o.open))
        .count()
}

/// A client past discovery whose first OpenClose(open) is in `out`.
fn discovered(t0: Instant, out: &mut Vec<Vec<u8>>) -> CivClient {
    let mut c = CivClient::new(CivClientConfig::default(), ME, t0);
    c.poll(t0, out);
    c.receive(&header_only(ptype::I_AM_HERE, 0), t0, out);
    c.receive(&header_only(ptype::ARE_YOU_READY, 1), t0, out);
    c
}

#[test]
fn a_lost_openclose_is_repeated_until_civ_data_flows() {
    // review (spec §2.10 step 3): idles made the stream count as open, so a lost first
    // OpenClose(open) was never repeated and scope / transceive data never came
    let t0 = Instant::now();
    let mut lost = Vec::new();
    let mut c = discovered(t0, &mut lost);
    assert_eq!(opencloses(&lost), 1, "the first OpenClose (lost)");
    let mut out = Vec::new();
    let mut seq = 1;
    let mut t = t0;
    for _ in 0..21 {
        t += Duration::from_millis(100);
        let idle = header_only(ptype::DATA, seq);
        seq += 1;
        c.receive(&idle, t, &mut out);
        c.poll(t, &mut out);
    }
    assert!(c.take_events().contains(&CivEvent::Opened), "idles open it");
    assert!(
        opencloses(&out) >= 18,
        "OpenClose repeated while only idles arrive: {}",
        opencloses(&out)
    );
    // after 2 s, once a second
    out.clear();
    for _ in 0..30 {
        t += Duration::from_millis(100);
        c.poll(t, &mut out);
        c.receive(&header_only(ptype::DATA, seq), t, &mut out);
        seq += 1;
    }
    assert!(
        (2..=4).contains(&opencloses(&out)),
        "slower after 2 s: {}",
        opencloses(&out)
    );
    // CI-V data ends it
    let reply = CivDataRepr::new(0, vec![0xFE, 0xFE, 0xE0, 0x98, 0xFB, 0xFD])
        .emit_tracked(seq, (RADIO, ME));
    c.receive(&reply, t, &mut out);
    out.clear();
    for _ in 0..30 {
        t += Duration::from_millis(100);
        seq += 1;
        c.receive(&header_only(ptype::DATA, seq), t, &mut out);
        c.poll(t, &mut out);
    }
    assert_eq!(opencloses(&out), 0, "no OpenClose once data flowed");
    assert!(c.is_open());
}

#[test]
fn openclose_stops_at_the_first_civ_data() {
    let t0 = Instant::now();
    let mut out = Vec::new();
    let mut c = discovered(t0, &mut out);
    let t = t0 + Duration::from_millis(30);
    let reply =
        CivDataRepr::new(0, vec![0xFE, 0xFE, 0xE0, 0x98, 0xFB, 0xFD]).emit_tracked(1, (RADIO, ME));
    c.receive(&reply, t, &mut out);
    assert_eq!(c.take_events()[0], CivEvent::Opened);
    out.clear();
    for i in 1..20 {
        c.poll(t + Duration::from_millis(100 * i), &mut out);
    }
    assert_eq!(opencloses(&out), 0);
}

#[test]
fn pings_are_answered_during_discovery() {
    // review (spec §1.5): a radio that pings from its first packet got no answer until
    // discovery ended
    let t0 = Instant::now();
    let mut c = CivClient::new(CivClientConfig::default(), ME, t0);
    let mut out = Vec::new();
    c.poll(t0, &mut out);
    out.clear();
    let ping = PingRepr {
        seq: 3,
        sent_id: RADIO,
        rcvd_id: ME,
        reply: false,
        time: 77,
    };
    c.receive(&ping.emit(), t0, &mut out);
    assert_eq!(out.len(), 1);
    let reply = PingRepr::parse(&out[0]).unwrap();
    assert_eq!(
        (
            reply.reply,
            reply.seq,
            reply.time,
            reply.sent_id,
            reply.rcvd_id
        ),
        (true, 3, 77, ME, RADIO)
    );
    // a ping for someone else is not ours to answer
    out.clear();
    let other = PingRepr {
        rcvd_id: ME + 1,
        ..ping
    };
    c.receive(&other.emit(), t0, &mut out);
    assert!(out.is_empty());
}
