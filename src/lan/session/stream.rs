//! One LAN stream (control, CI-V or audio socket), sans-IO (spec §1.4–§1.10).
//!
//! A [`Stream`] owns the ids, the outer sequence counter, the 500-packet TX buffer,
//! the receive window, pings and idles of one socket once discovery is done. It takes
//! parsed datagrams with the current time and returns datagrams to send plus the
//! packets to hand to the layer above; timers are data ([`Stream::next_deadline`]).
//! The client and the simulated radio both use it, so both sides share one
//! implementation of the transport rules.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::rx_window::{Accepted, RxCounters, RxWindow};
use crate::wire::lan::{ControlRepr, Packet, PingRepr, RetransmitRepr, Tracked, ptype};

/// How late a client's pings and idles may go out ([`StreamConfig::keepalive_slack`]).
const CLIENT_KEEPALIVE_SLACK: Duration = Duration::from_millis(50);

/// Transport parameters of one stream.
#[derive(Debug, Clone)]
pub struct StreamConfig {
    /// Ping period (client 500 ms; radio 100 ms on control/CI-V, 500 ms on audio).
    pub ping_interval: Duration,
    /// Send a tracked idle when nothing tracked was sent for this long (`None`: never).
    pub idle_interval: Option<Duration>,
    /// Period of retransmit-request rounds.
    pub retransmit_interval: Duration,
    /// How long a fresh gap may wait (reordering) before the first request.
    pub reorder_grace: Duration,
    /// Requests per missing seq before it is given up.
    pub max_requests_per_seq: u8,
    /// Largest gap tracked; a larger jump resets the bookkeeping.
    pub max_missing: u16,
    /// Tracked packets kept for retransmission.
    pub tx_buffer_len: usize,
    /// Deliver tracked packets in sequence order (control, CI-V) or at once (audio).
    pub ordered: bool,
    /// Stop answering requests for a packet after it was resent this often (`None`: always).
    pub max_resends_per_packet: Option<u8>,
    /// Pings and idles may go out this much after they are due, so that they ride on a
    /// wake-up the thread has anyway (audio every 20 ms, sweeps, the peer's own pings)
    /// instead of costing one of their own: [`Stream::poll`] sends them once due,
    /// [`Stream::poll_timeout`] asks to be woken for them only this much later.
    pub keepalive_slack: Duration,
}

impl StreamConfig {
    /// Client defaults: 500 ms pings, 100 ms idles and retransmit rounds, 5 requests per
    /// seq, keep-alives up to 50 ms late.
    pub fn client(ordered: bool) -> StreamConfig {
        StreamConfig {
            ping_interval: Duration::from_millis(500),
            idle_interval: Some(Duration::from_millis(100)),
            retransmit_interval: Duration::from_millis(100),
            reorder_grace: Duration::from_millis(20),
            max_requests_per_seq: 5,
            max_missing: 50,
            tx_buffer_len: 500,
            ordered,
            max_resends_per_packet: None,
            keepalive_slack: CLIENT_KEEPALIVE_SLACK,
        }
    }

    /// Radio (simulator) defaults: pings every `ping_ms`, idles every 100 ms when `idles`,
    /// a packet is resent at most 5 times.
    pub fn radio(ping_ms: u64, idles: bool, ordered: bool) -> StreamConfig {
        StreamConfig {
            ping_interval: Duration::from_millis(ping_ms),
            idle_interval: idles.then(|| Duration::from_millis(100)),
            max_resends_per_packet: Some(5),
            keepalive_slack: Duration::ZERO,
            ..StreamConfig::client(ordered)
        }
    }
}

/// Counters of one stream, for logs, health and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Tracked packets sent (first transmissions).
    pub tracked_sent: u64,
    /// Packets resent on request.
    pub resent: u64,
    /// "Don't have it" fillers sent for seqs no longer buffered.
    pub fillers_sent: u64,
    /// Retransmit requests sent.
    pub requests_sent: u64,
    /// Retransmit requests received.
    pub requests_received: u64,
    /// Ping requests answered.
    pub pings_answered: u64,
    /// Datagrams dropped because their ids were wrong.
    pub foreign: u64,
    /// Receive-window counters (duplicates, abandoned, resets).
    pub rx: RxCounters,
}

/// A stream after discovery: ids known, sequence machinery running.
#[derive(Debug)]
pub struct Stream {
    cfg: StreamConfig,
    my_id: u32,
    remote_id: u32,
    send_seq: u16,
    tx: TxBuffer,
    rx: RxWindow,
    ping_seq: u16,
    ping_out: Option<(u16, Instant)>,
    rtt: Option<Duration>,
    epoch: Instant,
    next_ping: Instant,
    last_tracked_send: Instant,
    next_retransmit: Instant,
    last_rx: Instant,
    last_data_rx: Instant,
    stats: StreamStats,
}

impl Stream {
    /// A stream between `my_id` and `remote_id`. The first tracked packet takes seq `first_seq`
    /// (the spec allows 0 or 1; 1 keeps the first packet inside peers' gap tracking).
    pub fn new(
        cfg: StreamConfig,
        my_id: u32,
        remote_id: u32,
        first_seq: u16,
        now: Instant,
    ) -> Stream {
        let rx = RxWindow::new(cfg.ordered, cfg.max_missing, cfg.max_requests_per_seq);
        Stream {
            tx: TxBuffer::new(cfg.tx_buffer_len),
            rx,
            my_id,
            remote_id,
            send_seq: first_seq,
            ping_seq: 0,
            ping_out: None,
            rtt: None,
            epoch: now,
            next_ping: now,
            last_tracked_send: now,
            next_retransmit: now + cfg.retransmit_interval,
            last_rx: now,
            last_data_rx: now,
            stats: StreamStats::default(),
            cfg,
        }
    }

    /// Forgets what was received so far: the peer restarted its session with the same
    /// ids, and its next tracked packet starts a new receive window. What we sent stays
    /// (its sequence continues).
    pub fn restart_rx(&mut self) {
        self.rx.restart();
    }

    /// Our id on this stream.
    pub fn my_id(&self) -> u32 {
        self.my_id
    }

    /// The peer's id on this stream.
    pub fn remote_id(&self) -> u32 {
        self.remote_id
    }

    /// Turns tracked idles on (`Some(period)`) or off, e.g. while a radio is in standby.
    pub fn set_idle(&mut self, idle: Option<Duration>) {
        self.cfg.idle_interval = idle;
    }

    /// `(my_id, remote_id)`, the order packet builders take.
    pub fn ids(&self) -> (u32, u32) {
        (self.my_id, self.remote_id)
    }

    /// Counters so far.
    pub fn stats(&self) -> StreamStats {
        StreamStats {
            rx: self.rx.counters(),
            ..self.stats
        }
    }

    /// Last measured ping round trip.
    pub fn rtt(&self) -> Option<Duration> {
        self.rtt
    }

    /// When any valid datagram from the peer last arrived.
    pub fn last_rx(&self) -> Instant {
        self.last_rx
    }

    /// When a data-path datagram (anything but pings and retransmit requests) last arrived.
    pub fn last_data_rx(&self) -> Instant {
        self.last_data_rx
    }

    /// True if the datagram's ids are this stream's (`sent_id` = peer, `rcvd_id` = us).
    pub fn owns(&self, sent_id: u32, rcvd_id: u32) -> bool {
        sent_id == self.remote_id && rcvd_id == self.my_id
    }

    /// Sends a tracked packet: `build` gets the sequence number and returns the bytes,
    /// which are kept for retransmission and appended to `out`.
    pub fn send_tracked(
        &mut self,
        now: Instant,
        out: &mut Vec<Vec<u8>>,
        build: impl FnOnce(u16) -> Vec<u8>,
    ) {
        let seq = self.send_seq;
        self.send_seq = seq.wrapping_add(1);
        let bytes = build(seq);
        self.tx.push(seq, bytes.clone());
        self.stats.tracked_sent += 1;
        self.last_tracked_send = now;
        out.push(bytes);
    }

    /// Sends a tracked packet: its seq and ids are filled in here.
    pub fn send_packet(&mut self, now: Instant, out: &mut Vec<Vec<u8>>, pkt: impl Tracked) {
        let ids = self.ids();
        self.send_tracked(now, out, |seq| pkt.emit_tracked(seq, ids));
    }

    /// An untracked header-only packet (`DISCONNECT`, ...) with this stream's ids.
    pub fn control(&self, ptype_value: u16, seq: u16) -> Vec<u8> {
        ControlRepr {
            ptype: ptype_value,
            seq,
            sent_id: self.my_id,
            rcvd_id: self.remote_id,
        }
        .emit()
    }

    /// Handles one parsed datagram whose ids were checked with [`Stream::owns`]. Answers
    /// pings and retransmit requests into `out`; appends the packets for the layer above to
    /// `deliver` (untracked control packets at once, tracked data in order).
    pub fn receive(
        &mut self,
        pkt: Packet,
        now: Instant,
        out: &mut Vec<Vec<u8>>,
        deliver: &mut Vec<Packet>,
    ) {
        self.last_rx = now;
        match pkt {
            Packet::Ping(p) => {
                if p.reply {
                    if let Some((seq, at)) = self.ping_out
                        && seq == p.seq
                    {
                        self.rtt = Some(now.saturating_duration_since(at));
                        self.ping_out = None;
                    }
                } else {
                    self.stats.pings_answered += 1;
                    out.push(p.reply_to(self.my_id).emit());
                }
            }
            Packet::Retransmit(r) => {
                self.stats.requests_received += 1;
                // a request never makes us send more than one multi-request's worth
                for seq in r
                    .seqs
                    .into_iter()
                    .take(crate::wire::lan::MAX_RETRANSMIT_ENTRIES)
                {
                    self.resend(seq, out);
                }
            }
            Packet::Idle(c) => {
                self.last_data_rx = now;
                self.track(c.seq, None, now, deliver);
            }
            Packet::AreYouThere(_)
            | Packet::IAmHere(_)
            | Packet::AreYouReady(_)
            | Packet::Disconnect(_) => {
                self.last_data_rx = now;
                deliver.push(pkt);
            }
            data => {
                self.last_data_rx = now;
                let seq = data.seq();
                self.track(seq, Some(data), now, deliver);
            }
        }
    }

    fn track(&mut self, seq: u16, pkt: Option<Packet>, now: Instant, deliver: &mut Vec<Packet>) {
        // Seq 0 is outside gap tracking (spec §1.8) unless it continues the sequence
        // (wrap-around): some peers send every reply with seq 0.
        if seq == 0 && self.rx.expected_seq() != Some(0) {
            deliver.extend(pkt);
            return;
        }
        if self.rx.accept(seq, pkt, deliver) == Accepted::NewWithGap {
            let soon = now + self.cfg.reorder_grace;
            if soon < self.next_retransmit {
                self.next_retransmit = soon;
            }
        }
    }

    fn resend(&mut self, seq: u16, out: &mut Vec<Vec<u8>>) {
        let limit = self.cfg.max_resends_per_packet;
        match self.tx.get_mut(seq) {
            Some(entry) if limit.is_none_or(|l| entry.1 < l) => {
                entry.1 = entry.1.saturating_add(1);
                out.push(entry.0.clone());
                self.stats.resent += 1;
            }
            Some(_) => {}
            None => {
                self.stats.fillers_sent += 1;
                out.push(self.control(ptype::DATA, seq));
            }
        }
    }

    /// Runs the timers due at `now`: pings, idles, retransmit requests (which may release
    /// held packets into `deliver`).
    pub fn poll(&mut self, now: Instant, out: &mut Vec<Vec<u8>>, deliver: &mut Vec<Packet>) {
        if now >= self.next_ping {
            let time = now.saturating_duration_since(self.epoch).as_millis() as u32;
            out.push(
                PingRepr {
                    seq: self.ping_seq,
                    sent_id: self.my_id,
                    rcvd_id: self.remote_id,
                    reply: false,
                    time,
                }
                .emit(),
            );
            self.ping_out = Some((self.ping_seq, now));
            self.ping_seq = self.ping_seq.wrapping_add(1);
            self.next_ping = now + self.cfg.ping_interval;
        }
        if let Some(idle) = self.cfg.idle_interval
            && now >= self.last_tracked_send + idle
        {
            let (me, peer) = self.ids();
            self.send_tracked(now, out, |seq| {
                ControlRepr {
                    ptype: ptype::DATA,
                    seq,
                    sent_id: me,
                    rcvd_id: peer,
                }
                .emit()
            });
        }
        if now >= self.next_retransmit {
            let seqs = self.rx.due_requests(deliver);
            for chunk in seqs.chunks(crate::wire::lan::MAX_RETRANSMIT_ENTRIES) {
                self.stats.requests_sent += 1;
                out.push(
                    RetransmitRepr {
                        sent_id: self.my_id,
                        rcvd_id: self.remote_id,
                        seqs: chunk.to_vec(),
                    }
                    .emit(),
                );
            }
            self.next_retransmit = now + self.cfg.retransmit_interval;
        }
    }

    /// The instant [`Stream::poll`] must run by (a stream always has its ping timer):
    /// retransmit requests when due, keep-alives [`StreamConfig::keepalive_slack`] after.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let mut t = self.next_ping;
        if let Some(idle) = self.cfg.idle_interval {
            t = t.min(self.last_tracked_send + idle);
        }
        t += self.cfg.keepalive_slack;
        if self.rx.has_missing() {
            t = t.min(self.next_retransmit);
        }
        Some(t)
    }
}

/// The last tracked packets, kept for retransmission (spec §1.9).
#[derive(Debug)]
struct TxBuffer {
    cap: usize,
    first_seq: u16,
    /// Bytes and resend count of seq `first_seq + i`.
    packets: VecDeque<(Vec<u8>, u8)>,
}

impl TxBuffer {
    fn new(cap: usize) -> TxBuffer {
        TxBuffer {
            cap: cap.max(1),
            first_seq: 0,
            packets: VecDeque::new(),
        }
    }

    fn push(&mut self, seq: u16, bytes: Vec<u8>) {
        let next = self.first_seq.wrapping_add(self.packets.len() as u16);
        if seq == 0 || self.packets.is_empty() || seq != next {
            // seq 0 (start or wrap) clears the buffer, as both reference implementations do
            self.packets.clear();
            self.first_seq = seq;
        }
        self.packets.push_back((bytes, 0));
        if self.packets.len() > self.cap {
            self.packets.pop_front();
            self.first_seq = self.first_seq.wrapping_add(1);
        }
    }

    fn get_mut(&mut self, seq: u16) -> Option<&mut (Vec<u8>, u8)> {
        let i = seq.wrapping_sub(self.first_seq) as usize;
        self.packets.get_mut(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idles(out: &[Vec<u8>]) -> usize {
        // a tracked idle is a bare 16-byte header of type DATA
        out.iter()
            .filter(|d| d.len() == 0x10 && u16::from_le_bytes([d[4], d[5]]) == ptype::DATA)
            .count()
    }

    #[test]
    fn keepalives_ride_on_other_wake_ups_up_to_the_slack() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let mut s = Stream::new(StreamConfig::client(true), 1, 2, 1, t0);
        let (mut out, mut deliver) = (Vec::new(), Vec::new());
        s.poll(t0, &mut out, &mut deliver);
        out.clear();
        // the idle is due at 100 ms; the thread need not wake for it before 150 ms
        assert_eq!(s.poll_timeout(), Some(ms(150)));
        s.poll(ms(99), &mut out, &mut deliver);
        assert_eq!(idles(&out), 0, "not due yet");
        // a wake-up for something else after it is due sends it
        s.poll(ms(120), &mut out, &mut deliver);
        assert_eq!(idles(&out), 1);
        assert_eq!(s.poll_timeout(), Some(ms(270)));
        // a retransmit request is never late
        let mut late = Vec::new();
        s.track(1, None, ms(125), &mut late);
        s.track(5, None, ms(130), &mut late);
        assert_eq!(s.poll_timeout(), Some(ms(150)), "reorder grace, no slack");
        // the radio's side keeps its timers exact
        let r = Stream::new(StreamConfig::radio(100, true, true), 2, 1, 1, t0);
        assert_eq!(r.poll_timeout(), Some(t0));
    }
}
