//! Tests of the simulated radio with a whole LAN session, sans-IO: a transmitter keyed by
//! the controller is released when its session ends (cleanly or not), and a radio in
//! standby grants the streams but sends no CI-V until `18 01`.

use super::*;
use crate::profile::ProfileRegistry;
use crate::sim::SimRigConfig;
use crate::sim::audio_synth::mode;
use crate::sim::rig::PanelAction;
use crate::wire::civ::cmd::{self, power, tx};
use crate::wire::civ::{self, Frame};
use crate::wire::lan::{
    CivDataRepr, LoginRepr, OpenCloseRepr, Origin, StreamRequestRepr, TokenRepr, codec,
    credentials, token_kind,
};

const CLIENT: u32 = 0x0C11_E200;
const CTRL: &str = "127.0.0.1:40201";
const CIV: &str = "127.0.0.1:40202";

/// A simulated IC-7610 with the rig configuration `rig`, and the time it started.
fn radio(rig: SimRigConfig) -> (SimProtocol, Instant) {
    let p = ProfileRegistry::embedded().get("ic7610").unwrap();
    let addrs = SimAddrs {
        control: "127.0.0.1:50001".parse().unwrap(),
        civ: "127.0.0.1:50002".parse().unwrap(),
        audio: "127.0.0.1:50003".parse().unwrap(),
    };
    let now = Instant::now();
    let sim = SimProtocol::new(SimConfig::new(p.clone()), SimRig::new(p, rig), addrs, now);
    (sim, now)
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

/// What the radio sent to `to` on `port`, parsed.
fn packets_to(out: &Outbox, port: Port, to: &str) -> Vec<Packet> {
    let to: SocketAddr = to.parse().unwrap();
    out.iter()
        .filter(|(p, a, _)| *p == port && *a == to)
        .filter_map(|(_, _, b)| Packet::parse(b, port, Origin::Radio).ok())
        .collect()
}

/// The CI-V frames in what the radio sent to the client.
fn civ_frames(out: &Outbox) -> Vec<Frame> {
    packets_to(out, Port::Civ, CIV)
        .into_iter()
        .filter_map(|p| match p {
            Packet::CivData(d) => Some(d.payload),
            _ => None,
        })
        .flat_map(|b| {
            civ::split_frames(&b)
                .filter_map(Result::ok)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A controller with a control session and open CI-V stream.
struct Peer {
    ctrl_seq: u16,
    civ_seq: u16,
    token: u32,
}

impl Peer {
    /// Logs in, asks for the streams (which must be granted) and opens the CI-V stream.
    fn connect(sim: &mut SimProtocol, now: Instant) -> Peer {
        let ctrl: SocketAddr = CTRL.parse().unwrap();
        let civ: SocketAddr = CIV.parse().unwrap();
        let radio = sim.ids[0];
        let mut out = Vec::new();
        let ayt = header_only(ptype::ARE_YOU_THERE, 0, CLIENT, 0);
        sim.receive(Port::Control, ctrl, &ayt, now, &mut out);
        let ayr = header_only(ptype::ARE_YOU_READY, 1, CLIENT, radio);
        sim.receive(Port::Control, ctrl, &ayr, now, &mut out);
        let login = LoginRepr::new((CLIENT, radio), 1, 0x30, 7, "rigweb", "rigweb", "peer");
        sim.receive(Port::Control, ctrl, &login.emit(), now, &mut out);
        let token = packets_to(&out, Port::Control, CTRL)
            .into_iter()
            .find_map(|p| match p {
                Packet::LoginResponse(r) if r.error == 0 => Some(r.token),
                _ => None,
            })
            .expect("logged in");
        let ack = TokenRepr::request((CLIENT, radio), 2, token_kind::ACK, 0x31, 7, token);
        sim.receive(Port::Control, ctrl, &ack.emit(), now, &mut out);
        let req = StreamRequestRepr {
            seq: 3,
            sent_id: CLIENT,
            rcvd_id: radio,
            inner_seq: 0x32,
            tok_request: 7,
            token,
            guid: sim.guid,
            radio_name: "IC-7610".into(),
            username: credentials::encode("rigweb"),
            rx_enable: true,
            tx_enable: true,
            rx_codec: codec::PCM16_MONO,
            tx_codec: codec::PCM16_MONO,
            rx_sample_rate: 16_000,
            tx_sample_rate: 16_000,
            civ_port: 40_202,
            audio_port: 40_203,
            tx_buffer_ms: 150,
            convert: 1,
        };
        let mut out = Vec::new();
        sim.receive(Port::Control, ctrl, &req.emit(), now, &mut out);
        let granted = packets_to(&out, Port::Control, CTRL)
            .iter()
            .any(|p| matches!(p, Packet::Status(s) if s.civ_port == sim.addrs.civ.port()));
        assert!(granted, "streams granted");
        let ayt = header_only(ptype::ARE_YOU_THERE, 0, CLIENT + 1, 0);
        let mut out = Vec::new();
        sim.receive(Port::Civ, civ, &ayt, now, &mut out);
        assert_eq!(out.len(), 1, "I am here on the CI-V port");
        let mut open = OpenCloseRepr::new(0, true);
        (open.seq, open.sent_id, open.rcvd_id) = (1, CLIENT + 1, sim.ids[1]);
        sim.receive(Port::Civ, civ, &open.emit(), now, &mut Vec::new());
        assert!(sim.clients[0].civ_open);
        Peer {
            ctrl_seq: 4,
            civ_seq: 2,
            token,
        }
    }

    /// Sends one CI-V frame; returns the CI-V frames the radio sent back at once.
    fn civ(&mut self, sim: &mut SimProtocol, command: u8, data: &[u8], now: Instant) -> Vec<Frame> {
        let frame = Frame::new(0x98, 0xE0, command, data);
        let mut pkt = CivDataRepr::new(self.civ_seq, frame.emit());
        (pkt.seq, pkt.sent_id, pkt.rcvd_id) = (self.civ_seq, CLIENT + 1, sim.ids[1]);
        self.civ_seq += 1;
        let mut out = Vec::new();
        sim.receive(Port::Civ, CIV.parse().unwrap(), &pkt.emit(), now, &mut out);
        sim.tick(now, &mut out);
        civ_frames(&out)
    }

    /// Logs out with a token remove (carried out when the round ends: [`end_round`]).
    fn log_out(&mut self, sim: &mut SimProtocol, now: Instant) {
        let ids = (CLIENT, sim.ids[0]);
        let remove =
            TokenRepr::request(ids, self.ctrl_seq, token_kind::REMOVE, 0x40, 7, self.token);
        self.ctrl_seq += 1;
        sim.receive(
            Port::Control,
            CTRL.parse().unwrap(),
            &remove.emit(),
            now,
            &mut Vec::new(),
        );
    }
}

/// Ends the round of datagrams (the radio's next tick).
fn end_round(sim: &mut SimProtocol, now: Instant) {
    sim.tick(now, &mut Vec::new());
}

/// How a controller goes away.
#[derive(Debug, Clone, Copy)]
enum Departure {
    TokenRemove,
    Disconnect,
    CivDisconnect,
    Silence,
    Kicked,
}

fn depart(sim: &mut SimProtocol, peer: &mut Peer, how: Departure, now: Instant) {
    let mut out = Vec::new();
    match how {
        Departure::TokenRemove => peer.log_out(sim, now),
        Departure::Disconnect => {
            let bye = header_only(ptype::DISCONNECT, 0, CLIENT, sim.ids[0]);
            sim.receive(Port::Control, CTRL.parse().unwrap(), &bye, now, &mut out);
        }
        Departure::CivDisconnect => {
            let bye = header_only(ptype::DISCONNECT, 0, CLIENT + 1, sim.ids[1]);
            sim.receive(Port::Civ, CIV.parse().unwrap(), &bye, now, &mut out);
        }
        Departure::Silence => sim.tick(now + Duration::from_secs(16), &mut out),
        Departure::Kicked => sim.kick_streams(now, &mut out),
    }
    if !matches!(how, Departure::Silence) {
        end_round(sim, now);
    }
}

#[test]
fn the_transmitter_is_released_when_its_controller_goes_away() {
    for how in [
        Departure::TokenRemove,
        Departure::Disconnect,
        Departure::CivDisconnect,
        Departure::Silence,
        Departure::Kicked,
    ] {
        let (mut sim, now) = radio(SimRigConfig::default());
        let mut peer = Peer::connect(&mut sim, now);
        let rep = peer.civ(&mut sim, cmd::TX, &[tx::PTT, 0x01], now);
        assert!(rep.iter().any(Frame::is_ack), "{how:?}: {rep:?}");
        assert!(sim.rig().ptt());
        depart(&mut sim, &mut peer, how, now + Duration::from_millis(100));
        assert!(!sim.rig().ptt(), "{how:?}: still keyed");
        assert_eq!(sim.stats().tx_released, 1, "{how:?}");
    }
}

#[test]
fn cw_being_sent_stops_when_its_controller_logs_out() {
    let (mut sim, now) = radio(SimRigConfig::default());
    let mut peer = Peer::connect(&mut sim, now);
    assert!(peer.civ(&mut sim, cmd::SET_MODE, &[mode::CW, 0x01], now)[0].is_ack());
    let rep = peer.civ(&mut sim, cmd::SEND_CW, b"CQ CQ CQ DE TEST TEST", now);
    assert!(rep[0].is_ack());
    assert!(sim.rig().ptt());
    peer.log_out(&mut sim, now + Duration::from_millis(200));
    end_round(&mut sim, now + Duration::from_millis(200));
    assert!(!sim.rig().ptt());
    assert!(sim.rig().snapshot().cw.is_none());
}

#[test]
fn a_front_panel_ptt_stays_and_nothing_is_released_twice() {
    let (mut sim, now) = radio(SimRigConfig::default());
    let mut peer = Peer::connect(&mut sim, now);
    sim.panel(PanelAction::Ptt(true), now, &mut Vec::new());
    peer.log_out(&mut sim, now);
    end_round(&mut sim, now);
    assert!(sim.rig().ptt(), "the operator at the radio keyed it");
    assert_eq!(sim.stats().tx_released, 0);
    // a controller that leaves unkeyed releases nothing
    let (mut sim, now) = radio(SimRigConfig::default());
    let mut peer = Peer::connect(&mut sim, now);
    peer.log_out(&mut sim, now);
    let mut out = Vec::new();
    sim.tick(now + Duration::from_secs(20), &mut out);
    assert_eq!(sim.stats().tx_released, 0);
}

#[test]
fn a_radio_in_standby_grants_the_streams_but_sends_no_civ() {
    let cfg = SimRigConfig {
        start_in_standby: true,
        ..SimRigConfig::default()
    };
    let (mut sim, now) = radio(cfg);
    let mut peer = Peer::connect(&mut sim, now);
    // a second of silence: no CI-V data, no idles on the CI-V port
    let mut out = Vec::new();
    for ms in (100..=1_000).step_by(100) {
        sim.tick(now + Duration::from_millis(ms), &mut out);
    }
    let civ_port = packets_to(&out, Port::Civ, CIV);
    assert!(
        !civ_port
            .iter()
            .any(|p| matches!(p, Packet::CivData(_) | Packet::Idle(_))),
        "{civ_port:?}"
    );
    let t = now + Duration::from_secs(1);
    assert!(peer.civ(&mut sim, cmd::ID, &[cmd::ID_READ], t).is_empty());
    assert!(peer.civ(&mut sim, cmd::POWER, &[], t).is_empty());
    // 18 01 (no FE padding on LAN) wakes it: FB, then idles and answers
    let rep = peer.civ(&mut sim, cmd::POWER, &[power::ON], t);
    assert!(rep.len() == 1 && rep[0].is_ack(), "{rep:?}");
    assert!(sim.rig().powered());
    let rep = peer.civ(&mut sim, cmd::ID, &[cmd::ID_READ], t);
    assert_eq!(
        rep,
        vec![Frame::new(0xE0, 0x98, cmd::ID, &[cmd::ID_READ, 0x98])]
    );
    let mut out = Vec::new();
    sim.tick(t + Duration::from_millis(250), &mut out);
    assert!(
        packets_to(&out, Port::Civ, CIV)
            .iter()
            .any(|p| matches!(p, Packet::Idle(_))),
        "CI-V idles once switched on"
    );
}

#[test]
fn a_booting_radio_comes_up_by_itself() {
    let cfg = SimRigConfig {
        start_in_standby: true,
        boot_time: Duration::from_secs(2),
        ..SimRigConfig::default()
    };
    let (mut sim, now) = radio(cfg);
    let mut peer = Peer::connect(&mut sim, now);
    let rep = peer.civ(&mut sim, cmd::POWER, &[power::ON], now);
    assert!(rep.len() == 1 && rep[0].is_nak(), "booting: {rep:?}");
    assert!(!sim.rig().powered());
    let due = sim.poll_timeout().expect("the boot ends");
    assert!(due <= now + Duration::from_secs(2));
    let mut out = Vec::new();
    sim.tick(now + Duration::from_secs(2), &mut out);
    assert!(sim.rig().powered(), "up after the boot time");
    sim.tick(now + Duration::from_millis(2_250), &mut out);
    assert!(
        packets_to(&out, Port::Civ, CIV)
            .iter()
            .any(|p| matches!(p, Packet::Idle(_)))
    );
    let t = now + Duration::from_secs(3);
    assert!(peer.civ(&mut sim, cmd::POWER, &[power::ON], t)[0].is_ack());
}

#[test]
fn a_civ_command_in_the_round_of_the_logout_is_served() {
    // issue 15.9: a CI-V command that arrived in the same poll round as the client's
    // logout was dropped (the control port is read before the CI-V port, so the session
    // was gone first): no FB, setting not applied
    let (mut sim, now) = radio(SimRigConfig::default());
    let mut peer = Peer::connect(&mut sim, now);
    let hz = 14_123_450;
    // one round: the logout read first, then the CI-V command sent before it
    peer.log_out(&mut sim, now);
    let freq = crate::wire::civ::freq_to_bcd(hz).unwrap();
    let rep = peer.civ(&mut sim, cmd::SET_FREQ, &freq, now);
    assert!(rep.iter().any(Frame::is_ack), "FB: {rep:?}");
    let snap = sim.rig().snapshot();
    let rx = &snap.receivers[0];
    assert_eq!(rx.vfo[usize::from(rx.active_vfo)].freq_hz, hz, "applied");
    // and the logout is carried out at the round's end
    assert!(sim.clients[0].grant.is_none() && sim.clients[0].civ.is_none());
    assert!(!sim.clients[0].logged_in);
    // the same for a control DISCONNECT
    let (mut sim, now) = radio(SimRigConfig::default());
    let mut peer = Peer::connect(&mut sim, now);
    let bye = header_only(ptype::DISCONNECT, 0, CLIENT, sim.ids[0]);
    sim.receive(
        Port::Control,
        CTRL.parse().unwrap(),
        &bye,
        now,
        &mut Vec::new(),
    );
    let rep = peer.civ(&mut sim, cmd::SET_FREQ, &freq, now);
    assert!(rep.iter().any(Frame::is_ack), "FB: {rep:?}");
    assert!(sim.clients.is_empty(), "forgotten at the round's end");
    assert_eq!(sim.stats().clean_logouts, 1);
}
