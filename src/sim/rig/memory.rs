//! Memory channels (radios whose profile has the `memory` feature and a `[memory]`
//! range): `08` memory mode / `08 <ch×2>` channel select (which enters memory mode, as
//! the radio's display does), a bare `07` back to VFO mode, `09` memory write (the
//! selected VFO into the selected channel, VFO mode only: in memory mode there is no
//! VFO to write and the write is refused), `0A` memory to VFO (the selected channel into
//! the selected VFO, back in VFO mode; refused for an empty channel), and `1A 00 <ch×2>
//! [<content>]` content read / write (`FF` empty) in the layout of
//! [`crate::wire::civ::memory`]. A few channels are filled at start.

use std::collections::BTreeMap;

use super::SimRig;
use super::codec::Reply;
use crate::profile::{Feature, Profile};
use crate::wire::civ::cmd;
use crate::wire::civ::memory::{self, MemoryContent};
use crate::wire::civ::mode_codes as mode;

/// The memory channels and the memory selection.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemoryBank {
    /// Filled channels by number.
    pub channels: BTreeMap<u16, MemoryContent>,
    /// The selected channel.
    pub selected: u16,
    /// Memory mode (false: VFO mode).
    pub memory_mode: bool,
}

impl MemoryBank {
    /// The bank of `profile` with its first channels filled (those the radio can tune).
    pub fn new(profile: &Profile) -> MemoryBank {
        let Some(range) = profile.memory else {
            return MemoryBank::default();
        };
        let presets = [
            (7_074_000, mode::USB, 1, "FT8 40M"),
            (14_060_000, mode::CW, 0, "QRP CW 20"),
            (10_000_000, mode::AM, 0, "WWV 10"),
        ];
        let channels = presets
            .into_iter()
            .filter(|(hz, m, ..)| profile.in_range(*hz) && profile.mode_of_code(*m).is_some())
            .zip(range.first..=range.last)
            .map(|((freq_hz, mode, data, name), ch)| {
                let m = MemoryContent {
                    freq_hz,
                    mode,
                    filter: 1,
                    data,
                    name: name.into(),
                };
                (ch, m)
            })
            .collect();
        MemoryBank {
            channels,
            selected: range.first,
            memory_mode: false,
        }
    }
}

impl SimRig {
    /// The channel of `bytes` if the radio has it.
    fn memory_channel(&self, bytes: &[u8]) -> Option<u16> {
        let range = self.profile.memory?;
        if !self.profile.has_feature(Feature::Memory) {
            return None;
        }
        memory::channel_of(bytes).filter(|ch| (range.first..=range.last).contains(ch))
    }

    /// `08` / `08 <ch×2>`.
    pub(super) fn cmd_memory_select(&mut self, data: &[u8]) -> Reply {
        if !self.profile.has_feature(Feature::Memory) {
            return Reply::Nak;
        }
        if !data.is_empty() {
            let Some(ch) = self.memory_channel(data) else {
                return Reply::Nak;
            };
            self.state.memory.selected = ch;
        }
        self.state.memory.memory_mode = true;
        Reply::Ack
    }

    /// A bare `07`: VFO mode.
    pub(super) fn vfo_mode(&mut self) -> Reply {
        self.state.memory.memory_mode = false;
        Reply::Ack
    }

    /// `09`: the selected VFO into the selected channel (VFO mode only).
    pub(super) fn cmd_memory_write(&mut self, data: &[u8]) -> Reply {
        let bank = &self.state.memory;
        if !self.profile.has_feature(Feature::Memory) || !data.is_empty() || bank.memory_mode {
            return Reply::Nak;
        }
        let Some(v) = self.state.vfo(self.selected()).copied() else {
            return Reply::Nak;
        };
        let ch = bank.selected;
        let name = bank.channels.get(&ch).map(|m| m.name.clone());
        self.state.memory.channels.insert(
            ch,
            MemoryContent {
                freq_hz: v.freq_hz,
                mode: v.mode,
                filter: v.filter,
                data: v.data,
                name: name.unwrap_or_default(),
            },
        );
        Reply::Ack
    }

    /// `0A`: the selected channel into the selected VFO, back in VFO mode.
    pub(super) fn cmd_memory_to_vfo(&mut self, data: &[u8]) -> Reply {
        if !self.profile.has_feature(Feature::Memory) || !data.is_empty() {
            return Reply::Nak;
        }
        let bank = &self.state.memory;
        let Some(m) = bank.channels.get(&bank.selected).cloned() else {
            return Reply::Nak;
        };
        let slot = self.selected();
        if !self.set_slot_freq(slot, m.freq_hz)
            || !self.set_slot_mode(slot, m.mode, Some(m.filter), Some(m.data))
        {
            return Reply::Nak;
        }
        self.state.memory.memory_mode = false;
        self.announce_selected(true, true);
        Reply::Ack
    }

    /// `1A 00 <ch×2> [<content> | FF]`: read, write or clear a channel.
    pub(super) fn cmd_memory_content(&mut self, rest: &[u8]) -> Reply {
        let Some(ch) = rest.get(..2).and_then(|b| self.memory_channel(b)) else {
            return Reply::Nak;
        };
        let (chb, content) = rest.split_at(2);
        let bank = &mut self.state.memory;
        match content {
            [] => {
                let body = match bank.channels.get(&ch) {
                    Some(m) => memory::encode(m).unwrap_or_else(|| vec![memory::EMPTY]),
                    None => vec![memory::EMPTY],
                };
                Reply::data(cmd::EXT, &[&[cmd::ext::MEMORY_CONTENT], chb, &body])
            }
            [memory::EMPTY] => {
                bank.channels.remove(&ch);
                Reply::Ack
            }
            bytes => match memory::parse(bytes) {
                Ok(Some(m)) if self.profile.in_range(m.freq_hz) && self.mode_ok(m.mode) => {
                    self.state.memory.channels.insert(ch, m);
                    Reply::Ack
                }
                _ => Reply::Nak,
            },
        }
    }
}
