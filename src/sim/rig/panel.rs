//! Simulated front-panel operation: tuning, mode changes, receiver selection, PTT,
//! power, sweep rate, and the operating controls (knobs, switches, filter width, DATA
//! mode, split, dual watch, RIT, tuner, scope). Each change a real radio reports comes
//! back as a transceive broadcast (`to 0x00`, see `transceive.rs`) while the radio is on
//! and transceive is enabled: `00` / `01` for the selected receiver's frequency and mode,
//! the read-reply shape for the controls (`14 01 <level>`, `16 12 <agc>`, ...).

use std::time::Duration;

use super::SimRig;
use super::codec::{freq_bytes, to_bcd};
use super::state::Slot;
use crate::profile::VfoScheme;
use crate::wire::civ::cmd;
use crate::wire::civ::{BROADCAST, Frame};

/// A level knob (0..255).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knob {
    /// AF gain (per receiver, `14 01`).
    Af,
    /// RF gain (per receiver, `14 02`).
    RfGain,
    /// Squelch (per receiver, `14 03`).
    Squelch,
    /// Noise-reduction level (per receiver, `14 06`).
    NrLevel,
    /// Noise-blanker level (per receiver, `14 12`).
    NbLevel,
    /// RF output power (`14 0A`).
    RfPower,
    /// Microphone gain (`14 0B`).
    MicGain,
    /// CW key speed (`14 0C`).
    KeySpeed,
    /// Speech-compressor level (`14 0E`).
    CompLevel,
}

/// A switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    /// AGC (per receiver, `16 12`): 1 fast, 2 mid, 3 slow.
    Agc,
    /// Noise blanker (per receiver, `16 22`): 0 off, 1 on.
    Nb,
    /// Noise reduction (per receiver, `16 40`).
    Nr,
    /// Auto notch (per receiver, `16 41`).
    AutoNotch,
    /// Speech compressor (`16 44`).
    Comp,
}

/// What the tuner key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TunerState {
    /// Tuner off.
    Off,
    /// Tuner on (in line, tuned before).
    On,
    /// Start a tune: "tuning" for a while, then on.
    Tune,
}

/// A scope setting of one receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeSetting {
    /// 0 center, 1 fixed, 2 scroll-C, 3 scroll-F.
    Mode(u8),
    /// Half-span of the center modes, Hz (one of the presets).
    HalfSpanHz(u64),
    /// Reference level, tenths of a dB (−300..=100, steps of 5).
    RefTenthsDb(i16),
    /// Sweep speed 0 fast, 1 mid, 2 slow.
    Speed(u8),
    /// Hold.
    Hold(bool),
}

/// A front-panel operation. Values the radio would refuse over CI-V (out of range, not
/// on this model) are ignored.
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
    /// Key or unkey the transmitter (refused outside the bands, like `1C 00 01`). A
    /// PTT keyed here stays keyed when a remote controller's session ends.
    Ptt(bool),
    /// Switch to standby (also cuts a boot short).
    PowerOff,
    /// Switch on (the previous state returns; after the boot time, if one is set).
    PowerOn,
    /// Change the scope sweep rate at "fast", sweeps per second.
    SetSweepRate(f64),
    /// Turn a level knob (0..255) of a receiver (per-receiver knobs; 0 on radios with
    /// one receiver) or of the radio (the receiver is then ignored).
    Level {
        /// Receiver 0 MAIN, 1 SUB.
        receiver: u8,
        /// The knob.
        knob: Knob,
        /// Its new value 0..255.
        value: u16,
    },
    /// Set a switch of a receiver or of the radio.
    Function {
        /// Receiver 0 MAIN, 1 SUB.
        receiver: u8,
        /// The switch.
        switch: Switch,
        /// AGC 1..3, the others 0 off / 1 on.
        value: u8,
    },
    /// Attenuator of a receiver, dB (one of the profile's steps).
    Attenuator {
        /// Receiver 0 MAIN, 1 SUB.
        receiver: u8,
        /// dB.
        db: u8,
    },
    /// Preamp of a receiver (one of the profile's values).
    Preamp {
        /// Receiver 0 MAIN, 1 SUB.
        receiver: u8,
        /// 0 off, 1, 2 (...).
        value: u8,
    },
    /// IF filter width of a receiver's current mode and filter: the nearest step of the
    /// `1A 03` table (ignored in FM).
    FilterWidth {
        /// Receiver 0 MAIN, 1 SUB.
        receiver: u8,
        /// Width, Hz.
        hz: u32,
    },
    /// DATA mode of a receiver's active VFO (0 off, 1..3 D1..D3 as the profile allows).
    DataMode {
        /// Receiver 0 MAIN, 1 SUB.
        receiver: u8,
        /// DATA mode.
        data: u8,
    },
    /// Split on/off.
    Split(bool),
    /// Dual watch on/off (radios with dual watch).
    DualWatch(bool),
    /// RIT on/off.
    RitOn(bool),
    /// RIT offset, Hz (−9999..=9999).
    RitOffset(i16),
    /// The tuner key (radios with a tuner).
    Tuner(TunerState),
    /// A scope setting of a receiver (hardware-scope radios).
    Scope {
        /// Receiver 0 MAIN, 1 SUB.
        receiver: u8,
        /// The setting.
        setting: ScopeSetting,
    },
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
        let allowed_off = matches!(
            action,
            PanelAction::PowerOn | PanelAction::PowerOff | PanelAction::SetSweepRate(_)
        );
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
            PanelAction::SelectReceiver(n) => self.select_on_panel(n),
            PanelAction::Ptt(on) => {
                if self.set_ptt(on) && on {
                    self.state.ptt_from_panel = true;
                }
                Vec::new()
            }
            PanelAction::PowerOff => {
                self.set_power(false);
                // the `18 00` broadcast was queued: it comes out of `poll`
                Vec::new()
            }
            PanelAction::PowerOn => {
                self.start_power_on();
                Vec::new()
            }
            PanelAction::SetSweepRate(hz) => {
                self.set_sweep_rate(hz);
                Vec::new()
            }
            control => self.panel_control(control),
        }
    }

    fn select_on_panel(&mut self, n: u8) -> Vec<Frame> {
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
            out.push(Frame::new(
                BROADCAST,
                addr,
                cmd::FREQ_NO_REPLY,
                &freq_bytes(v.freq_hz),
            ));
        }
        if mode {
            out.push(Frame::new(
                BROADCAST,
                addr,
                cmd::MODE_NO_REPLY,
                &[v.mode, to_bcd(v.filter)],
            ));
        }
        out
    }
}
