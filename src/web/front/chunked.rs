//! `Transfer-Encoding: chunked` as a pure, incremental decoder: fed bytes as they
//! arrive, it says how many it used, appends the data to a buffer and tells when the
//! body (trailers included) has ended. Used for request bodies (which the front door
//! buffers whole, within a limit) and to find the end of a chunked response.

use super::reply::Refusal;

/// Longest chunk-size line or trailer line.
const MAX_LINE: usize = 1024;
/// Most trailer bytes in all.
const MAX_TRAILERS: usize = 8 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading a chunk-size line.
    Size,
    /// This many data bytes are left in the chunk.
    Data(u64),
    /// The CRLF after a chunk's data.
    DataEnd,
    /// Trailer lines up to the empty line.
    Trailers,
    /// The body has ended.
    Done,
}

/// See the module docs.
#[derive(Debug, Clone)]
pub struct ChunkedDecoder {
    state: State,
    line: Vec<u8>,
    trailer_bytes: usize,
}

impl Default for ChunkedDecoder {
    fn default() -> Self {
        ChunkedDecoder {
            state: State::Size,
            line: Vec::new(),
            trailer_bytes: 0,
        }
    }
}

fn bad(message: impl Into<String>) -> Refusal {
    Refusal::new(400, "bad_request", message)
}

impl ChunkedDecoder {
    /// True once the last chunk and the trailers have been read.
    pub fn done(&self) -> bool {
        self.state == State::Done
    }

    /// Decodes from `input`, appending data to `out` (when given); returns how many
    /// bytes of `input` belong to the body. Stops at the end of the body.
    pub fn feed(&mut self, input: &[u8], mut out: Option<&mut Vec<u8>>) -> Result<usize, Refusal> {
        let mut i = 0;
        while i < input.len() && self.state != State::Done {
            match self.state {
                State::Size | State::Trailers | State::DataEnd => {
                    let b = input[i];
                    i += 1;
                    self.line.push(b);
                    if self.line.len() > MAX_LINE {
                        return Err(bad("a chunk line is too long"));
                    }
                    if b == b'\n' {
                        let line = std::mem::take(&mut self.line);
                        self.line_done(&line)?;
                    }
                }
                State::Data(left) => {
                    let n = (left.min((input.len() - i) as u64)) as usize;
                    if let Some(o) = out.as_deref_mut() {
                        o.extend_from_slice(&input[i..i + n]);
                    }
                    i += n;
                    self.state = if left == n as u64 {
                        State::DataEnd
                    } else {
                        State::Data(left - n as u64)
                    };
                }
                State::Done => {}
            }
        }
        Ok(i)
    }

    fn line_done(&mut self, line: &[u8]) -> Result<(), Refusal> {
        let Some(text) = line.strip_suffix(b"\r\n") else {
            return Err(bad("a chunk line ends in a bare LF"));
        };
        match self.state {
            State::DataEnd => {
                if !text.is_empty() {
                    return Err(bad("chunk data is longer than its size"));
                }
                self.state = State::Size;
            }
            State::Size => {
                let size = text.split(|&b| b == b';').next().unwrap_or(&[]);
                let size = std::str::from_utf8(size)
                    .ok()
                    .map(str::trim)
                    .filter(|s| !s.is_empty() && s.len() <= 15)
                    .and_then(|s| u64::from_str_radix(s, 16).ok())
                    .ok_or_else(|| bad("invalid chunk size"))?;
                self.state = if size == 0 {
                    State::Trailers
                } else {
                    State::Data(size)
                };
            }
            State::Trailers => {
                self.trailer_bytes += line.len();
                if self.trailer_bytes > MAX_TRAILERS {
                    return Err(bad("chunked trailers are too long"));
                }
                if text.is_empty() {
                    self.state = State::Done;
                }
            }
            State::Data(_) | State::Done => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(input: &[u8], piece: usize) -> Result<(Vec<u8>, usize), Refusal> {
        let mut d = ChunkedDecoder::default();
        let mut out = Vec::new();
        let mut used = 0;
        for chunk in input.chunks(piece) {
            let n = d.feed(chunk, Some(&mut out))?;
            used += n;
            if d.done() {
                return Ok((out, used));
            }
            assert_eq!(n, chunk.len());
        }
        Err(bad("incomplete"))
    }

    #[test]
    fn decodes_whole_and_in_pieces() {
        let body =
            b"4\r\nWiki\r\n6;ext=1\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\nX-T: 1\r\n\r\nNEXT";
        for piece in [1, 2, 3, 7, body.len()] {
            let (out, used) = decode_in_pieces(body, piece).unwrap();
            assert_eq!(out, b"Wikipedia in \r\n\r\nchunks.");
            assert_eq!(used, body.len() - 4, "stops before the next request");
        }
    }

    #[test]
    fn refuses_malformed_chunks() {
        for bad_body in [
            &b"x\r\n"[..],
            b"\r\n",
            b"4\nWiki\r\n0\r\n\r\n",
            b"2\r\nabc\r\n0\r\n\r\n",
            b"ffffffffffffffffff\r\n",
        ] {
            assert!(decode_in_pieces(bad_body, 1).is_err(), "{bad_body:?}");
        }
        let long = vec![b'1'; 2000];
        assert!(decode_in_pieces(&long, 100).is_err());
    }
}
