//! The operating controls of the front panel, carried out through the same CI-V
//! handlers a controller uses: each control becomes a set command and the matching read
//! for one receiver; a set the radio would NAK is ignored, and a change is broadcast in
//! the shape of the read's reply (so a broadcast and a read never disagree).

use super::codec::{Reply, freq_bytes, level_bytes, to_bcd};
use super::panel::{Knob, PanelAction, ScopeSetting, Switch, TunerState};
use super::transceive::per_receiver;
use super::{SimRig, Target};
use crate::wire::civ::cmd::{self, ext, function, level, rit, scope, tx, vfo};
use crate::wire::civ::index_of_width;
use crate::wire::civ::{Frame, has_sub};

/// A control as CI-V: the receiver, the command, the set and the read data.
struct PanelOp {
    rx: usize,
    command: u8,
    set: Vec<u8>,
    read: Vec<u8>,
}

impl PanelOp {
    fn new(rx: u8, command: u8, set: Vec<u8>, read: Vec<u8>) -> PanelOp {
        PanelOp {
            rx: usize::from(rx),
            command,
            set,
            read,
        }
    }

    /// A transceiver-wide control (receiver 0).
    fn global(command: u8, set: Vec<u8>, read: Vec<u8>) -> PanelOp {
        PanelOp::new(0, command, set, read)
    }
}

impl Knob {
    /// The `14` sub-command.
    fn sub(self) -> u8 {
        match self {
            Knob::Af => level::AF,
            Knob::RfGain => level::RF_GAIN,
            Knob::Squelch => level::SQUELCH,
            Knob::NrLevel => level::NR,
            Knob::NbLevel => level::NB,
            Knob::RfPower => level::RF_POWER,
            Knob::MicGain => level::MIC_GAIN,
            Knob::KeySpeed => level::KEY_SPEED,
            Knob::CompLevel => level::COMP,
        }
    }
}

impl Switch {
    /// The `16` sub-command.
    fn sub(self) -> u8 {
        match self {
            Switch::Agc => function::AGC,
            Switch::Nb => function::NB,
            Switch::Nr => function::NR,
            Switch::AutoNotch => function::AUTO_NOTCH,
            Switch::Comp => function::COMP,
        }
    }
}

impl SimRig {
    /// Carries out an operating control of the panel (see the module doc).
    pub(super) fn panel_control(&mut self, action: PanelAction) -> Vec<Frame> {
        let Some(op) = self.panel_op(action) else {
            return Vec::new();
        };
        let sub = if has_sub(op.command) {
            op.set.first().copied()
        } else {
            None
        };
        let per_rx = per_receiver(op.command, sub);
        if per_rx && op.rx >= self.receivers() {
            return Vec::new();
        }
        let target = Target::Rx(u8::try_from(op.rx).unwrap_or(0));
        let from = self.state.scope.controller;
        let before = self.exec(target, op.command, &op.read, from);
        if self.exec(target, op.command, &op.set, from) != Reply::Ack {
            return Vec::new();
        }
        let after = self.exec(target, op.command, &op.read, from);
        match after {
            Reply::Data(command, data) if after != before => self
                .transceive_frame(per_rx.then_some(op.rx), command, &data)
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The CI-V form of a control.
    fn panel_op(&self, action: PanelAction) -> Option<PanelOp> {
        Some(match action {
            PanelAction::Level {
                receiver,
                knob,
                value,
            } => {
                let sub = knob.sub();
                let set = [&[sub][..], &level_bytes(value)].concat();
                PanelOp::new(receiver, cmd::LEVEL, set, vec![sub])
            }
            PanelAction::Function {
                receiver,
                switch,
                value,
            } => {
                let sub = switch.sub();
                PanelOp::new(receiver, cmd::FUNCTION, vec![sub, to_bcd(value)], vec![sub])
            }
            PanelAction::Attenuator { receiver, db } => {
                PanelOp::new(receiver, cmd::ATTENUATOR, vec![to_bcd(db)], vec![])
            }
            PanelAction::Preamp { receiver, value } => PanelOp::new(
                receiver,
                cmd::FUNCTION,
                vec![function::PREAMP, to_bcd(value)],
                vec![function::PREAMP],
            ),
            PanelAction::FilterWidth { receiver, hz } => {
                let slot = self.state.rx_slot(usize::from(receiver));
                let idx = index_of_width(self.state.vfo(slot)?.mode, hz)?;
                PanelOp::new(
                    receiver,
                    cmd::EXT,
                    vec![ext::FILTER_WIDTH, to_bcd(idx)],
                    vec![ext::FILTER_WIDTH],
                )
            }
            PanelAction::DataMode { receiver, data } => PanelOp::new(
                receiver,
                cmd::EXT,
                vec![ext::DATA_MODE, to_bcd(data)],
                vec![ext::DATA_MODE],
            ),
            PanelAction::Split(on) => PanelOp::global(cmd::SPLIT, vec![u8::from(on)], vec![]),
            PanelAction::DualWatch(on) => {
                let set = if on {
                    vfo::DUAL_WATCH_ON
                } else {
                    vfo::DUAL_WATCH_OFF
                };
                PanelOp::global(cmd::VFO, vec![set], vec![vfo::DUAL_WATCH])
            }
            PanelAction::RitOn(on) => {
                PanelOp::global(cmd::RIT, vec![rit::ON, u8::from(on)], vec![rit::ON])
            }
            PanelAction::RitOffset(hz) => {
                let v = hz.unsigned_abs();
                if v > 9_999 {
                    return None;
                }
                let set = vec![
                    rit::OFFSET,
                    to_bcd((v % 100) as u8),
                    to_bcd((v / 100) as u8),
                    u8::from(hz < 0),
                ];
                PanelOp::global(cmd::RIT, set, vec![rit::OFFSET])
            }
            PanelAction::Tuner(state) => {
                let v = match state {
                    TunerState::Off => super::commands_tx::TUNER_OFF,
                    TunerState::On => super::commands_tx::TUNER_ON,
                    TunerState::Tune => super::commands_tx::TUNER_TUNING,
                };
                PanelOp::global(cmd::TX, vec![tx::TUNER, v], vec![tx::TUNER])
            }
            PanelAction::Scope { receiver, setting } => {
                let (sub, value): (u8, Vec<u8>) = match setting {
                    ScopeSetting::Mode(m) => (scope::MODE, vec![to_bcd(m)]),
                    ScopeSetting::HalfSpanHz(hz) => (scope::SPAN, freq_bytes(hz).to_vec()),
                    ScopeSetting::RefTenthsDb(t) => (
                        scope::REF_LEVEL,
                        super::commands_scope::ref_bytes(t).to_vec(),
                    ),
                    ScopeSetting::Speed(s) => (scope::SPEED, vec![to_bcd(s)]),
                    ScopeSetting::Hold(on) => (scope::HOLD, vec![u8::from(on)]),
                };
                let set = [&[sub, receiver][..], &value].concat();
                PanelOp::global(cmd::SCOPE, set, vec![sub, receiver])
            }
            _ => return None,
        })
    }
}
