//! The radio link: three UDP sockets, each owned by its own thread, around the sans-IO
//! sessions. The control thread is also the supervisor: it connects, watches the link,
//! reconnects with bounded backoff (reusing the same sockets and ids) and logs out
//! cleanly. The CI-V thread routes scope sweeps to their sink and runs the owner of CI-V
//! traffic (a [`CivEndpoint`]: the command executor) beside its session.

use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::thread::JoinHandle;
use std::time::Instant;

use parking_lot::Mutex;

use super::link_ports::{AudioCmd, PortHandle, spawn_audio_thread, spawn_civ_thread};
use super::link_shared::{CtlCmd, LinkShared};
use super::supervisor::Supervisor;
use crate::net::waker::{self, WakeReceiver, Waker, WakingSender, waking_channel};

pub use crate::lan::session::link_state::{
    CivEndpoint, LinkConfig, LinkEvent, LinkSinks, LinkState, LinkStatus, Sink,
};

/// Handle to a running link.
pub struct RadioLink {
    ctl: WakingSender<CtlCmd>,
    audio: PortHandle<AudioCmd>,
    shared: Arc<LinkShared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

/// The local address to bind for talking to `radio`: loopback for a loopback radio,
/// else the interface the OS routes through.
fn local_ip_for(radio: SocketAddr) -> IpAddr {
    if radio.ip().is_loopback() {
        return radio.ip();
    }
    UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0))
        .and_then(|s| {
            s.connect(radio)?;
            s.local_addr()
        })
        .map(|a| a.ip())
        .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}

impl RadioLink {
    /// Binds the three sockets, starts the threads and begins connecting. `endpoint`
    /// runs on the CI-V thread, which `civ_wake` wakes (the endpoint's input from other
    /// threads rings its [`Waker`]).
    pub fn start(
        cfg: LinkConfig,
        sinks: LinkSinks,
        endpoint: Box<dyn CivEndpoint>,
        civ_wake: (Waker, WakeReceiver),
    ) -> io::Result<RadioLink> {
        let ip = local_ip_for(cfg.radio);
        let ctrl_sock = UdpSocket::bind((ip, 0))?;
        let civ_sock = UdpSocket::bind((ip, 0))?;
        let audio_sock = UdpSocket::bind((ip, 0))?;
        let shared = Arc::new(LinkShared {
            epoch: Instant::now(),
            civ_last_rx_ms: AtomicU64::new(0),
            status: Mutex::new(LinkStatus {
                state: LinkState::Idle,
                radio_name: String::new(),
                rx_codec: cfg.control.rx_codec,
                last_error: None,
                connects: 0,
                malformed: 0,
                recovery: Default::default(),
            }),
        });
        let (ctl_waker, ctl_wake_rx) = waker::pair()?;
        let (ctl, ctl_rx) = waking_channel(ctl_waker);
        let report = ctl.clone();
        let civ = spawn_civ_thread(
            civ_sock,
            cfg.civ.clone(),
            sinks.clone(),
            (endpoint, civ_wake),
            shared.clone(),
            report.clone(),
        )?;
        let audio = spawn_audio_thread(
            audio_sock,
            cfg.control.discovery.clone(),
            sinks.clone(),
            shared.clone(),
            report,
        )?;
        let ports = (civ.port, audio.port);
        let mut sup = Supervisor::new(
            cfg,
            ctrl_sock,
            ports,
            ctl_rx,
            ctl_wake_rx,
            civ.handle,
            audio.handle.clone(),
            shared.clone(),
        )?;
        let sup_thread = std::thread::Builder::new()
            .name("lan-control".into())
            .spawn(move || sup.run())?;
        let link = RadioLink {
            ctl,
            audio: audio.handle,
            shared,
            threads: Mutex::new(vec![sup_thread, civ.thread, audio.thread]),
        };
        link.connect();
        Ok(link)
    }

    fn ctl(&self, cmd: CtlCmd) {
        self.ctl.send(cmd);
    }

    /// (Re)connects; a no-op while connected or connecting.
    pub fn connect(&self) {
        self.ctl(CtlCmd::Connect);
    }

    /// Logs out cleanly and stays disconnected until [`RadioLink::connect`].
    pub fn disconnect(&self) {
        self.ctl(CtlCmd::Disconnect);
    }

    /// Opens or closes the audio stream (RX audio flows only while open).
    pub fn set_audio(&self, on: bool) {
        self.ctl(CtlCmd::Audio(on));
    }

    /// Restarts the TX audio sequence (call when transmission starts).
    pub fn start_tx_audio(&self) {
        self.audio.send(AudioCmd::StartTx);
    }

    /// Queues one 20 ms block of TX audio in the TX codec.
    pub fn send_tx_audio(&self, block: Vec<u8>) {
        self.audio.send(AudioCmd::Tx(block));
    }

    /// A snapshot of the link.
    pub fn status(&self) -> LinkStatus {
        self.shared.status.lock().clone()
    }

    /// Logs out cleanly (OpenClose close, DISCONNECT on every socket, token remove) and
    /// stops the threads. Later calls do nothing.
    pub fn shutdown(&self) {
        let threads: Vec<_> = self.threads.lock().drain(..).collect();
        if threads.is_empty() {
            return;
        }
        self.ctl(CtlCmd::Shutdown);
        for t in threads {
            let _ = t.join();
        }
    }
}

impl Drop for RadioLink {
    fn drop(&mut self) {
        self.shutdown();
    }
}
