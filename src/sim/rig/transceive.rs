//! Transceive broadcasts: with CI-V transceive on, the radio reports a change of its
//! state to every controller, unasked, as a frame to 0x00 shaped like the reply to the
//! matching read (`FE FE 00 <radio> 14 01 <level> FD`).
//!
//! A setting of one receiver (AF gain, AGC, filter width, ...) is sent with the receiver
//! prefix (`29 <rx> …`) where the profile routes that command through command 29
//! (IC-7610), so that it is never mistaken for the other receiver's; on a radio without
//! that route it is sent plain, and only when it is the selected receiver's (a change of
//! the unselected receiver of an IC-9700 is not reported: a plain frame would read as the
//! selected one's).
//!
//! Frames caused by a front-panel action are returned by [`SimRig::panel`]; those caused
//! by a CI-V command (`00` / `01`) or by time (a tune ending) are queued and come out of
//! [`SimRig::poll`].

use super::SimRig;
use super::state::{FUNCTIONS, RX_LEVELS};
use crate::wire::civ::cmd::{self, ext, function};
use crate::wire::civ::{BROADCAST, Frame, Receiver, has_sub};

/// True if `(command, sub)` is a setting of one receiver (not of the transceiver).
pub(super) fn per_receiver(command: u8, sub: Option<u8>) -> bool {
    match (command, sub) {
        (cmd::ATTENUATOR | cmd::ANTENNA | cmd::TONE, _) => true,
        (cmd::LEVEL, Some(s)) => RX_LEVELS.iter().any(|l| l.0 == s),
        (cmd::FUNCTION, Some(function::PREAMP)) => true,
        (cmd::FUNCTION, Some(s)) => FUNCTIONS.iter().any(|f| f.0 == s && f.1),
        (cmd::EXT, Some(ext::FILTER_WIDTH | ext::AGC_TIME | ext::AF_MUTE | ext::DATA_MODE)) => true,
        _ => false,
    }
}

impl SimRig {
    /// The broadcast of `command data` (shaped like a read reply) about receiver `rx`
    /// (`None`: a transceiver-wide setting), if transceive is on and the radio powered.
    pub(super) fn transceive_frame(
        &self,
        rx: Option<usize>,
        command: u8,
        data: &[u8],
    ) -> Option<Frame> {
        if !self.state.transceive || !self.state.powered {
            return None;
        }
        let plain = Frame::new(BROADCAST, self.civ_addr(), command, data);
        let Some(rx) = rx else {
            return Some(plain);
        };
        let sub = if has_sub(command) {
            data.first().copied()
        } else {
            None
        };
        if self.profile.uses_cmd29(command, sub) {
            let r = u8::try_from(rx).ok().and_then(Receiver::from_code)?;
            Some(plain.wrap_receiver(r))
        } else if rx == self.state.selected_slot(self.scheme()).rx {
            Some(plain)
        } else {
            None
        }
    }

    /// Queues the broadcast of `command data` about receiver `rx` for [`SimRig::poll`]
    /// (now).
    pub(super) fn announce(&mut self, rx: Option<usize>, command: u8, data: Vec<u8>) {
        if let Some(f) = self.transceive_frame(rx, command, &data) {
            let now = self.now;
            self.queue(now, f);
        }
    }
}
