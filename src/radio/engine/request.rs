//! One CI-V request and how its reply is recognised: a set expects ACK (`FB`), a read
//! expects a frame with the same command whose data starts with the request's data
//! (this covers sub-commands, selectors like `25 00`, band codes like `1A 01 05 01`,
//! and command-29 replies `29 <rx> <cmd> ...`). NAK (`FA`) answers both.

use crate::wire::civ::{CONTROLLER, Frame, Receiver};

/// What answer a request waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// `FB` (or `FA`).
    Ack,
    /// A data reply (or `FA`).
    Data,
}

/// A request to the radio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CivRequest {
    /// The frame to send.
    pub frame: Frame,
    /// What answers it.
    pub expect: Expect,
}

/// How a frame relates to a pending request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    /// Not an answer to this request.
    No,
    /// The request succeeded; for reads, this is the reply.
    Ok,
    /// The radio refused (NAK).
    Nak,
}

impl CivRequest {
    /// A set command to radio `addr`: `cmd` + `data`, answered by ACK.
    pub fn set(addr: u8, cmd: u8, data: &[u8]) -> CivRequest {
        CivRequest {
            frame: Frame::new(addr, CONTROLLER, cmd, data),
            expect: Expect::Ack,
        }
    }

    /// A read command to radio `addr`: `cmd` + `data`, answered by data.
    pub fn read(addr: u8, cmd: u8, data: &[u8]) -> CivRequest {
        CivRequest {
            frame: Frame::new(addr, CONTROLLER, cmd, data),
            expect: Expect::Data,
        }
    }

    /// The same request wrapped with the command-29 receiver prefix.
    pub fn for_receiver(&self, receiver: Receiver) -> CivRequest {
        CivRequest {
            frame: self.frame.wrap_receiver(receiver),
            expect: self.expect,
        }
    }

    /// Classifies `reply` (already known to come from the radio to us).
    pub fn matches(&self, reply: &Frame) -> Match {
        if reply.is_nak() {
            return Match::Nak;
        }
        match self.expect {
            Expect::Ack if reply.is_ack() => Match::Ok,
            Expect::Data
                if reply.cmd == self.frame.cmd
                    && reply.data.len() > self.frame.data.len()
                    && reply.data.starts_with(&self.frame.data) =>
            {
                Match::Ok
            }
            _ => Match::No,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(cmd: u8, data: &[u8]) -> Frame {
        Frame::new(CONTROLLER, 0x98, cmd, data)
    }

    #[test]
    fn reads_match_by_command_and_prefix() {
        let r = CivRequest::read(0x98, 0x25, &[0x01]);
        assert_eq!(r.matches(&reply(0x25, &[0x01, 0, 0, 5, 7, 0])), Match::Ok);
        assert_eq!(
            r.matches(&reply(0x25, &[0x00, 0, 0, 5, 7, 0])),
            Match::No,
            "other selector"
        );
        assert_eq!(
            r.matches(&reply(0xFB, &[])),
            Match::No,
            "an ACK is not a read reply"
        );
        assert_eq!(r.matches(&reply(0xFA, &[])), Match::Nak);
        let w = CivRequest::read(0x98, 0x11, &[]).for_receiver(Receiver::Sub);
        assert_eq!(w.matches(&reply(0x29, &[0x01, 0x11, 0x06])), Match::Ok);
        assert_eq!(
            w.matches(&reply(0x29, &[0x00, 0x11, 0x06])),
            Match::No,
            "receiver must match"
        );
        assert_eq!(
            w.matches(&reply(0x11, &[0x06])),
            Match::No,
            "plain reply to a wrapped read"
        );
        let p = CivRequest::read(0x98, 0x18, &[]);
        assert_eq!(p.matches(&reply(0x18, &[0x01])), Match::Ok);
    }

    #[test]
    fn sets_match_ack() {
        let s = CivRequest::set(0x98, 0x05, &[0, 0, 0, 0, 0]);
        assert_eq!(s.matches(&reply(0xFB, &[])), Match::Ok);
        assert_eq!(s.matches(&reply(0x05, &[0, 0, 0, 0, 0])), Match::No);
    }
}
