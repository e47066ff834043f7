//! The client's audio-port session, sans-IO (spec §2.10, §3.3): discovery, RX audio
//! blocks out (delivered without waiting for the sequence; the consumer orders them by
//! the inner send seq) and TX audio in blocks of at most 1364 bytes, each a tracked
//! packet with its own outer seq and inner send seq.
//!
//! RX packets are handed on a radio block at a time: a 20 ms block comes in packets of
//! at most 1364 bytes and ends with the first shorter one, so packets are held until
//! that one arrives (at most [`BLOCK_HOLD`], should it be lost) and the block goes out
//! as one batch of events — one hand-over, one wake-up of the consumer per block, even
//! when its packets arrived over two wake-ups of the link thread.

use std::time::{Duration, Instant};

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

/// How long the packets of an incomplete radio block wait for the rest.
pub const BLOCK_HOLD: Duration = Duration::from_millis(5);

/// The audio session of one connection.
#[derive(Debug)]
pub struct AudioClient {
    port: PortSession,
    tx_seq: u16,
    events: Vec<AudioEvent>,
    /// Packets of the radio block under way, and since when.
    held: Vec<AudioBlock>,
    held_since: Option<Instant>,
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
            held: Vec::new(),
            held_since: None,
        }
    }

    /// Events since the last call.
    pub fn take_events(&mut self) -> Vec<AudioEvent> {
        std::mem::take(&mut self.events)
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
                        Packet::Audio(a) => {
                            let last_of_block = a.payload.len() < MAX_AUDIO_PAYLOAD;
                            self.held.push(AudioBlock {
                                send_seq: a.send_seq,
                                payload: a.payload,
                                at: now,
                            });
                            self.held_since.get_or_insert(now);
                            if last_of_block {
                                self.release();
                            }
                        }
                        other => log::debug!("audio port: {} ignored", other.name()),
                    }
                }
            }
        }
        if self.held_since.is_some_and(|t| now >= t + BLOCK_HOLD) {
            self.release();
        }
    }

    /// Hands the held packets on.
    fn release(&mut self) {
        self.held_since = None;
        self.events
            .extend(self.held.drain(..).map(AudioEvent::Block));
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
        let hold = self.held_since.map(|t| t + BLOCK_HOLD);
        crate::net::poll::earliest(self.port.poll_timeout(), hold)
    }

    /// DISCONNECT on the audio port (a block under way is dropped).
    pub fn close(&mut self, out: &mut Vec<Vec<u8>>) {
        self.held.clear();
        self.held_since = None;
        if let Some(stream) = self.port.stream() {
            out.push(stream.control(ptype::DISCONNECT, 0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::lan::{ControlRepr, Tracked};

    const ME: u32 = 0x0001_8236;
    const RADIO: u32 = 0x5A5A_0003;

    fn header_only(kind: u16, seq: u16) -> Vec<u8> {
        ControlRepr {
            ptype: kind,
            seq,
            sent_id: RADIO,
            rcvd_id: ME,
        }
        .emit()
    }

    fn discovered(t0: Instant) -> AudioClient {
        let mut out = Vec::new();
        let mut c = AudioClient::new(DiscoveryConfig::default(), ME, t0);
        c.poll(t0, &mut out);
        c.receive(&header_only(ptype::I_AM_HERE, 0), t0, &mut out);
        c.receive(&header_only(ptype::ARE_YOU_READY, 1), t0, &mut out);
        assert!(c.stream_stats().is_some(), "discovery done: a stream");
        assert_eq!(c.take_events(), vec![AudioEvent::Ready]);
        c
    }

    /// The radio's audio packet with outer seq `seq`, inner `send_seq`, `len` bytes.
    fn audio(seq: u16, send_seq: u16, len: usize) -> Vec<u8> {
        AudioRepr::new((0, 0), 0, send_seq, vec![7; len]).emit_tracked(seq, (RADIO, ME))
    }

    fn blocks(c: &mut AudioClient) -> Vec<(u16, usize)> {
        c.take_events()
            .into_iter()
            .filter_map(|e| match e {
                AudioEvent::Block(b) => Some((b.send_seq, b.payload.len())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_radio_block_is_handed_on_whole_when_its_short_packet_arrives() {
        let t0 = Instant::now();
        let mut c = discovered(t0);
        let mut out = Vec::new();
        // 20 ms of 48 kHz stereo PCM16: 1364 + 1364 + 1112 bytes, over two wake-ups
        c.receive(&audio(1, 0, 1364), t0, &mut out);
        c.receive(&audio(2, 1, 1364), t0, &mut out);
        c.poll(t0, &mut out);
        assert!(blocks(&mut c).is_empty(), "the block is not complete");
        assert_eq!(c.poll_timeout(), Some(t0 + BLOCK_HOLD));
        let t1 = t0 + Duration::from_micros(300);
        c.receive(&audio(3, 2, 1112), t1, &mut out);
        assert_eq!(blocks(&mut c), vec![(0, 1364), (1, 1364), (2, 1112)]);
        assert!(c.poll_timeout() > Some(t1 + BLOCK_HOLD), "nothing held");
        // a one-packet block (8 kHz µ-law mono: 160 bytes) goes at once
        c.receive(&audio(4, 3, 160), t1, &mut out);
        assert_eq!(blocks(&mut c), vec![(3, 160)]);
    }

    #[test]
    fn a_block_whose_last_packet_was_lost_goes_after_the_hold() {
        let t0 = Instant::now();
        let mut c = discovered(t0);
        let mut out = Vec::new();
        c.receive(&audio(1, 0, 1364), t0, &mut out);
        c.poll(t0 + BLOCK_HOLD - Duration::from_micros(1), &mut out);
        assert!(blocks(&mut c).is_empty());
        c.poll(t0 + BLOCK_HOLD, &mut out);
        assert_eq!(blocks(&mut c), vec![(0, 1364)]);
        // closing drops a block under way
        c.receive(&audio(2, 1, 1364), t0, &mut out);
        c.close(&mut out);
        c.poll(t0 + BLOCK_HOLD * 2, &mut out);
        assert!(blocks(&mut c).is_empty());
    }
}
