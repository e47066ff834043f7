//! Pure byte layouts, no I/O.
//!
//! * [`lan`]: the Icom LAN UDP packets (control, ping, retransmit, login, token,
//!   capabilities, conninfo, status, CI-V data, OpenClose, audio).
//! * [`civ`]: CI-V frames, BCD encodings, the mode table and command 29 wrapping.
//! * [`web`]: the binary WebSocket frames of the web interface (scope, meters, audio).
//!
//! Every parser takes `&[u8]`, checks lengths once and never panics on any input
//! (each one is fuzzed under `fuzz/`). Multi-byte fields use the byte order the
//! protocol specifies for that field; see the per-packet docs.

pub mod civ;
pub mod lan;
pub mod meter;
pub mod web;

use std::fmt;

/// Why a byte slice could not be parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireError {
    /// Fewer bytes than the layout needs.
    Truncated { needed: usize, got: usize },
    /// The length does not match what the layout allows.
    BadLength { expected: usize, got: usize },
    /// A field holds a value the layout does not allow.
    BadValue(&'static str),
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Truncated { needed, got } => {
                write!(f, "truncated: needed {needed} bytes, got {got}")
            }
            WireError::BadLength { expected, got } => {
                write!(f, "bad length: expected {expected} bytes, got {got}")
            }
            WireError::BadValue(what) => write!(f, "bad value: {what}"),
        }
    }
}

impl std::error::Error for WireError {}

/// Result alias for the wire layer.
pub type Result<T> = std::result::Result<T, WireError>;

/// Fails with [`WireError::Truncated`] unless `buf` holds at least `needed` bytes.
pub(crate) fn need(buf: &[u8], needed: usize) -> Result<()> {
    if buf.len() < needed {
        Err(WireError::Truncated {
            needed,
            got: buf.len(),
        })
    } else {
        Ok(())
    }
}

/// Fails with [`WireError::BadLength`] unless `buf` holds exactly `expected` bytes.
pub(crate) fn exact(buf: &[u8], expected: usize) -> Result<()> {
    if buf.len() != expected {
        Err(WireError::BadLength {
            expected,
            got: buf.len(),
        })
    } else {
        Ok(())
    }
}

/// Little helpers to read and write fixed-offset fields of an already length-checked buffer.
pub(crate) mod field {
    pub fn u16le(b: &[u8], off: usize) -> u16 {
        u16::from_le_bytes([b[off], b[off + 1]])
    }
    pub fn u16be(b: &[u8], off: usize) -> u16 {
        u16::from_be_bytes([b[off], b[off + 1]])
    }
    pub fn u32le(b: &[u8], off: usize) -> u32 {
        u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
    }
    pub fn u32be(b: &[u8], off: usize) -> u32 {
        u32::from_be_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
    }
    pub fn put_u16le(b: &mut [u8], off: usize, v: u16) {
        b[off..off + 2].copy_from_slice(&v.to_le_bytes());
    }
    pub fn put_u16be(b: &mut [u8], off: usize, v: u16) {
        b[off..off + 2].copy_from_slice(&v.to_be_bytes());
    }
    pub fn put_u32le(b: &mut [u8], off: usize, v: u32) {
        b[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }
    pub fn put_u32be(b: &mut [u8], off: usize, v: u32) {
        b[off..off + 4].copy_from_slice(&v.to_be_bytes());
    }
    /// Copies `N` bytes starting at `off`.
    pub fn array<const N: usize>(b: &[u8], off: usize) -> [u8; N] {
        let mut out = [0u8; N];
        out.copy_from_slice(&b[off..off + N]);
        out
    }
    /// Reads a NUL-padded ASCII string field (stops at the first NUL, drops non-printables).
    pub fn ascii(b: &[u8], off: usize, len: usize) -> String {
        b[off..off + len]
            .iter()
            .take_while(|&&c| c != 0)
            .filter(|c| c.is_ascii_graphic() || **c == b' ')
            .map(|&c| c as char)
            .collect()
    }
    /// Writes `s` as a NUL-padded field of `len` bytes (truncated to `len`).
    pub fn put_ascii(b: &mut [u8], off: usize, len: usize, s: &str) {
        let bytes = s.as_bytes();
        let n = bytes.len().min(len);
        b[off..off + n].copy_from_slice(&bytes[..n]);
        for x in &mut b[off + n..off + len] {
            *x = 0;
        }
    }
}
