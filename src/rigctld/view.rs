//! The radio as a rigctld client sees it: two VFOs (VFO A/B of A/B radios, MAIN/SUB of
//! MAIN/SUB radios), the selected one receives, the other one transmits in split. Values
//! come from the state store, with the client's throttled sets on top (see `overlay`).
//!
//! `V` does not change the radio's selection: it chooses the VFO the client's later
//! `f`/`F`/`m`/`M`/`l`/`u` address (the client's *current* VFO), which the radio reaches
//! without selecting it (`25`/`26`, command 29). Clients that toggle `V VFOB` / `V VFOA`
//! around reads so leave the operator's VFOs as they were.

use serde_json::{Map, Value, json};

use super::hamlib::{self, HamlibMode, RigError};
use super::overlay::Overlay;
use crate::profile::{Profile, VfoScheme};
use crate::radio::apply::{selected_receiver, selected_vfo, vfo_of};
use crate::radio::command::Target;
use crate::radio::state::RadioState;
use crate::radio::table::settings::SettingId;
use crate::wire::civ::Receiver;

/// What the responder reads: the profile, the radio's state, the client's pending sets.
#[derive(Clone, Copy)]
pub struct View<'a> {
    /// The radio's profile.
    pub profile: &'a Profile,
    /// The radio's state.
    pub radio: &'a RadioState,
    /// The client's pending sets.
    pub overlay: &'a Overlay,
    /// The VFO the client chose with `V` (`None`: the radio's selected one).
    pub current: Option<u8>,
}

impl<'a> View<'a> {
    /// The scheme of the radio's VFOs.
    pub fn scheme(&self) -> VfoScheme {
        self.profile.vfo.scheme
    }

    /// True if the radio has a second VFO to transmit on.
    pub fn has_two(&self) -> bool {
        self.scheme() == VfoScheme::Ab || self.profile.is_dual()
    }

    /// The selected VFO's index, if known (A/B radios cannot report it until this
    /// server selects one).
    pub fn selected(&self) -> Option<u8> {
        match self.scheme() {
            VfoScheme::Ab => selected_vfo(self.radio),
            VfoScheme::MainSub => Some(selected_receiver(self.radio).code()),
        }
    }

    /// The index of the receiving VFO (0 while an A/B radio's selection is unknown: it
    /// is reported as VFO A).
    pub fn rx(&self) -> u8 {
        self.selected().unwrap_or(0)
    }

    /// The index of the client's current VFO.
    pub fn current(&self) -> u8 {
        self.current.filter(|_| self.has_two()).unwrap_or(self.rx())
    }

    /// Split on (a pending set counts).
    pub fn split(&self) -> Option<bool> {
        self.overlay
            .write(SettingId::Split, Receiver::Main)
            .map(|raw| raw == 1)
            .or(self.radio.settings.split)
    }

    /// The index of the transmitting VFO.
    pub fn tx(&self) -> u8 {
        if self.split() == Some(true) && self.has_two() {
            1 - self.rx()
        } else {
            self.rx()
        }
    }

    /// The command-table target of VFO `i` (`None`: the other VFO of an A/B radio whose
    /// selection is unknown).
    pub fn target(&self, i: u8) -> Option<Target> {
        match (self.scheme(), self.selected()) {
            (VfoScheme::MainSub, _) => Some(Target::Receiver(receiver_of(i))),
            (VfoScheme::Ab, Some(_)) => Some(Target::Vfo(i)),
            (VfoScheme::Ab, None) if i == 0 => Some(Target::SelectedVfo),
            (VfoScheme::Ab, None) => None,
        }
    }

    /// The target parameters of VFO `i` for a command-table row that takes one.
    pub fn target_params(&self, i: u8) -> Result<Map<String, Value>, RigError> {
        let mut m = Map::new();
        match self.target(i).ok_or(RigError::NotAvailable)? {
            Target::Receiver(r) => {
                m.insert("receiver".into(), json!(r));
            }
            Target::Vfo(v) => {
                m.insert("vfo".into(), json!(if v == 0 { "A" } else { "B" }));
            }
            Target::SelectedVfo => {}
        }
        Ok(m)
    }

    /// The receiver whose per-receiver settings (gains, NB, ...) a client addresses.
    pub fn rx_receiver(&self) -> Receiver {
        match self.scheme() {
            VfoScheme::Ab => Receiver::Main,
            VfoScheme::MainSub => receiver_of(self.current()),
        }
    }

    /// The error of a value the radio has not reported: switched off, or not reachable.
    pub fn unknown(&self) -> RigError {
        if self.radio.power_on == Some(false) {
            RigError::PowerOff
        } else {
            RigError::Io
        }
    }

    /// Frequency of VFO `i` (`NotAvailable`: the other VFO of an A/B radio whose
    /// selection is unknown).
    pub fn freq(&self, i: u8) -> Result<u64, RigError> {
        if let Some(f) = self.overlay.freq(usize::from(i)) {
            return Ok(f);
        }
        let t = self.target(i).ok_or(RigError::NotAvailable)?;
        vfo_of(self.radio, t)
            .and_then(|v| v.0)
            .ok_or_else(|| self.unknown())
    }

    /// Mode of VFO `i`, as Hamlib names it.
    pub fn mode(&self, i: u8) -> Result<&'static HamlibMode, RigError> {
        let o = self.overlay;
        let known = match self.target(i) {
            Some(t) => vfo_of(self.radio, t),
            None if o.mode(usize::from(i)).is_none() => return Err(RigError::NotAvailable),
            None => None,
        };
        let mode = o
            .mode(usize::from(i))
            .or_else(|| known.as_ref().and_then(|v| v.1))
            .ok_or_else(|| self.unknown())?;
        let data = o
            .data(usize::from(i))
            .or_else(|| known.as_ref().and_then(|v| v.3))
            .unwrap_or(0);
        hamlib::mode_of(mode, data > 0).ok_or(RigError::NotAvailable)
    }

    /// Passband of VFO `i`, Hz: the receiver's IF filter width where the radio reports
    /// it, else the profile's width of the VFO's filter, else 0.
    pub fn passband(&self, i: u8) -> u32 {
        let Some(t) = self.target(i) else { return 0 };
        let selected =
            matches!(t, Target::Receiver(_) | Target::SelectedVfo) || self.selected() == Some(i);
        let reported = if selected {
            self.radio
                .receiver(t.receiver())
                .and_then(|r| r.settings.filter_width)
        } else {
            None
        };
        reported
            .or_else(|| {
                let (_, mode, filter, _) = vfo_of(self.radio, t)?;
                let widths = self.profile.filter_widths(mode?)?;
                widths.get(usize::from(filter?.checked_sub(1)?)).copied()
            })
            .unwrap_or(0)
    }
}

/// The receiver of a MAIN/SUB radio's VFO index (0 MAIN, any other SUB).
pub fn receiver_of(i: u8) -> Receiver {
    if i == 0 {
        Receiver::Main
    } else {
        Receiver::Sub
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ProfileRegistry;
    use crate::radio::command::Command;
    use crate::radio::state::{ReceiverState, Selected};
    use crate::wire::civ::Mode;

    #[test]
    fn main_sub_radios_transmit_on_the_other_receiver_in_split() {
        let p = ProfileRegistry::embedded().get("ic7610").unwrap();
        let mut radio = RadioState::new(
            ReceiverState::tuned(14_074_000, Mode::Usb, false),
            Some(ReceiverState::tuned(14_076_000, Mode::Usb, false)),
        );
        radio.active = Some(Selected::Main);
        radio.settings.split = Some(true);
        radio.main.settings.filter_width = Some(2800);
        let o = Overlay::default();
        let v = View {
            profile: &p,
            radio: &radio,
            overlay: &o,
            current: None,
        };
        assert_eq!((v.rx(), v.tx()), (0, 1));
        assert_eq!(v.freq(1), Ok(14_076_000));
        assert_eq!(v.passband(0), 2800, "reported by the radio");
        assert_eq!(v.passband(1), 3000, "FIL1 of USB from the profile");
        assert_eq!(v.target_params(1).unwrap()["receiver"], 1);
    }

    #[test]
    fn ab_radios_before_and_after_the_selection_is_known() {
        let p = ProfileRegistry::embedded().get("ic705").unwrap();
        let mut radio = RadioState::new(ReceiverState::tuned(7_074_000, Mode::Usb, true), None);
        radio.main.data_mode = Some(1);
        let mut o = Overlay::default();
        let v = View {
            profile: &p,
            radio: &radio,
            overlay: &o,
            current: None,
        };
        assert_eq!(v.selected(), None);
        assert_eq!(v.freq(0), Ok(7_074_000));
        assert_eq!(v.mode(0).unwrap().name, "PKTUSB");
        assert_eq!(v.target(1), None, "the other VFO needs the selection");
        assert!(v.target_params(0).unwrap().is_empty());
        radio.active = Some(Selected::A);
        o.hold(
            &Command::SetFreq {
                target: Target::Vfo(1),
                hz: 7_076_000,
            },
            &radio,
            std::time::Instant::now(),
        );
        let v = View {
            profile: &p,
            radio: &radio,
            overlay: &o,
            current: None,
        };
        assert_eq!(v.freq(1), Ok(7_076_000), "the pending value");
        assert_eq!(v.target_params(1).unwrap()["vfo"], "B");
    }

    #[test]
    fn unknown_values_say_why() {
        let p = ProfileRegistry::embedded().get("ic7610").unwrap();
        let mut radio = RadioState::new(
            ReceiverState::unknown(false),
            Some(ReceiverState::unknown(false)),
        );
        let o = Overlay::default();
        let v = View {
            profile: &p,
            radio: &radio,
            overlay: &o,
            current: None,
        };
        assert_eq!(v.freq(0), Err(RigError::Io));
        radio.power_on = Some(false);
        let v = View {
            profile: &p,
            radio: &radio,
            overlay: &o,
            current: None,
        };
        assert_eq!(v.mode(0), Err(RigError::PowerOff));
    }
}
