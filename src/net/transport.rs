//! A client's byte stream as the front door and the WebSocket threads see it: plain TCP
//! or TLS (rustls) over TCP, non-blocking, with the raw descriptor for `poll(2)`.
//!
//! rustls is sans-IO: [`TlsStream`] moves records between its `ServerConnection` and the
//! socket. Reads drive the handshake and return plaintext; writes hand plaintext to
//! rustls and push records to the socket as far as it takes them. Backpressure works as
//! with a plain socket: while records are still waiting for the socket, `write` and
//! `flush` return `WouldBlock`, so the caller waits for `POLLOUT` and at most one
//! write's worth of records is held in rustls.

use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::{AsRawFd, RawFd};

use rustls::ServerConnection;

/// Plain TCP or TLS over TCP.
#[derive(Debug)]
pub enum Transport {
    /// Plain TCP.
    Plain(TcpStream),
    /// TLS over TCP.
    Tls(Box<TlsStream>),
}

/// TLS (server side) over a non-blocking TCP socket.
#[derive(Debug)]
pub struct TlsStream {
    conn: ServerConnection,
    sock: TcpStream,
}

impl TlsStream {
    /// Wraps `sock` (already non-blocking) with a fresh server connection.
    pub fn new(conn: ServerConnection, sock: TcpStream) -> TlsStream {
        TlsStream { conn, sock }
    }

    /// True until the handshake has completed.
    pub fn handshaking(&self) -> bool {
        self.conn.is_handshaking()
    }

    /// True if plaintext already received waits to be read (the socket may be idle).
    fn buffered_input(&mut self) -> bool {
        match self.conn.process_new_packets() {
            Ok(state) => state.plaintext_bytes_to_read() > 0,
            // the next read reports it
            Err(_) => true,
        }
    }

    /// Sends records rustls holds, as far as the socket takes them.
    fn push(&mut self) -> io::Result<()> {
        while self.conn.wants_write() {
            match self.conn.write_tls(&mut self.sock) {
                Ok(0) => return Err(ErrorKind::WriteZero.into()),
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl Read for TlsStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.conn.reader().read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
            match self.conn.read_tls(&mut self.sock) {
                Ok(0) => {
                    // end of the TCP stream: rustls tells a clean close (close_notify,
                    // `Ok(0)`) from a truncated one (`UnexpectedEof`)
                    let _ = self.conn.process_new_packets();
                    return match self.conn.reader().read(buf) {
                        Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(0),
                        other => other,
                    };
                }
                Ok(_) => {
                    let processed = self.conn.process_new_packets();
                    // handshake messages, or the alert for a bad record
                    let pushed = self.push();
                    if let Err(e) = processed {
                        return Err(io::Error::new(ErrorKind::InvalidData, e));
                    }
                    pushed?;
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl Write for TlsStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.push()?;
        if self.conn.wants_write() {
            return Err(ErrorKind::WouldBlock.into());
        }
        let n = self.conn.writer().write(buf)?;
        if n == 0 {
            return Err(ErrorKind::WouldBlock.into());
        }
        self.push()?;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.push()?;
        if self.conn.wants_write() {
            Err(ErrorKind::WouldBlock.into())
        } else {
            Ok(())
        }
    }
}

impl Transport {
    /// The socket.
    pub fn tcp(&self) -> &TcpStream {
        match self {
            Transport::Plain(s) => s,
            Transport::Tls(t) => &t.sock,
        }
    }

    /// The descriptor to poll.
    pub fn fd(&self) -> RawFd {
        self.tcp().as_raw_fd()
    }

    /// Starts TLS (server side) on a plain stream; a TLS stream stays as it is.
    pub fn start_tls(self, conn: ServerConnection) -> Transport {
        match self {
            Transport::Plain(sock) => Transport::Tls(Box::new(TlsStream::new(conn, sock))),
            tls => tls,
        }
    }

    /// True for TLS.
    pub fn is_tls(&self) -> bool {
        matches!(self, Transport::Tls(_))
    }

    /// True if input is waiting that polling the socket would not show: TLS plaintext
    /// rustls decrypted with earlier records but nobody has read yet.
    pub fn buffered_input(&mut self) -> bool {
        match self {
            Transport::Plain(_) => false,
            Transport::Tls(t) => !t.handshaking() && t.buffered_input(),
        }
    }

    /// True while TLS records wait for the socket (poll for writing).
    pub fn wants_write(&self) -> bool {
        match self {
            Transport::Plain(_) => false,
            Transport::Tls(t) => t.conn.wants_write(),
        }
    }

    /// Ends the sending side: TLS `close_notify` (as far as the socket takes it), then a
    /// TCP half-close. Reading stays possible.
    pub fn close_write(&mut self) {
        if let Transport::Tls(t) = self {
            t.conn.send_close_notify();
            let _ = t.push();
        }
        let _ = self.tcp().shutdown(Shutdown::Write);
    }
}

impl Read for Transport {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Transport::Plain(s) => s.read(buf),
            Transport::Tls(t) => t.read(buf),
        }
    }
}

impl Write for Transport {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Transport::Plain(s) => s.write(buf),
            Transport::Tls(t) => t.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Transport::Plain(s) => s.flush(),
            Transport::Tls(t) => t.flush(),
        }
    }
}
