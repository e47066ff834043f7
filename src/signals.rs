//! Process-level setup: waiting for SIGINT / SIGTERM without async-signal-safety hazards
//! (the signals are blocked in every thread — call [`block`] first, before spawning — and
//! one thread collects them with `sigwait`), and the open-file limit.

use std::io;

fn set() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset initialise and fill a local sigset_t.
    unsafe {
        let mut s: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut s);
        libc::sigaddset(&mut s, libc::SIGINT);
        libc::sigaddset(&mut s, libc::SIGTERM);
        s
    }
}

/// Blocks SIGINT and SIGTERM in the calling thread (threads spawned later inherit it).
pub fn block() -> io::Result<()> {
    let s = set();
    // SAFETY: `s` is a valid signal set; the old mask is not needed.
    let rc = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &s, std::ptr::null_mut()) };
    if rc != 0 {
        return Err(io::Error::from_raw_os_error(rc));
    }
    Ok(())
}

/// Waits for SIGINT or SIGTERM and returns its name.
pub fn wait() -> io::Result<&'static str> {
    let s = set();
    let mut sig: libc::c_int = 0;
    // SAFETY: `s` is a valid signal set and `sig` a valid out-pointer.
    let rc = unsafe { libc::sigwait(&s, &mut sig) };
    if rc != 0 {
        return Err(io::Error::from_raw_os_error(rc));
    }
    Ok(if sig == libc::SIGINT {
        "SIGINT"
    } else {
        "SIGTERM"
    })
}

/// Raises the soft limit of open files to the hard limit (at most 65536): every client
/// costs a few descriptors, and 1024 is easily reached by a busy server.
pub fn raise_fd_limit() {
    // SAFETY: getrlimit/setrlimit with a valid, initialised rlimit struct.
    unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) != 0 {
            return;
        }
        let want = r.rlim_max.min(65_536);
        if r.rlim_cur < want {
            r.rlim_cur = want;
            if libc::setrlimit(libc::RLIMIT_NOFILE, &r) != 0 {
                log::debug!(
                    "raising the open-file limit failed: {}",
                    std::io::Error::last_os_error()
                );
            }
        }
    }
}
