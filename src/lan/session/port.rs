//! One client port: discovery first, then a [`Stream`]. Shared by the control, CI-V
//! and audio sessions so that parsing, id checks and counting of bad datagrams live
//! in one place.

use std::time::Instant;

use super::discovery::{Discovery, DiscoveryConfig, DiscoveryState};
use super::stream::{Stream, StreamConfig};
use crate::wire::lan::{Header, Origin, Packet, Port};

/// What a datagram or a timer produced.
#[derive(Debug)]
pub enum Step {
    /// Nothing for the layer above.
    Nothing,
    /// Discovery just finished; the stream exists now.
    Discovered,
    /// Discovery gave up.
    Unreachable,
    /// Packets for the layer above, in order.
    Delivered(Vec<Packet>),
}

/// Discovery + stream of one client socket.
#[derive(Debug)]
pub struct PortSession {
    port: Port,
    my_id: u32,
    discovery: Discovery,
    stream: Option<Stream>,
    stream_cfg: StreamConfig,
    malformed: u64,
    foreign: u64,
}

impl PortSession {
    /// Starts discovery on `port` with id `my_id`.
    pub fn new(
        port: Port,
        my_id: u32,
        discovery: DiscoveryConfig,
        stream_cfg: StreamConfig,
        now: Instant,
    ) -> PortSession {
        PortSession {
            port,
            my_id,
            discovery: Discovery::new(discovery, my_id, now),
            stream: None,
            stream_cfg,
            malformed: 0,
            foreign: 0,
        }
    }

    /// The stream, once discovery is done.
    pub fn stream(&self) -> Option<&Stream> {
        self.stream.as_ref()
    }

    /// The stream, mutably.
    pub fn stream_mut(&mut self) -> Option<&mut Stream> {
        self.stream.as_mut()
    }

    /// Datagrams that did not parse.
    pub fn malformed(&self) -> u64 {
        self.malformed
    }

    /// Datagrams with somebody else's ids.
    pub fn foreign(&self) -> u64 {
        self.foreign
    }

    /// Handles one datagram from the radio.
    pub fn receive(&mut self, buf: &[u8], now: Instant, out: &mut Vec<Vec<u8>>) -> Step {
        let parsed =
            Header::parse(buf).and_then(|h| Ok((h, Packet::parse(buf, self.port, Origin::Radio)?)));
        let (header, pkt) = match parsed {
            Ok(v) => v,
            Err(e) => {
                self.malformed += 1;
                log::debug!(
                    "{:?} port: malformed datagram ({} bytes): {e}",
                    self.port,
                    buf.len()
                );
                return Step::Nothing;
            }
        };
        let Some(stream) = self.stream.as_mut() else {
            // a radio may ping from its first packet on; every ping is answered (§1.5)
            if let Packet::Ping(p) = &pkt
                && !p.reply
                && p.rcvd_id == self.my_id
                && p.sent_id != 0
            {
                out.push(p.reply_to(self.my_id).emit());
                return Step::Nothing;
            }
            if self.discovery.receive(&pkt, now, out) {
                return self.after_discovery(now);
            }
            return Step::Nothing;
        };
        if !stream.owns(header.sent_id, header.rcvd_id) {
            self.foreign += 1;
            log::debug!(
                "{:?} port: {} with foreign ids {:08X}/{:08X} ignored",
                self.port,
                pkt.name(),
                header.sent_id,
                header.rcvd_id
            );
            return Step::Nothing;
        }
        let mut deliver = Vec::new();
        stream.receive(pkt, now, out, &mut deliver);
        if deliver.is_empty() {
            Step::Nothing
        } else {
            Step::Delivered(deliver)
        }
    }

    /// Runs discovery retries or the stream's timers.
    pub fn poll(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) -> Step {
        match self.stream.as_mut() {
            None => {
                self.discovery.poll(now, out);
                self.after_discovery(now)
            }
            Some(stream) => {
                let mut deliver = Vec::new();
                stream.poll(now, out, &mut deliver);
                if deliver.is_empty() {
                    Step::Nothing
                } else {
                    Step::Delivered(deliver)
                }
            }
        }
    }

    fn after_discovery(&mut self, now: Instant) -> Step {
        match self.discovery.state() {
            DiscoveryState::Done { remote_id } if self.stream.is_none() => {
                self.stream = Some(Stream::new(
                    self.stream_cfg.clone(),
                    self.my_id,
                    remote_id,
                    1,
                    now,
                ));
                Step::Discovered
            }
            DiscoveryState::Unreachable => Step::Unreachable,
            _ => Step::Nothing,
        }
    }

    /// The next instant [`PortSession::poll`] has work.
    pub fn poll_timeout(&self) -> Option<Instant> {
        match self.stream.as_ref() {
            Some(s) => s.poll_timeout(),
            None => self.discovery.poll_timeout(),
        }
    }
}
