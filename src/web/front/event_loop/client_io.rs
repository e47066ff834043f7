//! Moving a client's bytes: TLS sniffing, reading into its session, writing its
//! answers, closing.

use std::io::{self, ErrorKind, Read, Write};
use std::time::Instant;

use rustls::ServerConnection;

use super::{Client, LINGER, LINGER_BYTES, Loop};
use crate::net::poll::Ready;

impl Loop {
    pub(super) fn client_ready(&mut self, i: usize, r: Ready, buf: &mut [u8], now: Instant) {
        if r.readable || r.error {
            // reads, then processes and writes
            self.client_read(i, buf, now);
        } else {
            // writes, and lets a held request or a paused response go on
            self.process(i, now);
        }
    }

    /// Looks at the first byte on a TLS port: a handshake starts TLS, anything else is
    /// plain HTTP that gets a redirect. `Ok(false)`: nothing to look at yet.
    pub(super) fn sniff(mut c: Client) -> (Client, io::Result<bool>) {
        let Some(cfg) = c.tls_pending.clone() else {
            return (c, Ok(true));
        };
        let mut first = [0u8; 1];
        match c.transport.tcp().peek(&mut first) {
            Ok(0) => return (c, Err(ErrorKind::UnexpectedEof.into())),
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => return (c, Ok(false)),
            Err(e) => return (c, Err(e)),
        }
        c.tls_pending = None;
        if first[0] != 0x16 {
            c.plain_on_tls = true;
            return (c, Ok(true));
        }
        match ServerConnection::new(cfg) {
            Ok(conn) => {
                c.transport = c.transport.start_tls(conn);
                (c, Ok(true))
            }
            Err(e) => (c, Err(io::Error::other(e))),
        }
    }

    pub(super) fn client_read(&mut self, i: usize, buf: &mut [u8], now: Instant) {
        if self.clients[i]
            .as_ref()
            .is_some_and(|c| c.tls_pending.is_some())
        {
            let Some(c) = self.clients[i].take() else {
                return;
            };
            let (c, sniffed) = Self::sniff(c);
            self.clients[i] = Some(c);
            match sniffed {
                Ok(true) => {}
                Ok(false) => return,
                Err(_) => return self.drop_client(i),
            }
        }
        let Some(c) = self.clients[i].as_mut() else {
            return;
        };
        loop {
            if !c.wants_read() {
                break;
            }
            match c.transport.read(buf) {
                Ok(0) => {
                    if c.closing.is_some() {
                        return self.drop_client(i);
                    }
                    c.session.peer_closed(now);
                    break;
                }
                Ok(n) => match c.closing.as_mut() {
                    Some((_, drained)) => {
                        *drained += n;
                        if *drained > LINGER_BYTES {
                            return self.drop_client(i);
                        }
                    }
                    None => c.session.input(&buf[..n], now),
                },
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => {
                    log::debug!("connection from {}: {e}", c.peer);
                    let _ = c.transport.flush();
                    return self.drop_client(i);
                }
            }
        }
        self.process(i, now);
    }

    /// Writes what is pending; a connection that is closing is half-closed once its
    /// answer is out, and dropped at once if the peer has gone.
    pub(super) fn flush(&mut self, i: usize) {
        let Some(c) = self.clients[i].as_mut() else {
            return;
        };
        let before = c.written;
        while c.written < c.out.len() {
            match c.transport.write(&c.out[c.written..]) {
                Ok(0) => return self.drop_client(i),
                Ok(n) => c.written += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return self.drop_client(i),
            }
        }
        match c.transport.flush() {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            Err(_) => return self.drop_client(i),
        }
        // how long the unsent rest has waited since something last went out
        if c.unsent() == 0 {
            c.write_wait = None;
        } else if c.written > before || c.write_wait.is_none() {
            c.write_wait = Some(Instant::now());
        }
        if c.written == c.out.len() {
            c.out.clear();
            c.written = 0;
            if c.out.capacity() > 64 * 1024 {
                c.out = Vec::new();
            }
            if c.closing.is_some() && !c.shut && !c.transport.wants_write() {
                c.transport.close_write();
                c.shut = true;
            }
        }
    }

    pub(super) fn drop_client(&mut self, i: usize) {
        if let Some(c) = self.clients[i].take() {
            let me = Some((i, c.generation));
            self.backend.queue.retain(|j| j.client != me);
            self.free.push(i);
        }
    }

    pub(super) fn start_closing(&mut self, i: usize, now: Instant) {
        if let Some(c) = self.clients[i].as_mut()
            && c.closing.is_none()
        {
            c.closing = Some((now + LINGER, 0));
        }
    }
}
