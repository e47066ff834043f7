//! The client's audio-port session, sans-IO (spec §2.10, §3.3): discovery, RX audio
//! blocks out (delivered at once; the consumer orders them by the inner send seq) and
//! TX audio in blocks of at most 1364 bytes, each a tracked packet with its own outer
//! seq and inner send seq.

use std::time::Instant;

use super::discovery::DiscoveryConfig;
use super::port::{PortSession, Step};
use super::stream::{StreamConfig, StreamStats};
use crate::wire::lan::{AudioRepr, MAX_AUDIO_PAYLOAD, Packet, Port, ptype};

/// A block of RX audio from the radio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AudioBlock {
    /// Inner send seq.
    pub send_seq: u16,
    /// Samples in the negotiated codec.
    pub payload: Vec<u8>,
    /// When the datagram that delivered it arrived at the socket (latency figures).
    pub at: Instant,
}

/// What the audio session reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AudioEvent {
    /// Discovery done; audio may flow.
    Ready,
    /// RX audio.
    Block(AudioBlock),
    /// Discovery failed.
    Unreachable,
}

/// The audio session of one connection.
#[derive(Debug)]
pub struct AudioClient {
    port: PortSession,
    tx_seq: u16,
    events: Vec<AudioEvent>,
}

impl AudioClient {
    /// Starts discovery on the audio port with id `my_id`.
    pub fn new(discovery: DiscoveryConfig, my_id: u32, now: Instant) -> AudioClient {
        AudioClient {
            port: PortSession::new(
                Port::Audio,
                my_id,
                discovery,
                StreamConfig::client(false),
                now,
            ),
            tx_seq: 0,
            events: Vec::new(),
        }
    }

    /// Events since the last call.
    pub fn take_events(&mut self) -> Vec<AudioEvent> {
        std::mem::take(&mut self.events)
    }

    /// True once discovery is done.
    pub fn is_ready(&self) -> bool {
        self.port.stream().is_some()
    }

    /// Transport counters.
    pub fn stream_stats(&self) -> Option<StreamStats> {
        self.port.stream().map(|s| s.stats())
    }

    /// Datagrams that were malformed or foreign.
    pub fn malformed(&self) -> u64 {
        self.port.malformed() + self.port.foreign()
    }

    /// Handles one datagram from the radio.
    pub fn receive(&mut self, buf: &[u8], now: Instant, out: &mut Vec<Vec<u8>>) {
        let step = self.port.receive(buf, now, out);
        self.on_step(step, now);
    }

    fn on_step(&mut self, step: Step, now: Instant) {
        match step {
            Step::Nothing => {}
            Step::Discovered => self.events.push(AudioEvent::Ready),
            Step::Unreachable => self.events.push(AudioEvent::Unreachable),
            Step::Delivered(pkts) => {
                for p in pkts {
                    match p {
                        Packet::Audio(a) => self.events.push(AudioEvent::Block(AudioBlock {
                            send_seq: a.send_seq,
                            payload: a.payload,
                            at: now,
                        })),
                        other => log::debug!("audio port: {} ignored", other.name()),
                    }
                }
            }
        }
    }

    /// Restarts the TX send seq at 0 (each time transmission starts).
    pub fn start_tx(&mut self) {
        self.tx_seq = 0;
    }

    /// Sends one block of TX audio, split into packets of at most 1364 bytes.
    pub fn send(&mut self, samples: &[u8], now: Instant, out: &mut Vec<Vec<u8>>) -> bool {
        let Some(stream) = self.port.stream_mut() else {
            return false;
        };
        for chunk in samples.chunks(MAX_AUDIO_PAYLOAD) {
            let send_seq = self.tx_seq;
            stream.send_packet(
                now,
                out,
                AudioRepr::new((0, 0), 0, send_seq, chunk.to_vec()),
            );
            self.tx_seq = send_seq.wrapping_add(1);
        }
        true
    }

    /// Runs timers.
    pub fn poll(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        let step = self.port.poll(now, out);
        self.on_step(step, now);
    }

    /// The next instant [`AudioClient::poll`] has work.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.port.poll_timeout()
    }

    /// DISCONNECT on the audio port.
    pub fn close(&mut self, out: &mut Vec<Vec<u8>>) {
        if let Some(stream) = self.port.stream() {
            out.push(stream.control(ptype::DISCONNECT, 0));
        }
    }
}
