//! Tests of the simulated radio's protocol side (regressions found by fuzzing).

use super::*;
use crate::lan::stream::{Stream, StreamConfig};
use crate::profile::ProfileRegistry;
use crate::sim::SimRigConfig;
use crate::sim::client::AudioGrant;
use crate::wire::lan::{RetransmitRepr, StreamRequestRepr, codec, credentials};

const CLIENT: u32 = 0x0C11_E000;

fn sim(now: Instant) -> SimProtocol {
    let p = ProfileRegistry::embedded().get("ic7610").unwrap();
    let rig = SimRig::new(p.clone(), SimRigConfig::default());
    let addrs = SimAddrs {
        control: "127.0.0.1:50001".parse().unwrap(),
        civ: "127.0.0.1:50002".parse().unwrap(),
        audio: "127.0.0.1:50003".parse().unwrap(),
    };
    SimProtocol::new(SimConfig::new(p), rig, addrs, now)
}

/// Streams granted in 48 kHz PCM16 mono both ways, RX audio on or off.
fn pcm16_mono_grant(rx_enable: bool) -> AudioGrant {
    AudioGrant {
        rx_codec: codec::PCM16_MONO,
        tx_codec: codec::PCM16_MONO,
        rx_rate: 48_000,
        tx_rate: 48_000,
        rx_enable,
    }
}

/// A port session of the radio on port `k` that has resent one packet.
fn link_with_one_resend(sim: &SimProtocol, k: usize, addr: SocketAddr, now: Instant) -> PortLink {
    let id = sim.ids[k];
    let mut stream = Stream::new(
        StreamConfig::radio(100, false, true),
        id,
        CLIENT + 1,
        1,
        now,
    );
    let mut out = Vec::new();
    stream.send_tracked(now, &mut out, |seq| {
        ControlRepr {
            ptype: ptype::DATA,
            seq,
            sent_id: id,
            rcvd_id: CLIENT + 1,
        }
        .emit()
    });
    let req = RetransmitRepr {
        sent_id: CLIENT + 1,
        rcvd_id: id,
        seqs: vec![1],
    };
    stream.receive(Packet::Retransmit(req), now, &mut out, &mut Vec::new());
    assert_eq!(stream.stats().resent, 1);
    PortLink {
        addr,
        stream,
        ready: true,
    }
}

#[test]
fn stream_request_with_an_unsupported_sample_rate_is_rejected() {
    // fuzz (sim_protocol): an RX rate of 4 GHz was granted, and every 20 ms the
    // radio then rendered and encoded an 80-million-sample block (timeout / OOM)
    let now = Instant::now();
    let mut sim = sim(now);
    let ctrl: SocketAddr = "127.0.0.1:40001".parse().unwrap();
    let mut c = SimClient::new(ctrl, sim.ids[0], CLIENT, now);
    c.logged_in = true;
    c.token = 0x1234_5678;
    sim.clients.push(c);
    let mut out = Vec::new();
    for (seq, rate) in [(1u16, 4_000_000_000u32), (2, 0), (3, 44_100), (4, 48_000)] {
        let req = StreamRequestRepr {
            seq,
            sent_id: CLIENT,
            rcvd_id: sim.ids[0],
            inner_seq: seq,
            tok_request: 1,
            token: 0x1234_5678,
            guid: sim.guid,
            radio_name: "IC-7610".into(),
            username: credentials::encode("rigweb"),
            rx_enable: true,
            tx_enable: true,
            rx_codec: codec::PCM16_MONO,
            tx_codec: codec::PCM16_MONO,
            rx_sample_rate: rate,
            tx_sample_rate: 48_000,
            civ_port: 50_102,
            audio_port: 50_103,
            tx_buffer_ms: 150,
            convert: 1,
        };
        sim.receive(Port::Control, ctrl, &req.emit(), now, &mut out);
        let granted = sim.clients[0].grant.is_some();
        assert_eq!(granted, rate == 48_000, "rate {rate}");
    }
    assert_eq!(sim.stats().streams_rejected, 3);
}

#[test]
fn no_busy_loop_when_rx_audio_is_disabled() {
    // fuzz (sim_protocol): a stream request with RX disabled, then "I am ready" on the
    // audio port, left `audio_next` due for ever: `tick` sends nothing for such a
    // grant, so `next_deadline()` stayed in the past and the server loop spun
    let now = Instant::now();
    let mut sim = sim(now);
    let ctrl: SocketAddr = "127.0.0.1:40001".parse().unwrap();
    let audio: SocketAddr = "127.0.0.1:40003".parse().unwrap();
    let mut c = SimClient::new(ctrl, sim.ids[0], CLIENT, now);
    c.grant = Some(pcm16_mono_grant(false));
    c.audio = Some(link_with_one_resend(&sim, 2, audio, now));
    c.audio_next = Some(now);
    sim.clients.push(c);
    let later = now + Duration::from_millis(50);
    let mut out = Vec::new();
    sim.tick(later, &mut out);
    let next = sim.next_deadline().expect("timers of the sessions");
    assert!(
        next > later,
        "next_deadline {next:?} not after tick({later:?})"
    );
}

#[test]
fn stream_counters_survive_closed_port_sessions() {
    // fuzz (sim_protocol): stats().resent / requests_received went back to 0 when a
    // client's CI-V or audio session was closed (token remove, stop streams, kick,
    // DISCONNECT on the port, a new AYT on the port) instead of moving to the totals
    let now = Instant::now();
    let mut sim = sim(now);
    let ctrl: SocketAddr = "127.0.0.1:40001".parse().unwrap();
    let civ: SocketAddr = "127.0.0.1:40002".parse().unwrap();
    let audio: SocketAddr = "127.0.0.1:40003".parse().unwrap();
    let mut c = SimClient::new(ctrl, sim.ids[0], CLIENT, now);
    c.grant = Some(pcm16_mono_grant(true));
    c.civ = Some(link_with_one_resend(&sim, 1, civ, now));
    c.audio = Some(link_with_one_resend(&sim, 2, audio, now));
    sim.clients.push(c);
    let mut out = Vec::new();
    let totals = |s: &SimProtocol| (s.stats().resent, s.stats().requests_received);
    assert_eq!(totals(&sim), (2, 2));

    // DISCONNECT on the CI-V port
    let bye = ControlRepr {
        ptype: ptype::DISCONNECT,
        seq: 0,
        sent_id: CLIENT + 1,
        rcvd_id: sim.ids[1],
    }
    .emit();
    sim.receive(Port::Civ, civ, &bye, now, &mut out);
    assert!(sim.clients[0].civ.is_none());
    assert_eq!(totals(&sim), (2, 2));

    // a new AYT on the audio port replaces the session
    let ayt = ControlRepr {
        ptype: ptype::ARE_YOU_THERE,
        seq: 0,
        sent_id: CLIENT + 2,
        rcvd_id: 0,
    }
    .emit();
    sim.receive(Port::Audio, audio, &ayt, now, &mut out);
    assert_eq!(
        sim.clients[0].audio.as_ref().unwrap().stream.remote_id(),
        CLIENT + 2
    );
    assert_eq!(totals(&sim), (2, 2));

    // the radio closes the streams
    sim.clients[0].civ = Some(link_with_one_resend(&sim, 1, civ, now));
    assert_eq!(totals(&sim), (3, 3));
    sim.kick_streams(now, &mut out);
    assert!(sim.clients[0].civ.is_none() && sim.clients[0].audio.is_none());
    assert_eq!(totals(&sim), (3, 3));
}
