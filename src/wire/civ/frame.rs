//! CI-V frames and the scanner that splits a LAN payload into frames (spec §4.1, §4.2).

use super::{ACK, CMD_RECEIVER_PREFIX, NAK, PREAMBLE, Receiver, TERMINATOR};
use crate::wire::{Result, WireError};

/// Longest frame accepted (a 689-pixel scope sweep is 711 bytes).
pub const MAX_FRAME_LEN: usize = 1024;

/// Commands whose first data byte is a sub-command (for matching replies).
pub fn has_sub(cmd: u8) -> bool {
    matches!(
        cmd,
        0x12 | 0x14 | 0x15 | 0x16 | 0x19 | 0x1A | 0x1B | 0x1C | 0x1E | 0x21 | 0x27
    )
}

/// One CI-V frame. `data` holds every byte after `cmd` (sub-command included), without `FD`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Destination address.
    pub to: u8,
    /// Source address.
    pub from: u8,
    /// Command byte.
    pub cmd: u8,
    /// Sub-command and data bytes.
    pub data: Vec<u8>,
}

impl Frame {
    /// A frame from its parts.
    pub fn new(to: u8, from: u8, cmd: u8, data: &[u8]) -> Frame {
        Frame {
            to,
            from,
            cmd,
            data: data.to_vec(),
        }
    }

    /// Parses exactly one frame `FE FE to from cmd … FD` (extra leading `FE`s allowed).
    pub fn parse(buf: &[u8]) -> Result<Frame> {
        let mut it = split_frames(buf);
        let first = it.next().ok_or(WireError::BadValue("no CI-V frame"))??;
        if it.next().is_some() {
            return Err(WireError::BadValue("more than one CI-V frame"));
        }
        Ok(first)
    }

    /// The bytes of this frame.
    pub fn emit(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(6 + self.data.len());
        out.extend_from_slice(&[PREAMBLE, PREAMBLE, self.to, self.from, self.cmd]);
        out.extend_from_slice(&self.data);
        out.push(TERMINATOR);
        out
    }

    /// True for an ACK (`FB`).
    pub fn is_ack(&self) -> bool {
        self.cmd == ACK && self.data.is_empty()
    }

    /// True for a NAK (`FA`).
    pub fn is_nak(&self) -> bool {
        self.cmd == NAK && self.data.is_empty()
    }

    /// The sub-command, for commands that have one.
    pub fn sub(&self) -> Option<u8> {
        if has_sub(self.cmd) {
            self.data.first().copied()
        } else {
            None
        }
    }

    /// The data after the sub-command (or all data for commands without one).
    pub fn payload(&self) -> &[u8] {
        if has_sub(self.cmd) && !self.data.is_empty() {
            &self.data[1..]
        } else {
            &self.data
        }
    }

    /// For a command-29 frame `29 <rx> <cmd> <data…>`: the receiver and the inner frame.
    pub fn unwrap_receiver(&self) -> Option<(Receiver, Frame)> {
        if self.cmd != CMD_RECEIVER_PREFIX || self.data.len() < 2 {
            return None;
        }
        let rx = Receiver::from_code(self.data[0])?;
        Some((
            rx,
            Frame {
                to: self.to,
                from: self.from,
                cmd: self.data[1],
                data: self.data[2..].to_vec(),
            },
        ))
    }

    /// Wraps this frame's command in a command-29 prefix for `receiver`.
    pub fn wrap_receiver(&self, receiver: Receiver) -> Frame {
        let mut data = Vec::with_capacity(self.data.len() + 2);
        data.push(receiver.code());
        data.push(self.cmd);
        data.extend_from_slice(&self.data);
        Frame {
            to: self.to,
            from: self.from,
            cmd: CMD_RECEIVER_PREFIX,
            data,
        }
    }
}

/// Iterator over the frames of a payload; see [`split_frames`].
pub struct FrameIter<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// Splits a CI-V payload into frames. Bytes before a preamble are skipped; each
/// `FE FE … FD` run yields `Ok(frame)` or, when it is shorter than 6 bytes, longer than
/// [`MAX_FRAME_LEN`] or never terminated, `Err`.
pub fn split_frames(buf: &[u8]) -> FrameIter<'_> {
    FrameIter { buf, pos: 0 }
}

impl Iterator for FrameIter<'_> {
    type Item = Result<Frame>;

    fn next(&mut self) -> Option<Result<Frame>> {
        let buf = self.buf;
        // find "FE FE"
        let mut i = self.pos;
        loop {
            if i + 1 >= buf.len() {
                self.pos = buf.len();
                return None;
            }
            if buf[i] == PREAMBLE && buf[i + 1] == PREAMBLE {
                break;
            }
            i += 1;
        }
        // skip the preamble and any padding FEs
        let mut start = i + 2;
        while start < buf.len() && buf[start] == PREAMBLE {
            start += 1;
        }
        let end = match buf[start..].iter().position(|&b| b == TERMINATOR) {
            Some(off) => start + off,
            None => {
                self.pos = buf.len();
                return Some(Err(WireError::BadValue("CI-V frame without terminator")));
            }
        };
        self.pos = end + 1;
        let body = &buf[start..end];
        if body.len() < 3 {
            return Some(Err(WireError::BadValue("CI-V frame too short")));
        }
        if body.len() + 3 > MAX_FRAME_LEN {
            return Some(Err(WireError::BadValue("CI-V frame too long")));
        }
        Some(Ok(Frame {
            to: body[0],
            from: body[1],
            cmd: body[2],
            data: body[3..].to_vec(),
        }))
    }
}
