//! `/api/v1/bridge`: the audio bridge's status record (`GET`), start (`POST`) and stop
//! (`DELETE`), both idempotent. A refusal is a JSON error: 409 when the bridge is in
//! the middle of the opposite change, the device is busy or the radio has no audio;
//! 503 when the device or the ALSA library is missing.

use super::context::AppCtx;
use super::response::{self, Reply};
use crate::bridge::{BridgeError, BridgeErrorKind};

/// The HTTP status and error code of a refused start or stop.
pub fn status_of(kind: BridgeErrorKind) -> (u16, &'static str) {
    match kind {
        BridgeErrorKind::AlsaMissing => (503, "alsa_unavailable"),
        BridgeErrorKind::DeviceNotFound => (503, "device_not_found"),
        BridgeErrorKind::DeviceBusy => (409, "device_busy"),
        BridgeErrorKind::Device => (503, "device_error"),
        BridgeErrorKind::NotSupported => (409, "not_supported"),
        BridgeErrorKind::Conflict => (409, "bridge_busy"),
    }
}

fn refused(e: &BridgeError) -> Reply {
    let (status, code) = status_of(e.kind);
    response::error(status, code, e.message.clone())
}

/// What a request to `/api/v1/bridge` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BridgeRequest {
    /// `GET`: the status record.
    Status,
    /// `POST`: start (idempotent).
    Start,
    /// `DELETE`: stop (idempotent).
    Stop,
}

/// `GET`, `POST` or `DELETE /api/v1/bridge`.
pub fn bridge(app: &AppCtx, request: BridgeRequest) -> Reply {
    let Some(b) = app.bridge.get() else {
        return response::error(
            404,
            "service_off",
            "the audio bridge does not run in this server",
        );
    };
    let result = match request {
        BridgeRequest::Start => b.start(),
        BridgeRequest::Stop => b.stop(),
        BridgeRequest::Status => Ok(b.status()),
    };
    match result {
        Ok(s) => response::json(200, &s.to_json()),
        Err(e) => refused(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_have_a_status_and_a_code() {
        assert_eq!(
            status_of(BridgeErrorKind::DeviceNotFound),
            (503, "device_not_found")
        );
        assert_eq!(status_of(BridgeErrorKind::DeviceBusy), (409, "device_busy"));
        assert_eq!(status_of(BridgeErrorKind::Conflict), (409, "bridge_busy"));
    }
}
