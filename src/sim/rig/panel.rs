//! Simulated front-panel operation: tuning, mode changes, receiver selection, PTT,
//! power, sweep rate. Changes of the selected receiver/VFO produce CI-V transceive
//! broadcasts (`FE FE 00 <radio> 00 <f×5> FD`, `… 01 <mode> <filter> FD`) while the
//! radio is on and transceive is enabled.

use std::time::Duration;

use super::SimRig;
use super::codec::{freq_bytes, to_bcd};
use super::state::Slot;
use crate::profile::VfoScheme;
use crate::wire::civ::{BROADCAST, Frame};

/// A front-panel operation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PanelAction {
    /// Tune a receiver (MAIN/SUB radios: 0 MAIN, 1 SUB, its active VFO; A/B radios:
    /// 0 VFO A, 1 VFO B). Ignored outside the radio's ranges.
    SetFreq {
        /// Receiver (or VFO on A/B radios).
        receiver: u8,
        /// Frequency, Hz.
        hz: u64,
    },
    /// Change a receiver's mode and filter (CI-V mode code, filter 1..3). Ignored if
    /// the radio does not support them.
    SetMode {
        /// Receiver (or VFO on A/B radios).
        receiver: u8,
        /// Mode (CI-V code).
        mode: u8,
        /// Filter 1..3.
        filter: u8,
    },
    /// Select the receiver (MAIN/SUB radios) or VFO (A/B radios) the operator works on.
    SelectReceiver(u8),
    /// Key or unkey the transmitter (refused outside the bands, like `1C 00 01`).
    Ptt(bool),
    /// Switch to standby.
    PowerOff,
    /// Switch on (the previous state returns).
    PowerOn,
    /// Change the scope sweep rate at "fast", sweeps per second.
    SetSweepRate(f64),
}

impl SimRig {
    /// A front-panel operation at `now`. Returns the transceive broadcasts it causes
    /// (addressed to 0x00), if transceive is on and the radio is powered.
    pub fn panel(&mut self, action: PanelAction, now: Duration) -> Vec<Frame> {
        self.advance(now);
        let out = self.apply_panel(action);
        self.sync_sweeps(now);
        out
    }

    /// Like [`SimRig::panel`], but the broadcasts are queued and come out of
    /// [`SimRig::poll`] at `now` (for a server that only forwards what `poll` returns).
    pub fn queue_panel(&mut self, action: PanelAction, now: Duration) {
        for f in self.panel(action, now) {
            self.queue(now, f);
        }
    }

    fn apply_panel(&mut self, action: PanelAction) -> Vec<Frame> {
        let allowed_off = matches!(action, PanelAction::PowerOn | PanelAction::SetSweepRate(_));
        if !self.state.powered && !allowed_off {
            return Vec::new();
        }
        match action {
            PanelAction::SetFreq { receiver, hz } => {
                let Some(slot) = self.panel_slot(receiver) else {
                    return Vec::new();
                };
                let changed = self.set_slot_freq(slot, hz);
                self.broadcast_if_selected(slot, changed, false)
            }
            PanelAction::SetMode {
                receiver,
                mode,
                filter,
            } => {
                let Some(slot) = self.panel_slot(receiver) else {
                    return Vec::new();
                };
                let changed = self.set_slot_mode(slot, mode, Some(filter), None);
                self.broadcast_if_selected(slot, false, changed)
            }
            PanelAction::SelectReceiver(n) => {
                let main_sub = self.scheme() == VfoScheme::MainSub && self.receivers() == 2;
                if main_sub && n < 2 {
                    self.state.selected_rx = n;
                } else if !main_sub && n < 2 {
                    if let Some(r) = self.state.receivers.get_mut(0) {
                        r.active_vfo = n;
                    }
                } else {
                    return Vec::new();
                }
                let slot = self.state.selected_slot(self.scheme());
                self.broadcast_if_selected(slot, true, true)
            }
            PanelAction::Ptt(on) => {
                self.set_ptt(on);
                Vec::new()
            }
            PanelAction::PowerOff => {
                self.set_power(false);
                Vec::new()
            }
            PanelAction::PowerOn => {
                self.set_power(true);
                Vec::new()
            }
            PanelAction::SetSweepRate(hz) => {
                self.set_sweep_rate(hz);
                Vec::new()
            }
        }
    }

    /// The slot a panel `receiver` number means.
    fn panel_slot(&self, receiver: u8) -> Option<Slot> {
        let r = usize::from(receiver);
        match self.scheme() {
            VfoScheme::MainSub if r < self.receivers() => Some(self.state.rx_slot(r)),
            VfoScheme::Ab if r < 2 => Some(Slot { rx: 0, vfo: r }),
            _ => None,
        }
    }

    /// Transceive frames for a change of `slot`, if it is the selected one.
    fn broadcast_if_selected(&self, slot: Slot, freq: bool, mode: bool) -> Vec<Frame> {
        let mut out = Vec::new();
        if !self.state.transceive
            || !self.state.powered
            || slot != self.state.selected_slot(self.scheme())
        {
            return out;
        }
        let Some(v) = self.state.vfo(slot) else {
            return out;
        };
        let addr = self.civ_addr();
        if freq {
            out.push(Frame::new(BROADCAST, addr, 0x00, &freq_bytes(v.freq_hz)));
        }
        if mode {
            out.push(Frame::new(
                BROADCAST,
                addr,
                0x01,
                &[v.mode, to_bcd(v.filter)],
            ));
        }
        out
    }
}
