//! `hello.session`: a secret per control connection (128 bits from the operating
//! system's CSPRNG, 32 lower-case hex characters) that proves on other channels that a
//! client is that control client (today: TX audio on `/api/v1/audio`). It is never
//! logged, compared in constant time and forgotten when the control socket closes.

use parking_lot::Mutex;

use crate::util::constant_time_eq;

/// Bytes of a session secret.
pub const SESSION_BYTES: usize = 16;

/// 16 bytes from the kernel's CSPRNG (`getrandom(2)`, `/dev/urandom` as a fallback).
pub fn random_bytes() -> std::io::Result<[u8; SESSION_BYTES]> {
    let mut buf = [0u8; SESSION_BYTES];
    // SAFETY: the buffer is valid for `len` bytes.
    let n = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) };
    if n == buf.len() as isize {
        return Ok(buf);
    }
    use std::io::Read;
    std::fs::File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The sessions of the connected control clients.
#[derive(Default)]
pub struct SessionRegistry {
    sessions: Mutex<Vec<(u64, String)>>,
}

impl SessionRegistry {
    /// A new session for control client `client`.
    pub fn open(&self, client: u64) -> std::io::Result<String> {
        let secret = hex(&random_bytes()?);
        let mut s = self.sessions.lock();
        s.retain(|(c, _)| *c != client);
        s.push((client, secret.clone()));
        Ok(secret)
    }

    /// Forgets client `client`'s session.
    pub fn close(&self, client: u64) {
        self.sessions.lock().retain(|(c, _)| *c != client);
    }

    /// The control client whose session is `secret`. Every session is compared, each in
    /// constant time.
    pub fn client_of(&self, secret: &str) -> Option<u64> {
        let mut found = None;
        for (c, s) in self.sessions.lock().iter() {
            if constant_time_eq(s.as_bytes(), secret.as_bytes()) {
                found = Some(*c);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_random_hex_and_forgotten_on_close() {
        let r = SessionRegistry::default();
        let a = r.open(1).unwrap();
        let b = r.open(2).unwrap();
        assert_eq!(a.len(), 32);
        assert!(
            a.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(a, b);
        assert_eq!(r.client_of(&a), Some(1));
        assert_eq!(r.client_of(&b), Some(2));
        assert_eq!(r.client_of(&a[..31]), None);
        assert_eq!(r.client_of(""), None);
        r.close(1);
        assert_eq!(r.client_of(&a), None);
        assert_ne!(random_bytes().unwrap(), random_bytes().unwrap());
    }
}
