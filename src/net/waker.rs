//! Waking a thread that sleeps in [`super::poll::poll`]: an `eventfd(2)` on Linux (a
//! socket pair elsewhere) whose read end is polled. Wakes are coalesced with a flag, so
//! a burst of messages costs one syscall, and a thread that is already awake costs none.
//! An eventfd is a counter in the kernel: a wake is one 8-byte write, a clear one read,
//! without the socket buffer that a socket pair allocates per wake (the scope fan-out
//! wakes every viewer's thread once per sweep, so this is on the hot path).

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The sending half: cheap to clone, safe to call from any thread.
#[derive(Debug, Clone)]
pub struct Waker {
    tx: Arc<Signal>,
    pending: Arc<AtomicBool>,
}

/// The receiving half, owned by the thread that polls.
#[derive(Debug)]
pub struct WakeReceiver {
    rx: Arc<Signal>,
    pending: Arc<AtomicBool>,
}

/// A connected waker pair.
pub fn pair() -> io::Result<(Waker, WakeReceiver)> {
    let (tx, rx) = Signal::new()?;
    let pending = Arc::new(AtomicBool::new(false));
    Ok((
        Waker {
            tx,
            pending: pending.clone(),
        },
        WakeReceiver { rx, pending },
    ))
}

impl Waker {
    /// Wakes the receiving thread (no-op if a wake is already pending).
    pub fn wake(&self) {
        if !self.pending.swap(true, Ordering::AcqRel) {
            self.tx.raise();
        }
    }
}

/// A channel's sending half that wakes the receiving thread after each send: for a
/// thread that sleeps in [`super::poll::poll`] and drains the channel when woken.
#[derive(Debug)]
pub struct WakingSender<T> {
    tx: crossbeam_channel::Sender<T>,
    waker: Waker,
}

impl<T> Clone for WakingSender<T> {
    fn clone(&self) -> Self {
        WakingSender {
            tx: self.tx.clone(),
            waker: self.waker.clone(),
        }
    }
}

/// An unbounded channel whose sends wake `waker`'s thread.
pub fn waking_channel<T>(waker: Waker) -> (WakingSender<T>, crossbeam_channel::Receiver<T>) {
    let (tx, rx) = crossbeam_channel::unbounded();
    (WakingSender { tx, waker }, rx)
}

impl<T> WakingSender<T> {
    /// Sends `item` and wakes the receiving thread; false if the receiver is gone.
    pub fn send(&self, item: T) -> bool {
        let sent = self.tx.send(item).is_ok();
        if sent {
            self.waker.wake();
        }
        sent
    }
}

impl WakeReceiver {
    /// The descriptor to poll for readability.
    pub fn fd(&self) -> RawFd {
        self.rx.read_fd()
    }

    /// Clears the wake; call before draining the queues the wake was about.
    ///
    /// The signal is emptied *before* the flag is reset: the other order could swallow
    /// the signal of a wake that set the flag just after the reset, leaving the flag set
    /// with nothing to poll, and every later wake would then be skipped. In this order a
    /// wake racing with `clear` at worst leaves one spare wake-up.
    pub fn clear(&mut self) {
        self.rx.lower();
        self.pending.store(false, Ordering::Release);
    }
}

/// The kernel object that makes a descriptor readable.
#[cfg(target_os = "linux")]
#[derive(Debug)]
struct Signal {
    fd: std::os::fd::OwnedFd,
}

#[cfg(target_os = "linux")]
impl Signal {
    fn new() -> io::Result<(Arc<Signal>, Arc<Signal>)> {
        use std::os::fd::FromRawFd;
        // SAFETY: eventfd takes no pointers; a non-negative result is a new descriptor
        // that nothing else owns
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just created and is owned here only
        let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
        let s = Arc::new(Signal { fd });
        Ok((s.clone(), s))
    }

    fn raise(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to a descriptor this value owns. A full
        // counter (EAGAIN) means a wake is pending already: nothing to do.
        let _ = unsafe {
            libc::write(
                self.fd.as_raw_fd(),
                (&one as *const u64).cast::<libc::c_void>(),
                8,
            )
        };
    }

    fn lower(&self) {
        let mut n: u64 = 0;
        // SAFETY: reads at most 8 bytes into a live u64. One read resets the counter;
        // EAGAIN means it was zero.
        let _ = unsafe {
            libc::read(
                self.fd.as_raw_fd(),
                (&mut n as *mut u64).cast::<libc::c_void>(),
                8,
            )
        };
    }

    fn read_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// The kernel object that makes a descriptor readable: a non-blocking socket pair.
#[cfg(not(target_os = "linux"))]
#[derive(Debug)]
struct Signal {
    tx: std::os::unix::net::UnixStream,
    rx: std::os::unix::net::UnixStream,
}

#[cfg(not(target_os = "linux"))]
impl Signal {
    fn new() -> io::Result<(Arc<Signal>, Arc<Signal>)> {
        let (tx, rx) = std::os::unix::net::UnixStream::pair()?;
        tx.set_nonblocking(true)?;
        rx.set_nonblocking(true)?;
        let s = Arc::new(Signal { tx, rx });
        Ok((s.clone(), s))
    }

    fn raise(&self) {
        use std::io::Write;
        // a full buffer means a wake byte is already queued: nothing to do
        let _ = (&self.tx).write(&[1]);
    }

    fn lower(&self) {
        use std::io::Read;
        let mut buf = [0u8; 64];
        while let Ok(n) = (&self.rx).read(&mut buf) {
            if n < buf.len() {
                break;
            }
        }
    }

    fn read_fd(&self) -> RawFd {
        self.rx.as_raw_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::poll::{Interest, poll};
    use std::time::{Duration, Instant};

    #[test]
    fn no_wake_is_lost_under_contention() {
        // producers and a consumer hammer the waker; every message must be seen promptly
        let (w, mut r) = pair().unwrap();
        let (tx, rx) = crossbeam_channel::unbounded::<u32>();
        let producers: Vec<_> = (0..4)
            .map(|p| {
                let (w, tx) = (w.clone(), tx.clone());
                std::thread::spawn(move || {
                    for i in 0..5000u32 {
                        tx.send(p * 10_000 + i).unwrap();
                        w.wake();
                    }
                })
            })
            .collect();
        let mut seen = 0;
        while seen < 20_000 {
            let ready = poll(
                &[Interest::read(r.fd())],
                Some(Instant::now() + Duration::from_secs(2)),
            )
            .unwrap();
            assert!(ready[0].readable, "a wake was lost after {seen} messages");
            r.clear();
            seen += rx.try_iter().count();
        }
        for p in producers {
            p.join().unwrap();
        }
    }

    #[test]
    fn wake_interrupts_poll_and_coalesces() {
        let (w, mut r) = pair().unwrap();
        let deadline = Instant::now() + Duration::from_millis(50);
        let ready = poll(&[Interest::read(r.fd())], Some(deadline)).unwrap();
        assert!(!ready[0].readable, "nothing before a wake");
        for _ in 0..100 {
            w.wake();
        }
        let ready = poll(&[Interest::read(r.fd())], None).unwrap();
        assert!(ready[0].readable);
        r.clear();
        let ready = poll(&[Interest::read(r.fd())], Some(Instant::now())).unwrap();
        assert!(!ready[0].readable, "one clear drains all coalesced wakes");
        w.wake();
        let ready = poll(&[Interest::read(r.fd())], Some(Instant::now())).unwrap();
        assert!(ready[0].readable, "a new wake after clear is seen");
    }

    #[test]
    fn a_waking_send_wakes_the_receiver_and_reports_a_closed_channel() {
        let (w, mut r) = pair().unwrap();
        let (tx, rx) = waking_channel::<u8>(w);
        let idle = poll(&[Interest::read(r.fd())], Some(Instant::now())).unwrap();
        assert!(!idle[0].readable);
        assert!(tx.send(7));
        let ready = poll(&[Interest::read(r.fd())], Some(Instant::now())).unwrap();
        assert!(ready[0].readable, "the send woke the receiving thread");
        r.clear();
        assert_eq!(rx.try_recv(), Ok(7));
        drop(rx);
        assert!(!tx.send(8), "nobody receives any more");
        let ready = poll(&[Interest::read(r.fd())], Some(Instant::now())).unwrap();
        assert!(!ready[0].readable, "a send that failed wakes nobody");
    }
}
