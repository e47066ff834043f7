//! The thread of one rigctld connection: a thin shell that reads lines from the socket
//! (waking for the client's timers), hands them to its [`Client`] and writes the
//! answers. A vanished peer is noticed by TCP keep-alive within seconds; whatever way
//! the connection ends, the client's close runs (PTT it owns is released).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::client::Client;
use crate::util::sockopt::set_int;

/// Longest line (Hamlib's clients read and write lines of at most 1 KiB).
pub const MAX_LINE: usize = 1024;
/// Longest wait between two looks at the client's timers.
const IDLE: Duration = Duration::from_secs(1);
/// Time a write may take before the peer counts as gone.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// Splits a byte stream into lines (`\n`, with an optional `\r` before it), sans-IO. A
/// line longer than [`MAX_LINE`] is dropped up to its end and reported once.
#[derive(Debug, Default)]
pub struct LineBuffer {
    buf: Vec<u8>,
    skipping: bool,
}

/// What the buffer found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line, without its end.
    Text(Vec<u8>),
    /// A line too long to take (answered `RPRT -1`).
    TooLong,
}

impl LineBuffer {
    /// Adds received bytes; returns the lines they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Line> {
        let mut out = Vec::new();
        for &b in bytes {
            if b == b'\n' {
                if self.skipping {
                    self.skipping = false;
                } else {
                    let mut line = std::mem::take(&mut self.buf);
                    if line.last() == Some(&b'\r') {
                        line.pop();
                    }
                    out.push(Line::Text(line));
                }
                continue;
            }
            if self.skipping {
                continue;
            }
            if self.buf.len() >= MAX_LINE {
                self.buf.clear();
                self.skipping = true;
                out.push(Line::TooLong);
                continue;
            }
            self.buf.push(b);
        }
        out
    }
}

/// Keep-alive probes after 5 s of silence, every 2 s, 3 unanswered: a peer that
/// vanished without closing (power cut, cable) is noticed within ~11 s.
fn set_keepalive(s: &TcpStream) {
    let fd = s.as_raw_fd();
    for (level, name, value) in [
        (libc::SOL_SOCKET, libc::SO_KEEPALIVE, 1),
        (libc::IPPROTO_TCP, libc::TCP_KEEPIDLE, 5),
        (libc::IPPROTO_TCP, libc::TCP_KEEPINTVL, 2),
        (libc::IPPROTO_TCP, libc::TCP_KEEPCNT, 3),
    ] {
        set_int(fd, level, name, "rigctld keep-alive", value);
    }
}

/// Serves one connection until the peer closes, asks to quit, or fails.
pub fn serve(mut stream: TcpStream, mut client: Client) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    set_keepalive(&stream);
    let mut lines = LineBuffer::default();
    let mut chunk = [0u8; 2048];
    'conn: loop {
        let now = Instant::now();
        let wait = client
            .poll_timeout()
            .map_or(IDLE, |t| t.saturating_duration_since(now))
            .clamp(Duration::from_millis(1), IDLE);
        let _ = stream.set_read_timeout(Some(wait));
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                for line in lines.push(&chunk[..n]) {
                    let (out, quit) = match line {
                        Line::Text(l) => client.handle_line(&l),
                        Line::TooLong => ("RPRT -1\n".to_string(), false),
                    };
                    if !out.is_empty() && stream.write_all(out.as_bytes()).is_err() {
                        break 'conn;
                    }
                    if quit {
                        break 'conn;
                    }
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                log::debug!("rigctld client {}: {e}", client.id());
                break;
            }
        }
        client.tick(Instant::now());
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
    client.close();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Line {
        Line::Text(s.as_bytes().to_vec())
    }

    #[test]
    fn lines_in_pieces_and_with_crlf() {
        let mut b = LineBuffer::default();
        assert_eq!(b.push(b"f\nF 1407"), vec![text("f")]);
        assert_eq!(b.push(b"4000\r\nm\n"), vec![text("F 14074000"), text("m")]);
        assert_eq!(b.push(b"\n"), vec![text("")]);
    }

    #[test]
    fn an_overlong_line_is_reported_once_and_skipped() {
        let mut b = LineBuffer::default();
        let long = vec![b'x'; MAX_LINE + 10];
        assert_eq!(b.push(&long), vec![Line::TooLong]);
        assert_eq!(b.push(&long), vec![]);
        assert_eq!(b.push(b"yy\nf\n"), vec![text("f")]);
    }
}
