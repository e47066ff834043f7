//! Random bytes from the kernel (`getrandom(2)`), for secrets and serial numbers.

use std::time::SystemTime;

/// `N` random bytes from the kernel.
pub fn bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    let mut filled = 0;
    while filled < N {
        // SAFETY: writes at most `N - filled` bytes into the rest of `b`.
        let n = unsafe { libc::getrandom(b[filled..].as_mut_ptr().cast(), N - filled, 0) };
        if n > 0 {
            filled += n as usize;
        } else if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            // no entropy source at all: fall back to the clock (never happens on Linux)
            let t = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos()
                .to_le_bytes();
            for (i, x) in b.iter_mut().enumerate().skip(filled) {
                *x = t[i % t.len()] ^ (i as u8);
            }
            break;
        }
    }
    b
}
