//! Front-end and level commands: `11` attenuator, `12` antenna, `14` levels, `16`
//! preamp and functions, `1B` tones. Per-receiver settings act on the selected receiver,
//! or on the receiver of a command-29 prefix.

use super::codec::{Reply, bcd, flag, level, level_bytes, small, to_bcd};
use super::state::{FUNCTIONS, GLOBAL_LEVELS, RX_LEVELS, function_min};
use super::{SimRig, Target};
use crate::wire::civ::cmd::{self, antenna, function, tone};

/// Models with antenna selection (`12`): ANT1 / ANT2 and an RX antenna input. Not in
/// the profile schema; the IC-705, IC-9700 and IC-7100 have one antenna connector per
/// band and no `12`.
const ANTENNA_MODELS: &[&str] = &["IC-7610"];

/// `16 xx` functions only some models have (the others answer `FA`): DIGI-SEL and IP+
/// (IC-7610; spec §4.5, the IC-705 has no `16 4E`), APF (not the IC-7100).
const MODEL_FUNCTIONS: &[(u8, &[&str])] = &[
    (function::DIGI_SEL, &["IC-7610"]),
    (function::IP_PLUS, &["IC-7610"]),
    (function::APF, &["IC-7610", "IC-705", "IC-9700"]),
];

impl SimRig {
    /// `12 [<ant> [<rx-ant>]]`: antenna select (IC-7610, per receiver). A bare `12` reads
    /// `12 <ant> <rx-ant>`; `12 <ant>` selects the antenna and keeps the RX antenna (it
    /// never toggles anything), `12 <ant> <rx-ant>` sets both.
    pub(super) fn cmd_antenna(&mut self, target: Target, data: &[u8]) -> Reply {
        if !ANTENNA_MODELS.contains(&self.profile.model()) {
            return Reply::Nak;
        }
        let rx = self.rx_of(target);
        let Some(r) = self.state.receivers.get_mut(rx) else {
            return Reply::Nak;
        };
        let (ant, rx_ant) = match data {
            [] => {
                return Reply::data(cmd::ANTENNA, &[&[r.antenna, u8::from(r.rx_antenna)]]);
            }
            [ant] => (*ant, Some(r.rx_antenna)),
            [ant, rest @ ..] => (*ant, flag(rest)),
        };
        match (ant, rx_ant) {
            (antenna::ANT1 | antenna::ANT2, Some(on)) => {
                r.antenna = ant;
                r.rx_antenna = on;
                Reply::Ack
            }
            _ => Reply::Nak,
        }
    }

    /// `11 [<dB>]`: attenuator; only the profile's steps are accepted.
    pub(super) fn cmd_att(&mut self, target: Target, data: &[u8]) -> Reply {
        let rx = self.rx_of(target);
        let Some(r) = self.state.receivers.get_mut(rx) else {
            return Reply::Nak;
        };
        match data {
            [] => Reply::data(cmd::ATTENUATOR, &[&[to_bcd(r.att_db)]]),
            [b] => match bcd(*b) {
                Some(db) if self.profile.attenuator.values.contains(&db) => {
                    r.att_db = db;
                    Reply::Ack
                }
                _ => Reply::Nak,
            },
            _ => Reply::Nak,
        }
    }

    /// `14 <sub> [<level×2>]`: levels 0000..0255 (2-byte big-endian BCD).
    pub(super) fn cmd_level(&mut self, target: Target, data: &[u8]) -> Reply {
        let Some((&sub, rest)) = data.split_first() else {
            return Reply::Nak;
        };
        let per_rx = RX_LEVELS.iter().any(|l| l.0 == sub);
        if !per_rx && !GLOBAL_LEVELS.iter().any(|l| l.0 == sub) {
            return Reply::Nak;
        }
        let rx = self.rx_of(target);
        if rest.is_empty() {
            let v = if per_rx {
                self.state.rx_level(rx, sub)
            } else {
                self.state.levels.get(&sub).copied().unwrap_or(128)
            };
            return Reply::data(cmd::LEVEL, &[&[sub], &level_bytes(v)]);
        }
        let Some(v) = level(rest) else {
            return Reply::Nak;
        };
        if per_rx {
            match self.state.receivers.get_mut(rx) {
                Some(r) => {
                    r.levels.insert(sub, v);
                }
                None => return Reply::Nak,
            }
        } else {
            self.state.levels.insert(sub, v);
        }
        Reply::Ack
    }

    /// `16 <sub> [<value>]`: preamp (`16 02`, the profile's values) and one-byte
    /// functions.
    pub(super) fn cmd_function(&mut self, target: Target, data: &[u8]) -> Reply {
        let Some((&sub, rest)) = data.split_first() else {
            return Reply::Nak;
        };
        let rx = self.rx_of(target);
        if sub == function::PREAMP {
            let Some(r) = self.state.receivers.get_mut(rx) else {
                return Reply::Nak;
            };
            if rest.is_empty() {
                return Reply::data(cmd::FUNCTION, &[&[function::PREAMP, to_bcd(r.preamp)]]);
            }
            return match small(rest, 99) {
                Some(p) if self.profile.preamp.values.contains(&p) => {
                    r.preamp = p;
                    Reply::Ack
                }
                _ => Reply::Nak,
            };
        }
        let Some(&(_, per_rx, max, default)) = FUNCTIONS.iter().find(|f| f.0 == sub) else {
            return Reply::Nak;
        };
        let model = self.profile.model();
        if MODEL_FUNCTIONS
            .iter()
            .any(|(f, models)| *f == sub && !models.contains(&model))
        {
            return Reply::Nak;
        }
        let map = if per_rx {
            match self.state.receivers.get_mut(rx) {
                Some(r) => &mut r.functions,
                None => return Reply::Nak,
            }
        } else {
            &mut self.state.functions
        };
        if rest.is_empty() {
            let v = map.get(&sub).copied().unwrap_or(default);
            return Reply::data(cmd::FUNCTION, &[&[sub, to_bcd(v)]]);
        }
        match small(rest, max) {
            Some(v) if v >= function_min(sub) => {
                map.insert(sub, v);
                Reply::Ack
            }
            _ => Reply::Nak,
        }
    }

    /// `1B 00|01 [<tone×3>]`: repeater tone / TSQL frequency (`00 88 05` = 88.5 Hz,
    /// 67.0..254.1 Hz).
    pub(super) fn cmd_tone(&mut self, target: Target, data: &[u8]) -> Reply {
        let Some((&sub, rest)) = data.split_first() else {
            return Reply::Nak;
        };
        let rx = self.rx_of(target);
        let Some(r) = self.state.receivers.get_mut(rx) else {
            return Reply::Nak;
        };
        let slot = match sub {
            tone::REPEATER => &mut r.tone,
            tone::TSQL => &mut r.tsql,
            _ => return Reply::Nak,
        };
        match rest {
            [] => Reply::data(cmd::TONE, &[&[sub], slot.as_slice()]),
            [a, b, c] => {
                let tenths = match (bcd(*a), bcd(*b), bcd(*c)) {
                    (Some(a), Some(b), Some(c)) if c <= 9 => {
                        u32::from(a) * 1_000 + u32::from(b) * 10 + u32::from(c)
                    }
                    _ => return Reply::Nak,
                };
                if !(670..=2_541).contains(&tenths) {
                    return Reply::Nak;
                }
                *slot = [*a, *b, *c];
                Reply::Ack
            }
            _ => Reply::Nak,
        }
    }
}
