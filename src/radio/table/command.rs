//! Typed radio commands, already validated against the profile.

use crate::radio::table::settings::{Setting, SettingId};
use crate::radio::table::written::Written;
use crate::wire::civ::{Mode, Receiver};
use crate::wire::meter::MeterKind;

/// What a command acts on: a receiver (MAIN/SUB radios) or a VFO (A/B radios).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// A receiver of a MAIN/SUB radio.
    Receiver(Receiver),
    /// VFO 0 = A, 1 = B.
    Vfo(u8),
    /// The selected VFO of an A/B radio, whichever it is (what the dial tunes; the
    /// default of A/B radios, whose selected VFO cannot be read).
    SelectedVfo,
}

impl Target {
    /// The label the web interface uses.
    pub fn label(self) -> &'static str {
        match self {
            Target::Receiver(r) => r.label(),
            Target::Vfo(0) => "A",
            Target::Vfo(_) => "B",
            Target::SelectedVfo => "VFO",
        }
    }

    /// The receiver this target lives on (VFOs are on MAIN).
    pub fn receiver(self) -> Receiver {
        match self {
            Target::Receiver(r) => r,
            Target::Vfo(_) | Target::SelectedVfo => Receiver::Main,
        }
    }
}

/// How a command is rate limited per client (`radio/dispatch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateClass {
    /// A setting (`set_*`): at most one per window per name and target; one that comes
    /// sooner is answered `throttled` at once and the latest value is applied when the
    /// window ends.
    Setting,
    /// An action (`vfo_swap`, `vfo_equalize`, `send_cw`, `ptt true`): at most one per
    /// window per name; every one counts, so one that comes sooner waits its turn and
    /// is answered when it ran.
    Action,
    /// An unkey (`ptt false`, `stop_cw`): ahead of everything, not limited.
    Urgent,
}

impl RateClass {
    /// The name the catalogue uses.
    pub fn as_str(self) -> &'static str {
        match self {
            RateClass::Setting => "setting",
            RateClass::Action => "action",
            RateClass::Urgent => "urgent",
        }
    }
}

/// One value to write: a setting of the table, for a receiver, as a raw value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Write {
    /// The setting.
    pub id: SettingId,
    /// The receiver (ignored for global settings); `None` for a scope setting: the
    /// receiver the scope shows when the write runs.
    pub receiver: Option<Receiver>,
    /// The value as its codec takes it.
    pub raw: i64,
}

impl Write {
    /// The row of the setting.
    pub fn setting(&self) -> &'static Setting {
        Setting::of(self.id)
    }
}

/// A command for the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Write settings of the table (in order); `result` is the command's answer.
    Write {
        /// The VFO the client named (A/B radios: selected first while the radio's
        /// selection is not known).
        vfo: Option<u8>,
        /// The values.
        writes: Vec<Write>,
        /// The answer of a successful command.
        result: Written,
    },
    /// Tune.
    SetFreq {
        /// Receiver or VFO.
        target: Target,
        /// Frequency, Hz.
        hz: u64,
    },
    /// Change mode (and optionally filter).
    SetMode {
        /// Receiver or VFO.
        target: Target,
        /// Mode, supported by the profile.
        mode: Mode,
        /// Filter 1..3, or keep the current one.
        filter: Option<u8>,
    },
    /// Change filter.
    SetFilter {
        /// Receiver or VFO.
        target: Target,
        /// Filter 1..3.
        filter: u8,
    },
    /// Change DATA mode (0 off, 1..3).
    SetDataMode {
        /// Receiver or VFO.
        target: Target,
        /// DATA mode.
        data: u8,
    },
    /// Key or unkey the transmitter.
    Ptt(bool),
    /// Unkey, retried with backoff until the radio confirms (owner gone, shutdown).
    Release,
    /// Swap A/B or MAIN/SUB.
    VfoSwap,
    /// A=B or MAIN=SUB.
    VfoEqualize,
    /// Band change by Band Stack Register code.
    SetBand(u8),
    /// Switch the radio on or off (CI-V 0x18).
    Power(bool),
    /// Turn the radio's scope data output on or off.
    ScopeOutput(bool),
    /// Show both receivers on the scope (CI-V `27 13`), so that SUB sweeps flow too.
    ScopeDual(bool),
    /// Send CW text (ASCII CW characters, at most 30).
    SendCw(String),
    /// Stop sending CW.
    StopCw,
    /// Read meters.
    ReadMeters(Vec<MeterKind>),
    /// Read the MOD input of the current DATA mode (the profile's `[mod_input]` menu
    /// item): `{"data_mode", "value"}`.
    ReadModInput,
    /// Set the MOD input of DATA mode `data_mode` (0 = DATA OFF) to `value`.
    SetModInput {
        /// DATA mode whose menu item is set.
        data_mode: u8,
        /// Menu value (the profile's `lan`, or an operator's setting to restore).
        value: u8,
    },
    /// Read the whole state again.
    Refresh,
    /// Select the antenna connector of a receiver and, when given, the RX antenna input
    /// (CI-V `12 <ant> [<rx-ant>]`).
    SetAntenna {
        /// The receiver.
        receiver: Receiver,
        /// Connector 1 or 2.
        ant: u8,
        /// RX antenna input on/off; `None` keeps it.
        rx_ant: Option<bool>,
    },
    /// Read the content of memory channels `first..=last` (CI-V `1A 00`).
    ListMemories {
        /// First channel.
        first: u16,
        /// Last channel.
        last: u16,
    },
    /// Copy a memory channel into the selected VFO and stay in VFO mode.
    RecallMemory(u16),
    /// Write the selected VFO into a memory channel.
    StoreMemory(u16),
}

impl Command {
    /// A write of one setting: a shorthand for code and tests (clients' commands come
    /// from the command table).
    pub fn write(id: SettingId, receiver: Receiver, raw: i64) -> Command {
        Command::Write {
            vfo: None,
            writes: vec![Write {
                id,
                receiver: Some(receiver),
                raw,
            }],
            result: Written::default(),
        }
    }

    /// True if sending the command twice has the same effect as once (safe to retry).
    pub fn is_idempotent(&self) -> bool {
        !matches!(self, Command::VfoSwap | Command::SendCw(_))
    }

    /// True for commands that take the transmitter off the air (`ptt false`, the
    /// release, power off): TX audio stops the moment one is asked for.
    pub fn unkeys(&self) -> bool {
        matches!(
            self,
            Command::Ptt(false) | Command::Release | Command::Power(false)
        )
    }

    /// True for commands that stop a transmission (an unkey, power off, `stop_cw`):
    /// they go to the radio before every other command.
    pub fn is_urgent(&self) -> bool {
        self.unkeys() || matches!(self, Command::StopCw)
    }

    /// True for commands that key the transmitter (`ptt true`, `send_cw`): an unkey
    /// asked for before they reached the radio cancels them.
    pub fn keys(&self) -> bool {
        matches!(self, Command::Ptt(true) | Command::SendCw(_))
    }

    /// The VFO a command names (A/B radios), if it names one.
    pub fn named_vfo(&self) -> Option<u8> {
        match self {
            Command::SetFreq { target, .. }
            | Command::SetMode { target, .. }
            | Command::SetFilter { target, .. }
            | Command::SetDataMode { target, .. } => match target {
                Target::Vfo(v) => Some(*v),
                _ => None,
            },
            Command::Write { vfo, .. } => *vfo,
            _ => None,
        }
    }

    /// True for commands that need the radio switched on.
    pub fn needs_power(&self) -> bool {
        !matches!(
            self,
            Command::Power(_) | Command::Refresh | Command::Ptt(false) | Command::Release
        )
    }

    /// This command applied on top of `older`, a command of the same name and target
    /// still waiting to be sent: settings `older` writes and this one does not are kept
    /// (so `set_scope {span}` then `{speed}` lose neither), anything else is replaced.
    pub fn merged_onto(self, older: Command) -> Command {
        match (older, self) {
            (
                Command::Write { writes: old, .. },
                Command::Write {
                    vfo,
                    writes: new,
                    result,
                },
            ) => {
                let mut writes: Vec<Write> = old
                    .into_iter()
                    .filter(|o| !new.iter().any(|n| n.id == o.id && n.receiver == o.receiver))
                    .collect();
                writes.extend(new);
                Command::Write {
                    vfo,
                    writes,
                    result,
                }
            }
            (_, newer) => newer,
        }
    }

    /// The receiver or VFO a command aims at, for rate-limit slots (tuning MAIN and SUB
    /// are limited separately).
    pub fn slot(&self) -> Option<String> {
        match self {
            Command::SetFreq { target, .. }
            | Command::SetMode { target, .. }
            | Command::SetFilter { target, .. }
            | Command::SetDataMode { target, .. } => Some(target.label().to_string()),
            Command::Write { writes, .. } => writes
                .first()
                .map(|w| w.receiver.map_or("scope".into(), |r| r.to_string())),
            _ => None,
        }
    }
}
