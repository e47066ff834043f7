//! The CI-V and audio socket threads of the link. Each owns its socket and session;
//! commands arrive on a channel with a waker, and what the radio sends goes to the
//! link's sinks (scope sweeps) or, on the CI-V thread, to the [`CivEndpoint`] that runs
//! there (the command executor, the one owner of CI-V traffic). Both threads run the
//! same driver loop ([`drive`]) around a [`PortRole`].

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};

use super::link_shared::{CtlCmd, LinkShared, drain, id_for_port};
use crate::lan::session::audio_client::{AudioClient, AudioEvent};
use crate::lan::session::civ_client::{CivClient, CivClientConfig, CivEvent};
use crate::lan::session::discovery::DiscoveryConfig;
use crate::lan::session::link_state::{CivEndpoint, LinkEvent, LinkSinks, PortReport};
use crate::lan::session::recovery::{LanPort, RecoveryTally};
use crate::net::poll::{Interest, poll};
use crate::net::waker::{self, WakeReceiver, Waker, WakingSender, waking_channel};
use crate::wire::civ::{Frame, cmd};

/// Commands to the CI-V thread.
#[derive(Debug)]
pub(super) enum CivCmd {
    Open {
        radio: SocketAddr,
    },
    Close,
    /// An event of the link, for the endpoint.
    Event(LinkEvent),
    Shutdown,
}

/// Commands to the audio thread.
#[derive(Debug)]
pub(super) enum AudioCmd {
    Open { radio: SocketAddr },
    Close,
    Tx(Vec<u8>),
    StartTx,
    Shutdown,
}

/// A command with an optional acknowledgement, sent once its datagrams are out.
type Envelope<C> = (C, Option<Sender<()>>);

/// The sending side of a port thread's command channel.
pub(super) struct PortHandle<C> {
    tx: WakingSender<Envelope<C>>,
}

impl<C> Clone for PortHandle<C> {
    fn clone(&self) -> Self {
        PortHandle {
            tx: self.tx.clone(),
        }
    }
}

impl<C> PortHandle<C> {
    /// Queues `cmd`.
    pub fn send(&self, cmd: C) {
        self.tx.send((cmd, None));
    }

    /// Queues `cmd` and waits (at most `timeout`) until the datagrams it produced were
    /// sent; used to keep the logout in order across the ports.
    pub fn send_and_wait(&self, cmd: C, timeout: std::time::Duration) -> bool {
        let (ack_tx, ack_rx) = crossbeam_channel::bounded(1);
        self.tx.send((cmd, Some(ack_tx))) && ack_rx.recv_timeout(timeout).is_ok()
    }
}

/// A spawned port thread.
pub(super) struct PortThread<C> {
    pub handle: PortHandle<C>,
    pub thread: JoinHandle<()>,
    pub port: u16,
}

type Report = WakingSender<CtlCmd>;

fn report(r: &Report, p: PortReport) {
    r.send(CtlCmd::Port(p));
}

/// The session side of a port thread.
trait PortRole: Send + 'static {
    type Cmd: Send + 'static;
    /// Thread name, for logs.
    fn name(&self) -> &'static str;
    /// Where datagrams go and come from (`None`: no session).
    fn radio(&self) -> Option<SocketAddr>;
    /// Handles a command; false ends the thread.
    fn command(&mut self, cmd: Self::Cmd, now: Instant, out: &mut Vec<Vec<u8>>) -> bool;
    /// Handles a datagram from the radio.
    fn receive(&mut self, buf: &[u8], now: Instant, out: &mut Vec<Vec<u8>>);
    /// Runs timers and hands on events.
    fn tick(&mut self, now: Instant, out: &mut Vec<Vec<u8>>);
    /// When `tick` next has work (`None`: only input wakes the thread).
    fn poll_timeout(&self) -> Option<Instant>;
    /// The thread's waker was rung (by a command, or by input the role's own parts get
    /// from other threads).
    fn woken(&mut self) {}
}

fn send_all(sock: &UdpSocket, to: Option<SocketAddr>, out: &mut Vec<Vec<u8>>) {
    if let Some(to) = to {
        for d in out.drain(..) {
            if let Err(e) = sock.send_to(&d, to) {
                log::debug!("link: send to {to}: {e}");
            }
        }
    }
    out.clear();
}

/// Starts a thread running `role` on `sock`, woken through `(waker, wake)`.
fn spawn<R: PortRole>(
    sock: UdpSocket,
    role: R,
    (waker, wake): (Waker, WakeReceiver),
) -> io::Result<PortThread<R::Cmd>> {
    sock.set_nonblocking(true)?;
    let port = sock.local_addr()?.port();
    let (tx, rx) = waking_channel(waker);
    let thread = std::thread::Builder::new()
        .name(role.name().into())
        .spawn(move || drive(sock, rx, wake, role))?;
    Ok(PortThread {
        handle: PortHandle { tx },
        thread,
        port,
    })
}

/// The loop of a port thread: wait for the socket, a command or the next timer.
fn drive<R: PortRole>(
    sock: UdpSocket,
    rx: Receiver<Envelope<R::Cmd>>,
    mut wake: WakeReceiver,
    mut role: R,
) {
    let mut buf = vec![0u8; 65536];
    let mut out = Vec::new();
    loop {
        let deadline = role.poll_timeout();
        let interests = [Interest::read(sock.as_raw_fd()), Interest::read(wake.fd())];
        let ready = match poll(&interests, deadline) {
            Ok(r) => r,
            Err(e) => {
                log::error!("{}: poll failed: {e}", role.name());
                return;
            }
        };
        let now = Instant::now();
        if ready[1].readable {
            wake.clear();
            role.woken();
            for (cmd, ack) in drain(&rx) {
                let go_on = role.command(cmd, now, &mut out);
                send_all(&sock, role.radio(), &mut out);
                if let Some(ack) = ack {
                    let _ = ack.send(());
                }
                if !go_on {
                    return;
                }
            }
        }
        if ready[0].readable {
            loop {
                match sock.recv_from(&mut buf) {
                    Ok((n, from)) if Some(from) == role.radio() => {
                        role.receive(&buf[..n], now, &mut out)
                    }
                    Ok((_, from)) => {
                        log::debug!("{}: datagram from unexpected {from} ignored", role.name())
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => {
                        log::debug!("{}: recv: {e}", role.name());
                        break;
                    }
                }
            }
        }
        role.tick(now, &mut out);
        send_all(&sock, role.radio(), &mut out);
    }
}

/// The CI-V port.
struct CivRole {
    cfg: CivClientConfig,
    my_id: u32,
    client: Option<CivClient>,
    radio: Option<SocketAddr>,
    sinks: LinkSinks,
    shared: Arc<LinkShared>,
    to_sup: Report,
    reported_malformed: u64,
    recovery: RecoveryTally,
    /// The owner of CI-V traffic, run on this thread.
    endpoint: Box<dyn CivEndpoint>,
    /// The endpoint has input (frames, link events, the waker rung) since its last turn.
    endpoint_input: bool,
    /// When the endpoint's next turn is due without input, as it said after its last.
    endpoint_due: Option<Instant>,
    /// What the endpoint sends, on its way into the session.
    civ_out: Vec<Vec<u8>>,
}

/// Starts the CI-V thread on `sock`, running `endpoint` beside the session, woken
/// through `wake` (the endpoint's input from other threads rings it too).
pub(super) fn spawn_civ_thread(
    sock: UdpSocket,
    cfg: CivClientConfig,
    sinks: LinkSinks,
    (endpoint, wake): (Box<dyn CivEndpoint>, (Waker, WakeReceiver)),
    shared: Arc<LinkShared>,
    to_sup: Report,
) -> io::Result<PortThread<CivCmd>> {
    let my_id = id_for_port(sock.local_addr()?.port());
    let role = CivRole {
        cfg,
        my_id,
        client: None,
        radio: None,
        sinks,
        shared,
        to_sup,
        reported_malformed: 0,
        recovery: RecoveryTally::default(),
        endpoint,
        endpoint_input: true,
        endpoint_due: None,
        civ_out: Vec::new(),
    };
    spawn(sock, role, wake)
}

impl PortRole for CivRole {
    type Cmd = CivCmd;

    fn name(&self) -> &'static str {
        "lan-civ"
    }

    fn radio(&self) -> Option<SocketAddr> {
        self.radio
    }

    fn command(&mut self, cmd: CivCmd, now: Instant, out: &mut Vec<Vec<u8>>) -> bool {
        match cmd {
            CivCmd::Open { radio } => {
                self.radio = Some(radio);
                self.reported_malformed = 0;
                let mut c = CivClient::new(self.cfg.clone(), self.my_id, now);
                c.poll(now, out);
                self.client = Some(c);
            }
            CivCmd::Close => {
                if let Some(mut c) = self.client.take() {
                    c.close(now, out);
                }
            }
            CivCmd::Event(event) => {
                self.endpoint.link(event, now);
                self.endpoint_input = true;
            }
            CivCmd::Shutdown => {
                if let Some(mut c) = self.client.take() {
                    c.close(now, out);
                }
                return false;
            }
        }
        true
    }

    fn receive(&mut self, buf: &[u8], now: Instant, out: &mut Vec<Vec<u8>>) {
        if let Some(c) = self.client.as_mut() {
            c.receive(buf, now, out);
            // only what this session's radio sent proves that the radio is there: a
            // radio restarted with new ids may still answer our pings
            if c.last_rx() == Some(now) {
                self.shared.touch_civ(now);
            }
        }
    }

    fn tick(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        self.tick_session(now, out);
        // the endpoint turns only when it has input or a timer due: the radio's pings and
        // the scope's sweeps alone do not wake it
        let due = self.endpoint_due.is_some_and(|t| now >= t);
        if !(std::mem::take(&mut self.endpoint_input) || due) {
            return;
        }
        self.endpoint.turn(now, &mut self.civ_out);
        self.endpoint_due = self.endpoint.poll_timeout(now);
        for bytes in self.civ_out.drain(..) {
            let sent = self
                .client
                .as_mut()
                .is_some_and(|c| c.send(&bytes, now, out));
            if !sent {
                log::debug!("lan-civ: CI-V stream not up; {} bytes dropped", bytes.len());
            }
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let session = self.client.as_ref().and_then(|c| c.poll_timeout());
        session.into_iter().chain(self.endpoint_due).min()
    }

    fn woken(&mut self) {
        self.endpoint_input = true;
    }
}

impl CivRole {
    /// Runs the session's timers and hands on its events: frames to the sinks and the
    /// endpoint, the rest to the supervisor.
    fn tick_session(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        let Some(c) = self.client.as_mut() else {
            return;
        };
        c.poll(now, out);
        for ev in c.take_events() {
            match ev {
                CivEvent::Frames(frames) => {
                    self.endpoint_input |= route(frames, &self.sinks, &mut *self.endpoint, now)
                }
                CivEvent::Opened => report(&self.to_sup, PortReport::CivOpened),
                CivEvent::Recovering => report(&self.to_sup, PortReport::CivRecovering),
                CivEvent::Recovered => report(&self.to_sup, PortReport::CivRecovered),
                CivEvent::Silent => report(&self.to_sup, PortReport::CivSilent),
                CivEvent::Unreachable | CivEvent::Disconnected => {
                    report(&self.to_sup, PortReport::CivLost)
                }
            }
        }
        self.shared
            .tally_recovery(LanPort::Civ, &mut self.recovery, c.stream_stats().as_ref());
        let malformed = c.malformed();
        if malformed != self.reported_malformed {
            report(
                &self.to_sup,
                PortReport::Malformed(malformed - self.reported_malformed),
            );
            self.reported_malformed = malformed;
        }
    }
}

/// Hands scope sweeps (`27 00`) to the scope sink (stamped with `now`, when their
/// datagram arrived) and everything else to the endpoint; true if the endpoint got any.
fn route(
    frames: Vec<Frame>,
    sinks: &LinkSinks,
    endpoint: &mut dyn CivEndpoint,
    now: Instant,
) -> bool {
    let mut any = false;
    for f in frames {
        if f.cmd == cmd::SCOPE && f.data.first() == Some(&cmd::scope::WAVE) {
            sinks.scope.deliver((f, now));
        } else {
            endpoint.frame(f, now);
            any = true;
        }
    }
    any
}

/// The audio port.
struct AudioRole {
    discovery: DiscoveryConfig,
    my_id: u32,
    client: Option<AudioClient>,
    radio: Option<SocketAddr>,
    sinks: LinkSinks,
    shared: Arc<LinkShared>,
    to_sup: Report,
    recovery: RecoveryTally,
}

/// Starts the audio thread on `sock`.
pub(super) fn spawn_audio_thread(
    sock: UdpSocket,
    discovery: DiscoveryConfig,
    sinks: LinkSinks,
    shared: Arc<LinkShared>,
    to_sup: Report,
) -> io::Result<PortThread<AudioCmd>> {
    let my_id = id_for_port(sock.local_addr()?.port());
    let role = AudioRole {
        discovery,
        my_id,
        client: None,
        radio: None,
        sinks,
        shared,
        to_sup,
        recovery: RecoveryTally::default(),
    };
    spawn(sock, role, waker::pair()?)
}

impl PortRole for AudioRole {
    type Cmd = AudioCmd;

    fn name(&self) -> &'static str {
        "lan-audio"
    }

    fn radio(&self) -> Option<SocketAddr> {
        self.radio
    }

    fn command(&mut self, cmd: AudioCmd, now: Instant, out: &mut Vec<Vec<u8>>) -> bool {
        match cmd {
            AudioCmd::Open { radio } => {
                self.radio = Some(radio);
                let mut c = AudioClient::new(self.discovery.clone(), self.my_id, now);
                c.poll(now, out);
                self.client = Some(c);
            }
            AudioCmd::Close => {
                if let Some(mut c) = self.client.take() {
                    c.close(out);
                }
            }
            AudioCmd::Tx(block) => {
                if let Some(c) = self.client.as_mut() {
                    c.send(&block, now, out);
                }
            }
            AudioCmd::StartTx => {
                if let Some(c) = self.client.as_mut() {
                    c.start_tx();
                }
            }
            AudioCmd::Shutdown => {
                if let Some(mut c) = self.client.take() {
                    c.close(out);
                }
                return false;
            }
        }
        true
    }

    fn receive(&mut self, buf: &[u8], now: Instant, out: &mut Vec<Vec<u8>>) {
        if let Some(c) = self.client.as_mut() {
            c.receive(buf, now, out);
        }
    }

    fn tick(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        let Some(c) = self.client.as_mut() else {
            return;
        };
        c.poll(now, out);
        let mut blocks = Vec::new();
        for ev in c.take_events() {
            match ev {
                AudioEvent::Block(b) => blocks.push(b),
                AudioEvent::Ready => report(&self.to_sup, PortReport::AudioReady),
                AudioEvent::Unreachable => report(&self.to_sup, PortReport::AudioLost),
            }
        }
        if !blocks.is_empty() {
            self.sinks.audio.deliver(blocks);
        }
        self.shared.tally_recovery(
            LanPort::Audio,
            &mut self.recovery,
            c.stream_stats().as_ref(),
        );
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.client.as_ref().and_then(|c| c.poll_timeout())
    }
}
