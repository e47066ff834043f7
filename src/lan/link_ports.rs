//! The CI-V and audio socket threads of the link. Each owns its socket and session;
//! commands arrive on a channel with a waker, and what the radio sends goes to the
//! link's sinks (scope sweeps apart from other CI-V frames).

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, TrySendError};

use super::audio_client::{AudioClient, AudioEvent};
use super::civ_client::{CivClient, CivClientConfig, CivEvent};
use super::discovery::DiscoveryConfig;
use super::link::{CtlCmd, LinkShared, LinkSinks, drain, id_for_port};
use crate::net::poll::{Interest, poll};
use crate::net::waker::{self, WakeReceiver, Waker};
use crate::wire::civ::Frame;

/// Commands to the CI-V thread.
#[derive(Debug)]
pub(super) enum CivCmd {
    Open { radio: SocketAddr },
    Close,
    Send(Vec<u8>),
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

/// What the port threads tell the supervisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PortReport {
    CivOpened,
    CivRecovering,
    CivRecovered,
    CivLost,
    AudioReady,
    AudioLost,
    Malformed(u64),
}

/// A spawned port thread.
pub(super) struct PortThread<C> {
    pub tx: Sender<C>,
    pub waker: Waker,
    pub thread: JoinHandle<()>,
    pub port: u16,
}

type Report = (Sender<CtlCmd>, Waker);

fn report(r: &Report, p: PortReport) {
    if r.0.send(CtlCmd::Port(p)).is_ok() {
        r.1.wake();
    }
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

/// Starts the CI-V thread on `sock`.
pub(super) fn spawn_civ_thread(
    sock: UdpSocket,
    cfg: CivClientConfig,
    sinks: LinkSinks,
    shared: Arc<LinkShared>,
    to_sup: Report,
) -> io::Result<PortThread<CivCmd>> {
    sock.set_nonblocking(true)?;
    let port = sock.local_addr()?.port();
    let (tx, rx) = crossbeam_channel::unbounded();
    let (waker, wake) = waker::pair()?;
    let thread = std::thread::Builder::new()
        .name("lan-civ".into())
        .spawn(move || civ_loop(sock, cfg, sinks, shared, to_sup, rx, wake))?;
    Ok(PortThread {
        tx,
        waker,
        thread,
        port,
    })
}

fn civ_loop(
    sock: UdpSocket,
    cfg: CivClientConfig,
    sinks: LinkSinks,
    shared: Arc<LinkShared>,
    to_sup: Report,
    rx: Receiver<CivCmd>,
    mut wake: WakeReceiver,
) {
    let my_id = id_for_port(sock.local_addr().map(|a| a.port()).unwrap_or(1));
    let mut client: Option<CivClient> = None;
    let mut radio: Option<SocketAddr> = None;
    let mut buf = vec![0u8; 65536];
    let mut out = Vec::new();
    let mut reported_malformed = 0;
    loop {
        let now = Instant::now();
        let deadline = client.as_ref().map(|c| c.next_deadline(now));
        let ready = match poll(
            &[Interest::read(sock.as_raw_fd()), Interest::read(wake.fd())],
            deadline,
        ) {
            Ok(r) => r,
            Err(e) => {
                log::error!("lan-civ: poll failed: {e}");
                return;
            }
        };
        let now = Instant::now();
        if ready[1].readable {
            wake.clear();
            for cmd in drain(&rx) {
                match cmd {
                    CivCmd::Open { radio: addr } => {
                        radio = Some(addr);
                        let mut c = CivClient::new(cfg.clone(), my_id, now);
                        c.poll(now, &mut out);
                        client = Some(c);
                    }
                    CivCmd::Close => {
                        if let Some(mut c) = client.take() {
                            c.close(now, &mut out);
                        }
                    }
                    CivCmd::Send(bytes) => {
                        let sent = client
                            .as_mut()
                            .is_some_and(|c| c.send(&bytes, now, &mut out));
                        if !sent {
                            log::debug!(
                                "lan-civ: CI-V stream not up; {} bytes dropped",
                                bytes.len()
                            );
                        }
                    }
                    CivCmd::Shutdown => {
                        if let Some(mut c) = client.take() {
                            c.close(now, &mut out);
                        }
                        send_all(&sock, radio, &mut out);
                        return;
                    }
                }
                send_all(&sock, radio, &mut out);
            }
        }
        if ready[0].readable {
            loop {
                match sock.recv_from(&mut buf) {
                    Ok((n, from)) => {
                        if Some(from) != radio {
                            log::debug!("lan-civ: datagram from unexpected {from} ignored");
                            continue;
                        }
                        if let Some(c) = client.as_mut() {
                            shared.touch_civ(now);
                            c.receive(&buf[..n], now, &mut out);
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => {
                        log::debug!("lan-civ: recv: {e}");
                        break;
                    }
                }
            }
        }
        let Some(c) = client.as_mut() else {
            continue;
        };
        c.poll(now, &mut out);
        send_all(&sock, radio, &mut out);
        for ev in c.take_events() {
            match ev {
                CivEvent::Frames(frames) => route(frames, &sinks),
                CivEvent::Opened => report(&to_sup, PortReport::CivOpened),
                CivEvent::Recovering => report(&to_sup, PortReport::CivRecovering),
                CivEvent::Recovered => report(&to_sup, PortReport::CivRecovered),
                CivEvent::Unreachable | CivEvent::Disconnected => {
                    report(&to_sup, PortReport::CivLost)
                }
            }
        }
        let malformed = c.malformed();
        if malformed != reported_malformed {
            report(
                &to_sup,
                PortReport::Malformed(malformed - reported_malformed),
            );
            reported_malformed = malformed;
        }
    }
}

/// Sends scope sweeps (`27 00`) to the scope sink and everything else to the CI-V sink.
/// A full scope sink drops the sweep (latest data matters); a full CI-V sink is logged.
fn route(frames: Vec<Frame>, sinks: &LinkSinks) {
    for f in frames {
        if f.cmd == 0x27 && f.data.first() == Some(&0x00) {
            let _ = sinks.scope.try_send(f);
        } else if let Err(TrySendError::Full(f)) = sinks.civ.try_send(f) {
            log::warn!("link: CI-V consumer is behind; frame {:02X} dropped", f.cmd);
        }
    }
}

/// Starts the audio thread on `sock`.
pub(super) fn spawn_audio_thread(
    sock: UdpSocket,
    discovery: DiscoveryConfig,
    sinks: LinkSinks,
    to_sup: Report,
) -> io::Result<PortThread<AudioCmd>> {
    sock.set_nonblocking(true)?;
    let port = sock.local_addr()?.port();
    let (tx, rx) = crossbeam_channel::unbounded();
    let (waker, wake) = waker::pair()?;
    let thread = std::thread::Builder::new()
        .name("lan-audio".into())
        .spawn(move || audio_loop(sock, discovery, sinks, to_sup, rx, wake))?;
    Ok(PortThread {
        tx,
        waker,
        thread,
        port,
    })
}

fn audio_loop(
    sock: UdpSocket,
    discovery: DiscoveryConfig,
    sinks: LinkSinks,
    to_sup: Report,
    rx: Receiver<AudioCmd>,
    mut wake: WakeReceiver,
) {
    let my_id = id_for_port(sock.local_addr().map(|a| a.port()).unwrap_or(2));
    let mut client: Option<AudioClient> = None;
    let mut radio: Option<SocketAddr> = None;
    let mut buf = vec![0u8; 65536];
    let mut out = Vec::new();
    loop {
        let now = Instant::now();
        let deadline = client.as_ref().map(|c| c.next_deadline(now));
        let ready = match poll(
            &[Interest::read(sock.as_raw_fd()), Interest::read(wake.fd())],
            deadline,
        ) {
            Ok(r) => r,
            Err(e) => {
                log::error!("lan-audio: poll failed: {e}");
                return;
            }
        };
        let now = Instant::now();
        if ready[1].readable {
            wake.clear();
            for cmd in drain(&rx) {
                match cmd {
                    AudioCmd::Open { radio: addr } => {
                        radio = Some(addr);
                        let mut c = AudioClient::new(discovery.clone(), my_id, now);
                        c.poll(now, &mut out);
                        client = Some(c);
                    }
                    AudioCmd::Close => {
                        if let Some(mut c) = client.take() {
                            c.close(&mut out);
                        }
                    }
                    AudioCmd::Tx(block) => {
                        if let Some(c) = client.as_mut() {
                            c.send(&block, now, &mut out);
                        }
                    }
                    AudioCmd::StartTx => {
                        if let Some(c) = client.as_mut() {
                            c.start_tx();
                        }
                    }
                    AudioCmd::Shutdown => {
                        if let Some(mut c) = client.take() {
                            c.close(&mut out);
                        }
                        send_all(&sock, radio, &mut out);
                        return;
                    }
                }
                send_all(&sock, radio, &mut out);
            }
        }
        if ready[0].readable {
            loop {
                match sock.recv_from(&mut buf) {
                    Ok((n, from)) => {
                        if Some(from) != radio {
                            continue;
                        }
                        if let Some(c) = client.as_mut() {
                            c.receive(&buf[..n], now, &mut out);
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => {
                        log::debug!("lan-audio: recv: {e}");
                        break;
                    }
                }
            }
        }
        let Some(c) = client.as_mut() else {
            continue;
        };
        c.poll(now, &mut out);
        send_all(&sock, radio, &mut out);
        for ev in c.take_events() {
            match ev {
                AudioEvent::Block(b) => {
                    let _ = sinks.audio.try_send(b);
                }
                AudioEvent::Ready => report(&to_sup, PortReport::AudioReady),
                AudioEvent::Unreachable => report(&to_sup, PortReport::AudioLost),
            }
        }
    }
}
