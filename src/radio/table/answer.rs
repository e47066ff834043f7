//! What a command that succeeded answers, as typed values: the engine and the pumps
//! read them as such (the meter pump its readings, the MOD-input watcher its menu
//! value); they become the `result` JSON of a response only at the web edge
//! (`web/answer.rs`).

use crate::radio::table::command::Target;
pub use crate::radio::table::written::{Given, Written};
use crate::wire::civ::Mode;
use crate::wire::meter::MeterKind;

/// The answer of a command that succeeded.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Done, nothing to report.
    Done,
    /// A write of settings: the parameters as the client gave them.
    Written(Written),
    /// The frequency of `target` was set.
    Tuned {
        /// Receiver or VFO.
        target: Target,
        /// Frequency, Hz.
        hz: u64,
    },
    /// Mode, filter and DATA mode of `target` were set.
    ModeSet {
        /// Receiver or VFO.
        target: Target,
        /// Mode.
        mode: Mode,
        /// Filter 1..3 (`None`: unknown).
        filter: Option<u8>,
        /// DATA mode (`None`: unknown).
        data: Option<u8>,
    },
    /// The transmitter is keyed (`on`) or not.
    Ptt {
        /// Keyed.
        on: bool,
        /// The radio did not confirm the command but reads back so: why.
        read_back: Option<String>,
    },
    /// The radio is switched on or off.
    Power {
        /// Switched on.
        on: bool,
        /// The radio did not confirm the command but reads back so: why.
        read_back: Option<String>,
    },
    /// A band change.
    Band(BandChange),
    /// CW text queued on the radio.
    CwSent {
        /// Characters sent.
        chars: usize,
    },
    /// Meter readings, 0..255 (the meters the radio answered, in the order asked).
    Meters(Vec<(MeterKind, u16)>),
    /// The MOD input of a DATA mode.
    ModInput {
        /// DATA mode (0 = DATA OFF).
        data_mode: u8,
        /// Menu value.
        value: u8,
    },
    /// The channels `list_memories` read.
    Memories(Vec<MemoryChannel>),
    /// The channel `recall_memory` copied or `store_memory` wrote.
    Memory(MemoryChannel),
    /// The radio's scope data output was switched.
    ScopeOutput(bool),
    /// The scope shows both receivers or one.
    ScopeDual(bool),
    /// A setting came sooner than its rate allows: the latest value is applied when the
    /// window ends (`radio/dispatch`).
    Throttled,
}

/// Where the frequency of a band change came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BandSource {
    /// The radio's band stack register.
    Bsr,
    /// The profile's default frequency of the band (the register could not be read).
    Default,
    /// Nothing: the profile does not know the band; nothing changed.
    None,
}

impl BandSource {
    /// The name the web interface uses.
    pub fn as_str(self) -> &'static str {
        match self {
            BandSource::Bsr => "bsr",
            BandSource::Default => "default",
            BandSource::None => "none",
        }
    }
}

/// The answer of `set_band`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BandChange {
    /// Band Stack Register code.
    pub band: u8,
    /// The band's name, when the default frequency was used.
    pub name: Option<String>,
    /// Where the frequency came from.
    pub source: BandSource,
    /// The frequency tuned, Hz (`None`: not retuned).
    pub freq: Option<u64>,
}

impl BandChange {
    /// A band the profile does not know: nothing changed.
    pub fn unknown(band: u8) -> BandChange {
        BandChange {
            band,
            name: None,
            source: BandSource::None,
            freq: None,
        }
    }
}

/// A memory channel as the radio holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryChannel {
    /// Its number.
    pub channel: u16,
    /// What it holds (`None`: empty).
    pub content: Option<MemoryEntry>,
}

/// What a memory channel holds.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryEntry {
    /// Frequency, Hz.
    pub freq_hz: u64,
    /// Mode, when the profile knows its code.
    pub mode: Option<Mode>,
    /// The channel's name.
    pub name: String,
}
