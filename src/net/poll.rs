//! A thin, safe wrapper around `poll(2)`: wait until one of a few sockets is readable
//! (or writable), a waker fires, or a deadline passes. No busy polling anywhere.

use std::io;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

/// What to wait for on one descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interest {
    /// The descriptor.
    pub fd: RawFd,
    /// Wake when readable.
    pub read: bool,
    /// Wake when writable.
    pub write: bool,
}

impl Interest {
    /// Readable interest on `fd`.
    pub fn read(fd: RawFd) -> Interest {
        Interest {
            fd,
            read: true,
            write: false,
        }
    }
}

/// Readiness of one descriptor after [`poll`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ready {
    /// Data (or EOF) can be read.
    pub readable: bool,
    /// Data can be written.
    pub writable: bool,
    /// Error or hang-up.
    pub error: bool,
}

/// Waits until one interest is ready or `deadline` passes (`None`: wait forever).
/// Returns one [`Ready`] per interest (all false on timeout). EINTR is retried.
pub fn poll(interests: &[Interest], deadline: Option<Instant>) -> io::Result<Vec<Ready>> {
    let mut fds: Vec<libc::pollfd> = interests
        .iter()
        .map(|i| libc::pollfd {
            fd: i.fd,
            events: (if i.read { libc::POLLIN } else { 0 })
                | (if i.write { libc::POLLOUT } else { 0 }),
            revents: 0,
        })
        .collect();
    loop {
        let timeout_ms: libc::c_int = match deadline {
            None => -1,
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                // round up so that we never wake just before the deadline and spin
                let ms = left.as_nanos().div_ceil(1_000_000);
                ms.min(i32::MAX as u128) as libc::c_int
            }
        };
        // SAFETY: `fds` is a valid, initialised array of `fds.len()` pollfd structs that
        // lives for the duration of the call.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
        if n < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        return Ok(fds
            .iter()
            .map(|f| Ready {
                readable: f.revents & (libc::POLLIN | libc::POLLHUP) != 0,
                writable: f.revents & libc::POLLOUT != 0,
                error: f.revents & (libc::POLLERR | libc::POLLNVAL) != 0,
            })
            .collect());
    }
}

/// The earliest of two optional deadlines.
pub fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// A deadline `d` from now.
pub fn after(d: Duration) -> Instant {
    Instant::now() + d
}
