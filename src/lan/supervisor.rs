//! The control thread: owns the control socket and session and supervises the whole
//! link — connect, open CI-V (and audio on demand), watch liveness, reconnect with
//! bounded backoff (same sockets, same ids), and log out cleanly.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};

use super::control::{ControlClient, ControlEvent};
use super::link_ports::{AudioCmd, CivCmd, PortHandle};
use super::link_state::{
    CtlCmd, LinkConfig, LinkEvent, LinkShared, LinkState, PortReport, drain, failure_event,
    forward, id_for_port,
};
use crate::net::poll::{Interest, poll};
use crate::net::waker::WakeReceiver;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Idle,
    Connecting,
    Up,
    Backoff { until: Instant },
    Failed,
}

/// The supervisor's state (runs on the "lan-control" thread).
pub(super) struct Supervisor {
    cfg: LinkConfig,
    sock: UdpSocket,
    ports: (u16, u16),
    my_id: u32,
    rx: Receiver<CtlCmd>,
    wake: WakeReceiver,
    civ: PortHandle<CivCmd>,
    audio: PortHandle<AudioCmd>,
    events: Sender<LinkEvent>,
    shared: Arc<LinkShared>,
    phase: Phase,
    session: Option<ControlClient>,
    want_audio: bool,
    audio_open: bool,
    attempt: u32,
    streams_retry_at: Option<Instant>,
    radio_ports: (u16, u16),
    ctrl_malformed: u64,
    nonce: u64,
}

impl Supervisor {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        cfg: LinkConfig,
        sock: UdpSocket,
        ports: (u16, u16),
        rx: Receiver<CtlCmd>,
        wake: WakeReceiver,
        civ: PortHandle<CivCmd>,
        audio: PortHandle<AudioCmd>,
        events: Sender<LinkEvent>,
        shared: Arc<LinkShared>,
    ) -> io::Result<Supervisor> {
        sock.set_nonblocking(true)?;
        let my_id = id_for_port(sock.local_addr()?.port());
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
            ^ u64::from(my_id);
        Ok(Supervisor {
            cfg,
            sock,
            ports,
            my_id,
            rx,
            wake,
            civ,
            audio,
            events,
            shared,
            phase: Phase::Idle,
            session: None,
            want_audio: false,
            audio_open: false,
            attempt: 0,
            streams_retry_at: None,
            radio_ports: (0, 0),
            ctrl_malformed: 0,
            nonce,
        })
    }

    fn civ_cmd(&self, cmd: CivCmd) {
        self.civ.send(cmd);
    }

    fn audio_cmd(&self, cmd: AudioCmd) {
        self.audio.send(cmd);
    }

    fn set_state(&self, state: LinkState) {
        let mut st = self.shared.status.lock();
        if st.state != state {
            log::debug!("link: {:?} -> {:?}", st.state, state);
            st.state = state.clone();
            drop(st);
            let _ = self.events.send(LinkEvent::State(state));
        }
    }

    fn state(&self) -> LinkState {
        self.shared.status.lock().state.clone()
    }

    fn emit(&self, e: LinkEvent) {
        if let LinkEvent::Failed { message, .. } = &e {
            self.shared.status.lock().last_error = Some(message.clone());
        }
        let _ = self.events.send(e);
    }

    /// A fresh random, non-zero login request id.
    fn tok_request(&mut self) -> u16 {
        self.nonce = self.nonce.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.nonce;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) as u16).max(1)
    }

    fn radio_port(&self, port: u16) -> SocketAddr {
        let mut a = self.cfg.radio;
        a.set_port(port);
        a
    }

    pub(super) fn run(&mut self) {
        let mut buf = vec![0u8; 65536];
        let mut out = Vec::new();
        loop {
            let deadline = self.poll_timeout();
            let ready = match poll(
                &[
                    Interest::read(self.sock.as_raw_fd()),
                    Interest::read(self.wake.fd()),
                ],
                deadline,
            ) {
                Ok(r) => r,
                Err(e) => {
                    log::error!("lan-control: poll failed: {e}");
                    return;
                }
            };
            let now = Instant::now();
            if ready[1].readable {
                self.wake.clear();
                for cmd in drain(&self.rx) {
                    if !self.command(cmd, now, &mut out) {
                        self.flush(&mut out);
                        return;
                    }
                }
            }
            if ready[0].readable {
                loop {
                    match self.sock.recv_from(&mut buf) {
                        Ok((n, from)) => {
                            if from != self.cfg.radio {
                                log::debug!("lan-control: datagram from unexpected {from} ignored");
                                continue;
                            }
                            if let Some(s) = self.session.as_mut() {
                                s.receive(&buf[..n], now, &mut out);
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) => {
                            log::debug!("lan-control: recv: {e}");
                            break;
                        }
                    }
                }
            }
            self.timers(now, &mut out);
            self.flush(&mut out);
        }
    }

    fn flush(&self, out: &mut Vec<Vec<u8>>) {
        for d in out.drain(..) {
            if let Err(e) = self.sock.send_to(&d, self.cfg.radio) {
                log::debug!("lan-control: send: {e}");
            }
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let now = Instant::now();
        let mut t = match self.phase {
            Phase::Idle | Phase::Failed => None,
            Phase::Backoff { until } => Some(until),
            Phase::Connecting | Phase::Up => self.session.as_ref().and_then(|s| s.poll_timeout()),
        };
        if self.phase == Phase::Up {
            t = crate::net::poll::earliest(t, Some(self.last_heard(now) + self.cfg.link_timeout));
        }
        crate::net::poll::earliest(t, self.streams_retry_at)
    }

    fn last_heard(&self, now: Instant) -> Instant {
        let ctrl = self
            .session
            .as_ref()
            .and_then(|s| s.last_rx())
            .unwrap_or(now);
        ctrl.max(self.shared.civ_last_rx())
    }

    /// Runs one command; false means shut down.
    fn command(&mut self, cmd: CtlCmd, now: Instant, out: &mut Vec<Vec<u8>>) -> bool {
        match cmd {
            CtlCmd::Connect => {
                if matches!(
                    self.phase,
                    Phase::Idle | Phase::Failed | Phase::Backoff { .. }
                ) {
                    self.attempt = 0;
                    self.start_attempt(now, out);
                }
            }
            CtlCmd::Disconnect => {
                self.teardown(now, out);
                self.phase = Phase::Idle;
                self.set_state(LinkState::Idle);
            }
            CtlCmd::Audio(on) => {
                self.want_audio = on;
                if self.phase == Phase::Up {
                    self.sync_audio();
                }
            }
            CtlCmd::Port(r) => self.port_report(r, now, out),
            CtlCmd::Shutdown => {
                self.teardown(now, out);
                self.civ_cmd(CivCmd::Shutdown);
                self.audio_cmd(AudioCmd::Shutdown);
                self.set_state(LinkState::Idle);
                return false;
            }
        }
        true
    }

    fn sync_audio(&mut self) {
        if self.want_audio && !self.audio_open {
            self.audio_open = true;
            let addr = self.radio_port(self.radio_ports.1);
            self.audio_cmd(AudioCmd::Open { radio: addr });
        } else if !self.want_audio && self.audio_open {
            self.audio_open = false;
            self.audio_cmd(AudioCmd::Close);
        }
    }

    fn start_attempt(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        self.ctrl_malformed = 0;
        let tok = self.tok_request();
        let mut s = ControlClient::new(self.cfg.control.clone(), self.my_id, self.ports, tok, now);
        s.poll(now, out);
        self.session = Some(s);
        self.phase = Phase::Connecting;
        self.set_state(LinkState::Connecting);
        log::info!("connecting to the radio at {}", self.cfg.radio);
    }

    /// Leaves cleanly: CI-V OpenClose(close) + DISCONNECT, audio DISCONNECT, token remove,
    /// control DISCONNECT.
    fn teardown(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        // the reference order: audio, then CI-V, then the control session; each port's
        // goodbye is on the wire before the next one starts
        let wait = std::time::Duration::from_millis(250);
        if self.audio_open {
            self.audio.send_and_wait(AudioCmd::Close, wait);
            self.audio_open = false;
        }
        self.civ.send_and_wait(CivCmd::Close, wait);
        if let Some(mut s) = self.session.take() {
            s.logout(now, out);
        }
        self.streams_retry_at = None;
    }

    fn backoff(&mut self, now: Instant) {
        self.attempt += 1;
        let factor = 1u32 << (self.attempt - 1).min(16);
        let delay = self
            .cfg
            .backoff_min
            .saturating_mul(factor)
            .min(self.cfg.backoff_max);
        self.phase = Phase::Backoff { until: now + delay };
        self.set_state(LinkState::Reconnecting {
            attempt: self.attempt,
            retry_in: delay,
        });
        log::info!(
            "radio link: next attempt in {delay:?} (attempt {})",
            self.attempt
        );
    }

    fn lost(&mut self, why: &str, now: Instant, out: &mut Vec<Vec<u8>>) {
        log::warn!("radio link lost: {why}");
        self.emit(LinkEvent::Failed {
            message: why.to_string(),
            permanent: false,
        });
        self.teardown(now, out);
        self.backoff(now);
    }

    fn port_report(&mut self, r: PortReport, now: Instant, out: &mut Vec<Vec<u8>>) {
        match r {
            PortReport::CivOpened => {
                if self.phase == Phase::Up && self.state() == LinkState::Ready {
                    // data after a silent start (the radio was switched on)
                    self.emit(LinkEvent::CivRecovered);
                } else if self.phase == Phase::Up {
                    self.attempt = 0;
                    self.shared.status.lock().connects += 1;
                    self.set_state(LinkState::Ready);
                    log::info!("radio link ready");
                }
            }
            PortReport::CivSilent if self.phase == Phase::Up => {
                // the radio grants the streams but says nothing: it is in standby. The
                // link is usable (a power-on can be sent); data will follow.
                self.attempt = 0;
                self.shared.status.lock().connects += 1;
                self.emit(LinkEvent::Standby);
                self.set_state(LinkState::Ready);
                log::info!("radio link ready; the radio is silent (standby)");
            }
            PortReport::CivSilent => {}
            PortReport::CivRecovering => self.emit(LinkEvent::CivRecovering),
            PortReport::CivRecovered => self.emit(LinkEvent::CivRecovered),
            PortReport::CivLost if self.phase == Phase::Up => {
                self.lost("the radio does not answer on its CI-V port", now, out);
            }
            PortReport::AudioReady => self.emit(LinkEvent::AudioReady),
            PortReport::AudioLost => {
                log::warn!("radio link: the audio port does not answer");
                self.audio_open = false;
            }
            PortReport::Malformed(n) => self.shared.status.lock().malformed += n,
            PortReport::CivLost => {}
        }
    }

    fn timers(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        match self.phase {
            Phase::Backoff { until } if now >= until => self.start_attempt(now, out),
            Phase::Up
                if now.saturating_duration_since(self.last_heard(now)) >= self.cfg.link_timeout =>
            {
                let secs = self.cfg.link_timeout.as_secs_f32();
                self.lost(
                    &format!("no answer from the radio for {secs:.1} s"),
                    now,
                    out,
                );
                return;
            }
            _ => {}
        }
        if let Some(t) = self.streams_retry_at
            && now >= t
        {
            self.streams_retry_at = None;
            if let Some(s) = self.session.as_mut() {
                s.request_streams(now, out);
            }
        }
        let Some(s) = self.session.as_mut() else {
            return;
        };
        s.poll(now, out);
        let malformed = s.malformed();
        if malformed != self.ctrl_malformed {
            self.shared.status.lock().malformed += malformed.saturating_sub(self.ctrl_malformed);
            self.ctrl_malformed = malformed;
        }
        for ev in s.take_events() {
            if let Some(e) = forward(&ev) {
                if let LinkEvent::RadioInfo { name, .. } = &e {
                    self.shared.status.lock().radio_name = name.clone();
                }
                self.emit(e);
            }
            match ev {
                ControlEvent::LoggedIn { connection_type } => {
                    log::info!("logged in to the radio (connection type {connection_type:?})");
                }
                ControlEvent::InUseBy(who) => log::warn!("the radio is in use by {who}"),
                ControlEvent::Ready {
                    civ_port,
                    audio_port,
                } => {
                    self.radio_ports = (civ_port, audio_port);
                    self.phase = Phase::Up;
                    self.shared.civ_last_rx_ms.store(
                        now.saturating_duration_since(self.shared.epoch).as_millis() as u64,
                        std::sync::atomic::Ordering::Relaxed,
                    );
                    if let Some(s) = self.session.as_ref() {
                        self.shared.status.lock().rx_codec = s.rx_codec();
                    }
                    self.set_state(LinkState::Connected);
                    self.civ_cmd(CivCmd::Open {
                        radio: self.radio_port(civ_port),
                    });
                    self.audio_open = false;
                    self.sync_audio();
                }
                ControlEvent::StreamsClosed => {
                    log::warn!("the radio closed the CI-V and audio streams; asking again");
                    self.civ_cmd(CivCmd::Close);
                    if self.audio_open {
                        self.audio_cmd(AudioCmd::Close);
                        self.audio_open = false;
                    }
                    self.set_state(LinkState::Connected);
                    self.streams_retry_at = Some(now + self.cfg.streams_retry);
                    self.phase = Phase::Connecting;
                }
                ControlEvent::TokenRejected => {
                    log::warn!("the radio rejected the token renewal; stream request sent again")
                }
                ControlEvent::Failed(f) => {
                    self.emit(failure_event(&f));
                    log::warn!("radio connection failed: {}", f.message());
                    self.teardown(now, out);
                    if f.is_permanent() {
                        self.phase = Phase::Failed;
                        self.set_state(LinkState::Failed);
                    } else {
                        self.backoff(now);
                    }
                    return;
                }
                ControlEvent::Discovered
                | ControlEvent::TokenRenewed
                | ControlEvent::RadioInfo { .. } => {}
            }
        }
    }
}
