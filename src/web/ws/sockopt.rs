//! Socket settings of the WebSocket clients and the watch on what the kernel has not
//! sent yet (a stream client is backed up while that reaches its channel's limit).

use std::os::fd::RawFd;
use std::time::{Duration, Instant};

use crate::util::sockopt::set_int;

/// `SO_SNDBUF`.
pub fn set_send_buffer(fd: RawFd, bytes: usize) {
    set_int(fd, libc::SOL_SOCKET, libc::SO_SNDBUF, "SO_SNDBUF", bytes);
}

/// `TCP_NOTSENT_LOWAT`: `POLLOUT` only while less than `bytes` wait unsent.
pub fn set_notsent_lowat(fd: RawFd, bytes: usize) {
    set_int(
        fd,
        libc::IPPROTO_TCP,
        libc::TCP_NOTSENT_LOWAT,
        "TCP_NOTSENT_LOWAT",
        bytes,
    );
}

/// Bytes written to the socket that the kernel has not sent yet.
pub fn unsent_bytes(fd: RawFd) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: SIOCOUTQNSD writes one c_int through the pointer; the fd is open.
    let rc = unsafe { libc::ioctl(fd, libc::SIOCOUTQNSD, &mut n as *mut libc::c_int) };
    if rc != 0 { 0 } else { n.max(0) as usize }
}

/// How often the unsent bytes are looked at while the kernel has sent everything
/// (while it has not, after every write).
pub const UNSENT_CHECK: Duration = Duration::from_millis(50);

/// Whether a stream socket is backed up: at least `limit` bytes unsent. Looked at after
/// every write while something was left unsent, else at most every [`UNSENT_CHECK`]
/// (one `ioctl` each).
#[derive(Debug, Clone)]
pub struct UnsentWatch {
    limit: usize,
    seen: bool,
    next: Instant,
}

impl UnsentWatch {
    /// A watch for `limit` bytes.
    pub fn new(limit: usize) -> UnsentWatch {
        UnsentWatch {
            limit,
            seen: false,
            next: Instant::now(),
        }
    }

    /// After a write at `now`: true if `fd` is backed up.
    pub fn backed_up(&mut self, fd: RawFd, now: Instant) -> bool {
        if !self.seen && now < self.next {
            return false;
        }
        let n = unsent_bytes(fd);
        self.seen = n > 0;
        self.next = now + UNSENT_CHECK;
        n >= self.limit
    }
}
