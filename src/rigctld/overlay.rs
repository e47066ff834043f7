//! What a client has set that the state does not show yet. A set that waits for its
//! rate-limit window is acknowledged at once (`RPRT 0`), like a throttled WebSocket
//! command; until the radio has it, the client's reads answer the value it set (WSJT-X
//! sets a frequency and reads it back at once to probe the resolution, and gives up on
//! a rig that answers the old one). An entry goes when its command ends, whether it
//! succeeded (the state has the value then) or failed.

use std::collections::BTreeMap;

use crate::radio::apply::selected_vfo;
use crate::radio::command::{Command, Target};
use crate::radio::state::RadioState;
use crate::radio::table::settings::SettingId;

/// Pending values of one client, by VFO index (0 = VFO A / MAIN, 1 = VFO B / SUB).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Overlay {
    freq: [Option<u64>; 2],
    mode: [Option<String>; 2],
    data: [Option<u8>; 2],
    writes: BTreeMap<(SettingId, u8), i64>,
}

/// The VFO index a target addresses now.
pub fn target_index(target: Target, radio: &RadioState) -> usize {
    let i = match target {
        Target::Receiver(r) => r,
        Target::Vfo(v) => v,
        Target::SelectedVfo => selected_vfo(radio).unwrap_or(0),
    };
    usize::from(i.min(1))
}

impl Overlay {
    /// `cmd` was accepted but has not reached the radio: its values show until it ends.
    pub fn hold(&mut self, cmd: &Command, radio: &RadioState) {
        match cmd {
            Command::SetFreq { target, hz } => {
                self.freq[target_index(*target, radio)] = Some(*hz);
            }
            Command::SetMode { target, mode, .. } => {
                self.mode[target_index(*target, radio)] = Some(mode.clone());
            }
            Command::SetDataMode { target, data } => {
                self.data[target_index(*target, radio)] = Some(*data);
            }
            Command::Write { writes, .. } => {
                for w in writes {
                    self.writes.insert((w.id, w.receiver), w.raw);
                }
            }
            _ => {}
        }
    }

    /// `cmd` ended: the values it carried no longer need showing (a later set of the
    /// same value keeps nothing else alive: the state has it, or the command failed).
    pub fn settle(&mut self, cmd: &Command, radio: &RadioState) {
        fn clear<T: PartialEq>(slot: &mut Option<T>, v: &T) {
            if slot.as_ref() == Some(v) {
                *slot = None;
            }
        }
        match cmd {
            Command::SetFreq { target, hz } => {
                clear(&mut self.freq[target_index(*target, radio)], hz);
            }
            Command::SetMode { target, mode, .. } => {
                clear(&mut self.mode[target_index(*target, radio)], mode);
            }
            Command::SetDataMode { target, data } => {
                clear(&mut self.data[target_index(*target, radio)], data);
            }
            Command::Write { writes, .. } => {
                for w in writes {
                    if self.writes.get(&(w.id, w.receiver)) == Some(&w.raw) {
                        self.writes.remove(&(w.id, w.receiver));
                    }
                }
            }
            _ => {}
        }
    }

    /// A pending frequency of VFO `i`.
    pub fn freq(&self, i: usize) -> Option<u64> {
        self.freq.get(i).copied().flatten()
    }

    /// A pending mode of VFO `i`.
    pub fn mode(&self, i: usize) -> Option<&str> {
        self.mode.get(i).and_then(|m| m.as_deref())
    }

    /// A pending DATA mode of VFO `i`.
    pub fn data(&self, i: usize) -> Option<u8> {
        self.data.get(i).copied().flatten()
    }

    /// A pending raw value of setting `id` of receiver `rx`.
    pub fn write(&self, id: SettingId, rx: u8) -> Option<i64> {
        self.writes.get(&(id, rx)).copied()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        *self == Overlay::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::state::{ReceiverState, Selected};

    fn ab_radio() -> RadioState {
        let mut r = RadioState::new(ReceiverState::tuned(14_074_000, "USB", true), None);
        r.active = Some(Selected::B);
        r
    }

    #[test]
    fn a_pending_set_shows_until_it_ends() {
        let radio = ab_radio();
        let mut o = Overlay::default();
        let f = |hz| Command::SetFreq {
            target: Target::SelectedVfo,
            hz,
        };
        o.hold(&f(14_074_055), &radio);
        assert_eq!(o.freq(1), Some(14_074_055), "the selected VFO is B");
        o.hold(&f(14_074_000), &radio);
        o.settle(&f(14_074_055), &radio);
        assert_eq!(
            o.freq(1),
            Some(14_074_000),
            "an older command ending does not hide a newer value"
        );
        o.settle(&f(14_074_000), &radio);
        assert!(o.is_empty());
    }

    #[test]
    fn modes_and_writes() {
        let radio = ab_radio();
        let mut o = Overlay::default();
        let mode = Command::SetMode {
            target: Target::Vfo(0),
            mode: "USB".into(),
            filter: None,
        };
        let data = Command::SetDataMode {
            target: Target::Vfo(0),
            data: 1,
        };
        let split = Command::write(SettingId::Split, 0, 1);
        for c in [&mode, &data, &split] {
            o.hold(c, &radio);
        }
        assert_eq!((o.mode(0), o.data(0)), (Some("USB"), Some(1)));
        assert_eq!(o.write(SettingId::Split, 0), Some(1));
        for c in [&mode, &data, &split] {
            o.settle(c, &radio);
        }
        assert!(o.is_empty());
        assert_eq!(o.freq(7), None, "out of range is nothing, not a panic");
    }
}
