//! Login (client → radio, 0x80 bytes) and login response (radio → client, 0x60 bytes),
//! spec §2.3 and §2.5.

use super::auth::AuthPrefix;
use super::credentials;
use super::header::Header;
use super::ptype;
use crate::wire::{Result, exact, field};

/// Length of a login datagram.
pub const LOGIN_LEN: usize = 0x80;
/// Length of a login response datagram.
pub const LOGIN_RESPONSE_LEN: usize = 0x60;

/// The login request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginRepr {
    /// Tracked outer seq.
    pub seq: u16,
    /// Client id.
    pub sent_id: u32,
    /// Radio id.
    pub rcvd_id: u32,
    /// Auth inner seq.
    pub inner_seq: u16,
    /// Client-chosen request id (random, non-zero recommended).
    pub tok_request: u16,
    /// Obfuscated user name, zero padded.
    pub username: [u8; 16],
    /// Obfuscated password, zero padded.
    pub password: [u8; 16],
    /// Plain ASCII computer name shown by the radio.
    pub computer_name: String,
}

impl LoginRepr {
    /// A login with the credentials obfuscated as the protocol requires.
    pub fn new(
        ids: (u32, u32),
        seq: u16,
        inner_seq: u16,
        tok_request: u16,
        user: &str,
        password: &str,
        computer_name: &str,
    ) -> LoginRepr {
        LoginRepr {
            seq,
            sent_id: ids.0,
            rcvd_id: ids.1,
            inner_seq,
            tok_request,
            username: credentials::encode(user),
            password: credentials::encode(password),
            computer_name: computer_name.to_string(),
        }
    }

    /// Parses an 0x80-byte login.
    pub fn parse(buf: &[u8]) -> Result<LoginRepr> {
        exact(buf, LOGIN_LEN)?;
        let h = Header::parse(buf)?;
        let p = AuthPrefix::parse(buf)?;
        Ok(LoginRepr {
            seq: h.seq,
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
            inner_seq: p.inner_seq,
            tok_request: p.tok_request,
            username: field::array::<16>(buf, 0x40),
            password: field::array::<16>(buf, 0x50),
            computer_name: field::ascii(buf, 0x60, 16),
        })
    }

    /// The 0x80 bytes of this login.
    pub fn emit(&self) -> Vec<u8> {
        let mut buf = vec![0u8; LOGIN_LEN];
        Header::new(LOGIN_LEN, ptype::DATA, self.seq, self.sent_id, self.rcvd_id).emit(&mut buf);
        AuthPrefix {
            payload_size: (LOGIN_LEN - 0x10) as u32,
            request_reply: 0x01,
            request_type: 0x00,
            inner_seq: self.inner_seq,
            tok_request: self.tok_request,
            token: 0,
            guid: [0; 16],
        }
        .emit(&mut buf);
        buf[0x40..0x50].copy_from_slice(&self.username);
        buf[0x50..0x60].copy_from_slice(&self.password);
        field::put_ascii(&mut buf, 0x60, 16, &self.computer_name);
        buf
    }
}

/// The radio's answer to a login.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginResponseRepr {
    /// Tracked outer seq.
    pub seq: u16,
    /// Radio id.
    pub sent_id: u32,
    /// Client id.
    pub rcvd_id: u32,
    /// Echo of the login's inner seq.
    pub inner_seq: u16,
    /// Echo of the login's request id.
    pub tok_request: u16,
    /// Session token chosen by the radio.
    pub token: u32,
    /// `authstartid` (0x20).
    pub auth_start_id: u16,
    /// 0 = OK, [`super::LOGIN_ERROR_BAD_CREDENTIALS`] = bad user name or password.
    pub error: u32,
    /// Connection type, "FTTH" from real radios, "WFVIEW" from a wfview server.
    pub connection_type: String,
}

impl LoginResponseRepr {
    /// Parses a 0x60-byte login response.
    pub fn parse(buf: &[u8]) -> Result<LoginResponseRepr> {
        exact(buf, LOGIN_RESPONSE_LEN)?;
        let h = Header::parse(buf)?;
        let p = AuthPrefix::parse(buf)?;
        Ok(LoginResponseRepr {
            seq: h.seq,
            sent_id: h.sent_id,
            rcvd_id: h.rcvd_id,
            inner_seq: p.inner_seq,
            tok_request: p.tok_request,
            token: p.token,
            auth_start_id: field::u16le(buf, 0x20),
            error: field::u32le(buf, 0x30),
            connection_type: field::ascii(buf, 0x40, 16),
        })
    }

    /// True when the radio accepted the credentials.
    pub fn is_ok(&self) -> bool {
        self.error == 0
    }

    /// The 0x60 bytes of this response.
    pub fn emit(&self) -> Vec<u8> {
        let mut buf = vec![0u8; LOGIN_RESPONSE_LEN];
        Header::new(
            LOGIN_RESPONSE_LEN,
            ptype::DATA,
            self.seq,
            self.sent_id,
            self.rcvd_id,
        )
        .emit(&mut buf);
        AuthPrefix {
            payload_size: (LOGIN_RESPONSE_LEN - 0x10) as u32,
            request_reply: 0x01,
            request_type: 0x00,
            inner_seq: self.inner_seq,
            tok_request: self.tok_request,
            token: self.token,
            guid: [0; 16],
        }
        .emit(&mut buf);
        field::put_u16le(&mut buf, 0x20, self.auth_start_id);
        field::put_u32le(&mut buf, 0x30, self.error);
        field::put_ascii(&mut buf, 0x40, 16, &self.connection_type);
        buf
    }
}
