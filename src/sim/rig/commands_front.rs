//! Front-end and level commands: `11` attenuator, `14` levels, `16` preamp and
//! functions, `1B` tones. Per-receiver settings act on the selected receiver, or on the
//! receiver of a command-29 prefix.

use super::codec::{Reply, bcd, level, level_bytes, small, to_bcd};
use super::state::{FUNCTIONS, GLOBAL_LEVELS, RX_LEVELS};
use super::{SimRig, Target};

impl SimRig {
    /// `11 [<dB>]`: attenuator; only the profile's steps are accepted.
    pub(super) fn cmd_att(&mut self, target: Target, data: &[u8]) -> Reply {
        let rx = self.rx_of(target);
        let Some(r) = self.state.receivers.get_mut(rx) else {
            return Reply::Nak;
        };
        match data {
            [] => Reply::data(0x11, &[&[to_bcd(r.att_db)]]),
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
            return Reply::data(0x14, &[&[sub], &level_bytes(v)]);
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
        if sub == 0x02 {
            let Some(r) = self.state.receivers.get_mut(rx) else {
                return Reply::Nak;
            };
            if rest.is_empty() {
                return Reply::data(0x16, &[&[0x02, to_bcd(r.preamp)]]);
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
            return Reply::data(0x16, &[&[sub, to_bcd(v)]]);
        }
        let min = u8::from(sub == 0x12); // AGC is 1..3
        match small(rest, max) {
            Some(v) if v >= min => {
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
        if sub > 0x01 {
            return Reply::Nak;
        }
        let rx = self.rx_of(target);
        let Some(r) = self.state.receivers.get_mut(rx) else {
            return Reply::Nak;
        };
        let slot = if sub == 0x00 {
            &mut r.tone
        } else {
            &mut r.tsql
        };
        match rest {
            [] => Reply::data(0x1B, &[&[sub], slot.as_slice()]),
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
