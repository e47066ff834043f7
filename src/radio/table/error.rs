//! The one error vocabulary of commands (decisions.md "Command errors"), shared by the
//! WebSocket `response` and any HTTP command route.

use std::fmt;

/// Machine-readable error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The message was not valid JSON (or not an object).
    InvalidJson,
    /// A parameter is missing, of the wrong type or out of range.
    InvalidParam,
    /// No command has that name.
    UnknownCommand,
    /// The radio's profile lacks the capability.
    NotSupported,
    /// The radio is not connected, not ready or powered off.
    RadioUnavailable,
    /// The radio answered NAK.
    RadioRejected,
    /// The radio did not answer in time.
    RadioTimeout,
    /// Another client holds PTT.
    PttBusy,
    /// The command queue is full.
    RadioBusy,
    /// TX audio without a confirmed PTT.
    PttRequired,
    /// A secret (such as `hello.session`) did not prove who the client is.
    Forbidden,
}

impl ErrorCode {
    /// The code as sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::InvalidParam => "invalid_param",
            ErrorCode::UnknownCommand => "unknown_command",
            ErrorCode::NotSupported => "not_supported",
            ErrorCode::RadioUnavailable => "radio_unavailable",
            ErrorCode::RadioRejected => "radio_rejected",
            ErrorCode::RadioTimeout => "radio_timeout",
            ErrorCode::PttBusy => "ptt_busy",
            ErrorCode::RadioBusy => "radio_busy",
            ErrorCode::PttRequired => "ptt_required",
            ErrorCode::Forbidden => "forbidden",
        }
    }
}

/// A failed command: a code and a message that says what to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandError {
    /// The code.
    pub code: ErrorCode,
    /// Human-readable explanation.
    pub message: String,
}

impl CommandError {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> CommandError {
        CommandError {
            code,
            message: message.into(),
        }
    }

    /// `invalid_param` for `field`.
    pub fn param(field: &str, message: impl fmt::Display) -> CommandError {
        CommandError::new(ErrorCode::InvalidParam, format!("{field}: {message}"))
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for CommandError {}
