//! Identity and the `1A` settings: band stacking registers, IF filter width, AGC time
//! constant, AF mute, menu items (see `menu.rs`) and DATA mode.

use super::codec::{Reply, bcd, flag, small, to_bcd};
use super::{SimRig, Target};
use crate::wire::civ::cmd::{self, ext};
use crate::wire::civ::width_of_index;

/// Largest `1A 04` AGC time-constant index.
const AGC_TIME_MAX: u8 = 13;

impl SimRig {
    /// `19 00`: transceiver ID (the CI-V address).
    pub(super) fn cmd_id(&self, data: &[u8]) -> Reply {
        match data {
            [cmd::ID_READ] => Reply::data(cmd::ID, &[&[cmd::ID_READ, self.civ_addr()]]),
            _ => Reply::Nak,
        }
    }

    /// `1A <sub> …`.
    pub(super) fn cmd_ext(&mut self, target: Target, data: &[u8]) -> Reply {
        let Some((&sub, rest)) = data.split_first() else {
            return Reply::Nak;
        };
        match sub {
            ext::MEMORY_CONTENT => self.cmd_memory_content(rest),
            ext::BAND_STACK => self.cmd_bsr(rest),
            ext::FILTER_WIDTH => self.cmd_filter_width(target, rest),
            ext::AGC_TIME | ext::AF_MUTE => self.cmd_rx_setting(target, sub, rest),
            ext::MENU => self.cmd_menu(rest),
            ext::DATA_MODE => self.cmd_data_mode(target, rest),
            _ => Reply::Nak,
        }
    }

    /// `1A 04 [<0..13>]` AGC time constant, `1A 09 [<00|01>]` AF mute: one byte per
    /// receiver.
    fn cmd_rx_setting(&mut self, target: Target, sub: u8, rest: &[u8]) -> Reply {
        let rx = self.rx_of(target);
        let Some(r) = self.state.receivers.get_mut(rx) else {
            return Reply::Nak;
        };
        if rest.is_empty() {
            let v = r.settings_1a.get(&sub).copied().unwrap_or(0);
            return Reply::data(cmd::EXT, &[&[sub, to_bcd(v)]]);
        }
        let value = if sub == ext::AF_MUTE {
            flag(rest).map(u8::from)
        } else {
            small(rest, AGC_TIME_MAX)
        };
        match value {
            Some(v) => {
                r.settings_1a.insert(sub, v);
                Reply::Ack
            }
            None => Reply::Nak,
        }
    }

    /// The `1A 03` index of receiver `rx`'s current mode and filter (as set, or the
    /// profile's default width), `None` for a fixed-width mode.
    pub(super) fn width_index(&self, rx: usize) -> Option<u8> {
        let slot = self.state.rx_slot(rx);
        let v = self.state.vfo(slot)?;
        width_of_index(v.mode, 0)?;
        let idx = self
            .state
            .receivers
            .get(slot.rx)
            .and_then(|r| r.widths.get(&(v.mode, v.filter)).copied())
            .or_else(|| super::state::default_width_index(&self.profile, v.mode, v.filter))
            .unwrap_or(0);
        Some(idx)
    }

    /// `1A 03 [<idx>]`: IF filter width of the current mode and filter as one BCD index
    /// (spec §4.5 segments: SSB/CW/PSK 0-40, RTTY 0-31, AM 0-49); NAK for FM / WFM / DV.
    fn cmd_filter_width(&mut self, target: Target, rest: &[u8]) -> Reply {
        let rx = self.rx_of(target);
        let slot = self.state.rx_slot(rx);
        let (Some(v), Some(idx)) = (self.state.vfo(slot).copied(), self.width_index(rx)) else {
            return Reply::Nak;
        };
        match rest {
            [] => Reply::data(cmd::EXT, &[&[ext::FILTER_WIDTH, to_bcd(idx)]]),
            [b] => match bcd(*b) {
                Some(idx) if width_of_index(v.mode, idx).is_some() => {
                    if let Some(r) = self.state.receivers.get_mut(slot.rx) {
                        r.widths.insert((v.mode, v.filter), idx);
                    }
                    Reply::Ack
                }
                _ => Reply::Nak,
            },
            _ => Reply::Nak,
        }
    }

    /// `1A 06 [<data> [<filter>]]`: DATA mode (00 off, 01..03 D1..D3) of the selected
    /// VFO, or of a receiver's (front panel). A filter byte `00` is accepted with DATA
    /// off (`1A 06 00 00`, as wfview sends it) and keeps the filter.
    fn cmd_data_mode(&mut self, target: Target, rest: &[u8]) -> Reply {
        let slot = match target {
            Target::Selected => self.state.selected_slot(self.scheme()),
            Target::Rx(r) => self.state.rx_slot(usize::from(r)),
        };
        let Some(v) = self.state.vfo(slot).copied() else {
            return Reply::Nak;
        };
        let decoded: Option<Vec<u8>> = rest.iter().map(|b| bcd(*b)).collect();
        match decoded.as_deref() {
            Some([]) => Reply::data(
                cmd::EXT,
                &[&[ext::DATA_MODE, to_bcd(v.data), to_bcd(v.filter)]],
            ),
            Some([d]) | Some([d @ 0, 0]) => {
                Reply::ack_if(self.set_slot_mode(slot, v.mode, None, Some(*d)))
            }
            Some([d, f]) => Reply::ack_if(self.set_slot_mode(slot, v.mode, Some(*f), Some(*d))),
            _ => Reply::Nak,
        }
    }
}
