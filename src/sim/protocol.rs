//! The radio side of the LAN protocol for every client, sans-IO: datagrams in,
//! datagrams out, time explicit. This file holds the dispatch, discovery and the
//! session bookkeeping; `control_port.rs` holds login, tokens, capabilities and
//! stream requests; `streams.rs` holds the CI-V and audio ports.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::client::{PortLink, SessionEnd, SimClient};
use super::config::{SimAddrs, SimConfig, SimStats};
use super::rig::{PanelAction, SimRig};
use super::rng::Rng;
use crate::wire::lan::{ControlRepr, Header, Origin, Packet, Port, StatusRepr, Tracked, ptype};

/// Datagrams to send: port, peer, bytes.
pub type Outbox = Vec<(Port, SocketAddr, Vec<u8>)>;

/// Most clients the radio keeps sessions for at once.
const MAX_CLIENTS: usize = 8;

/// Sample rates the radio's LAN audio accepts, Hz: those its capabilities advertise
/// (0x8B01, spec §2.7). RX audio blocks are sized from the granted rate, so an arbitrary
/// one must not get through.
pub(super) const SAMPLE_RATES: [u32; 5] = [8_000, 12_000, 16_000, 24_000, 48_000];

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
        // NAK injection starts with the configured faults (`rigweb sim --nak`)
        let nak = cfg.faults.nak;
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
            nak,
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
            match self.client_by_ctrl(addr) {
                // same address, new id: the old session is replaced (it was this client)
                Some(i) if self.clients[i].ctrl.remote_id() != c.sent_id => {
                    self.remove_client(i, true, now)
                }
                // same address and id: a client that restarted, or a late duplicate
                Some(i) => self.clients[i].rediscovered = true,
                None => {}
            }
            if self.client_by_ctrl(addr).is_none() && !self.add_client(addr, c.sent_id, now) {
                return;
            }
            out.push((Port::Control, addr, self.iah(0, c)));
            return;
        }
        let i = match self.client_by_ctrl(addr) {
            Some(i) => i,
            None => match self.resumed_client(addr, header, &pkt, now) {
                Some(i) => i,
                None => {
                    self.stray(Port::Control, &pkt, addr, out);
                    return;
                }
            },
        };
        if !self.clients[i].ctrl.owns(header.sent_id, header.rcvd_id) {
            self.stats.foreign += 1;
            return;
        }
        match &pkt {
            Packet::AreYouReady(_) => self.clients[i].rediscovered = true,
            Packet::Login(_)
                if std::mem::take(&mut self.clients[i].rediscovered) || header.seq == 0 =>
            {
                self.restart_session(i, now);
            }
            _ => {}
        }
        let mut dgrams = Vec::new();
        let mut deliver = Vec::new();
        self.clients[i]
            .ctrl
            .receive(pkt, now, &mut dgrams, &mut deliver);
        out.extend(dgrams.into_iter().map(|d| (Port::Control, addr, d)));
        for p in deliver {
            self.on_control_packet(i, p, now, out);
        }
    }

    /// Starts a session for a client that sent "are you there" from `addr` with id
    /// `client_id`; false when the radio already has as many clients as it keeps.
    fn add_client(&mut self, addr: SocketAddr, client_id: u32, now: Instant) -> bool {
        if self.clients.len() >= MAX_CLIENTS {
            log::debug!("simulator: too many clients, {addr} ignored");
            return false;
        }
        self.clients
            .push(SimClient::new(addr, self.ids[0], client_id, now));
        true
    }

    /// A client without a session that resumes one without discovery, as a client does
    /// that reconnects with the ids of its last session (spec §1.7): "are you ready" or a
    /// login addressed to this radio's id starts a session for it.
    fn resumed_client(
        &mut self,
        addr: SocketAddr,
        header: Header,
        pkt: &Packet,
        now: Instant,
    ) -> Option<usize> {
        let resumes = matches!(pkt, Packet::AreYouReady(_) | Packet::Login(_))
            && header.sent_id != 0
            && header.rcvd_id == self.ids[0];
        if !resumes || !self.add_client(addr, header.sent_id, now) {
            return None;
        }
        log::debug!("simulator: {addr} resumes a session without discovery");
        Some(self.clients.len() - 1)
    }

    /// A datagram on `port` from an address without a session there: pings are answered
    /// (every ping is, spec §1.5), the rest is counted and dropped.
    pub(super) fn stray(&mut self, port: Port, pkt: &Packet, addr: SocketAddr, out: &mut Outbox) {
        match pkt {
            Packet::Ping(p) if !p.reply && p.sent_id != 0 => {
                let k = match port {
                    Port::Control => 0,
                    Port::Civ => 1,
                    Port::Audio => 2,
                };
                out.push((port, addr, p.reply_to(self.ids[k]).emit()));
            }
            _ => self.stats.foreign += 1,
        }
    }

    /// Client `i` logs in again after discovering the radio anew: it restarted with the
    /// same ids, so its sequence starts again and its old streams are gone.
    fn restart_session(&mut self, i: usize, now: Instant) {
        let c = &mut self.clients[i];
        if c.logged_in || c.grant.is_some() {
            log::debug!(
                "simulator: {} logs in afresh; its session restarts",
                c.ctrl_addr
            );
        }
        c.ctrl.restart_rx();
        c.logged_in = false;
        self.close_streams(i, now);
    }

    /// Handles a packet of client `i` (a session end it asks for waits for the round's
    /// end).
    fn on_control_packet(&mut self, i: usize, pkt: Packet, now: Instant, out: &mut Outbox) {
        let addr = self.clients[i].ctrl_addr;
        match pkt {
            Packet::AreYouReady(c) => {
                out.push((
                    Port::Control,
                    addr,
                    self.echo(0, ptype::ARE_YOU_READY, c.seq, c.sent_id),
                ));
            }
            Packet::Login(l) => self.login(i, l, now, out),
            Packet::Token(t) if !t.is_reply() => self.token(i, t, now, out),
            Packet::StreamRequest(r) => self.stream_request(i, r, now, out),
            Packet::Disconnect(c) => {
                out.push((
                    Port::Control,
                    addr,
                    self.echo(0, ptype::DATA, c.seq, c.sent_id),
                ));
                // forgotten at the end of this round (SessionEnd)
                let c = &mut self.clients[i];
                c.ending = c.ending.max(Some(SessionEnd::Disconnected));
            }
            other => log::debug!("simulator: {} on the control port ignored", other.name()),
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

    /// Closes client `i`'s CI-V and audio sessions, keeping their counters. If it held
    /// the streams, a transmitter it keyed is released.
    pub(super) fn close_streams(&mut self, i: usize, now: Instant) {
        let c = &mut self.clients[i];
        let held = c.grant.is_some();
        let (civ, audio) = (c.civ.take(), c.audio.take());
        c.close_streams();
        self.retire(civ);
        self.retire(audio);
        if held {
            self.release_tx(now, "streams closed");
        }
    }

    /// The remote controller's session ended (cleanly or not) or its CI-V stream did: like
    /// a real radio, the transmitter it keyed (PTT over CI-V, CW) is released, so that
    /// nobody is left transmitting without a controller.
    pub(super) fn release_tx(&mut self, now: Instant, why: &str) {
        if self.rig.release_remote_tx(self.rig_time(now)) {
            self.stats.tx_released += 1;
            log::info!("simulator: controller gone ({why}) while transmitting: unkeyed");
        }
    }

    /// Forgets client `i`. An unclean departure (`clean == false`) of a client that held
    /// the streams makes the radio hold the session for the cooldown; a transmitter it
    /// keyed is released either way.
    pub(super) fn remove_client(&mut self, i: usize, clean: bool, now: Instant) {
        let c = self.clients.remove(i);
        if c.grant.is_some() {
            let why = if clean { "logged out" } else { "lost" };
            self.release_tx(now, why);
        }
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

    /// Ends the round of datagrams: carries out the session ends asked for in it (after
    /// every datagram of the round was served, CI-V sent before a logout included).
    fn end_sessions(&mut self, now: Instant) {
        let mut i = 0;
        while i < self.clients.len() {
            match self.clients[i].ending.take() {
                Some(SessionEnd::Disconnected) => {
                    self.stats.clean_logouts += 1;
                    log::info!(
                        "simulator: {} logged out and disconnected",
                        self.clients[i].computer_name
                    );
                    self.remove_client(i, true, now);
                    continue;
                }
                Some(SessionEnd::LoggedOut) => {
                    self.close_streams(i, now);
                    let c = &mut self.clients[i];
                    c.logged_in = false;
                    log::info!("simulator: {} logged out", c.computer_name);
                }
                None => {}
            }
            i += 1;
        }
    }

    /// Ends the round of datagrams ([`SimProtocol::receive`] calls since the last tick:
    /// the session ends asked for in it are carried out now) and runs timers: transport
    /// timers of every session, stale sessions, scope sweeps, transceive and RX audio.
    pub fn tick(&mut self, now: Instant, out: &mut Outbox) {
        self.end_sessions(now);
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
    pub fn poll_timeout(&self) -> Option<Instant> {
        let mut t = self.rig.next_due().map(|d| self.start + d);
        for c in &self.clients {
            t = crate::net::poll::earliest(t, c.ctrl.poll_timeout());
            t = crate::net::poll::earliest(t, Some(c.last_heard() + self.cfg.stale_timeout));
            for st in c.streams() {
                t = crate::net::poll::earliest(t, st.poll_timeout());
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
            self.close_streams(i, now);
        }
    }
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "session_tests.rs"]
mod session_tests;

#[cfg(test)]
#[path = "conninfo_tests.rs"]
mod conninfo_tests;
