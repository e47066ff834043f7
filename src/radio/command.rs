//! Typed radio commands, already validated against the profile.

use crate::radio::meters::MeterKind;

/// What a command acts on: a receiver (MAIN/SUB radios) or a VFO (A/B radios).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Receiver 0 = MAIN, 1 = SUB.
    Receiver(u8),
    /// VFO 0 = A, 1 = B.
    Vfo(u8),
}

impl Target {
    /// The label the web interface uses.
    pub fn label(self) -> &'static str {
        match self {
            Target::Receiver(0) => "MAIN",
            Target::Receiver(_) => "SUB",
            Target::Vfo(0) => "A",
            Target::Vfo(_) => "B",
        }
    }

    /// The receiver index this target lives on (VFOs are on receiver 0).
    pub fn receiver(self) -> u8 {
        match self {
            Target::Receiver(r) => r,
            Target::Vfo(_) => 0,
        }
    }
}

/// A command for the executor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
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
        /// Mode name, supported by the profile.
        mode: String,
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
    /// Key or unkey the transmitter.
    Ptt(bool),
    /// RF power level 0..255.
    SetPower(u8),
    /// Attenuator.
    SetAtt {
        /// Receiver 0/1.
        receiver: u8,
        /// dB, one of the profile's values.
        db: u8,
    },
    /// Preamp.
    SetPreamp {
        /// Receiver 0/1.
        receiver: u8,
        /// Level, one of the profile's values.
        level: u8,
    },
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
}

impl Command {
    /// True if sending the command twice has the same effect as once (safe to retry).
    pub fn is_idempotent(&self) -> bool {
        !matches!(self, Command::VfoSwap)
    }

    /// True for commands that need the radio switched on.
    pub fn needs_power(&self) -> bool {
        !matches!(self, Command::Power(_))
    }
}
