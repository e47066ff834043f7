//! Waiting for SIGINT / SIGTERM without async-signal-safety hazards: the signals are
//! blocked in every thread (call [`block`] first, before spawning) and one thread
//! collects them with `sigwait`.

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
