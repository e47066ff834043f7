//! What a client has set that the state does not show yet. A setting that comes inside
//! its rate-limit window is answered at once as throttled by the radio's queue (the
//! latest value goes when the window ends), so the client answers `RPRT 0`; until the
//! radio has the value, the client's reads answer the value it set (WSJT-X sets a
//! frequency and reads it back at once to probe the resolution, and gives up on a rig
//! that answers the old one). An entry goes when the state shows its value, when
//! [`LAPSE`] has passed, or when a held command failed (the queue reports that).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::radio::apply::{selected_vfo, vfo_of};
use crate::radio::command::{Command, Target, Write};
use crate::radio::state::RadioState;
use crate::radio::table::settings::SettingId;
use crate::wire::civ::{Mode, Receiver};

/// The longest a value set is shown without the state showing it.
pub const LAPSE: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Held<T> {
    value: T,
    target: Target,
    at: Instant,
}

/// Pending values of one client, by VFO index (0 = VFO A / MAIN, 1 = VFO B / SUB).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Overlay {
    freq: [Option<Held<u64>>; 2],
    mode: [Option<Held<Mode>>; 2],
    data: [Option<Held<u8>>; 2],
    writes: BTreeMap<(SettingId, Option<Receiver>), (i64, Instant)>,
}

/// The VFO index a target addresses now.
pub fn target_index(target: Target, radio: &RadioState) -> usize {
    let i = match target {
        Target::Receiver(r) => r.code(),
        Target::Vfo(v) => v,
        Target::SelectedVfo => selected_vfo(radio).unwrap_or(0),
    };
    usize::from(i.min(1))
}

/// True if the state already shows write `w` (applying it changes nothing).
fn shown(radio: &RadioState, w: &Write, raw: i64) -> bool {
    let rx = w.receiver.unwrap_or(radio.scope.receiver);
    let mut after = radio.clone();
    after.set_setting(w.id, rx, raw);
    after.setting(w.id, rx) == radio.setting(w.id, rx)
}

impl Overlay {
    /// `cmd` was answered throttled: its values show until the radio has them.
    pub fn hold(&mut self, cmd: &Command, radio: &RadioState, now: Instant) {
        match cmd {
            Command::SetFreq { target, hz } => {
                self.freq[target_index(*target, radio)] = Some(Held {
                    value: *hz,
                    target: *target,
                    at: now,
                });
            }
            Command::SetMode { target, mode, .. } => {
                self.mode[target_index(*target, radio)] = Some(Held {
                    value: *mode,
                    target: *target,
                    at: now,
                });
            }
            Command::SetDataMode { target, data } => {
                self.data[target_index(*target, radio)] = Some(Held {
                    value: *data,
                    target: *target,
                    at: now,
                });
            }
            Command::Write { writes, .. } => {
                for w in writes {
                    self.writes.insert((w.id, w.receiver), (w.raw, now));
                }
            }
            _ => {}
        }
    }

    /// Lets go of what the state shows now, and of what is older than [`LAPSE`].
    pub fn refresh(&mut self, radio: &RadioState, now: Instant) {
        let fresh = |at: Instant| now.saturating_duration_since(at) < LAPSE;
        for f in &mut self.freq {
            if f.as_ref().is_some_and(|h| {
                !fresh(h.at) || vfo_of(radio, h.target).and_then(|v| v.0) == Some(h.value)
            }) {
                *f = None;
            }
        }
        for m in &mut self.mode {
            if m.as_ref().is_some_and(|h| {
                !fresh(h.at) || vfo_of(radio, h.target).and_then(|v| v.1) == Some(h.value)
            }) {
                *m = None;
            }
        }
        for d in &mut self.data {
            if d.as_ref().is_some_and(|h| {
                !fresh(h.at) || vfo_of(radio, h.target).and_then(|v| v.3) == Some(h.value)
            }) {
                *d = None;
            }
        }
        self.writes.retain(|(id, rx), (raw, at)| {
            let w = Write {
                id: *id,
                receiver: *rx,
                raw: *raw,
            };
            fresh(*at) && !shown(radio, &w, *raw)
        });
    }

    /// A held command failed: nothing pending is to be trusted any more.
    pub fn clear(&mut self) {
        *self = Overlay::default();
    }

    /// A pending frequency of VFO `i`.
    pub fn freq(&self, i: usize) -> Option<u64> {
        self.freq.get(i)?.as_ref().map(|h| h.value)
    }

    /// A pending mode of VFO `i`.
    pub fn mode(&self, i: usize) -> Option<Mode> {
        self.mode.get(i)?.as_ref().map(|h| h.value)
    }

    /// A pending DATA mode of VFO `i`.
    pub fn data(&self, i: usize) -> Option<u8> {
        self.data.get(i)?.as_ref().map(|h| h.value)
    }

    /// A pending raw value of setting `id` of receiver `rx`.
    pub fn write(&self, id: SettingId, rx: Receiver) -> Option<i64> {
        self.writes.get(&(id, Some(rx))).map(|(raw, _)| *raw)
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
        let mut r = RadioState::new(ReceiverState::tuned(14_074_000, Mode::Usb, true), None);
        r.active = Some(Selected::B);
        r
    }

    #[test]
    fn a_held_value_shows_until_the_state_shows_it() {
        let t = Instant::now();
        let mut radio = ab_radio();
        let mut o = Overlay::default();
        let f = |hz| Command::SetFreq {
            target: Target::SelectedVfo,
            hz,
        };
        o.hold(&f(14_074_055), &radio, t);
        assert_eq!(o.freq(1), Some(14_074_055), "the selected VFO is B");
        o.refresh(&radio, t);
        assert_eq!(o.freq(1), Some(14_074_055), "the state has the old value");
        radio.main.freq_hz = Some(14_074_055);
        radio.main.vfo_b.as_mut().unwrap().freq_hz = Some(14_074_055);
        o.refresh(&radio, t);
        assert!(o.is_empty(), "the radio has it");
    }

    #[test]
    fn modes_and_writes_and_the_lapse() {
        let t = Instant::now();
        let mut radio = ab_radio();
        let mut o = Overlay::default();
        let mode = Command::SetMode {
            target: Target::Vfo(0),
            mode: Mode::Cw,
            filter: None,
        };
        let data = Command::SetDataMode {
            target: Target::Vfo(0),
            data: 1,
        };
        let split = Command::write(SettingId::Split, Receiver::Main, 1);
        for c in [&mode, &data, &split] {
            o.hold(c, &radio, t);
        }
        assert_eq!((o.mode(0), o.data(0)), (Some(Mode::Cw), Some(1)));
        assert_eq!(o.write(SettingId::Split, Receiver::Main), Some(1));
        radio.settings.split = Some(true);
        o.refresh(&radio, t);
        assert_eq!(
            o.write(SettingId::Split, Receiver::Main),
            None,
            "the state shows split"
        );
        assert_eq!(o.mode(0), Some(Mode::Cw));
        o.refresh(&radio, t + LAPSE);
        assert!(o.is_empty(), "nothing older than the lapse");
        o.hold(&mode, &radio, t);
        o.clear();
        assert!(o.is_empty());
        assert_eq!(o.freq(7), None, "out of range is nothing, not a panic");
    }
}
