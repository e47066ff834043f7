//! Waking a thread that sleeps in [`super::poll::poll`]: a socket pair whose read end
//! is polled. Wakes are coalesced with a flag, so a burst of messages costs one
//! syscall, and a thread that is already awake costs none.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The sending half: cheap to clone, safe to call from any thread.
#[derive(Debug, Clone)]
pub struct Waker {
    tx: Arc<UnixStream>,
    pending: Arc<AtomicBool>,
}

/// The receiving half, owned by the thread that polls.
#[derive(Debug)]
pub struct WakeReceiver {
    rx: UnixStream,
    pending: Arc<AtomicBool>,
}

/// A connected waker pair.
pub fn pair() -> io::Result<(Waker, WakeReceiver)> {
    let (tx, rx) = UnixStream::pair()?;
    tx.set_nonblocking(true)?;
    rx.set_nonblocking(true)?;
    let pending = Arc::new(AtomicBool::new(false));
    Ok((
        Waker {
            tx: Arc::new(tx),
            pending: pending.clone(),
        },
        WakeReceiver { rx, pending },
    ))
}

impl Waker {
    /// Wakes the receiving thread (no-op if a wake is already pending).
    pub fn wake(&self) {
        if !self.pending.swap(true, Ordering::AcqRel) {
            // A full buffer means a wake byte is already queued: nothing to do.
            let _ = (&*self.tx).write(&[1]);
        }
    }
}

impl WakeReceiver {
    /// The descriptor to poll for readability.
    pub fn fd(&self) -> RawFd {
        self.rx.as_raw_fd()
    }

    /// Clears the wake; call before draining the queues the wake was about.
    ///
    /// The pipe is emptied *before* the flag is reset: the other order could swallow the
    /// byte of a wake that set the flag just after the reset, leaving the flag set with
    /// an empty pipe, and every later wake would then be skipped. In this order a wake
    /// racing with `clear` at worst leaves one extra byte (one spare wake-up).
    pub fn clear(&mut self) {
        let mut buf = [0u8; 64];
        while let Ok(n) = self.rx.read(&mut buf) {
            if n == 0 {
                break;
            }
        }
        self.pending.store(false, Ordering::Release);
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
}
