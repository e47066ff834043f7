//! The radio side of the LAN protocol for every client, sans-IO: datagrams in,
//! datagrams out, time explicit. This file holds the dispatch and the control port
//! (discovery, login with the credential check, token kinds, capabilities, radio
//! conninfo, stream requests with the GUID echo check, held sessions, codec rules);
//! `streams.rs` holds the CI-V and audio ports.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::client::{AudioGrant, PortLink, SimClient};
use super::rig::{PanelAction, SimRig};
use super::rng::Rng;
use super::server::{SimAddrs, SimConfig, SimStats};
use crate::wire::lan::{
    self, CapabilitiesRepr, ControlRepr, Header, LoginRepr, LoginResponseRepr, Origin, Packet,
    Port, RadioCapability, RadioConnInfoRepr, StatusRepr, StreamRequestRepr, TokenRepr, Tracked,
    codec, credentials, ptype, token_kind,
};

/// Datagrams to send: port, peer, bytes.
pub type Outbox = Vec<(Port, SocketAddr, Vec<u8>)>;

/// Most clients the radio keeps sessions for at once.
const MAX_CLIENTS: usize = 8;

/// Sample rates the radio's LAN audio accepts, Hz (RX audio blocks are sized from the
/// granted rate, so an arbitrary one must not get through).
const SAMPLE_RATES: [u32; 4] = [8_000, 16_000, 24_000, 48_000];

/// The simulated radio's protocol state.
pub struct SimProtocol {
    pub(super) cfg: SimConfig,
    pub(super) rig: SimRig,
    pub(super) addrs: SimAddrs,
    pub(super) start: Instant,
    pub(super) rng: Rng,
    /// Radio ids of the control, CI-V and audio ports.
    pub(super) ids: [u32; 3],
    pub(super) guid: [u8; 16],
    pub(super) clients: Vec<SimClient>,
    pub(super) cooldown_until: Option<Instant>,
    pub(super) stats: SimStats,
    /// Stream counters of sessions already gone (so totals never go backwards).
    pub(super) gone_resent: u64,
    pub(super) gone_requests: u64,
    pub(super) was_powered: bool,
    /// Probability of answering a CI-V request with NAK (fault injection).
    pub(super) nak: f64,
}

impl SimProtocol {
    /// A radio with no clients yet.
    pub fn new(cfg: SimConfig, rig: SimRig, addrs: SimAddrs, now: Instant) -> SimProtocol {
        let mut rng = Rng::new(cfg.seed ^ 0x1D5_0000);
        let ids = [rng.nonzero_u32(), rng.nonzero_u32(), rng.nonzero_u32()];
        let mut guid = [0u8; 16];
        for b in &mut guid {
            *b = rng.next_u32() as u8;
        }
        let was_powered = rig.powered();
        SimProtocol {
            cfg,
            rig,
            addrs,
            start: now,
            rng,
            ids,
            guid,
            clients: Vec::new(),
            cooldown_until: None,
            stats: SimStats::default(),
            gone_resent: 0,
            gone_requests: 0,
            was_powered,
            nak: 0.0,
        }
    }

    /// Sets the probability of NAK answers (fault injection).
    pub fn set_nak(&mut self, p: f64) {
        self.nak = p;
    }

    /// The CI-V model.
    pub fn rig(&self) -> &SimRig {
        &self.rig
    }

    /// The addresses clients use on `port`.
    pub fn client_addrs(&self, port: Port) -> Vec<SocketAddr> {
        self.clients
            .iter()
            .filter_map(|c| match port {
                Port::Control => Some(c.ctrl_addr),
                Port::Civ => c.civ.as_ref().map(|l| l.addr),
                Port::Audio => c.audio.as_ref().map(|l| l.addr),
            })
            .collect()
    }

    /// The ids the clients use: `[control, CI-V, audio]` (0 for a port not opened).
    pub fn client_ids(&self) -> Vec<[u32; 3]> {
        self.clients
            .iter()
            .map(|c| {
                [
                    c.ctrl.remote_id(),
                    c.civ.as_ref().map_or(0, |l| l.stream.remote_id()),
                    c.audio.as_ref().map_or(0, |l| l.stream.remote_id()),
                ]
            })
            .collect()
    }

    /// Time since start, the rig's clock.
    pub(super) fn rig_time(&self, now: Instant) -> Duration {
        now.saturating_duration_since(self.start)
    }

    /// Counters, including the live sessions' transport counters.
    pub fn stats(&self) -> SimStats {
        let mut s = self.stats;
        s.clients = self.clients.len() as u64;
        s.resent = self.gone_resent;
        s.requests_received = self.gone_requests;
        for c in &self.clients {
            for st in c.streams() {
                let x = st.stats();
                s.resent += x.resent;
                s.requests_received += x.requests_received;
            }
        }
        s
    }

    /// Handles one datagram that arrived on `port` from `addr`.
    pub fn receive(
        &mut self,
        port: Port,
        addr: SocketAddr,
        buf: &[u8],
        now: Instant,
        out: &mut Outbox,
    ) {
        let parsed =
            Header::parse(buf).and_then(|h| Ok((h, Packet::parse(buf, port, Origin::Client)?)));
        let (header, pkt) = match parsed {
            Ok(v) => v,
            Err(e) => {
                self.stats.malformed += 1;
                log::debug!(
                    "simulator: malformed {port:?} datagram from {addr} ({} bytes): {e}",
                    buf.len()
                );
                return;
            }
        };
        match port {
            Port::Control => self.on_control(addr, header, pkt, now, out),
            Port::Civ => self.on_civ(addr, header, pkt, now, out),
            Port::Audio => self.on_audio(addr, header, pkt, now, out),
        }
    }

    fn on_control(
        &mut self,
        addr: SocketAddr,
        header: Header,
        pkt: Packet,
        now: Instant,
        out: &mut Outbox,
    ) {
        if let Packet::AreYouThere(c) = &pkt {
            if c.sent_id == 0 {
                self.stats.foreign += 1;
                return;
            }
            if let Some(i) = self.client_by_ctrl(addr)
                && self.clients[i].ctrl.remote_id() != c.sent_id
            {
                // same address, new id: the old session is replaced (it was this client)
                self.remove_client(i, true, now);
            }
            if self.client_by_ctrl(addr).is_none() {
                if self.clients.len() >= MAX_CLIENTS {
                    log::debug!("simulator: too many clients, AYT from {addr} ignored");
                    return;
                }
                self.clients
                    .push(SimClient::new(addr, self.ids[0], c.sent_id, now));
            }
            out.push((Port::Control, addr, self.iah(0, c)));
            return;
        }
        let Some(i) = self.client_by_ctrl(addr) else {
            self.stats.foreign += 1;
            return;
        };
        if !self.clients[i].ctrl.owns(header.sent_id, header.rcvd_id) {
            self.stats.foreign += 1;
            return;
        }
        let mut dgrams = Vec::new();
        let mut deliver = Vec::new();
        self.clients[i]
            .ctrl
            .receive(pkt, now, &mut dgrams, &mut deliver);
        out.extend(dgrams.into_iter().map(|d| (Port::Control, addr, d)));
        for p in deliver {
            if self.on_control_packet(i, p, now, out) {
                self.remove_client(i, true, now);
                return;
            }
        }
    }

    /// Handles a packet of client `i`; returns true when the client is gone.
    fn on_control_packet(&mut self, i: usize, pkt: Packet, now: Instant, out: &mut Outbox) -> bool {
        let addr = self.clients[i].ctrl_addr;
        match pkt {
            Packet::AreYouReady(c) => {
                out.push((
                    Port::Control,
                    addr,
                    self.echo(0, ptype::ARE_YOU_READY, c.seq, c.sent_id),
                ));
                self.clients[i]
                    .ctrl
                    .set_idle(Some(Duration::from_millis(100)));
            }
            Packet::Login(l) => self.login(i, l, now, out),
            Packet::Token(t) if !t.is_reply() => return self.token(i, t, now, out),
            Packet::StreamRequest(r) => self.stream_request(i, r, now, out),
            Packet::Disconnect(c) => {
                out.push((
                    Port::Control,
                    addr,
                    self.echo(0, ptype::DATA, c.seq, c.sent_id),
                ));
                self.stats.clean_logouts += 1;
                return true;
            }
            other => log::debug!("simulator: {} on the control port ignored", other.name()),
        }
        false
    }

    fn login(&mut self, i: usize, l: LoginRepr, now: Instant, out: &mut Outbox) {
        let ok = credentials::matches(&l.username, &self.cfg.user)
            && credentials::matches(&l.password, &self.cfg.password);
        let token = self.rng.nonzero_u32();
        let conn_type = self
            .cfg
            .profile
            .radio
            .lan_server
            .clone()
            .unwrap_or_else(|| "FTTH".into());
        let c = &mut self.clients[i];
        if ok {
            self.stats.logins_ok += 1;
            c.logged_in = true;
            c.token = token;
            c.tok_request = l.tok_request;
            c.computer_name = l.computer_name.clone();
            log::info!(
                "simulator: {} logged in from {}",
                l.computer_name,
                c.ctrl_addr
            );
        } else {
            self.stats.logins_rejected += 1;
            c.logged_in = false;
            log::info!(
                "simulator: login from {} refused (bad credentials)",
                c.ctrl_addr
            );
        }
        let resp = LoginResponseRepr {
            seq: 0,
            sent_id: 0,
            rcvd_id: 0,
            inner_seq: l.inner_seq,
            tok_request: l.tok_request,
            token: if ok { token } else { 0 },
            auth_start_id: 0,
            error: if ok {
                0
            } else {
                lan::LOGIN_ERROR_BAD_CREDENTIALS
            },
            connection_type: conn_type,
        };
        self.send_ctrl(i, now, out, resp);
    }

    /// Handles a token request; true when the client logged out.
    fn token(&mut self, i: usize, t: TokenRepr, now: Instant, out: &mut Outbox) -> bool {
        if !self.clients[i].logged_in {
            log::debug!("simulator: token packet before login ignored");
            return false;
        }
        let valid = t.token == self.clients[i].token;
        match t.request_type {
            token_kind::ACK => {
                self.send_capabilities(i, now, out);
                self.send_radio_conninfo(i, now, out);
            }
            token_kind::RENEW => {
                let response = if valid { 0 } else { lan::ERROR_REJECTED };
                self.token_reply(i, &t, response, now, out);
            }
            token_kind::REMOVE => {
                self.token_reply(i, &t, 0, now, out);
                self.close_streams(i);
                let c = &mut self.clients[i];
                c.logged_in = false;
                log::info!("simulator: {} logged out", c.computer_name);
                return false;
            }
            token_kind::STOP_STREAMS => {
                self.token_reply(i, &t, 0, now, out);
                self.close_streams(i);
                self.send_radio_conninfo(i, now, out);
            }
            other => log::debug!("simulator: token request type {other:#04x} ignored"),
        }
        false
    }

    fn token_reply(
        &mut self,
        i: usize,
        t: &TokenRepr,
        response: u32,
        now: Instant,
        out: &mut Outbox,
    ) {
        let mut reply = t.clone();
        reply.request_reply = 0x02;
        reply.response = response;
        self.send_ctrl(i, now, out, reply);
    }

    fn send_capabilities(&mut self, i: usize, now: Instant, out: &mut Outbox) {
        let p = &self.cfg.profile;
        let c = &self.clients[i];
        let caps = CapabilitiesRepr {
            seq: 0,
            sent_id: 0,
            rcvd_id: 0,
            inner_seq: 0,
            tok_request: c.tok_request,
            token: c.token,
            radios: vec![RadioCapability {
                guid: self.guid,
                name: p.model().to_string(),
                audio_name: "ICOM_VAUDIO".into(),
                conn_type: p.radio.conn_type,
                civ_addr: p.radio.civ_addr,
                rx_caps: 0x8B01,
                tx_caps: 0x8B01,
                enable: [1, 1, 1],
                baud: 115_200,
                capf: 0x5001,
                capg: 0x0190,
            }],
        };
        self.send_ctrl(i, now, out, caps);
    }

    fn send_radio_conninfo(&mut self, i: usize, now: Instant, out: &mut Outbox) {
        let holder = self.clients.iter().find(|c| c.grant.is_some());
        let (busy, name, ip) = match holder {
            Some(h) => (1, h.computer_name.clone(), h.ipv4()),
            None => (0, String::new(), 0),
        };
        let c = &self.clients[i];
        let info = RadioConnInfoRepr {
            seq: 0,
            sent_id: 0,
            rcvd_id: 0,
            inner_seq: 0,
            tok_request: c.tok_request,
            token: c.token,
            guid: self.guid,
            radio_name: self.cfg.profile.model().to_string(),
            busy,
            computer_name: name,
            user_ip: ip,
        };
        self.send_ctrl(i, now, out, info);
    }

    fn stream_request(&mut self, i: usize, r: StreamRequestRepr, now: Instant, out: &mut Outbox) {
        let c = &self.clients[i];
        if !c.logged_in || r.token != c.token {
            log::debug!("simulator: stream request without a valid login ignored");
            return;
        }
        let other_holds = self
            .clients
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && o.grant.is_some());
        let cooling = self.cooldown_until.is_some_and(|t| now < t);
        let single_rx = self.cfg.profile.radio.receivers == 1;
        let (error, civ_port) = if r.guid != self.guid {
            self.stats.guid_mismatches += 1;
            self.stats.streams_held += 1;
            log::info!("simulator: stream request with a wrong GUID echo: answering CI-V port 0");
            (0, 0)
        } else if other_holds || cooling {
            self.stats.streams_held += 1;
            log::info!(
                "simulator: session still held (busy or cooling down): answering CI-V port 0"
            );
            (0, 0)
        } else if codec::channels(r.tx_codec) != Some(1)
            || (single_rx && codec::channels(r.rx_codec) == Some(2))
            || crate::radio::audio::block_bytes(r.rx_codec, r.rx_sample_rate).is_none()
            || !SAMPLE_RATES.contains(&r.rx_sample_rate)
            || !SAMPLE_RATES.contains(&r.tx_sample_rate)
        {
            self.stats.streams_rejected += 1;
            log::info!(
                "simulator: stream request rejected (rx codec {:#04x}, tx codec {:#04x}, rates {}/{} Hz)",
                r.rx_codec,
                r.tx_codec,
                r.rx_sample_rate,
                r.tx_sample_rate
            );
            (lan::ERROR_REJECTED, 0)
        } else {
            self.stats.streams_granted += 1;
            let c = &mut self.clients[i];
            c.grant = Some(AudioGrant {
                rx_codec: r.rx_codec,
                tx_codec: r.tx_codec,
                rx_rate: r.rx_sample_rate,
                tx_rate: r.tx_sample_rate,
                rx_enable: r.rx_enable,
            });
            (0, self.addrs.civ.port())
        };
        let granted = civ_port != 0;
        let status = StatusRepr {
            seq: 0,
            sent_id: 0,
            rcvd_id: 0,
            inner_seq: r.inner_seq,
            tok_request: r.tok_request,
            token: r.token,
            guid: r.guid,
            error,
            disconnected: false,
            civ_port,
            audio_port: if granted { self.addrs.audio.port() } else { 0 },
        };
        self.send_ctrl(i, now, out, status);
        if granted {
            self.send_radio_conninfo(i, now, out);
        }
    }

    /// Sends a tracked packet on client `i`'s control stream.
    pub(super) fn send_ctrl(
        &mut self,
        i: usize,
        now: Instant,
        out: &mut Outbox,
        pkt: impl Tracked,
    ) {
        let c = &mut self.clients[i];
        let mut d = Vec::new();
        c.ctrl.send_packet(now, &mut d, pkt);
        out.extend(d.into_iter().map(|b| (Port::Control, c.ctrl_addr, b)));
    }

    /// "I am here" from port `k` answering AYT `c`.
    pub(super) fn iah(&self, k: usize, c: &ControlRepr) -> Vec<u8> {
        self.echo(k, ptype::I_AM_HERE, c.seq, c.sent_id)
    }

    /// A header-only packet from port `k` to client id `to`.
    pub(super) fn echo(&self, k: usize, ptype_value: u16, seq: u16, to: u32) -> Vec<u8> {
        ControlRepr {
            ptype: ptype_value,
            seq,
            sent_id: self.ids[k],
            rcvd_id: to,
        }
        .emit()
    }

    pub(super) fn client_by_ctrl(&self, addr: SocketAddr) -> Option<usize> {
        self.clients.iter().position(|c| c.ctrl_addr == addr)
    }

    /// Adds the transport counters of a CI-V / audio session that goes away to the totals
    /// (so that `stats()` never goes backwards).
    pub(super) fn retire(&mut self, link: Option<PortLink>) {
        if let Some(l) = link {
            let x = l.stream.stats();
            self.gone_resent += x.resent;
            self.gone_requests += x.requests_received;
        }
    }

    /// Closes client `i`'s CI-V and audio sessions, keeping their counters.
    pub(super) fn close_streams(&mut self, i: usize) {
        let c = &mut self.clients[i];
        let (civ, audio) = (c.civ.take(), c.audio.take());
        c.close_streams();
        self.retire(civ);
        self.retire(audio);
    }

    /// Forgets client `i`. An unclean departure (`clean == false`) of a client that held
    /// the streams makes the radio hold the session for the cooldown.
    pub(super) fn remove_client(&mut self, i: usize, clean: bool, now: Instant) {
        let c = self.clients.remove(i);
        for st in c.streams() {
            let x = st.stats();
            self.gone_resent += x.resent;
            self.gone_requests += x.requests_received;
        }
        if !clean && c.grant.is_some() && !self.cfg.cooldown.is_zero() {
            self.cooldown_until = Some(now + self.cfg.cooldown);
            log::info!(
                "simulator: {} vanished without logging out; holding its session for {:?}",
                c.computer_name,
                self.cfg.cooldown
            );
        }
    }

    /// Runs timers: transport timers of every session, stale sessions, scope sweeps,
    /// transceive and RX audio.
    pub fn tick(&mut self, now: Instant, out: &mut Outbox) {
        let mut i = 0;
        while i < self.clients.len() {
            if self.clients[i].is_stale(now, self.cfg.stale_timeout) {
                self.stats.vanished += 1;
                self.remove_client(i, false, now);
                continue;
            }
            i += 1;
        }
        for i in 0..self.clients.len() {
            let mut d = Vec::new();
            let mut deliver = Vec::new();
            let addr = self.clients[i].ctrl_addr;
            self.clients[i].ctrl.poll(now, &mut d, &mut deliver);
            out.extend(d.into_iter().map(|b| (Port::Control, addr, b)));
            for p in deliver {
                self.on_control_packet(i, p, now, out);
            }
        }
        self.tick_streams(now, out);
    }

    /// The next instant [`SimProtocol::tick`] has work.
    pub fn next_deadline(&self) -> Option<Instant> {
        let mut t = self.rig.next_due().map(|d| self.start + d);
        for c in &self.clients {
            t = crate::net::poll::earliest(t, Some(c.ctrl.next_deadline()));
            t = crate::net::poll::earliest(t, Some(c.last_heard() + self.cfg.stale_timeout));
            for st in c.streams() {
                t = crate::net::poll::earliest(t, Some(st.next_deadline()));
            }
            // RX audio is due only where `tick` sends it (a grant with RX enabled)
            if c.audio.is_some() && c.grant.is_some_and(|g| g.rx_enable) {
                t = crate::net::poll::earliest(t, c.audio_next);
            }
        }
        t
    }

    /// Operates the front panel; transceive broadcasts go to every open CI-V stream.
    pub fn panel(&mut self, action: PanelAction, now: Instant, out: &mut Outbox) {
        let frames = self.rig.panel(action, self.rig_time(now));
        self.broadcast(frames, now, out);
        self.power_changed(now);
    }

    /// A radio restart: sessions forgotten (no goodbye), new ids on every port.
    pub fn restart(&mut self, now: Instant) {
        log::info!("simulator: restart (new ids, sessions dropped)");
        while !self.clients.is_empty() {
            self.remove_client(0, true, now);
        }
        self.ids = [
            self.rng.nonzero_u32(),
            self.rng.nonzero_u32(),
            self.rng.nonzero_u32(),
        ];
        self.cooldown_until = None;
        let _ = now;
    }

    /// Closes every client's streams with a status `disc = 1`.
    pub fn kick_streams(&mut self, now: Instant, out: &mut Outbox) {
        for i in 0..self.clients.len() {
            if self.clients[i].grant.is_none() {
                continue;
            }
            let c = &self.clients[i];
            let status = StatusRepr {
                seq: 0,
                sent_id: 0,
                rcvd_id: 0,
                inner_seq: 0,
                tok_request: c.tok_request,
                token: c.token,
                guid: self.guid,
                error: 0,
                disconnected: true,
                civ_port: self.addrs.civ.port(),
                audio_port: self.addrs.audio.port(),
            };
            self.send_ctrl(i, now, out, status);
            self.close_streams(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lan::stream::{Stream, StreamConfig};
    use crate::profile::ProfileRegistry;
    use crate::sim::SimRigConfig;
    use crate::wire::lan::RetransmitRepr;

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

    /// A port session of the radio on port `k` that has resent one packet.
    fn link_with_one_resend(
        sim: &SimProtocol,
        k: usize,
        addr: SocketAddr,
        now: Instant,
    ) -> PortLink {
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
        c.grant = Some(AudioGrant {
            rx_codec: codec::PCM16_MONO,
            tx_codec: codec::PCM16_MONO,
            rx_rate: 48_000,
            tx_rate: 48_000,
            rx_enable: false,
        });
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
        c.grant = Some(AudioGrant {
            rx_codec: codec::PCM16_MONO,
            tx_codec: codec::PCM16_MONO,
            rx_rate: 48_000,
            tx_rate: 48_000,
            rx_enable: true,
        });
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
}
