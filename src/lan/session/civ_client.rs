//! The client's CI-V-port session, sans-IO (spec §2.10, §3.1, §3.2, §6.3):
//! discovery, OpenClose(open) repeated every 100 ms (once a second after 2 s) until CI-V
//! data flows, the CI-V data watchdog (no data-path packet for 2 s -> OpenClose again),
//! CI-V frames out and in, and OpenClose(close) + DISCONNECT when leaving.

use std::time::{Duration, Instant};

use super::discovery::DiscoveryConfig;
use super::port::{PortSession, Step};
use super::stream::{StreamConfig, StreamStats};
use crate::wire::civ::{self, Frame};
use crate::wire::lan::{CivDataRepr, OpenCloseRepr, Packet, Port, ptype};

/// Timing of the CI-V session.
#[derive(Debug, Clone)]
pub struct CivClientConfig {
    /// Discovery timing.
    pub discovery: DiscoveryConfig,
    /// Period of OpenClose(open) while waiting for data.
    pub open_retry: Duration,
    /// No data-path packet for this long starts recovery.
    pub data_watchdog: Duration,
    /// After this long in recovery, OpenClose is sent once a second instead.
    pub fast_recovery: Duration,
    /// A recovery that brings data back within this time is not reported (a radio
    /// that sends nothing between replies answers the first OpenClose at once).
    pub quiet_recovery: Duration,
    /// No data-path packet at all this long after the first OpenClose(open): the radio
    /// is reported silent (a radio in standby grants the streams but sends no CI-V).
    pub silent_after: Duration,
}

impl Default for CivClientConfig {
    fn default() -> Self {
        CivClientConfig {
            discovery: DiscoveryConfig::default(),
            open_retry: Duration::from_millis(100),
            data_watchdog: Duration::from_secs(2),
            fast_recovery: Duration::from_secs(2),
            quiet_recovery: Duration::from_millis(500),
            silent_after: Duration::from_secs(3),
        }
    }
}

/// What the CI-V session reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CivEvent {
    /// The first CI-V data arrived after OpenClose: the stream is open.
    Opened,
    /// Frames from the radio, in order.
    Frames(Vec<Frame>),
    /// The radio has sent nothing since the watchdog re-opened the stream (for the
    /// quiet-recovery time): it was switched off (standby: the normal state of a radio
    /// that is off) or it lost the stream. OpenClose(open) goes on once a second; which
    /// of the two it is, the engine decides from what it knows of the radio's power.
    Recovering,
    /// Data flows again after [`CivEvent::Recovering`] (the radio was switched on, or
    /// took the stream again).
    Recovered,
    /// Discovery failed.
    Unreachable,
    /// The radio sent DISCONNECT on the CI-V port.
    Disconnected,
    /// The port is up but the radio has sent nothing on it since the stream was opened
    /// (standby); frames can be sent (a power-on), [`CivEvent::Opened`] follows when data
    /// flows.
    Silent,
}

/// The CI-V session of one connection.
#[derive(Debug)]
pub struct CivClient {
    cfg: CivClientConfig,
    port: PortSession,
    inner_seq: u16,
    opened: bool,
    /// CI-V data arrived since the last OpenClose(open) was first sent.
    data_seen: bool,
    open_sent: Option<Instant>,
    /// When the first OpenClose(open) of this session went out (for [`CivEvent::Silent`]).
    first_open: Option<Instant>,
    silent_reported: bool,
    recovering_since: Option<Instant>,
    recovery_reported: bool,
    next_open: Option<Instant>,
    bad_frames: u64,
    events: Vec<CivEvent>,
}

impl CivClient {
    /// Starts discovery on the CI-V port with id `my_id`.
    pub fn new(cfg: CivClientConfig, my_id: u32, now: Instant) -> CivClient {
        CivClient {
            port: PortSession::new(
                Port::Civ,
                my_id,
                cfg.discovery.clone(),
                StreamConfig::client(true),
                now,
            ),
            cfg,
            inner_seq: 0,
            opened: false,
            data_seen: false,
            open_sent: None,
            first_open: None,
            silent_reported: false,
            recovering_since: None,
            recovery_reported: false,
            next_open: None,
            bad_frames: 0,
            events: Vec::new(),
        }
    }

    /// Events since the last call.
    pub fn take_events(&mut self) -> Vec<CivEvent> {
        std::mem::take(&mut self.events)
    }

    /// True once CI-V data has flowed after OpenClose and no recovery is running.
    pub fn is_open(&self) -> bool {
        self.opened && self.recovering_since.is_none()
    }

    /// Transport counters.
    pub fn stream_stats(&self) -> Option<StreamStats> {
        self.port.stream().map(|s| s.stats())
    }

    /// Datagrams or CI-V frames that were malformed or foreign.
    pub fn malformed(&self) -> u64 {
        self.port.malformed() + self.port.foreign() + self.bad_frames
    }

    /// When a data-path packet last arrived.
    pub fn last_data_rx(&self) -> Option<Instant> {
        self.port.stream().map(|s| s.last_data_rx())
    }

    /// When anything last arrived.
    pub fn last_rx(&self) -> Option<Instant> {
        self.port.stream().map(|s| s.last_rx())
    }

    /// Sends CI-V bytes (one or more complete frames). False if the port is not up yet.
    pub fn send(&mut self, civ_bytes: &[u8], now: Instant, out: &mut Vec<Vec<u8>>) -> bool {
        let inner = self.inner_seq;
        let Some(stream) = self.port.stream_mut() else {
            return false;
        };
        stream.send_packet(now, out, CivDataRepr::new(inner, civ_bytes.to_vec()));
        self.inner_seq = inner.wrapping_add(1);
        true
    }

    fn send_openclose(&mut self, open: bool, now: Instant, out: &mut Vec<Vec<u8>>) {
        let inner = self.inner_seq;
        if let Some(stream) = self.port.stream_mut() {
            stream.send_packet(now, out, OpenCloseRepr::new(inner, open));
            self.inner_seq = inner.wrapping_add(1);
        }
    }

    /// Handles one datagram from the radio.
    pub fn receive(&mut self, buf: &[u8], now: Instant, out: &mut Vec<Vec<u8>>) {
        let step = self.port.receive(buf, now, out);
        self.on_step(step, now, out);
        if self.recovering_since.is_some()
            && self.port.stream().is_some_and(|s| {
                now.saturating_duration_since(s.last_data_rx()) < self.cfg.data_watchdog
            })
        {
            self.recovering_since = None;
            if self.data_seen {
                self.next_open = None;
            }
            if std::mem::take(&mut self.recovery_reported) {
                log::info!("CI-V: the radio sends data again");
                self.events.push(CivEvent::Recovered);
            }
        }
    }

    fn on_step(&mut self, step: Step, now: Instant, out: &mut Vec<Vec<u8>>) {
        match step {
            Step::Nothing => {}
            Step::Discovered => {
                self.data_seen = false;
                self.send_openclose(true, now, out);
                self.open_sent = Some(now);
                self.first_open.get_or_insert(now);
                self.next_open = Some(now + self.cfg.open_retry);
            }
            Step::Unreachable => self.events.push(CivEvent::Unreachable),
            Step::Delivered(pkts) => {
                let mut frames = Vec::new();
                for p in pkts {
                    match p {
                        Packet::CivData(d) => {
                            if !self.opened {
                                self.opened = true;
                                self.events.push(CivEvent::Opened);
                            }
                            self.data_seen = true;
                            if self.recovering_since.is_none() {
                                self.next_open = None;
                            }
                            for f in civ::split_frames(&d.payload) {
                                match f {
                                    Ok(f) => frames.push(f),
                                    Err(e) => {
                                        self.bad_frames += 1;
                                        log::debug!("CI-V: bad frame in payload: {e}");
                                    }
                                }
                            }
                        }
                        Packet::Disconnect(_) => self.events.push(CivEvent::Disconnected),
                        other => log::debug!("CI-V port: {} ignored", other.name()),
                    }
                }
                if !frames.is_empty() {
                    self.events.push(CivEvent::Frames(frames));
                }
            }
        }
    }

    /// Runs timers: stream timers, OpenClose retries and the data watchdog.
    pub fn poll(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        let step = self.port.poll(now, out);
        self.on_step(step, now, out);
        let Some(last_data) = self.port.stream().map(|s| s.last_data_rx()) else {
            return;
        };
        // Like the reference client: the stream is open once a data-path packet (CI-V
        // data or the radio's idle) arrives after OpenClose(open). Idles alone do not
        // prove that the radio took the OpenClose (a lost one leaves scope and transceive
        // data off), so it is repeated until CI-V data flows (§2.10 step 3).
        if !self.opened && self.open_sent.is_some_and(|t| last_data > t) {
            self.opened = true;
            self.events.push(CivEvent::Opened);
        }
        if !self.opened
            && !self.silent_reported
            && let Some(t) = self.first_open
            && last_data <= t
            && now >= t + self.cfg.silent_after
        {
            log::info!(
                "CI-V: the radio has sent nothing for {:?} since the stream opened (standby?)",
                self.cfg.silent_after
            );
            self.silent_reported = true;
            self.events.push(CivEvent::Silent);
        }
        if self.opened
            && self.recovering_since.is_none()
            && now.saturating_duration_since(last_data) >= self.cfg.data_watchdog
        {
            log::debug!(
                "CI-V: no data from the radio for {:?}; re-opening the stream",
                self.cfg.data_watchdog
            );
            self.recovering_since = Some(now);
            self.next_open = Some(now);
            // the radio may have lost the stream: its open is proven by data again
            self.data_seen = false;
            self.open_sent = Some(now);
        }
        if let Some(since) = self.recovering_since
            && !self.recovery_reported
            && now >= since + self.cfg.quiet_recovery
        {
            log::info!(
                "CI-V: the radio sends nothing (switched off, or it lost the stream); asking for the stream once a second"
            );
            self.recovery_reported = true;
            self.events.push(CivEvent::Recovering);
        }
        if let Some(t) = self.next_open
            && now >= t
        {
            self.send_openclose(true, now, out);
            // fast at first, then once a second (recovery, or a radio that sends no data)
            let since = self
                .recovering_since
                .or(self.open_sent.filter(|_| !self.data_seen));
            let slow =
                since.is_some_and(|t| now.saturating_duration_since(t) > self.cfg.fast_recovery);
            let period = if slow {
                Duration::from_secs(1)
            } else {
                self.cfg.open_retry
            };
            self.next_open = Some(now + period);
        }
    }

    /// The next instant [`CivClient::poll`] has work.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let mut t = self.port.poll_timeout()?;
        if let Some(o) = self.next_open {
            t = t.min(o);
        }
        if let Some(since) = self.recovering_since
            && !self.recovery_reported
        {
            t = t.min(since + self.cfg.quiet_recovery);
        }
        if let Some(first) = self.first_open
            && !self.opened
            && !self.silent_reported
        {
            t = t.min(first + self.cfg.silent_after);
        }
        if self.opened
            && self.recovering_since.is_none()
            && let Some(s) = self.port.stream()
        {
            t = t.min(s.last_data_rx() + self.cfg.data_watchdog);
        }
        Some(t)
    }

    /// OpenClose(close) then DISCONNECT.
    pub fn close(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        self.send_openclose(false, now, out);
        if let Some(stream) = self.port.stream() {
            out.push(stream.control(ptype::DISCONNECT, 0));
        }
        self.opened = false;
        self.data_seen = false;
        self.next_open = None;
        self.recovering_since = None;
        self.recovery_reported = false;
    }
}

#[cfg(test)]
#[path = "civ_client_tests.rs"]
mod tests;
