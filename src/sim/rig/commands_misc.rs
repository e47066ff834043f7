//! Power, identity, `1A` settings (BSR, filter width, menu items incl. CI-V transceive,
//! DATA mode), `1C` PTT / tuner / XFC / TX monitor and `21` RIT.

use std::time::Duration;

use super::codec::{Reply, bcd, flag, small, to_bcd};
use super::{SimRig, Target};
use crate::sim::audio_synth::{mode, width_of_index};

/// How long the tuner reports "tuning" after `1C 01 02`.
const TUNE_TIME: Duration = Duration::from_secs(2);

impl SimRig {
    /// `18 [<00|01>]`: power state (bare `18` reads it).
    pub(super) fn cmd_power(&mut self, data: &[u8]) -> Reply {
        match data {
            [] => Reply::data(0x18, &[&[0x01]]),
            [0x00] => {
                self.set_power(false);
                Reply::Ack
            }
            [0x01] => Reply::Ack,
            _ => Reply::Nak,
        }
    }

    /// `19 00`: transceiver ID (the CI-V address).
    pub(super) fn cmd_id(&self, data: &[u8]) -> Reply {
        match data {
            [0x00] => Reply::data(0x19, &[&[0x00, self.civ_addr()]]),
            _ => Reply::Nak,
        }
    }

    /// `1A <sub> …`.
    pub(super) fn cmd_1a(&mut self, target: Target, data: &[u8]) -> Reply {
        let Some((&sub, rest)) = data.split_first() else {
            return Reply::Nak;
        };
        match sub {
            0x01 => self.cmd_bsr(rest),
            0x03 => self.cmd_filter_width(target, rest),
            0x04 | 0x09 => {
                let rx = self.rx_of(target);
                let Some(r) = self.state.receivers.get_mut(rx) else {
                    return Reply::Nak;
                };
                if rest.is_empty() {
                    let v = r.settings_1a.get(&sub).copied().unwrap_or(0);
                    return Reply::data(0x1A, &[&[sub, to_bcd(v)]]);
                }
                match small(rest, 13) {
                    Some(v) => {
                        r.settings_1a.insert(sub, v);
                        Reply::Ack
                    }
                    None => Reply::Nak,
                }
            }
            0x05 => self.cmd_menu(rest),
            0x06 => self.cmd_data_mode(rest),
            _ => Reply::Nak,
        }
    }

    /// `1A 03 [<idx>]`: IF filter width as one BCD index (not for fixed-width modes).
    fn cmd_filter_width(&mut self, target: Target, rest: &[u8]) -> Reply {
        let slot = self.state.rx_slot(self.rx_of(target));
        let Some(v) = self.state.vfo(slot).copied() else {
            return Reply::Nak;
        };
        if width_of_index(v.mode, 0).is_none() {
            return Reply::Nak;
        }
        match rest {
            [] => {
                let idx = self
                    .state
                    .receivers
                    .get(slot.rx)
                    .and_then(|r| r.widths.get(&(v.mode, v.filter)).copied())
                    .or_else(|| super::state::default_width_index(&self.profile, v.mode, v.filter))
                    .unwrap_or(0);
                Reply::data(0x1A, &[&[0x03, to_bcd(idx)]])
            }
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

    /// True if `1A 05 <hi> <lo>` is the profile's CI-V transceive item.
    fn is_transceive_item(&self, hi: u8, lo: u8) -> bool {
        self.profile.radio.transceive_menu.as_slice() == [0x1A, 0x05, hi, lo]
    }

    /// `1A 05 <hi> <lo> [<value…>]`: menu items (stored and echoed; the transceive item
    /// switches CI-V transceive).
    fn cmd_menu(&mut self, rest: &[u8]) -> Reply {
        let (hi, lo, value) = match rest {
            [hi, lo, value @ ..] => (*hi, *lo, value),
            _ => return Reply::Nak,
        };
        if bcd(hi).is_none() || bcd(lo).is_none() || value.len() > 32 {
            return Reply::Nak;
        }
        let transceive = self.is_transceive_item(hi, lo);
        if value.is_empty() {
            let v = if transceive {
                vec![u8::from(self.state.transceive)]
            } else {
                self.state
                    .menu
                    .get(&(hi, lo))
                    .cloned()
                    .unwrap_or_else(|| vec![0x00])
            };
            return Reply::data(0x1A, &[&[0x05, hi, lo], &v]);
        }
        if transceive {
            let Some(on) = flag(value) else {
                return Reply::Nak;
            };
            self.state.transceive = on;
        }
        self.state.menu.insert((hi, lo), value.to_vec());
        Reply::Ack
    }

    /// `1A 06 [<data> [<filter>]]`: DATA mode of the selected VFO.
    fn cmd_data_mode(&mut self, rest: &[u8]) -> Reply {
        let slot = self.state.selected_slot(self.scheme());
        let Some(v) = self.state.vfo(slot).copied() else {
            return Reply::Nak;
        };
        let decoded: Option<Vec<u8>> = rest.iter().map(|b| bcd(*b)).collect();
        match decoded.as_deref() {
            Some([]) => Reply::data(0x1A, &[&[0x06, to_bcd(v.data), to_bcd(v.filter)]]),
            Some([d]) => Reply::ack_if(self.set_slot_mode(slot, v.mode, None, Some(*d))),
            Some([d, f]) => Reply::ack_if(self.set_slot_mode(slot, v.mode, Some(*f), Some(*d))),
            _ => Reply::Nak,
        }
    }

    /// Keys or unkeys the transmitter. Keying needs the TX frequency inside one of the
    /// radio's bands and a mode that can transmit.
    pub(super) fn set_ptt(&mut self, on: bool) -> bool {
        if !on {
            self.state.ptt = false;
            return true;
        }
        if !self.state.powered {
            return false;
        }
        let Some(v) = self.state.vfo(self.tx_slot()).copied() else {
            return false;
        };
        if self.profile.band_for_freq(v.freq_hz).is_none() || v.mode == mode::WFM {
            return false;
        }
        if !self.state.ptt {
            self.tx_level = Default::default();
        }
        self.state.ptt = true;
        true
    }

    /// `1C <sub> [<value>]`: PTT, tuner, XFC, TX frequency monitor.
    pub(super) fn cmd_1c(&mut self, data: &[u8]) -> Reply {
        let Some((&sub, rest)) = data.split_first() else {
            return Reply::Nak;
        };
        let tuner = self.profile.has_feature(crate::profile::Feature::Tuner);
        match (sub, rest) {
            (0x00, []) => Reply::data(0x1C, &[&[0x00, u8::from(self.state.ptt)]]),
            (0x00, v) => match flag(v) {
                Some(on) => Reply::ack_if(self.set_ptt(on)),
                None => Reply::Nak,
            },
            (0x01, []) if tuner => Reply::data(0x1C, &[&[0x01, self.state.tuner]]),
            (0x01, v) if tuner => match small(v, 2) {
                Some(t) => {
                    self.state.tuner = t;
                    self.tune_until = (t == 2).then(|| self.now.saturating_add(TUNE_TIME));
                    Reply::Ack
                }
                None => Reply::Nak,
            },
            (0x02, []) => Reply::data(0x1C, &[&[0x02, self.state.xfc]]),
            (0x03, []) => Reply::data(0x1C, &[&[0x03, self.state.tx_monitor]]),
            (0x02 | 0x03, v) => match flag(v) {
                Some(on) => {
                    if sub == 0x02 {
                        self.state.xfc = u8::from(on);
                    } else {
                        self.state.tx_monitor = u8::from(on);
                    }
                    Reply::Ack
                }
                None => Reply::Nak,
            },
            _ => Reply::Nak,
        }
    }

    /// `21 00|01|02 …`: RIT offset (`<lo> <hi> <sign>`: 4 BCD digits, low byte first,
    /// sign 00 + / 01 −), RIT on/off, ∆TX on/off.
    pub(super) fn cmd_rit(&mut self, data: &[u8]) -> Reply {
        let Some((&sub, rest)) = data.split_first() else {
            return Reply::Nak;
        };
        match (sub, rest) {
            (0x00, []) => {
                let v = self.state.rit_hz.unsigned_abs();
                let sign = u8::from(self.state.rit_hz < 0);
                let (lo, hi) = ((v % 100) as u8, (v / 100) as u8);
                Reply::data(0x21, &[&[0x00, to_bcd(lo), to_bcd(hi), sign]])
            }
            (0x00, [lo, hi, sign]) => match (bcd(*lo), bcd(*hi), *sign) {
                (Some(lo), Some(hi), s @ (0 | 1)) => {
                    let v = i16::from(hi) * 100 + i16::from(lo);
                    self.state.rit_hz = if s == 1 { -v } else { v };
                    Reply::Ack
                }
                _ => Reply::Nak,
            },
            (0x01, []) => Reply::data(0x21, &[&[0x01, u8::from(self.state.rit_on)]]),
            (0x02, []) => Reply::data(0x21, &[&[0x02, u8::from(self.state.xit_on)]]),
            (0x01 | 0x02, v) => match flag(v) {
                Some(on) => {
                    if sub == 0x01 {
                        self.state.rit_on = on;
                    } else {
                        self.state.xit_on = on;
                    }
                    Reply::Ack
                }
                None => Reply::Nak,
            },
            _ => Reply::Nak,
        }
    }
}
