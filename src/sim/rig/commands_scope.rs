//! Scope control (`27 1x`, hardware-scope profiles only; others NAK every `27`).
//! Per-receiver subs (14-1A, 1C, 1D, 1F) carry an `<rx>` byte; reads accept the request
//! with or without it (without: the receiver shown) and always reply with it (§5.1).

use super::SimRig;
use super::codec::{Reply, bcd, flag, freq, freq_bytes, small, to_bcd};
use crate::profile::ScopeSourceKind;
use crate::wire::civ::cmd::{self, scope};

/// The span presets (half-spans, Hz).
pub(super) const SPANS: [u64; 8] = [
    2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
];

/// A per-receiver scope request: the receiver and, for a set, the value bytes.
struct RxArg<'a> {
    rx: u8,
    value: Option<&'a [u8]>,
}

impl SimRig {
    /// Splits `rest` into receiver and value: `[]` and `[rx]` are reads, `[rx, value…]`
    /// with `value_len` bytes is a set.
    fn rx_arg<'a>(&self, rest: &'a [u8], value_len: usize) -> Option<RxArg<'a>> {
        let (rx, value) = match rest {
            [] => (self.state.scope.shown_rx, None),
            [rx] => (*rx, None),
            [rx, v @ ..] if v.len() == value_len => (*rx, Some(v)),
            _ => return None,
        };
        (usize::from(rx) < self.receivers()).then_some(RxArg { rx, value })
    }

    /// `27 <sub> …`.
    pub(super) fn cmd_scope(&mut self, data: &[u8], from: u8) -> Reply {
        if self.profile.scope.source != ScopeSourceKind::Hardware {
            return Reply::Nak;
        }
        let Some((&sub, rest)) = data.split_first() else {
            return Reply::Nak;
        };
        match sub {
            scope::DISPLAY | scope::OUTPUT | scope::DUAL | scope::DURING_TX => {
                self.scope_global(sub, rest, from)
            }
            scope::RECEIVER => match rest {
                [] => Reply::data(cmd::SCOPE, &[&[scope::RECEIVER, self.state.scope.shown_rx]]),
                [r] if usize::from(*r) < self.receivers() => {
                    self.state.scope.shown_rx = *r;
                    Reply::Ack
                }
                _ => Reply::Nak,
            },
            scope::MODE
            | scope::EDGE
            | scope::HOLD
            | scope::SPEED
            | scope::CENTER_TYPE
            | scope::VBW
            | scope::RBW => self.scope_byte(sub, rest),
            scope::SPAN => self.scope_span(rest),
            scope::REF_LEVEL => self.scope_ref(rest),
            scope::FIXED_EDGES => self.scope_fixed_edges(rest),
            _ => Reply::Nak,
        }
    }

    /// On/off settings without a receiver byte: display, output, dual, during TX.
    fn scope_global(&mut self, sub: u8, rest: &[u8], from: u8) -> Reply {
        let s = &mut self.state.scope;
        let current = match sub {
            scope::DISPLAY => s.display,
            scope::OUTPUT => s.output,
            scope::DUAL => s.dual,
            _ => s.during_tx == 1,
        };
        if rest.is_empty() {
            return Reply::data(cmd::SCOPE, &[&[sub, u8::from(current)]]);
        }
        let Some(on) = flag(rest) else {
            return Reply::Nak;
        };
        match sub {
            scope::DISPLAY => s.display = on,
            scope::OUTPUT => {
                s.output = on;
                if on {
                    s.controller = from;
                }
            }
            scope::DUAL => {
                if on && self.state.receivers.len() < 2 {
                    return Reply::Nak;
                }
                s.dual = on;
            }
            _ => s.during_tx = u8::from(on),
        }
        Reply::Ack
    }

    /// One-byte per-receiver settings: mode, edge, hold, speed, center type, VBW, RBW.
    fn scope_byte(&mut self, sub: u8, rest: &[u8]) -> Reply {
        let Some(arg) = self.rx_arg(rest, 1) else {
            return Reply::Nak;
        };
        let Some(r) = self.state.scope.rx.get_mut(usize::from(arg.rx)) else {
            return Reply::Nak;
        };
        let (field, min, max): (&mut u8, u8, u8) = match sub {
            scope::MODE => (&mut r.mode, 0, 3),
            scope::EDGE => (&mut r.edge, 1, 4),
            scope::SPEED => (&mut r.speed, 0, 2),
            scope::CENTER_TYPE => (&mut r.center_type, 0, 2),
            scope::VBW => (&mut r.vbw, 0, 1),
            scope::RBW => (&mut r.rbw, 0, 2),
            _ => {
                // hold
                return match arg.value {
                    None => Reply::data(cmd::SCOPE, &[&[sub, arg.rx, u8::from(r.hold)]]),
                    Some(v) => match flag(v) {
                        Some(on) => {
                            r.hold = on;
                            Reply::Ack
                        }
                        None => Reply::Nak,
                    },
                };
            }
        };
        match arg.value {
            None => Reply::data(cmd::SCOPE, &[&[sub, arg.rx, to_bcd(*field)]]),
            Some(v) => match small(v, max) {
                Some(x) if x >= min => {
                    *field = x;
                    Reply::Ack
                }
                _ => Reply::Nak,
            },
        }
    }

    /// `27 15 <rx> [<half-span×5>]`: one of the span presets.
    fn scope_span(&mut self, rest: &[u8]) -> Reply {
        let Some(arg) = self.rx_arg(rest, 5) else {
            return Reply::Nak;
        };
        let Some(r) = self.state.scope.rx.get_mut(usize::from(arg.rx)) else {
            return Reply::Nak;
        };
        match arg.value {
            None => Reply::data(
                cmd::SCOPE,
                &[&[scope::SPAN, arg.rx], &freq_bytes(r.half_span_hz)],
            ),
            Some(v) => match freq(v) {
                Some(hz) if SPANS.contains(&hz) => {
                    r.half_span_hz = hz;
                    Reply::Ack
                }
                _ => Reply::Nak,
            },
        }
    }

    /// `27 19 <rx> [<b0> <b1> <sign>]`: reference level −30.0..+10.0 dB in 0.5 dB.
    fn scope_ref(&mut self, rest: &[u8]) -> Reply {
        let Some(arg) = self.rx_arg(rest, 3) else {
            return Reply::Nak;
        };
        let Some(r) = self.state.scope.rx.get_mut(usize::from(arg.rx)) else {
            return Reply::Nak;
        };
        match arg.value {
            None => Reply::data(
                cmd::SCOPE,
                &[&[scope::REF_LEVEL, arg.rx], &ref_bytes(r.ref_tenths_db)],
            ),
            Some(&[b0, b1, sign]) => {
                let tenths = match (bcd(b0), b1, sign) {
                    (Some(db), 0x00 | 0x50, 0 | 1) => {
                        let v = i16::from(db) * 10 + i16::from(b1 >> 4);
                        if sign == 1 { -v } else { v }
                    }
                    _ => return Reply::Nak,
                };
                if !(-300..=100).contains(&tenths) {
                    return Reply::Nak;
                }
                r.ref_tenths_db = tenths;
                Reply::Ack
            }
            Some(_) => Reply::Nak,
        }
    }

    /// `27 1E <range> <edge> [<lo×5> <hi×5>]`: fixed-edge frequencies. Range codes are
    /// the 1-based positions of the profile's bands (BCD).
    fn scope_fixed_edges(&mut self, rest: &[u8]) -> Reply {
        let (range, edge, body) = match rest {
            [range, edge, body @ ..] => (*range, *edge, body),
            _ => return Reply::Nak,
        };
        let (Some(rn), Some(en)) = (bcd(range), bcd(edge)) else {
            return Reply::Nak;
        };
        let Some((lo, hi)) = self.fixed_edges(rn, en) else {
            return Reply::Nak;
        };
        match body {
            [] => Reply::data(
                cmd::SCOPE,
                &[
                    &[scope::FIXED_EDGES, range, edge],
                    &freq_bytes(lo),
                    &freq_bytes(hi),
                ],
            ),
            [..] if body.len() == 10 => {
                let (Some(lo), Some(hi)) = (freq(&body[..5]), freq(&body[5..])) else {
                    return Reply::Nak;
                };
                let ok = lo < hi
                    && hi - lo <= 1_000_000
                    && self.profile.in_range(lo)
                    && self.profile.in_range(hi);
                if ok {
                    self.state.scope.fixed_edges.insert((rn, en), (lo, hi));
                }
                Reply::ack_if(ok)
            }
            _ => Reply::Nak,
        }
    }

    /// The fixed edges of (range, edge): as set, or a default cut of the band: edge 1
    /// the band (at most 1 MHz), 2 its lower half, 3 its upper half, 4 its middle half.
    pub(super) fn fixed_edges(&self, range: u8, edge: u8) -> Option<(u64, u64)> {
        if !(1..=4).contains(&edge) || range == 0 {
            return None;
        }
        let band = self.profile.bands().nth(usize::from(range) - 1)?;
        if let Some(e) = self.state.scope.fixed_edges.get(&(range, edge)) {
            return Some(*e);
        }
        let s = band.start_hz;
        let w = (band.end_hz - band.start_hz).min(1_000_000);
        Some(match edge {
            1 => (s, s + w),
            2 => (s, s + w / 2),
            3 => (s + w / 2, s + w),
            _ => (s + w / 4, s + 3 * w / 4),
        })
    }

    /// The fixed-edge range code of a frequency (its band's position), if any.
    pub(super) fn fixed_range_of(&self, hz: u64) -> Option<u8> {
        self.profile
            .bands()
            .position(|b| (b.start_hz..=b.end_hz).contains(&hz))
            .and_then(|i| u8::try_from(i + 1).ok())
            .filter(|r| *r <= 99)
    }
}

/// Reference-level bytes `<b0> <b1> <sign>` of a level in tenths of a dB.
pub(super) fn ref_bytes(tenths: i16) -> [u8; 3] {
    let v = tenths.unsigned_abs().min(999);
    [
        to_bcd((v / 10) as u8),
        ((v % 10) as u8) << 4,
        u8::from(tenths < 0),
    ]
}
