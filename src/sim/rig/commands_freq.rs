//! Frequency, mode and VFO commands: `00`, `01`, `02`, `03`, `04`, `05`, `06`, `07`,
//! `0F`, `10`, `25`, `26`. `00`/`01` and `03`-`06` act on the selected receiver/VFO
//! (`00`/`01` without a reply, then broadcast); `25`/`26` take 00 = selected, 01 =
//! unselected (pitfall 16), on the models that have them (feature `unselected_vfo`; the
//! IC-7100 answers them `FA`, as it does any command it does not know); `07` selects,
//! swaps and equalizes with the profile's bytes.

use super::codec::{Reply, bcd, flag, freq, freq_bytes, small, to_bcd};
use super::state::Slot;
use super::{SimRig, VfoState};
use crate::profile::{Feature, VfoScheme};
use crate::sim::audio_synth::mode;
use crate::wire::civ::cmd::{self, sel, vfo};

/// The byte between the two edges of a `02` reply.
const BAND_EDGE_SEPARATOR: u8 = 0x2D;

impl SimRig {
    /// True if the radio supports mode `code`.
    pub(super) fn mode_ok(&self, code: u8) -> bool {
        self.profile.mode_of_code(code).is_some()
    }

    /// True if `f` names one of the radio's filters.
    pub(super) fn filter_ok(&self, f: u8) -> bool {
        f >= 1 && usize::from(f) <= self.profile.filters.list.len()
    }

    /// True if DATA mode `data` is allowed in `mode_code`.
    pub(super) fn data_ok(&self, mode_code: u8, data: u8) -> bool {
        data == 0 || (data <= self.profile.modes.data_modes && mode_allows_data(mode_code))
    }

    /// Sets a slot's frequency (must be inside the radio's ranges). When the MAIN
    /// receiver leaves a band, its last settings go onto that band's stack.
    pub(super) fn set_slot_freq(&mut self, slot: Slot, hz: u64) -> bool {
        if !self.profile.in_range(hz) {
            return false;
        }
        let Some(old) = self.state.vfo(slot).copied() else {
            return false;
        };
        if slot.rx == 0 {
            self.bsr_leave(&old, hz);
        }
        if let Some(v) = self.state.vfo_mut(slot) {
            v.freq_hz = hz;
        }
        true
    }

    /// Sets a slot's mode, and optionally its filter and DATA mode, after validating
    /// all of them.
    pub(super) fn set_slot_mode(
        &mut self,
        slot: Slot,
        mode_code: u8,
        filter: Option<u8>,
        data: Option<u8>,
    ) -> bool {
        if !self.mode_ok(mode_code) || filter.is_some_and(|f| !self.filter_ok(f)) {
            return false;
        }
        if data.is_some_and(|d| !self.data_ok(mode_code, d)) {
            return false;
        }
        let keep_data = |v: &VfoState| {
            if mode_allows_data(mode_code) {
                v.data
            } else {
                0
            }
        };
        let Some(v) = self.state.vfo_mut(slot) else {
            return false;
        };
        v.data = data.unwrap_or_else(|| keep_data(v));
        v.mode = mode_code;
        if let Some(f) = filter {
            v.filter = f;
        }
        true
    }

    pub(super) fn selected(&self) -> Slot {
        self.state.selected_slot(self.scheme())
    }

    fn sel_or_unsel(&self, which: u8) -> Option<Slot> {
        if !self.profile.has_feature(Feature::UnselectedVfo) {
            return None;
        }
        match which {
            sel::SELECTED => Some(self.state.selected_slot(self.scheme())),
            sel::UNSELECTED => Some(self.state.unselected_slot(self.scheme())),
            _ => None,
        }
    }

    /// The selected slot's frequency and mode broadcast after a change by `00` / `01`.
    pub(super) fn announce_selected(&mut self, freq_changed: bool, mode_changed: bool) {
        let Some(v) = self.state.vfo(self.selected()).copied() else {
            return;
        };
        if freq_changed {
            self.announce(None, cmd::FREQ_NO_REPLY, freq_bytes(v.freq_hz).to_vec());
        }
        if mode_changed {
            self.announce(None, cmd::MODE_NO_REPLY, vec![v.mode, to_bcd(v.filter)]);
        }
    }

    /// `00 <f×5>`: set the operating frequency without a reply (the form transceive
    /// broadcasts have); applied and broadcast, never answered.
    pub(super) fn cmd_freq_no_reply(&mut self, data: &[u8]) -> Reply {
        if let Some(hz) = freq(data)
            && self.set_slot_freq(self.selected(), hz)
        {
            self.announce_selected(true, false);
        }
        Reply::Silent
    }

    /// `01 <mode> [<filter>]`: set the operating mode without a reply; applied and
    /// broadcast, never answered.
    pub(super) fn cmd_mode_no_reply(&mut self, data: &[u8]) -> Reply {
        if let Some((m, f)) = mode_and_filter(data)
            && self.set_slot_mode(self.selected(), m, f, None)
        {
            self.announce_selected(false, true);
        }
        Reply::Silent
    }

    /// `02`: band edges of the range holding the operating frequency.
    pub(super) fn cmd_band_edge(&self, data: &[u8]) -> Reply {
        if !data.is_empty() {
            return Reply::Nak;
        }
        let hz = self.state.vfo(self.selected()).map_or(0, |v| v.freq_hz);
        match self
            .profile
            .freq_ranges
            .iter()
            .find(|r| (r.start_hz..=r.end_hz).contains(&hz))
        {
            Some(r) => Reply::data(
                cmd::BAND_EDGE,
                &[
                    &freq_bytes(r.start_hz),
                    &[BAND_EDGE_SEPARATOR],
                    &freq_bytes(r.end_hz),
                ],
            ),
            None => Reply::Nak,
        }
    }

    /// `03`: read the operating frequency.
    pub(super) fn cmd_read_freq(&self, data: &[u8]) -> Reply {
        match (data, self.state.vfo(self.selected())) {
            ([], Some(v)) => Reply::data(cmd::READ_FREQ, &[&freq_bytes(v.freq_hz)]),
            _ => Reply::Nak,
        }
    }

    /// `04`: read the operating mode and filter.
    pub(super) fn cmd_read_mode(&self, data: &[u8]) -> Reply {
        match (data, self.state.vfo(self.selected())) {
            ([], Some(v)) => Reply::data(cmd::READ_MODE, &[&[v.mode, to_bcd(v.filter)]]),
            _ => Reply::Nak,
        }
    }

    /// `05 <f×5>`: set the operating frequency.
    pub(super) fn cmd_set_freq(&mut self, data: &[u8]) -> Reply {
        match freq(data) {
            Some(hz) => Reply::ack_if(self.set_slot_freq(self.selected(), hz)),
            None => Reply::Nak,
        }
    }

    /// `06 <mode> [<filter>]`: set the operating mode.
    pub(super) fn cmd_set_mode(&mut self, data: &[u8]) -> Reply {
        match mode_and_filter(data) {
            Some((m, f)) => Reply::ack_if(self.set_slot_mode(self.selected(), m, f, None)),
            None => Reply::Nak,
        }
    }

    /// `25 <sel> [<f×5>]`: selected / unselected frequency.
    pub(super) fn cmd_sel_freq(&mut self, data: &[u8]) -> Reply {
        let Some((&which, rest)) = data.split_first() else {
            return Reply::Nak;
        };
        let Some(slot) = self.sel_or_unsel(which) else {
            return Reply::Nak;
        };
        if rest.is_empty() {
            return match self.state.vfo(slot) {
                Some(v) => Reply::data(cmd::SEL_FREQ, &[&[which], &freq_bytes(v.freq_hz)]),
                None => Reply::Nak,
            };
        }
        match freq(rest) {
            Some(hz) => Reply::ack_if(self.set_slot_freq(slot, hz)),
            None => Reply::Nak,
        }
    }

    /// `26 <sel> [<mode> [<data> [<filter>]]]`: selected / unselected mode.
    pub(super) fn cmd_sel_mode(&mut self, data: &[u8]) -> Reply {
        let Some((&which, rest)) = data.split_first() else {
            return Reply::Nak;
        };
        let Some(slot) = self.sel_or_unsel(which) else {
            return Reply::Nak;
        };
        let decoded: Option<Vec<u8>> = rest.iter().skip(1).map(|b| bcd(*b)).collect();
        let Some(decoded) = decoded else {
            return Reply::Nak;
        };
        match (rest.first(), decoded.as_slice()) {
            (None, _) => match self.state.vfo(slot) {
                Some(v) => Reply::data(
                    cmd::SEL_MODE,
                    &[&[which, v.mode, to_bcd(v.data), to_bcd(v.filter)]],
                ),
                None => Reply::Nak,
            },
            (Some(&m), []) => Reply::ack_if(self.set_slot_mode(slot, m, None, None)),
            (Some(&m), [d]) => Reply::ack_if(self.set_slot_mode(slot, m, None, Some(*d))),
            (Some(&m), [d, f]) => Reply::ack_if(self.set_slot_mode(slot, m, Some(*f), Some(*d))),
            _ => Reply::Nak,
        }
    }

    /// `0F [<00|01>]`: split.
    pub(super) fn cmd_split(&mut self, data: &[u8]) -> Reply {
        if data.is_empty() {
            return Reply::data(cmd::SPLIT, &[&[u8::from(self.state.split)]]);
        }
        match flag(data) {
            Some(on) => {
                self.state.split = on;
                Reply::Ack
            }
            None => Reply::Nak,
        }
    }

    /// `10 [<step>]`: tuning step code 00..13.
    pub(super) fn cmd_tuning_step(&mut self, data: &[u8]) -> Reply {
        if data.is_empty() {
            return Reply::data(cmd::TUNING_STEP, &[&[to_bcd(self.state.tuning_step)]]);
        }
        match small(data, 13) {
            Some(s) => {
                self.state.tuning_step = s;
                Reply::Ack
            }
            None => Reply::Nak,
        }
    }

    /// `07 …`: VFO mode (a bare `07`), VFO / receiver selection, swap, equalize, dual
    /// watch.
    pub(super) fn cmd_vfo(&mut self, data: &[u8]) -> Reply {
        let main_sub = self.scheme() == VfoScheme::MainSub && self.receivers() == 2;
        if data.is_empty() {
            return self.vfo_mode();
        }
        let scheme = &self.profile.vfo;
        if data == scheme.select_main.as_slice() || data == scheme.select_sub.as_slice() {
            let second = data == scheme.select_sub.as_slice();
            if main_sub {
                self.state.selected_rx = u8::from(second);
            } else if let Some(r) = self.state.receivers.get_mut(0) {
                r.active_vfo = u8::from(second);
            }
            return Reply::Ack;
        }
        let (swap, equalize) = (
            data == scheme.swap.as_slice(),
            data == scheme.equalize.as_slice(),
        );
        if swap {
            self.swap_slots(main_sub);
            return Reply::Ack;
        }
        if equalize {
            self.copy_selected_to_unselected(main_sub);
            return Reply::Ack;
        }
        let dual_watch = self.profile.has_feature(crate::profile::Feature::DualWatch);
        match data {
            [v @ (vfo::SELECT_A | vfo::SELECT_B)] => {
                let rx = self.selected().rx;
                if let Some(r) = self.state.receivers.get_mut(rx) {
                    r.active_vfo = u8::from(*v == vfo::SELECT_B);
                }
                Reply::Ack
            }
            [vfo::EQUALIZE_AB] => {
                self.copy_selected_to_unselected(false);
                Reply::Ack
            }
            [vfo::SWAP] => {
                self.swap_slots(false);
                Reply::Ack
            }
            [vfo::EQUALIZE_MAIN_SUB] if main_sub => {
                self.copy_selected_to_unselected(true);
                Reply::Ack
            }
            [c @ (vfo::DUAL_WATCH_OFF | vfo::DUAL_WATCH_ON)] if dual_watch => {
                self.state.dual_watch = *c == vfo::DUAL_WATCH_ON;
                Reply::Ack
            }
            [vfo::DUAL_WATCH] if dual_watch => Reply::data(
                cmd::VFO,
                &[&[vfo::DUAL_WATCH, u8::from(self.state.dual_watch)]],
            ),
            [d @ (vfo::SELECT_MAIN | vfo::SELECT_SUB)] if main_sub => {
                self.state.selected_rx = u8::from(*d == vfo::SELECT_SUB);
                Reply::Ack
            }
            [vfo::SELECTED] if main_sub => {
                Reply::data(cmd::VFO, &[&[vfo::SELECTED, self.state.selected_rx]])
            }
            _ => Reply::Nak,
        }
    }

    /// Swaps MAIN/SUB (`receivers` true) or VFO A/B of the selected receiver.
    fn swap_slots(&mut self, receivers: bool) {
        let (a, b) = if receivers {
            (self.state.rx_slot(0), self.state.rx_slot(1))
        } else {
            let rx = self.selected().rx;
            (Slot { rx, vfo: 0 }, Slot { rx, vfo: 1 })
        };
        let (Some(va), Some(vb)) = (self.state.vfo(a).copied(), self.state.vfo(b).copied()) else {
            return;
        };
        if let Some(v) = self.state.vfo_mut(a) {
            *v = vb;
        }
        if let Some(v) = self.state.vfo_mut(b) {
            *v = va;
        }
    }

    /// Copies the selected slot onto the other receiver (`receivers` true) or the other
    /// VFO of the same receiver.
    fn copy_selected_to_unselected(&mut self, receivers: bool) {
        let src = self.selected();
        let dst = if receivers {
            self.state.unselected_slot(VfoScheme::MainSub)
        } else {
            Slot {
                rx: src.rx,
                vfo: 1 - src.vfo,
            }
        };
        let Some(v) = self.state.vfo(src).copied() else {
            return;
        };
        if let Some(d) = self.state.vfo_mut(dst) {
            *d = v;
        }
    }
}

/// `<mode> [<filter>]` of `01` / `06` (the filter a BCD byte).
fn mode_and_filter(data: &[u8]) -> Option<(u8, Option<u8>)> {
    match data {
        [m] => Some((*m, None)),
        [m, f] => bcd(*f).map(|f| (*m, Some(f))),
        _ => None,
    }
}

/// True for modes that have DATA variants.
fn mode_allows_data(m: u8) -> bool {
    matches!(m, mode::USB | mode::LSB | mode::AM | mode::FM)
}
