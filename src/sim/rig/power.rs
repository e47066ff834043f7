//! Power (`18`), standby and booting.
//!
//! In standby the radio keeps its LAN side (logins and streams are granted) but its CI-V
//! side sleeps: it sends nothing (no replies, no idles, no sweeps, no audio), except to
//! `18 01`, which switches it on. Like a real IC-9700 / IC-7610 ("the radio won't respond
//! to polls when off"): a controller that connects to a radio in standby hears no CI-V
//! and has to send `18 01` (over LAN without the `FE` padding a serial line needs).
//!
//! With a boot time configured, `18 01` in standby starts booting and is answered `FA`,
//! as is every `18 01` until the radio is up; then it comes up by itself. Without one
//! (the default) `18 01` switches it on at once and is answered `FB`.
//!
//! Going to standby with transceive on, the radio's last words are a `18 00` broadcast
//! (an assumption of this simulator: a controller must not rely on it, a radio already in
//! standby says nothing at all).

use super::SimRig;
use super::codec::Reply;
use crate::wire::civ::cmd::{self, power};

impl SimRig {
    /// `18 [<00|01>]` while on: a bare `18` reads the power state (`18 01`), `18 00`
    /// switches to standby (answered before it sleeps), `18 01` is a no-op.
    pub(super) fn cmd_power(&mut self, data: &[u8]) -> Reply {
        match data {
            [] => Reply::data(cmd::POWER, &[&[power::ON]]),
            [power::OFF] => {
                self.set_power(false);
                Reply::Ack
            }
            [power::ON] => Reply::Ack,
            _ => Reply::Nak,
        }
    }

    /// A frame while in standby (or booting): only `18 01` is heard.
    pub(super) fn standby(&mut self, command: u8, data: &[u8]) -> Reply {
        match (command, data) {
            (cmd::POWER, [power::ON]) => {
                if self.start_power_on() {
                    Reply::Ack
                } else {
                    Reply::Nak
                }
            }
            _ => Reply::Silent,
        }
    }

    /// Switches on from standby: at once (true) or by starting / continuing to boot
    /// (false: the radio comes up when the boot time has passed).
    pub(super) fn start_power_on(&mut self) -> bool {
        if self.state.powered {
            return true;
        }
        if self.cfg.boot_time.is_zero() {
            self.set_power(true);
            return true;
        }
        if self.boot_until.is_none() {
            self.boot_until = Some(self.now.saturating_add(self.cfg.boot_time));
        }
        false
    }

    /// Power on/off. Standby keeps the settings; the transmitter unkeys, CW stops,
    /// queued broadcasts are dropped (then `18 00` is broadcast, see the module doc).
    pub(super) fn set_power(&mut self, on: bool) {
        let was = self.state.powered;
        if on {
            self.state.powered = true;
            return;
        }
        self.boot_until = None;
        if self.tune_until.take().is_some() {
            self.state.tuner = super::commands_tx::TUNER_ON;
        }
        self.set_ptt(false);
        self.pending.clear();
        if was {
            self.announce(None, cmd::POWER, vec![power::OFF]);
        }
        self.state.powered = false;
    }
}
