//! The rigctld listener: accepts connections from allowed addresses (at most
//! [`MAX_CLIENTS`] at once), one thread per connection; shutdown closes every
//! connection (each releases the PTT it owns) and waits for their threads.

use std::collections::HashMap;
use std::io::{self, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::RigctldConfig;
use super::client::Client;
use super::conn;
use super::web_rules::Station;

/// Most connections at once.
pub const MAX_CLIENTS: usize = 32;

type Clients = Arc<Mutex<HashMap<u64, (TcpStream, JoinHandle<()>)>>>;

/// A running rigctld server.
pub struct RigctldServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
    clients: Clients,
}

impl RigctldServer {
    /// Binds `cfg.listen` and starts accepting.
    pub fn start(cfg: &RigctldConfig, station: Station) -> io::Result<RigctldServer> {
        let listener = TcpListener::bind(cfg.listen)
            .map_err(|e| io::Error::new(e.kind(), format!("--rigctld {}: {e}", cfg.listen)))?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let clients: Clients = Arc::default();
        let accept = {
            let (stop, clients, allow) = (stop.clone(), clients.clone(), cfg.allow.clone());
            std::thread::Builder::new()
                .name("rigctld".into())
                .spawn(move || {
                    for conn in listener.incoming() {
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        let stream = match conn {
                            Ok(s) => s,
                            Err(e) => {
                                log::warn!("rigctld accept: {e}");
                                std::thread::sleep(Duration::from_millis(50));
                                continue;
                            }
                        };
                        let Ok(peer) = stream.peer_addr() else {
                            continue;
                        };
                        if !allow.allows(peer.ip()) {
                            log::warn!(
                                "rigctld: refused {peer}: not loopback and not in --rigctld-allow"
                            );
                            continue;
                        }
                        admit(stream, peer, &station, &clients);
                    }
                })?
        };
        let who = if cfg.allow.is_empty() {
            "this machine only".to_string()
        } else {
            format!("this machine and {}", cfg.allow)
        };
        log::info!("rigctld (Hamlib NET rigctl) on {addr}, for {who}; no authentication");
        Ok(RigctldServer {
            addr,
            stop,
            accept: Some(accept),
            clients,
        })
    }

    /// Where the server listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Connections now.
    pub fn clients(&self) -> usize {
        self.clients.lock().len()
    }

    /// Stops accepting, closes every connection and waits for their threads.
    pub fn shutdown(mut self) {
        self.stop_all();
    }

    fn stop_all(&mut self) {
        let Some(accept) = self.accept.take() else {
            return;
        };
        self.stop.store(true, Ordering::SeqCst);
        // wake the accept loop with a connection of our own
        let ip = match self.addr.ip() {
            IpAddr::V4(v) if v.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(v) if v.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        let _ = TcpStream::connect_timeout(
            &SocketAddr::new(ip, self.addr.port()),
            Duration::from_secs(1),
        );
        let _ = accept.join();
        let open: Vec<(u64, (TcpStream, JoinHandle<()>))> = self.clients.lock().drain().collect();
        for (_, (s, _)) in &open {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
        let end = Instant::now() + Duration::from_secs(5);
        for (id, (_, t)) in open {
            while !t.is_finished() && Instant::now() < end {
                std::thread::sleep(Duration::from_millis(5));
            }
            if t.is_finished() {
                let _ = t.join();
            } else {
                log::warn!("rigctld client {id} did not stop in time");
            }
        }
    }
}

impl Drop for RigctldServer {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// Starts the thread of a new connection (or refuses it when the server is full).
fn admit(mut stream: TcpStream, peer: SocketAddr, station: &Station, clients: &Clients) {
    let mut open = clients.lock();
    if open.len() >= MAX_CLIENTS {
        log::warn!("rigctld: refused {peer}: {MAX_CLIENTS} clients are connected already");
        let _ = stream.write_all(b"RPRT -14\n");
        return;
    }
    let Ok(handle) = stream.try_clone() else {
        return;
    };
    let client = Client::new(station.clone(), peer);
    let id = client.id();
    log::info!("rigctld client {id} connected from {peer}");
    let registry = clients.clone();
    let thread = std::thread::Builder::new()
        .name(format!("rigctld-{id}"))
        .spawn(move || {
            conn::serve(stream, client);
            registry.lock().remove(&id);
        });
    match thread {
        Ok(t) => {
            open.insert(id, (handle, t));
        }
        Err(e) => log::error!("rigctld: no thread for {peer}: {e}"),
    }
}
