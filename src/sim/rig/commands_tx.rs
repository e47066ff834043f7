//! Transmitter commands: `1C` PTT / tuner / XFC / TX monitor and `21` RIT / ∆TX, the
//! keying rules, and the release of a remote controller's transmission when its
//! session ends.

use std::time::Duration;

use super::SimRig;
use super::codec::{Reply, bcd, flag, small, to_bcd};
use crate::sim::audio_synth::mode;
use crate::wire::civ::cmd::{self, rit, tx};

/// How long the tuner reports "tuning" after `1C 01 02`.
pub(super) const TUNE_TIME: Duration = Duration::from_secs(2);
/// `1C 01` value: tuner off.
pub(super) const TUNER_OFF: u8 = 0;
/// `1C 01` value: tuner on (tuned).
pub(super) const TUNER_ON: u8 = 1;
/// `1C 01` value: tuning (set: start a tune).
pub(super) const TUNER_TUNING: u8 = 2;

impl SimRig {
    /// Keys or unkeys the transmitter. Keying needs the TX frequency inside one of the
    /// radio's bands and a mode that can transmit. Unkeying also stops CW being sent.
    pub(super) fn set_ptt(&mut self, on: bool) -> bool {
        if !on {
            self.state.ptt = false;
            self.state.ptt_from_panel = false;
            self.state.cw = None;
            return true;
        }
        if !self.can_transmit() {
            return false;
        }
        if !self.transmitting() {
            self.tx_level = Default::default();
        }
        self.state.ptt = true;
        true
    }

    /// True if the radio may transmit now: powered, the TX frequency in a band, a mode
    /// with a transmitter.
    pub(super) fn can_transmit(&self) -> bool {
        if !self.state.powered {
            return false;
        }
        let Some(v) = self.state.vfo(self.tx_slot()).copied() else {
            return false;
        };
        self.profile.band_for_freq(v.freq_hz).is_some() && v.mode != mode::WFM
    }

    /// The remote controller's session ended (logout, lost, timed out): a transmitter it
    /// keyed (PTT over CI-V, CW being sent) is released, like a real radio does when its
    /// remote controller goes away. A PTT keyed on the front panel stays. Returns true if
    /// something was released.
    pub fn release_remote_tx(&mut self, now: Duration) -> bool {
        self.advance(now);
        let remote_ptt = self.state.ptt && !self.state.ptt_from_panel;
        let cw = self.state.cw.is_some();
        if !remote_ptt && !cw {
            return false;
        }
        self.state.cw = None;
        if remote_ptt {
            self.set_ptt(false);
        }
        true
    }

    /// `1C <sub> [<value>]`: PTT, tuner, XFC, TX frequency monitor.
    pub(super) fn cmd_tx(&mut self, data: &[u8]) -> Reply {
        let Some((&sub, rest)) = data.split_first() else {
            return Reply::Nak;
        };
        let tuner = self.profile.has_feature(crate::profile::Feature::Tuner);
        match (sub, rest) {
            (tx::PTT, []) => Reply::data(cmd::TX, &[&[tx::PTT, u8::from(self.transmitting())]]),
            (tx::PTT, v) => match flag(v) {
                Some(on) => {
                    let ok = self.set_ptt(on);
                    Reply::ack_if(ok)
                }
                None => Reply::Nak,
            },
            (tx::TUNER, []) if tuner => Reply::data(cmd::TX, &[&[tx::TUNER, self.state.tuner]]),
            (tx::TUNER, v) if tuner => match small(v, TUNER_TUNING) {
                Some(t) => {
                    self.set_tuner(t);
                    Reply::Ack
                }
                None => Reply::Nak,
            },
            (tx::XFC, []) => Reply::data(cmd::TX, &[&[tx::XFC, self.state.xfc]]),
            (tx::TX_MONITOR, []) => {
                Reply::data(cmd::TX, &[&[tx::TX_MONITOR, self.state.tx_monitor]])
            }
            (tx::XFC | tx::TX_MONITOR, v) => match flag(v) {
                Some(on) => {
                    if sub == tx::XFC {
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

    /// Tuner off / on / start a tune (which reports on after [`TUNE_TIME`]).
    fn set_tuner(&mut self, t: u8) {
        self.state.tuner = t;
        self.tune_until = (t == TUNER_TUNING).then(|| self.now.saturating_add(TUNE_TIME));
    }

    /// `21 00|01|02 …`: RIT offset (`<lo> <hi> <sign>`: 4 BCD digits, low byte first,
    /// sign 00 + / 01 −, so ±9999 Hz), RIT on/off, ∆TX on/off (models whose profile has
    /// `xit`).
    pub(super) fn cmd_rit(&mut self, data: &[u8]) -> Reply {
        if !self.profile.has_feature(crate::profile::Feature::Rit) {
            return Reply::Nak;
        }
        let Some((&sub, rest)) = data.split_first() else {
            return Reply::Nak;
        };
        let xit = self.profile.has_feature(crate::profile::Feature::Xit);
        match (sub, rest) {
            (rit::DELTA_TX, _) if !xit => Reply::Nak,
            (rit::OFFSET, []) => {
                let v = self.state.rit_hz.unsigned_abs();
                let sign = u8::from(self.state.rit_hz < 0);
                let (lo, hi) = ((v % 100) as u8, (v / 100) as u8);
                Reply::data(cmd::RIT, &[&[rit::OFFSET, to_bcd(lo), to_bcd(hi), sign]])
            }
            (rit::OFFSET, [lo, hi, sign]) => match (bcd(*lo), bcd(*hi), *sign) {
                (Some(lo), Some(hi), s @ (0 | 1)) => {
                    let v = i16::from(hi) * 100 + i16::from(lo);
                    self.state.rit_hz = if s == 1 { -v } else { v };
                    Reply::Ack
                }
                _ => Reply::Nak,
            },
            (rit::ON, []) => Reply::data(cmd::RIT, &[&[rit::ON, u8::from(self.state.rit_on)]]),
            (rit::DELTA_TX, []) => {
                Reply::data(cmd::RIT, &[&[rit::DELTA_TX, u8::from(self.state.xit_on)]])
            }
            (rit::ON | rit::DELTA_TX, v) => match flag(v) {
                Some(on) => {
                    if sub == rit::ON {
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
