//! Integer socket options (`setsockopt` with a `c_int`), for the few settings std does
//! not expose (buffer sizes, `TCP_NOTSENT_LOWAT`, keep-alive timing).

use std::io;
use std::os::fd::RawFd;

/// Sets integer option `name` at `level` on `fd` to `value` (clamped to `c_int`); a
/// refusal is logged at debug level under `what`, not fatal: these options tune, they
/// do not make a socket work.
pub fn set_int(fd: RawFd, level: libc::c_int, name: libc::c_int, what: &str, value: usize) {
    let v = value.min(i32::MAX as usize) as libc::c_int;
    // SAFETY: `v` is a valid c_int and its size is passed; the fd is open.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            &v as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        log::debug!("{what}: {}", io::Error::last_os_error());
    }
}
