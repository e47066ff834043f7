//! The control thread: owns the control socket and session and carries out what the
//! link's policy (`link_policy.rs`: connect, open CI-V and audio on demand, watch
//! liveness, reconnect with bounded back-off, log out) decides — a thin shell around
//! the control session and the policy, both sans-IO.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Receiver;

use super::link_ports::{AudioCmd, CivCmd, PortHandle};
use super::link_shared::{CtlCmd, LinkShared, drain, id_for_port};
use crate::lan::session::control::{ControlClient, ControlEvent};
use crate::lan::session::link_policy::{Action, Input, LinkPolicy, PolicyTiming};
use crate::lan::session::link_state::{LinkConfig, LinkEvent, LinkState, PortReport, forward};
use crate::lan::session::recovery::{LanPort, RecoveryTally};
use crate::net::poll::{Interest, poll};
use crate::net::waker::WakeReceiver;

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
    shared: Arc<LinkShared>,
    policy: LinkPolicy,
    session: Option<ControlClient>,
    ctrl_malformed: u64,
    /// The control session's packet recovery, as last added to the status.
    ctrl_recovery: RecoveryTally,
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
        shared: Arc<LinkShared>,
    ) -> io::Result<Supervisor> {
        sock.set_nonblocking(true)?;
        let my_id = id_for_port(sock.local_addr()?.port());
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
            ^ u64::from(my_id);
        let policy = LinkPolicy::new(PolicyTiming {
            link_timeout: cfg.link_timeout,
            backoff_min: cfg.backoff_min,
            backoff_max: cfg.backoff_max,
            streams_retry: cfg.streams_retry,
        });
        Ok(Supervisor {
            cfg,
            sock,
            ports,
            my_id,
            rx,
            wake,
            civ,
            audio,
            shared,
            policy,
            session: None,
            ctrl_malformed: 0,
            ctrl_recovery: RecoveryTally::default(),
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
        log::debug!("link: {:?} -> {:?}", st.state, state);
        st.state = state.clone();
        drop(st);
        self.civ_cmd(CivCmd::Event(LinkEvent::State(state)));
    }

    fn emit(&self, e: LinkEvent) {
        if let LinkEvent::Failed { message, .. } = &e {
            self.shared.status.lock().last_error = Some(message.clone());
        }
        self.civ_cmd(CivCmd::Event(e));
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
        let session = self.session.as_ref().and_then(|s| s.poll_timeout());
        crate::net::poll::earliest(session, self.policy.poll_timeout(self.last_heard()))
    }

    /// When the radio was last heard on control or CI-V.
    fn last_heard(&self) -> Instant {
        let ctrl = self.session.as_ref().and_then(|s| s.last_rx());
        let civ = self.shared.civ_last_rx();
        ctrl.map_or(civ, |c| c.max(civ))
    }

    /// Runs one command; false means shut down.
    fn command(&mut self, cmd: CtlCmd, now: Instant, out: &mut Vec<Vec<u8>>) -> bool {
        let input = match cmd {
            CtlCmd::Connect => Input::Connect,
            CtlCmd::Disconnect => Input::Disconnect,
            CtlCmd::Audio(on) => Input::Audio(on),
            CtlCmd::Port(PortReport::Malformed(n)) => {
                self.shared.status.lock().malformed += n;
                return true;
            }
            CtlCmd::Port(r) => Input::Port(r),
            CtlCmd::Shutdown => {
                self.policy.handle(Input::Disconnect, now);
                self.act(now, out);
                self.civ_cmd(CivCmd::Shutdown);
                self.audio_cmd(AudioCmd::Shutdown);
                return false;
            }
        };
        self.policy.handle(input, now);
        self.act(now, out);
        true
    }

    /// Carries out what the policy decided.
    fn act(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        while let Some(a) = self.policy.poll_action() {
            match a {
                Action::StartSession => self.start_session(now, out),
                Action::Teardown { audio } => self.teardown(audio, now, out),
                Action::OpenCiv(port) => self.civ_cmd(CivCmd::Open {
                    radio: self.radio_port(port),
                }),
                Action::CloseCiv => self.civ_cmd(CivCmd::Close),
                Action::OpenAudio(port) => self.audio_cmd(AudioCmd::Open {
                    radio: self.radio_port(port),
                }),
                Action::CloseAudio => self.audio_cmd(AudioCmd::Close),
                Action::RequestStreams => {
                    if let Some(s) = self.session.as_mut() {
                        s.request_streams(now, out);
                    }
                }
                Action::State(state) => self.set_state(state),
                Action::Emit(e) => self.emit(e),
                Action::Connected => self.shared.status.lock().connects += 1,
            }
        }
    }

    fn start_session(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        self.ctrl_malformed = 0;
        let tok = self.tok_request();
        let mut s = ControlClient::new(self.cfg.control.clone(), self.my_id, self.ports, tok, now);
        s.poll(now, out);
        self.session = Some(s);
        log::info!("connecting to the radio at {}", self.cfg.radio);
    }

    /// Leaves cleanly: audio DISCONNECT (if open), CI-V OpenClose(close) + DISCONNECT,
    /// token remove, control DISCONNECT.
    fn teardown(&mut self, audio: bool, now: Instant, out: &mut Vec<Vec<u8>>) {
        // the reference order: audio, then CI-V, then the control session; each port's
        // goodbye is on the wire before the next one starts
        let wait = std::time::Duration::from_millis(250);
        if audio {
            self.audio.send_and_wait(AudioCmd::Close, wait);
        }
        self.civ.send_and_wait(CivCmd::Close, wait);
        if let Some(mut s) = self.session.take() {
            s.logout(now, out);
        }
    }

    fn timers(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        self.policy.handle_timeout(now, self.last_heard());
        self.act(now, out);
        let Some(s) = self.session.as_mut() else {
            return;
        };
        s.poll(now, out);
        self.shared.tally_recovery(
            LanPort::Control,
            &mut self.ctrl_recovery,
            s.stream_stats().as_ref(),
        );
        let malformed = s.malformed();
        if malformed != self.ctrl_malformed {
            self.shared.status.lock().malformed += malformed.saturating_sub(self.ctrl_malformed);
            self.ctrl_malformed = malformed;
        }
        let rx_codec = s.rx_codec();
        for ev in s.take_events() {
            if let Some(e) = forward(&ev) {
                if let LinkEvent::RadioInfo { name, .. } = &e {
                    self.shared.status.lock().radio_name = name.clone();
                }
                self.emit(e);
            }
            let input = match ev {
                ControlEvent::LoggedIn { connection_type } => {
                    log::info!("logged in to the radio (connection type {connection_type:?})");
                    continue;
                }
                ControlEvent::InUseBy(who) => {
                    log::warn!("the radio is in use by {who}");
                    continue;
                }
                ControlEvent::Ready {
                    civ_port,
                    audio_port,
                } => {
                    self.shared.status.lock().rx_codec = rx_codec;
                    Input::StreamsGranted {
                        civ_port,
                        audio_port,
                    }
                }
                ControlEvent::StreamsClosed => {
                    log::warn!("the radio closed the CI-V and audio streams; asking again");
                    Input::StreamsClosed
                }
                ControlEvent::TokenRejected => {
                    log::warn!("the radio rejected the token renewal; stream request sent again");
                    continue;
                }
                ControlEvent::Failed(f) => {
                    log::warn!("radio connection failed: {}", f.message());
                    Input::SessionFailed {
                        message: f.message().to_string(),
                        permanent: f.is_permanent(),
                    }
                }
                ControlEvent::Discovered
                | ControlEvent::TokenRenewed
                | ControlEvent::RadioInfo { .. } => continue,
            };
            self.policy.handle(input, now);
            self.act(now, out);
            if self.session.is_none() {
                // torn down: the session's remaining events are moot
                return;
            }
        }
    }
}
