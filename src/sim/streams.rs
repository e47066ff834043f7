//! The radio side of the CI-V and audio ports: discovery answers for authenticated
//! clients, CI-V frames to and from the rig, scope sweeps and transceive broadcasts,
//! RX audio every 20 ms in the granted codec, TX audio while transmitting.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::client::PortLink;
use super::protocol::{Outbox, SimProtocol};
use crate::lan::stream::{Stream, StreamConfig};
use crate::wire::civ::{self, Frame, cmd};
use crate::wire::lan::audio_codec as audio;
use crate::wire::lan::{AudioRepr, CivDataRepr, Header, MAX_AUDIO_PAYLOAD, Packet, Port, ptype};

const AUDIO_BLOCK: Duration = Duration::from_millis(20);

impl SimProtocol {
    /// Index of the client whose port `port` session talks from `addr`.
    fn client_by_port(&self, port: Port, addr: SocketAddr) -> Option<usize> {
        self.clients
            .iter()
            .position(|c| c.port_link(port).is_some_and(|l| l.addr == addr))
    }

    /// "Are you there" on the CI-V or audio port: only from the address of a client whose
    /// streams were granted (the radio associates the ports by IP).
    fn port_discovery(
        &mut self,
        port: Port,
        addr: SocketAddr,
        c: &crate::wire::lan::ControlRepr,
        now: Instant,
        out: &mut Outbox,
    ) {
        if c.sent_id == 0 {
            self.stats.foreign += 1;
            return;
        }
        let k = if port == Port::Civ { 1 } else { 2 };
        let existing = self.client_by_port(port, addr);
        if let Some(i) = existing
            && self.clients[i]
                .port_link(port)
                .is_some_and(|l| !l.ready && l.stream.remote_id() == c.sent_id)
        {
            // a repeated AYT (our "I am here" was lost): the session stays as it is
            out.push((port, addr, self.iah(k, c)));
            return;
        }
        let owner = existing.or_else(|| self.new_port_owner(port, addr));
        let Some(i) = owner else {
            self.stats.foreign += 1;
            log::debug!("simulator: {port:?} AYT from {addr} without granted streams ignored");
            return;
        };
        let cfg = match port {
            Port::Civ => StreamConfig::radio(100, false, true),
            _ => StreamConfig::radio(500, false, false),
        };
        let link = PortLink {
            addr,
            stream: Stream::new(cfg, self.ids[k], c.sent_id, 1, now),
            ready: false,
        };
        let client = &mut self.clients[i];
        // a new session: its inner counters start again with its outer one
        let old = match port {
            Port::Civ => {
                client.civ_open = false;
                client.civ_seq = 0;
                client.civ.replace(link)
            }
            _ => {
                client.audio_next = None;
                client.audio_seq = 0;
                client.audio.replace(link)
            }
        };
        self.retire(old);
        out.push((port, addr, self.iah(k, c)));
    }

    /// The client a new socket on `port` at `addr` belongs to: one with granted streams
    /// at that IP whose `port` session is free, or else the one whose `port` session has
    /// been silent longest (a client that opens a new socket without saying goodbye on
    /// the old one, spec §2.11 "soft reconnect", replaces it).
    fn new_port_owner(&self, port: Port, addr: SocketAddr) -> Option<usize> {
        let candidates = || {
            self.clients
                .iter()
                .enumerate()
                .filter(|(_, cl)| cl.grant.is_some() && cl.ctrl_addr.ip() == addr.ip())
        };
        candidates()
            .find(|(_, cl)| port_free(cl, port))
            .or_else(|| candidates().min_by_key(|(_, cl)| port_last_rx(cl, port)))
            .map(|(i, _)| i)
    }

    /// Runs a datagram of the CI-V or audio port through its client's stream. Returns the
    /// client and the packets delivered in order; discovery, "are you ready", foreign ids
    /// and unknown addresses are handled (and counted) here.
    fn port_receive(
        &mut self,
        port: Port,
        addr: SocketAddr,
        header: Header,
        pkt: Packet,
        now: Instant,
        out: &mut Outbox,
    ) -> Option<(usize, Vec<Packet>)> {
        if let Packet::AreYouThere(c) = &pkt {
            self.port_discovery(port, addr, c, now, out);
            return None;
        }
        let Some(i) = self.client_by_port(port, addr) else {
            self.stray(port, &pkt, addr, out);
            return None;
        };
        let link = match port {
            Port::Civ => self.clients[i].civ.as_mut(),
            Port::Audio => self.clients[i].audio.as_mut(),
            Port::Control => None,
        }?;
        if !link.stream.owns(header.sent_id, header.rcvd_id) {
            self.stats.foreign += 1;
            return None;
        }
        let mut d = Vec::new();
        let mut deliver = Vec::new();
        link.stream.receive(pkt, now, &mut d, &mut deliver);
        out.extend(d.into_iter().map(|b| (port, addr, b)));
        let became_ready = !link.ready;
        // The stream starts with "are you ready", or with anything else the client sends
        // after discovery: a client whose AYR was lost carries on without it.
        link.ready = true;
        if became_ready {
            self.stream_ready(i, port, now);
        }
        let k = if port == Port::Civ { 1 } else { 2 };
        let mut rest = Vec::with_capacity(deliver.len());
        for p in deliver {
            match p {
                Packet::AreYouReady(c) => {
                    let echo = self.echo(k, ptype::ARE_YOU_READY, c.seq, c.sent_id);
                    out.push((port, addr, echo));
                }
                other => rest.push(other),
            }
        }
        Some((i, rest))
    }

    /// Starts what flows on a ready stream: the radio's CI-V idles (while switched on)
    /// or RX audio.
    fn stream_ready(&mut self, i: usize, port: Port, now: Instant) {
        let powered = self.rig.powered();
        let c = &mut self.clients[i];
        match port {
            Port::Civ => {
                if let Some(link) = c.civ.as_mut() {
                    link.stream
                        .set_idle(powered.then_some(Duration::from_millis(100)));
                }
            }
            Port::Audio => c.audio_next = Some(now),
            Port::Control => {}
        }
    }

    pub(super) fn on_civ(
        &mut self,
        addr: SocketAddr,
        header: Header,
        pkt: Packet,
        now: Instant,
        out: &mut Outbox,
    ) {
        let Some((i, deliver)) = self.port_receive(Port::Civ, addr, header, pkt, now, out) else {
            return;
        };
        for p in deliver {
            match p {
                Packet::OpenClose(o) => self.clients[i].civ_open = o.open,
                Packet::CivData(d) => self.civ_in(i, &d.payload, now, out),
                Packet::Disconnect(_) => {
                    let c = &mut self.clients[i];
                    let link = c.civ.take();
                    c.civ_open = false;
                    self.retire(link);
                    self.release_tx(now, "CI-V stream closed");
                    return;
                }
                other => log::debug!("simulator: {} on the CI-V port ignored", other.name()),
            }
        }
    }

    /// CI-V bytes from client `i`: each frame goes to the rig, replies go back.
    fn civ_in(&mut self, i: usize, payload: &[u8], now: Instant, out: &mut Outbox) {
        let t = self.rig_time(now);
        let mut replies = Vec::new();
        for f in civ::split_frames(payload) {
            match f {
                Ok(frame) if frame.from >= 0xFE => {
                    // an answer to 0xFE would read as preamble on the wire
                    self.stats.malformed += 1;
                    log::debug!(
                        "simulator: CI-V frame from address {:02X} ignored",
                        frame.from
                    );
                }
                Ok(frame) => {
                    self.stats.civ_frames_in += 1;
                    if frame.cmd == cmd::SET_FREQ
                        || frame.cmd == cmd::SEL_FREQ && frame.data.len() > 1
                    {
                        self.stats.freq_sets_in += 1;
                    }
                    let answers = self.rig.handle(&frame, t);
                    if !answers.is_empty() && self.nak > 0.0 && self.rng.chance(self.nak) {
                        let me = self.rig.civ_addr();
                        replies.push(Frame::new(frame.from, me, civ::NAK, &[]));
                    } else {
                        replies.extend(answers);
                    }
                }
                Err(e) => {
                    self.stats.malformed += 1;
                    log::debug!("simulator: bad CI-V frame: {e}");
                }
            }
        }
        for r in replies {
            self.send_civ(i, &r, now, out);
        }
        self.power_changed(now);
    }

    /// Sends one CI-V frame to client `i` (tracked CI-V data packet).
    fn send_civ(&mut self, i: usize, frame: &Frame, now: Instant, out: &mut Outbox) {
        let c = &mut self.clients[i];
        let inner = c.civ_seq;
        let Some(link) = c.civ.as_mut() else { return };
        let mut d = Vec::new();
        link.stream
            .send_packet(now, &mut d, CivDataRepr::new(inner, frame.emit()));
        c.civ_seq = inner.wrapping_add(1);
        out.extend(d.into_iter().map(|b| (Port::Civ, link.addr, b)));
        self.stats.civ_frames_out += 1;
    }

    /// Sends unsolicited frames (scope, transceive) to every client with an open CI-V stream.
    pub(super) fn broadcast(&mut self, frames: Vec<Frame>, now: Instant, out: &mut Outbox) {
        for f in frames {
            let is_scope = f.cmd == cmd::SCOPE && f.data.first() == Some(&cmd::scope::WAVE);
            for i in 0..self.clients.len() {
                if self.clients[i].civ_open {
                    self.send_civ(i, &f, now, out);
                    if is_scope {
                        self.stats.scope_sweeps += 1;
                    }
                }
            }
        }
    }

    /// Follows a power change of the rig: CI-V idles stop in standby and resume after.
    pub(super) fn power_changed(&mut self, now: Instant) {
        let powered = self.rig.powered();
        if powered == self.was_powered {
            return;
        }
        self.was_powered = powered;
        log::info!(
            "simulator: radio {}",
            if powered { "powered on" } else { "in standby" }
        );
        for c in &mut self.clients {
            if let Some(link) = c.civ.as_mut().filter(|l| l.ready) {
                link.stream
                    .set_idle(powered.then_some(Duration::from_millis(100)));
            }
            if powered && c.audio.is_some() {
                c.audio_next = Some(now);
            }
        }
    }

    pub(super) fn on_audio(
        &mut self,
        addr: SocketAddr,
        header: Header,
        pkt: Packet,
        now: Instant,
        out: &mut Outbox,
    ) {
        let Some((i, deliver)) = self.port_receive(Port::Audio, addr, header, pkt, now, out) else {
            return;
        };
        for p in deliver {
            match p {
                Packet::Audio(a) => {
                    self.stats.tx_audio_packets_in += 1;
                    let tx_codec = self.clients[i].grant.map(|g| g.tx_codec);
                    let mut samples = Vec::new();
                    if let Some(codec_byte) = tx_codec
                        && audio::decode(codec_byte, &a.payload, &mut samples).is_some()
                    {
                        self.rig.accept_tx_audio(&samples);
                    }
                }
                Packet::OpenClose(_) => {}
                Packet::Disconnect(_) => {
                    let c = &mut self.clients[i];
                    let link = c.audio.take();
                    c.audio_next = None;
                    self.retire(link);
                    return;
                }
                other => log::debug!("simulator: {} on the audio port ignored", other.name()),
            }
        }
    }

    /// Transport timers of the CI-V and audio sessions, rig output and RX audio.
    pub(super) fn tick_streams(&mut self, now: Instant, out: &mut Outbox) {
        for i in 0..self.clients.len() {
            let c = &mut self.clients[i];
            let mut ignored = Vec::new();
            for (port, link) in [(Port::Civ, c.civ.as_mut()), (Port::Audio, c.audio.as_mut())] {
                if let Some(link) = link {
                    let mut d = Vec::new();
                    link.stream.poll(now, &mut d, &mut ignored);
                    out.extend(d.into_iter().map(|b| (port, link.addr, b)));
                }
            }
        }
        let frames = self.rig.poll(self.rig_time(now));
        if !frames.is_empty() {
            self.broadcast(frames, now, out);
        }
        // the radio may have come up by itself (booting ended)
        self.power_changed(now);
        for i in 0..self.clients.len() {
            self.audio_tick(i, now, out);
        }
    }

    /// Sends the RX audio blocks due for client `i`.
    fn audio_tick(&mut self, i: usize, now: Instant, out: &mut Outbox) {
        let powered = self.rig.powered();
        let c = &mut self.clients[i];
        let (Some(grant), Some(next)) = (c.grant, c.audio_next) else {
            return;
        };
        if !grant.rx_enable || c.audio.is_none() {
            return;
        }
        if !powered {
            c.audio_next = None;
            return;
        }
        let mut next = next;
        let mut blocks = 0;
        while next <= now {
            next += AUDIO_BLOCK;
            blocks += 1;
        }
        if blocks > 5 {
            // far behind (the machine stalled): skip to now rather than burst
            blocks = 1;
            next = now + AUDIO_BLOCK;
        }
        c.audio_next = Some(next);
        let channels = grant.rx_channels();
        let rate = self.cfg.audio_rate.unwrap_or(grant.rx_rate);
        let per_channel = (rate / 1000 * AUDIO_BLOCK.as_millis() as u32) as usize;
        let mut pcm = vec![0i16; per_channel * usize::from(channels)];
        // a faulty sound card behind a radio server: each block goes out `audio_speed`
        // times (audio that many times faster than real time)
        let copies = self.cfg.audio_speed.max(1);
        for _ in 0..blocks {
            self.rig.render_audio(&mut pcm, channels, rate);
            let mut bytes = Vec::with_capacity(pcm.len() * 2);
            audio::encode(grant.rx_codec, &pcm, &mut bytes);
            let c = &mut self.clients[i];
            let Some(link) = c.audio.as_mut() else { return };
            for chunk in (0..copies).flat_map(|_| bytes.chunks(MAX_AUDIO_PAYLOAD)) {
                let send_seq = c.audio_seq;
                let mut d = Vec::new();
                let pkt = AudioRepr::new((0, 0), 0, send_seq, chunk.to_vec());
                link.stream.send_packet(now, &mut d, pkt);
                c.audio_seq = send_seq.wrapping_add(1);
                out.extend(d.into_iter().map(|b| (Port::Audio, link.addr, b)));
                self.stats.audio_packets_out += 1;
            }
        }
    }
}

fn port_free(c: &super::client::SimClient, port: Port) -> bool {
    port != Port::Control && c.port_link(port).is_none()
}

/// When client `c`'s session on `port` last heard from it (`None` when it has none).
fn port_last_rx(c: &super::client::SimClient, port: Port) -> Option<Instant> {
    c.port_link(port).map(|l| l.stream.last_rx())
}
