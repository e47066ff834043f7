//! The simulated radio's LAN server: the three UDP ports of a real Icom radio on
//! loopback (or any address), one thread, driven by `poll(2)`. It speaks the radio
//! side of the protocol with the same `wire/` and stream code as the client, feeds CI-V
//! to the [`SimRig`], streams scope sweeps and RX audio, and injects faults.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;

pub use super::config::{SimAddrs, SimConfig, SimStats};
use super::faults::{FaultConfig, FaultLine, Pending};
use super::protocol::SimProtocol;
use super::rig::{PanelAction, RigSnapshot, SimRig, SimRigConfig};
use crate::net::poll::{Interest, poll};
use crate::net::waker::{self, WakeReceiver, WakingSender, waking_channel};
use crate::wire::lan::Port;

/// A request to the simulator thread.
enum SimCommand {
    Panel(PanelAction),
    Faults(FaultConfig),
    Silence(Duration),
    Restart,
    KickStreams,
    Inject(Port, Vec<u8>),
    ClientIds(Sender<Vec<[u32; 3]>>),
    Snapshot(Sender<RigSnapshot>),
    Shutdown,
}

/// A running simulated radio.
pub struct SimHandle {
    tx: WakingSender<SimCommand>,
    addrs: SimAddrs,
    stats: Arc<Mutex<SimStats>>,
    thread: Option<JoinHandle<()>>,
}

impl SimHandle {
    /// The three ports.
    pub fn addrs(&self) -> SimAddrs {
        self.addrs
    }

    /// Counters so far.
    pub fn stats(&self) -> SimStats {
        *self.stats.lock()
    }

    fn send(&self, cmd: SimCommand) {
        self.tx.send(cmd);
    }

    /// Operates the front panel (frequency, mode, PTT, power, ...).
    pub fn panel(&self, action: PanelAction) {
        self.send(SimCommand::Panel(action));
    }

    /// Replaces the fault configuration.
    pub fn set_faults(&self, faults: FaultConfig) {
        self.send(SimCommand::Faults(faults));
    }

    /// Drops all traffic, both ways, for `d`.
    pub fn silence(&self, d: Duration) {
        self.send(SimCommand::Silence(d));
    }

    /// Simulates a radio restart: every session is forgotten and every id changes.
    pub fn restart(&self) {
        self.send(SimCommand::Restart);
    }

    /// Closes every client's CI-V and audio streams (status `disc = 1`).
    pub fn kick_streams(&self) {
        self.send(SimCommand::KickStreams);
    }

    /// Sends `bytes` as they are to every client on `port` (hostile-input tests).
    pub fn inject(&self, port: Port, bytes: Vec<u8>) {
        self.send(SimCommand::Inject(port, bytes));
    }

    /// The ids of the connected clients: `[control, CI-V, audio]` each.
    pub fn client_ids(&self) -> Vec<[u32; 3]> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.send(SimCommand::ClientIds(tx));
        rx.recv_timeout(Duration::from_secs(5)).unwrap_or_default()
    }

    /// A copy of the radio's state.
    pub fn snapshot(&self) -> Option<RigSnapshot> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.send(SimCommand::Snapshot(tx));
        rx.recv_timeout(Duration::from_secs(5)).ok()
    }

    /// Stops the simulator and waits for its thread.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.send(SimCommand::Shutdown);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Binds the three ports and starts the simulator thread.
pub fn start(cfg: SimConfig) -> io::Result<SimHandle> {
    let control = UdpSocket::bind(cfg.listen)?;
    let (civ, audio) = if cfg.listen.port() == 0 {
        let mut ip = cfg.listen;
        ip.set_port(0);
        (UdpSocket::bind(ip)?, UdpSocket::bind(ip)?)
    } else {
        let mut c = cfg.listen;
        c.set_port(cfg.listen.port().wrapping_add(1));
        let mut a = cfg.listen;
        a.set_port(cfg.listen.port().wrapping_add(2));
        (UdpSocket::bind(c)?, UdpSocket::bind(a)?)
    };
    let addrs = SimAddrs {
        control: control.local_addr()?,
        civ: civ.local_addr()?,
        audio: audio.local_addr()?,
    };
    for s in [&control, &civ, &audio] {
        s.set_nonblocking(true)?;
    }
    let (waker, wake_rx) = waker::pair()?;
    let (tx, rx) = waking_channel(waker);
    let stats = Arc::new(Mutex::new(SimStats::default()));
    let shared = stats.clone();
    let model = cfg.profile.model().to_string();
    let thread = std::thread::Builder::new()
        .name("sim-radio".into())
        .spawn(move || {
            let mut sim = SimLoop::new(cfg, [control, civ, audio], addrs, rx, wake_rx, shared);
            sim.run();
        })?;
    log::info!(
        "simulated {model} listening on {} (CI-V {}, audio {})",
        addrs.control,
        addrs.civ,
        addrs.audio
    );
    Ok(SimHandle {
        tx,
        addrs,
        stats,
        thread: Some(thread),
    })
}

/// The simulator thread's state.
struct SimLoop {
    socks: [UdpSocket; 3],
    proto: SimProtocol,
    out_line: FaultLine,
    in_line: FaultLine,
    rx: Receiver<SimCommand>,
    wake: WakeReceiver,
    shared: Arc<Mutex<SimStats>>,
    published: SimStats,
}

impl SimLoop {
    fn new(
        cfg: SimConfig,
        socks: [UdpSocket; 3],
        addrs: SimAddrs,
        rx: Receiver<SimCommand>,
        wake: WakeReceiver,
        shared: Arc<Mutex<SimStats>>,
    ) -> SimLoop {
        let out_line = FaultLine::new(cfg.faults.clone(), cfg.seed ^ 0x5EED_0001);
        let in_line = FaultLine::new(cfg.faults.clone(), cfg.seed ^ 0x5EED_0002);
        let wall_clock = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs());
        let rig = SimRig::new(
            cfg.profile.clone(),
            SimRigConfig {
                seed: cfg.seed,
                clock_start_unix_s: cfg.rig.clock_start_unix_s.or(wall_clock),
                ..cfg.rig
            },
        );
        SimLoop {
            proto: SimProtocol::new(cfg, rig, addrs, Instant::now()),
            socks,
            out_line,
            in_line,
            rx,
            wake,
            shared,
            published: SimStats::default(),
        }
    }

    fn run(&mut self) {
        let mut buf = vec![0u8; 65536];
        loop {
            let deadline = [
                self.proto.poll_timeout(),
                self.out_line.poll_timeout(),
                self.in_line.poll_timeout(),
            ]
            .into_iter()
            .flatten()
            .min();
            let interests = [
                Interest::read(self.socks[0].as_raw_fd()),
                Interest::read(self.socks[1].as_raw_fd()),
                Interest::read(self.socks[2].as_raw_fd()),
                Interest::read(self.wake.fd()),
            ];
            let ready = match poll(&interests, deadline) {
                Ok(r) => r,
                Err(e) => {
                    log::error!("simulator: poll failed: {e}");
                    return;
                }
            };
            let now = Instant::now();
            // a shutdown first handles what has arrived (a client's logout sent just
            // before the simulator is stopped is still seen, logged and counted)
            let mut stopping = false;
            if ready[3].readable {
                self.wake.clear();
                while let Ok(cmd) = self.rx.try_recv() {
                    if !self.command(cmd, now) {
                        stopping = true;
                        break;
                    }
                }
            }
            let mut due = Vec::new();
            for (i, port) in [Port::Control, Port::Civ, Port::Audio]
                .into_iter()
                .enumerate()
            {
                if !ready[i].readable && !stopping {
                    continue;
                }
                // bounded batch so that one flooded port cannot starve the others
                for _ in 0..256 {
                    match self.socks[i].recv_from(&mut buf) {
                        Ok((n, from)) => {
                            self.in_line
                                .push(port, from, buf[..n].to_vec(), now, &mut due)
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) => {
                            log::debug!("simulator: recv on {port:?}: {e}");
                            break;
                        }
                    }
                }
            }
            self.in_line.release(now, &mut due);
            let mut out = Vec::new();
            for p in due {
                self.proto
                    .receive(p.port.into(), p.addr, &p.bytes, now, &mut out);
            }
            self.proto.tick(now, &mut out);
            self.transmit(out, now);
            self.publish();
            if stopping {
                return;
            }
        }
    }

    fn transmit(&mut self, out: Vec<(Port, SocketAddr, Vec<u8>)>, now: Instant) {
        let mut due: Vec<Pending> = Vec::new();
        for (port, addr, bytes) in out {
            self.out_line.push(port, addr, bytes, now, &mut due);
        }
        self.out_line.release(now, &mut due);
        for p in due {
            let i = match Port::from(p.port) {
                Port::Control => 0,
                Port::Civ => 1,
                Port::Audio => 2,
            };
            if let Err(e) = self.socks[i].send_to(&p.bytes, p.addr) {
                log::debug!("simulator: send to {}: {e}", p.addr);
            }
        }
    }

    /// Runs one command; false means shut down.
    fn command(&mut self, cmd: SimCommand, now: Instant) -> bool {
        let mut out = Vec::new();
        match cmd {
            SimCommand::Panel(a) => self.proto.panel(a, now, &mut out),
            SimCommand::Faults(f) => {
                self.proto.set_nak(f.nak);
                self.out_line.set_config(f.clone());
                self.in_line.set_config(f);
            }
            SimCommand::Silence(d) => {
                self.out_line.silence_until(now + d);
                self.in_line.silence_until(now + d);
            }
            SimCommand::Restart => self.proto.restart(now),
            SimCommand::KickStreams => self.proto.kick_streams(now, &mut out),
            SimCommand::ClientIds(tx) => {
                let _ = tx.send(self.proto.client_ids());
            }
            SimCommand::Inject(port, bytes) => {
                for addr in self.proto.client_addrs(port) {
                    out.push((port, addr, bytes.clone()));
                }
            }
            SimCommand::Snapshot(tx) => {
                let _ = tx.send(self.proto.rig().snapshot());
            }
            SimCommand::Shutdown => return false,
        }
        self.transmit(out, now);
        true
    }

    fn publish(&mut self) {
        let mut s = self.proto.stats();
        s.faults_out = self.out_line.counters();
        s.faults_in = self.in_line.counters();
        if s != self.published {
            self.published = s;
            *self.shared.lock() = s;
        }
    }
}
