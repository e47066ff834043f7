//! Tests of the simulated radio's protocol side (regressions found by fuzzing).

use super::*;
use crate::lan::stream::{Stream, StreamConfig};
use crate::profile::ProfileRegistry;
use crate::sim::SimRigConfig;
use crate::sim::client::AudioGrant;
use crate::wire::lan::{
    LoginRepr, Origin, PingRepr, RetransmitRepr, StreamRequestRepr, TokenRepr, codec, credentials,
    token_kind,
};

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
    // grant, so `poll_timeout()` stayed in the past and the server loop spun
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
    let next = sim.poll_timeout().expect("timers of the sessions");
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

// --- review against the spec: what an independent client may send --------------------

const CTRL: &str = "127.0.0.1:40101";

/// Parses what the radio sent to the client on the control port.
fn control_replies(out: &Outbox) -> Vec<Packet> {
    out.iter()
        .filter(|(port, _, _)| *port == Port::Control)
        .filter_map(|(_, _, b)| Packet::parse(b, Port::Control, Origin::Radio).ok())
        .collect()
}

fn login_responses(out: &Outbox) -> Vec<crate::wire::lan::LoginResponseRepr> {
    control_replies(out)
        .into_iter()
        .filter_map(|p| match p {
            Packet::LoginResponse(r) => Some(r),
            _ => None,
        })
        .collect()
}

fn header_only(kind: u16, seq: u16, from: u32, to: u32) -> Vec<u8> {
    ControlRepr {
        ptype: kind,
        seq,
        sent_id: from,
        rcvd_id: to,
    }
    .emit()
}

/// Discovery then a login with outer seq `seq`; returns what the radio sent back.
fn discover_and_login(sim: &mut SimProtocol, seq: u16, now: Instant) -> Outbox {
    let ctrl: SocketAddr = CTRL.parse().unwrap();
    let radio = sim.ids[0];
    let mut out = Vec::new();
    let ayt = header_only(ptype::ARE_YOU_THERE, 0, CLIENT, 0);
    sim.receive(Port::Control, ctrl, &ayt, now, &mut out);
    let ayr = header_only(ptype::ARE_YOU_READY, 1, CLIENT, radio);
    sim.receive(Port::Control, ctrl, &ayr, now, &mut out);
    let login = LoginRepr::new((CLIENT, radio), seq, 0x30, 7, "rigweb", "rigweb", "peer");
    sim.receive(Port::Control, ctrl, &login.emit(), now, &mut out);
    out
}

#[test]
fn a_client_that_restarts_with_the_same_ids_logs_in_again() {
    // review (spec §1.7/§1.8): a client restarted with the same id and address starts
    // its sequence again; its login and token ack were dropped as "duplicates"
    let now = Instant::now();
    let mut sim = sim(now);
    let ctrl: SocketAddr = CTRL.parse().unwrap();
    let radio = sim.ids[0];
    let first = discover_and_login(&mut sim, 1, now);
    assert_eq!(login_responses(&first).len(), 1);
    let mut out = Vec::new();
    for seq in 2..20 {
        let renew = TokenRepr::request((CLIENT, radio), seq, token_kind::RENEW, seq, 7, 0);
        sim.receive(Port::Control, ctrl, &renew.emit(), now, &mut out);
    }
    // [W] style: AYT, AYR, login with seq 1 again
    let again = discover_and_login(&mut sim, 1, now);
    let resp = login_responses(&again);
    assert_eq!(resp.len(), 1, "the new login is answered");
    assert_eq!(resp[0].error, 0);
    let token = resp[0].token;
    let ack = TokenRepr::request((CLIENT, radio), 2, token_kind::ACK, 0x31, 7, token);
    let mut out = Vec::new();
    sim.receive(Port::Control, ctrl, &ack.emit(), now, &mut out);
    let replies = control_replies(&out);
    assert!(
        replies.iter().any(|p| matches!(p, Packet::Capabilities(_))),
        "the token ack of the new session is answered: {replies:?}"
    );
    assert_eq!(sim.clients.len(), 1);
}

#[test]
fn a_client_resumes_without_discovery_after_logging_out() {
    // review (spec §1.7): [A] reconnects with its previous ids and skips AYT/IAH
    let now = Instant::now();
    let mut sim = sim(now);
    let ctrl: SocketAddr = CTRL.parse().unwrap();
    let radio = sim.ids[0];
    assert_eq!(
        login_responses(&discover_and_login(&mut sim, 0, now)).len(),
        1
    );
    let mut out = Vec::new();
    let bye = header_only(ptype::DISCONNECT, 0, CLIENT, radio);
    sim.receive(Port::Control, ctrl, &bye, now, &mut out);
    sim.tick(now, &mut out); // the session ends with the round
    assert!(sim.clients.is_empty());
    let mut out = Vec::new();
    let ayr = header_only(ptype::ARE_YOU_READY, 0, CLIENT, radio);
    sim.receive(Port::Control, ctrl, &ayr, now, &mut out);
    let login = LoginRepr::new((CLIENT, radio), 0, 0, 0, "rigweb", "rigweb", "peer");
    sim.receive(Port::Control, ctrl, &login.emit(), now, &mut out);
    let resp = login_responses(&out);
    assert_eq!(resp.len(), 1);
    assert_eq!(resp[0].error, 0);
    let ack = TokenRepr::request((CLIENT, radio), 1, token_kind::ACK, 0, 0, resp[0].token);
    let mut out = Vec::new();
    sim.receive(Port::Control, ctrl, &ack.emit(), now, &mut out);
    assert!(
        control_replies(&out)
            .iter()
            .any(|p| matches!(p, Packet::Capabilities(_)))
    );
    // packets for another radio id from a stranger start nothing
    let stranger: SocketAddr = "127.0.0.1:40999".parse().unwrap();
    let ayr = header_only(ptype::ARE_YOU_READY, 0, CLIENT, radio ^ 1);
    sim.receive(Port::Control, stranger, &ayr, now, &mut Vec::new());
    assert_eq!(sim.clients.len(), 1);
}

#[test]
fn pings_are_answered_before_discovery_and_idles_run_from_the_first_packet() {
    // review (spec §1.5, §1.10): every ping is answered; the radio's control idles are
    // unconditional from the first packet (no AYR needed)
    let now = Instant::now();
    let mut sim = sim(now);
    let ctrl: SocketAddr = CTRL.parse().unwrap();
    for (port, k) in [(Port::Control, 0), (Port::Civ, 1), (Port::Audio, 2)] {
        let ping = PingRepr {
            seq: 9,
            sent_id: CLIENT,
            rcvd_id: 0,
            reply: false,
            time: 1234,
        };
        let mut out = Vec::new();
        sim.receive(port, ctrl, &ping.emit(), now, &mut out);
        assert_eq!(out.len(), 1, "{port:?}");
        let reply = PingRepr::parse(&out[0].2).unwrap();
        assert!(reply.reply);
        assert_eq!(
            (reply.seq, reply.time, reply.sent_id, reply.rcvd_id),
            (9, 1234, sim.ids[k], CLIENT)
        );
    }
    let mut out = Vec::new();
    let ayt = header_only(ptype::ARE_YOU_THERE, 0, CLIENT, 0);
    sim.receive(Port::Control, ctrl, &ayt, now, &mut out);
    let mut out = Vec::new();
    sim.tick(now + Duration::from_millis(350), &mut out);
    let idles = control_replies(&out)
        .iter()
        .filter(|p| matches!(p, Packet::Idle(_)))
        .count();
    assert!(idles >= 1, "control idles without AYR: {out:?}");
}

#[test]
fn every_advertised_sample_rate_and_a_disabled_direction_are_granted() {
    // review (spec §2.7): the capabilities advertise 8/12/16/24/48 kHz (0x8B01); a
    // direction left disabled may carry codec 0
    let now = Instant::now();
    let requests = [
        (
            12_000,
            true,
            codec::PCM16_MONO,
            true,
            codec::PCM16_MONO,
            true,
        ),
        (48_000, true, codec::PCM16_MONO, false, 0, true),
        (48_000, false, 0, true, codec::PCM16_MONO, true),
        (
            48_000,
            true,
            codec::PCM16_MONO,
            true,
            codec::PCM16_STEREO,
            false,
        ),
        (
            11_025,
            true,
            codec::PCM16_MONO,
            true,
            codec::PCM16_MONO,
            false,
        ),
    ];
    for (rate, rx_enable, rx_codec, tx_enable, tx_codec, granted) in requests {
        let mut sim = sim(now);
        let ctrl: SocketAddr = CTRL.parse().unwrap();
        let mut c = SimClient::new(ctrl, sim.ids[0], CLIENT, now);
        c.logged_in = true;
        c.token = 0x1234_5678;
        sim.clients.push(c);
        let req = StreamRequestRepr {
            seq: 1,
            sent_id: CLIENT,
            rcvd_id: sim.ids[0],
            inner_seq: 1,
            tok_request: 1,
            token: 0x1234_5678,
            guid: sim.guid,
            radio_name: "IC-7610".into(),
            username: credentials::encode("rigweb"),
            rx_enable,
            tx_enable,
            rx_codec,
            tx_codec,
            rx_sample_rate: rate,
            tx_sample_rate: rate,
            civ_port: 50_102,
            audio_port: 50_103,
            tx_buffer_ms: 150,
            convert: 1,
        };
        sim.receive(Port::Control, ctrl, &req.emit(), now, &mut Vec::new());
        assert_eq!(
            sim.clients[0].grant.is_some(),
            granted,
            "rate {rate}, rx {rx_enable}/{rx_codec:#x}, tx {tx_enable}/{tx_codec:#x}"
        );
    }
}

#[test]
fn a_new_civ_socket_replaces_one_that_left_without_a_goodbye() {
    // review (spec §2.11 soft reconnect): a second CI-V socket from the client's IP was
    // ignored for as long as the first one stayed registered
    let now = Instant::now();
    let mut sim = sim(now);
    let ctrl: SocketAddr = CTRL.parse().unwrap();
    let old_civ: SocketAddr = "127.0.0.1:40102".parse().unwrap();
    let new_civ: SocketAddr = "127.0.0.1:40112".parse().unwrap();
    let mut c = SimClient::new(ctrl, sim.ids[0], CLIENT, now);
    c.grant = Some(pcm16_mono_grant(true));
    c.civ = Some(link_with_one_resend(&sim, 1, old_civ, now));
    sim.clients.push(c);
    let later = now + Duration::from_secs(3);
    let ayt = header_only(ptype::ARE_YOU_THERE, 0, CLIENT + 7, 0);
    let mut out = Vec::new();
    sim.receive(Port::Civ, new_civ, &ayt, later, &mut out);
    assert_eq!(out.len(), 1, "I am here on the new socket");
    assert_eq!(out[0].1, new_civ);
    assert_eq!(sim.client_addrs(Port::Civ), vec![new_civ]);
    assert_eq!(sim.stats().resent, 1, "the old session's counters are kept");
}

#[test]
fn a_rediscovered_audio_session_restarts_its_inner_counter_with_the_outer_one() {
    // peers_python (5 % loss): after a repeated discovery on the audio port the outer
    // seq started again at 1 while the inner audio seq went on (163 at outer seq 11)
    let now = Instant::now();
    let mut sim = sim(now);
    let ctrl: SocketAddr = CTRL.parse().unwrap();
    let audio: SocketAddr = "127.0.0.1:40103".parse().unwrap();
    let mut c = SimClient::new(ctrl, sim.ids[0], CLIENT, now);
    c.grant = Some(pcm16_mono_grant(true));
    sim.clients.push(c);
    let ayt = header_only(ptype::ARE_YOU_THERE, 0, CLIENT + 2, 0);
    let ayr = header_only(ptype::ARE_YOU_READY, 1, CLIENT + 2, sim.ids[2]);
    let mut out = Vec::new();
    sim.receive(Port::Audio, audio, &ayt, now, &mut out);
    sim.receive(Port::Audio, audio, &ayt, now, &mut out);
    assert_eq!(out.len(), 2, "a repeated AYT is answered");
    sim.receive(Port::Audio, audio, &ayr, now, &mut out);
    let mut t = now;
    for _ in 0..10 {
        t += Duration::from_millis(20);
        sim.tick(t, &mut Vec::new());
    }
    assert!(sim.clients[0].audio_seq > 0, "audio flowed");
    sim.receive(Port::Audio, audio, &ayt, t, &mut Vec::new());
    sim.receive(Port::Audio, audio, &ayr, t, &mut Vec::new());
    let mut out = Vec::new();
    sim.tick(t + Duration::from_millis(20), &mut out);
    let first = out
        .iter()
        .find_map(
            |(_, _, b)| match Packet::parse(b, Port::Audio, Origin::Radio) {
                Ok(Packet::Audio(a)) => Some(a),
                _ => None,
            },
        )
        .expect("RX audio on the new session");
    assert_eq!((first.seq, first.send_seq), (1, 0));
}

#[test]
fn nak_injection_starts_with_the_configured_faults() {
    // review: `rigweb sim --nak P` had no effect (only a later fault change applied it)
    let p = ProfileRegistry::embedded().get("ic7610").unwrap();
    let mut cfg = SimConfig::new(p.clone());
    cfg.faults.nak = 0.5;
    let rig = SimRig::new(p, SimRigConfig::default());
    let addrs = SimAddrs {
        control: "127.0.0.1:50001".parse().unwrap(),
        civ: "127.0.0.1:50002".parse().unwrap(),
        audio: "127.0.0.1:50003".parse().unwrap(),
    };
    let sim = SimProtocol::new(cfg, rig, addrs, Instant::now());
    assert_eq!(sim.nak, 0.5);
}
