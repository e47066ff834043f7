//! Stream frames written by the thread that produced them: when a stream client's own
//! thread is asleep with nothing of its own left to write, the producer (the link's
//! CI-V thread for sweeps, its audio thread for RX audio, the executor for meter
//! readings) writes the client's frame straight to its
//! socket — one non-blocking `writev` — instead of queueing it and waking the client's
//! thread for it (a wake-up and a `poll` per frame and client saved: with 32 scope
//! viewers at 30 fps, 960 thread wake-ups a second).
//!
//! The client's thread holds the lock for as long as it is awake, so the two never
//! interleave; a producer that finds it held, the socket not open for it (something
//! of the thread's own is unwritten, the client is backed up or closing, TLS) or the
//! kernel's buffer full, leaves the frame to the queue as before. A frame the kernel
//! took only part of is finished by the client's thread (it is woken for that) before
//! anything else. A producer never blocks: it only ever `try_lock`s and writes without
//! waiting.

use std::io;
use std::os::fd::RawFd;
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Mutex, MutexGuard};

use super::sockopt::UnsentWatch;
use crate::net::waker::Waker;
use crate::web::stream_stats::LatencyHistogram;

/// What the client's thread shares with the producers.
#[derive(Debug)]
pub struct DirectState {
    /// The socket (-1 once the connection is gone).
    pub(super) fd: RawFd,
    /// Producers may write: everything of the thread's own is written, the client is
    /// not backed up, the socket not closing.
    pub(super) open: bool,
    /// The rest of a frame a producer could write only partly: written first.
    pub(super) pending: Vec<u8>,
    /// The channel's unsent limit.
    pub(super) unsent: Option<UnsentWatch>,
}

/// See the module docs.
#[derive(Debug)]
pub struct Direct {
    state: Mutex<DirectState>,
    waker: Waker,
}

/// What became of a frame offered to [`Direct::send`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// Written whole, at this instant.
    Written(Instant),
    /// Written in part; the client's thread writes the rest.
    Taken,
    /// Not written: queue it.
    No,
}

/// The header of an unmasked binary WebSocket message of `len` bytes.
fn header(len: usize, out: &mut [u8; 10]) -> usize {
    out[0] = 0x82;
    if len < 126 {
        out[1] = len as u8;
        2
    } else if len <= usize::from(u16::MAX) {
        out[1] = 126;
        out[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        4
    } else {
        out[1] = 127;
        out[2..10].copy_from_slice(&(len as u64).to_be_bytes());
        10
    }
}

impl Direct {
    /// Direct writing to `fd` (a plain TCP socket), waking the client's thread through
    /// `waker` when it has to take over. Closed until the thread opens it.
    pub fn new(fd: RawFd, waker: Waker) -> Arc<Direct> {
        Arc::new(Direct {
            state: Mutex::new(DirectState {
                fd,
                open: false,
                pending: Vec::new(),
                unsent: None,
            }),
            waker,
        })
    }

    /// The client's thread: held while it is awake.
    pub(super) fn lock(&self) -> MutexGuard<'_, DirectState> {
        self.state.lock()
    }

    /// A producer: writes one binary message of `parts` (at most 4) now, if it can.
    pub fn send(&self, parts: &[&[u8]]) -> Sent {
        let Some(mut st) = self.state.try_lock() else {
            return Sent::No;
        };
        if !st.open || st.fd < 0 || parts.len() > 4 {
            return Sent::No;
        }
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let mut hdr = [0u8; 10];
        let h = header(len, &mut hdr);
        let mut iov = [libc::iovec {
            iov_base: std::ptr::null_mut(),
            iov_len: 0,
        }; 5];
        iov[0] = libc::iovec {
            iov_base: hdr.as_mut_ptr().cast(),
            iov_len: h,
        };
        for (v, p) in iov[1..].iter_mut().zip(parts) {
            *v = libc::iovec {
                iov_base: p.as_ptr() as *mut libc::c_void,
                iov_len: p.len(),
            };
        }
        // SAFETY: the iovecs point into `hdr` and `parts`, alive for the call; the fd
        // is open while the state says so (the client's thread sets it to -1 under this
        // lock before closing it).
        let n = unsafe { libc::writev(st.fd, iov.as_ptr(), (parts.len() + 1) as libc::c_int) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::WouldBlock {
                log::debug!("direct write: {e}");
            }
            // backed up, or broken: the client's thread finds out which
            st.open = false;
            drop(st);
            self.waker.wake();
            return Sent::No;
        }
        let n = n as usize;
        let total = h + len;
        if n < total {
            // the rest goes before anything else, by the client's thread
            let mut skip = n;
            for part in std::iter::once(&hdr[..h]).chain(parts.iter().copied()) {
                let from = skip.min(part.len());
                st.pending.extend_from_slice(&part[from..]);
                skip -= from;
            }
            st.open = false;
            drop(st);
            self.waker.wake();
            return Sent::Taken;
        }
        let now = Instant::now();
        let fd = st.fd;
        if st.unsent.as_mut().is_some_and(|u| u.backed_up(fd, now)) {
            st.open = false;
            drop(st);
            self.waker.wake();
        }
        Sent::Written(now)
    }
}

/// A tap's direct hook ([`crate::hub::TapDirect`]) delivering `parts` through `d`:
/// true if it took the frame; a frame written whole counts its latency since `since`
/// in `latency`.
pub fn deliver(d: &Direct, parts: &[&[u8]], since: Instant, latency: &LatencyHistogram) -> bool {
    match d.send(parts) {
        Sent::Written(now) => {
            latency.record(now.saturating_duration_since(since));
            true
        }
        Sent::Taken => true,
        Sent::No => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::fd::AsRawFd;

    fn pair() -> (
        std::os::unix::net::UnixStream,
        std::os::unix::net::UnixStream,
    ) {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        (a, b)
    }

    #[test]
    fn headers_of_the_three_lengths() {
        let mut h = [0u8; 10];
        assert_eq!((header(5, &mut h), &h[..2]), (2, &[0x82, 5][..]));
        assert_eq!(
            (header(705, &mut h), &h[..4]),
            (4, &[0x82, 126, 0x02, 0xC1][..])
        );
        assert_eq!(header(70_000, &mut h), 10);
        assert_eq!(&h[..10], &[0x82, 127, 0, 0, 0, 0, 0, 1, 0x11, 0x70]);
    }

    #[test]
    fn writes_only_while_open_and_unlocked() {
        let (a, mut b) = pair();
        let (waker, _rx) = crate::net::waker::pair().unwrap();
        let d = Direct::new(a.as_raw_fd(), waker);
        assert_eq!(
            d.send(&[b"xy"]),
            Sent::No,
            "closed until the thread opens it"
        );
        d.lock().open = true;
        {
            let _held = d.lock();
            assert_eq!(d.send(&[b"xy"]), Sent::No, "the thread is awake");
        }
        assert!(matches!(d.send(&[b"ab", b"c"]), Sent::Written(_)));
        let mut got = [0u8; 5];
        b.read_exact(&mut got).unwrap();
        assert_eq!(got, [0x82, 3, b'a', b'b', b'c']);
        d.lock().fd = -1;
        assert_eq!(d.send(&[b"x"]), Sent::No, "gone");
    }

    #[test]
    fn a_full_socket_hands_over_the_rest() {
        let (a, mut b) = pair();
        let (waker, _rx) = crate::net::waker::pair().unwrap();
        let d = Direct::new(a.as_raw_fd(), waker);
        d.lock().open = true;
        let big = vec![7u8; 60_000];
        let mut sent = 0;
        let outcome = loop {
            match d.send(&[&big[..1_000], &big[1_000..]]) {
                Sent::Written(_) => sent += 1,
                other => break other,
            }
            assert!(sent < 1_000, "the socket never filled");
        };
        let st = d.lock();
        assert!(!st.open, "the thread takes over");
        match outcome {
            Sent::Taken => assert!(!st.pending.is_empty() && st.pending.len() < 60_004),
            Sent::No => assert!(st.pending.is_empty()),
            Sent::Written(_) => unreachable!(),
        }
        drop(st);
        assert_eq!(d.send(&[b"x"]), Sent::No);
        let mut first = [0u8; 4];
        b.read_exact(&mut first).unwrap();
        assert_eq!(first, [0x82, 126, 0xEA, 0x60], "whole frames first");
    }
}
