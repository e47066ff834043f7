//! Keeps tiny_http accepting connections for as long as the server runs.
//!
//! tiny_http's accept thread ends for good on the first error `accept(2)` returns (its
//! upstream issue #283): `ECONNABORTED` from a client that left the queue, `EMFILE`
//! under a connection flood, and the listener's own receive timeout. That timeout is
//! the one we want on every accepted socket (idle keep-alive connections, half-sent
//! requests and stalled bodies release their thread), and Linux only lets accepted
//! sockets inherit it from the listener, where it also bounds how long `accept(2)`
//! waits: after any quiet spell of that length the accept thread ends. It also panics,
//! without a word to the server, when duplicating an accepted socket fails (`EMFILE`).
//!
//! [`Intake`] owns the listening socket and runs one tiny_http acceptor at a time on a
//! duplicate of it. A pump thread per acceptor forwards its requests into one bounded
//! channel that the worker pool reads. An acceptor is replaced
//! * when its pump receives the accept error (at once for the timeout, after a short
//!   pause for other errors, so a flood cannot make it spin), or
//! * when the watchdog, which sleeps in `poll(2)` on the listening socket and so wakes
//!   only when a client is waiting, finds that the acceptor's duplicate of the socket
//!   is gone (its thread ended without a word).
//!
//! A replaced acceptor's pump keeps forwarding the requests of its open connections
//! until none has arrived for `quiet`; by then they have all timed out. The listening
//! socket stays open throughout, so clients wait in its backlog and are never refused.

use std::io::{self, ErrorKind};
use std::net::TcpListener;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded};
use parking_lot::Mutex;
use tiny_http::{Request, Server};

use crate::net::poll::{Interest, poll};
use crate::net::waker::{self, WakeReceiver, Waker};

/// Requests forwarded to the workers and not yet taken.
const QUEUE: usize = 64;
/// Pause before replacing an acceptor that failed for a reason other than the receive
/// timeout; doubles up to [`MAX_PAUSE`] while a new one cannot be started.
const ERROR_PAUSE: Duration = Duration::from_millis(100);
const MAX_PAUSE: Duration = Duration::from_secs(1);
/// The watchdog's rest after a waiting client, so that a busy queue never makes it spin.
const WATCH_REST: Duration = Duration::from_millis(50);

/// The tiny_http acceptors, their pumps and the watchdog.
pub struct Intake {
    shared: Arc<Shared>,
}

struct Shared {
    listener: TcpListener,
    /// (device, inode) of the listening socket, which its duplicates share.
    identity: (u64, u64),
    quiet: Duration,
    live: Mutex<Registry>,
    stopping: AtomicBool,
    /// Acceptors started so far (the first included).
    generations: AtomicU64,
    watchdog: Waker,
}

#[derive(Default)]
struct Registry {
    current: Option<Acceptor>,
    /// Replaced acceptors whose pumps still forward requests.
    replaced: Vec<Arc<Server>>,
    threads: Vec<JoinHandle<()>>,
}

struct Acceptor {
    generation: u64,
    /// The acceptor's duplicate of the listening socket.
    fd: RawFd,
    server: Arc<Server>,
}

/// Why an acceptor is replaced.
enum Cause {
    /// Its accept thread reported this error.
    Failed(io::Error),
    /// Its accept thread ended without reporting.
    Vanished,
}

impl Intake {
    /// Starts the first acceptor and the watchdog on `listener`; requests arrive on the
    /// returned channel. `quiet` is how long a replaced acceptor's connections may stay
    /// silent before its pump ends (longer than the sockets' receive timeout plus the
    /// slowest handler).
    pub fn start(
        listener: TcpListener,
        quiet: Duration,
    ) -> io::Result<(Intake, Receiver<Request>)> {
        let (tx, rx) = bounded(QUEUE);
        let (waker, wake_rx) = waker::pair()?;
        let shared = Arc::new(Shared {
            identity: identity(listener.as_raw_fd()).ok_or_else(io::Error::last_os_error)?,
            listener,
            quiet,
            live: Mutex::new(Registry::default()),
            stopping: AtomicBool::new(false),
            generations: AtomicU64::new(0),
            watchdog: waker,
        });
        {
            let mut live = shared.live.lock();
            Shared::launch(&shared, &mut live, tx.clone())?;
            let s = shared.clone();
            let watchdog = std::thread::Builder::new()
                .name("http-watchdog".into())
                .spawn(move || s.watch(wake_rx, &tx))?;
            live.threads.push(watchdog);
        }
        Ok((Intake { shared }, rx))
    }

    /// How many acceptors have been started, the first included.
    pub fn generations(&self) -> u64 {
        self.shared.generations.load(Ordering::Relaxed)
    }

    /// Stops every acceptor, the pumps and the watchdog; the request channel then
    /// disconnects once the workers have taken what was queued.
    pub fn stop(&self) {
        let threads = {
            let mut live = self.shared.live.lock();
            self.shared.stopping.store(true, Ordering::SeqCst);
            if let Some(a) = &live.current {
                a.server.unblock();
            }
            for s in &live.replaced {
                s.unblock();
            }
            std::mem::take(&mut live.threads)
        };
        self.shared.watchdog.wake();
        for t in threads {
            let _ = t.join();
        }
        let mut live = self.shared.live.lock();
        live.current = None;
        live.replaced.clear();
    }
}

impl Drop for Intake {
    fn drop(&mut self) {
        self.stop();
    }
}

/// (device, inode) of the open file behind `fd`, if it is open.
fn identity(fd: RawFd) -> Option<(u64, u64)> {
    // SAFETY: fstat writes into a zeroed stat of the right type; a closed or foreign
    // descriptor only makes it fail or describe another file.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    (unsafe { libc::fstat(fd, &mut st) } == 0).then_some((st.st_dev, st.st_ino))
}

impl Shared {
    fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Starts an acceptor on a duplicate of the listener, and its pump, as the current
    /// one (under the registry lock; nothing starts once stopping).
    fn launch(shared: &Arc<Shared>, live: &mut Registry, tx: Sender<Request>) -> io::Result<()> {
        if shared.stopping() {
            return Ok(());
        }
        let copy = shared.listener.try_clone()?;
        let fd = copy.as_raw_fd();
        let server = Arc::new(Server::from_listener(copy, None).map_err(io::Error::other)?);
        let generation = shared.generations.fetch_add(1, Ordering::Relaxed) + 1;
        let (s, srv) = (shared.clone(), server.clone());
        let pump = std::thread::Builder::new()
            .name(format!("http-intake-{generation}"))
            .spawn(move || s.pump(generation, &srv, &tx))?;
        if let Some(old) = live.current.replace(Acceptor {
            generation,
            fd,
            server,
        }) {
            live.replaced.push(old.server);
        }
        live.threads.retain(|t| !t.is_finished());
        live.threads.push(pump);
        Ok(())
    }

    /// Replaces acceptor `generation` if it is still the current one.
    fn replace(self: &Arc<Shared>, generation: u64, cause: Cause, tx: &Sender<Request>) {
        let mut pause = match &cause {
            Cause::Failed(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                log::trace!("http acceptor {generation} idle for the receive timeout");
                Duration::ZERO
            }
            Cause::Failed(e) => {
                log::warn!("http accept failed ({e}); accepting again");
                ERROR_PAUSE
            }
            Cause::Vanished => {
                log::warn!("http acceptor {generation} ended unexpectedly; accepting again");
                ERROR_PAUSE
            }
        };
        loop {
            std::thread::sleep(pause);
            let mut live = self.live.lock();
            if self.stopping() || live.current.as_ref().map(|a| a.generation) != Some(generation) {
                return;
            }
            let old = live.current.as_ref().map(|a| a.server.clone());
            match Shared::launch(self, &mut live, tx.clone()) {
                Ok(()) => {
                    if let (Cause::Vanished, Some(old)) = (&cause, old) {
                        // its pump may be waiting for a word that will not come
                        old.unblock();
                    }
                    return;
                }
                Err(e) => log::warn!("http acceptor could not start ({e}); retrying"),
            }
            pause = (pause * 2).clamp(ERROR_PAUSE, MAX_PAUSE);
        }
    }

    fn pump(self: &Arc<Shared>, generation: u64, server: &Arc<Server>, tx: &Sender<Request>) {
        loop {
            match server.recv() {
                Ok(req) => {
                    if tx.send(req).is_err() {
                        return;
                    }
                }
                Err(e) => {
                    if self.stopping() {
                        return;
                    }
                    self.replace(generation, Cause::Failed(e), tx);
                    break;
                }
            }
        }
        self.drain(server, tx);
        self.live
            .lock()
            .replaced
            .retain(|s| !Arc::ptr_eq(s, server));
    }

    /// Forwards the requests of a replaced acceptor's open connections until they have
    /// been silent for `quiet`.
    fn drain(&self, server: &Server, tx: &Sender<Request>) {
        let mut last = Instant::now();
        loop {
            let left = self.quiet.saturating_sub(last.elapsed());
            if left.is_zero() || self.stopping() {
                return;
            }
            match server.recv_timeout(left) {
                Ok(Some(req)) => {
                    if tx.send(req).is_err() {
                        return;
                    }
                    last = Instant::now();
                }
                // the quiet time is up, or an unblock (on stop, or from a replacement)
                Ok(None) => {}
                Err(e) => log::debug!("http acceptor (replaced): {e}"),
            }
        }
    }

    /// Sleeps until a client waits on the listening socket, then checks that the current
    /// acceptor is still there to take it.
    fn watch(self: &Arc<Shared>, mut wake: WakeReceiver, tx: &Sender<Request>) {
        let interests = [
            Interest::read(self.listener.as_raw_fd()),
            Interest::read(wake.fd()),
        ];
        loop {
            let ready = match poll(&interests, None) {
                Ok(r) => r,
                Err(e) => {
                    log::warn!("http watchdog: {e}");
                    std::thread::sleep(MAX_PAUSE);
                    continue;
                }
            };
            if self.stopping() {
                return;
            }
            if ready[1].readable {
                wake.clear();
            }
            if ready[0].readable {
                let current = self
                    .live
                    .lock()
                    .current
                    .as_ref()
                    .map(|a| (a.generation, a.fd));
                if let Some((generation, fd)) = current
                    && identity(fd) != Some(self.identity)
                {
                    self.replace(generation, Cause::Vanished, tx);
                }
                std::thread::sleep(WATCH_REST);
            }
        }
    }
}
