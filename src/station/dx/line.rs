//! Bytes from a cluster node to lines: telnet commands (IAC ...) taken out, CR and NUL
//! dropped, LF ends a line. Memory is bounded: a line longer than [`MAX_LINE`] is
//! dropped whole (up to its LF), never buffered. What follows the last LF stays pending:
//! a prompt such as DXSpider's `login: ` comes without a newline.

/// The longest line kept, in bytes.
pub const MAX_LINE: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Telnet {
    Data,
    /// After IAC.
    Command,
    /// After IAC WILL/WONT/DO/DONT: one option byte follows.
    Option,
    /// Inside a subnegotiation (IAC SB ... IAC SE).
    Sub,
    /// IAC inside a subnegotiation.
    SubIac,
}

const IAC: u8 = 0xFF;
const SB: u8 = 250;
const SE: u8 = 240;

/// See the module docs.
#[derive(Debug)]
pub struct LineSplitter {
    buf: Vec<u8>,
    discarding: bool,
    telnet: Telnet,
    dropped: u64,
}

impl Default for LineSplitter {
    fn default() -> Self {
        LineSplitter {
            buf: Vec::with_capacity(256),
            discarding: false,
            telnet: Telnet::Data,
            dropped: 0,
        }
    }
}

impl LineSplitter {
    /// Takes `bytes`; `line` is called with every completed line (without CR/LF).
    pub fn push(&mut self, bytes: &[u8], mut line: impl FnMut(&[u8])) {
        for &b in bytes {
            let Some(b) = self.telnet_filter(b) else {
                continue;
            };
            match b {
                b'\n' => {
                    if !self.discarding {
                        line(&self.buf);
                    }
                    self.buf.clear();
                    self.discarding = false;
                }
                b'\r' | 0 => {}
                _ if self.discarding => {}
                _ if self.buf.len() >= MAX_LINE => {
                    self.buf.clear();
                    self.discarding = true;
                    self.dropped += 1;
                }
                _ => self.buf.push(b),
            }
        }
        if self.buf.capacity() > MAX_LINE * 2 {
            self.buf.shrink_to(MAX_LINE);
        }
    }

    /// The data after the last LF (a prompt waiting for an answer), empty while a long
    /// line is being dropped.
    pub fn pending(&self) -> &[u8] {
        if self.discarding { &[] } else { &self.buf }
    }

    /// Forgets the pending data (after a prompt was answered).
    pub fn clear_pending(&mut self) {
        self.buf.clear();
    }

    /// Lines dropped for being longer than [`MAX_LINE`].
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Data bytes pass; telnet command sequences are eaten (a doubled IAC is a 0xFF byte).
    fn telnet_filter(&mut self, b: u8) -> Option<u8> {
        match self.telnet {
            Telnet::Data if b == IAC => {
                self.telnet = Telnet::Command;
                None
            }
            Telnet::Data => Some(b),
            Telnet::Command => {
                self.telnet = match b {
                    IAC => {
                        self.telnet = Telnet::Data;
                        return Some(IAC);
                    }
                    251..=254 => Telnet::Option,
                    SB => Telnet::Sub,
                    _ => Telnet::Data,
                };
                None
            }
            Telnet::Option => {
                self.telnet = Telnet::Data;
                None
            }
            Telnet::Sub => {
                if b == IAC {
                    self.telnet = Telnet::SubIac;
                }
                None
            }
            Telnet::SubIac => {
                self.telnet = if b == SE { Telnet::Data } else { Telnet::Sub };
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> (Vec<Vec<u8>>, LineSplitter) {
        let mut s = LineSplitter::default();
        let mut out = Vec::new();
        for c in chunks {
            s.push(c, |l| out.push(l.to_vec()));
        }
        (out, s)
    }

    #[test]
    fn lines_end_at_lf_across_chunks_and_the_rest_is_pending() {
        let (lines, s) = split(&[b"Hello\r\nDX de K1", b"ABC: 14025.0 X\r", b"\nlogin: "]);
        assert_eq!(
            lines,
            vec![b"Hello".to_vec(), b"DX de K1ABC: 14025.0 X".to_vec()]
        );
        assert_eq!(s.pending(), b"login: ");
    }

    #[test]
    fn telnet_negotiation_is_removed_and_a_doubled_iac_is_data() {
        let (lines, _) = split(&[
            &[
                IAC, 251, 1, b'a', IAC, SB, 24, 1, IAC, SE, b'b', IAC, IAC, b'\n',
            ],
            &[IAC],
            &[253, 3, b'c', b'\n'],
        ]);
        assert_eq!(lines, vec![vec![b'a', b'b', 0xFF], vec![b'c']]);
    }

    #[test]
    fn a_line_over_the_limit_is_dropped_whole_and_memory_stays_bounded() {
        let long = vec![b'x'; 100 * 1024];
        let (lines, s) = split(&[b"before\n", &long, &long, b"tail\nafter\n"]);
        assert_eq!(lines, vec![b"before".to_vec(), b"after".to_vec()]);
        assert_eq!(s.dropped(), 1);
        assert!(s.buf.capacity() <= MAX_LINE * 2);
        let exact = vec![b'y'; MAX_LINE];
        let (lines, _) = split(&[&exact, b"\n"]);
        assert_eq!(lines, vec![exact], "a line of exactly the limit is kept");
        let (_, s) = split(&[&long]);
        assert!(
            s.pending().is_empty(),
            "a long line is never offered as a prompt"
        );
    }
}
