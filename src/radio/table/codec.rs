//! How a setting's value travels in CI-V data bytes (spec §4.3, §4.5, §5.1). A setting's
//! value is an integer ("raw"): a level 0..255, a BCD byte, 0/1, WPM, Hz, or tenths of a
//! dB; its codec turns it into the bytes after the setting's prefix and back.

use crate::wire::civ::{self, Mode};

/// The encodings settings use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// 2-byte BCD level 0000..0255.
    Level,
    /// One BCD byte 0..=`max`.
    Byte {
        /// Largest value.
        max: u8,
    },
    /// `00` / `01`.
    Flag,
    /// An on/off switch a radio may report with a kind of "on" (APF `01`..`03`: wide,
    /// mid, narrow): `00` is off, `01`..=`max` on; on is written `01`.
    Switch {
        /// Largest "on" byte reported.
        max: u8,
    },
    /// The antenna connector of `12 <ant> <rx-ant>`: the value 1 or 2, the byte
    /// `00`/`01` (a one-byte `12 <ant>` keeps the RX antenna).
    AntennaPort,
    /// The RX antenna input of `12 <ant> <rx-ant>`: the second byte, `00`/`01`. It is
    /// only written together with the connector (`set_antenna`), so it encodes nothing.
    RxAntenna,
    /// CW key speed: the value is WPM 6..48, the bytes a 2-byte level
    /// (WPM = round(level / 6.071 + 6), spec §4.5).
    KeySpeed,
    /// RIT offset: the value is Hz −9999..9999, the bytes 2 LE-BCD bytes + sign.
    RitOffset,
    /// IF filter width: the value is Hz, the byte a BCD index whose meaning depends on
    /// the receiver's mode.
    FilterWidth,
    /// Scope half-span: the value is Hz, the bytes 5-byte LE BCD.
    Span,
    /// Scope reference level: the value is tenths of a dB −300..100, the bytes
    /// `<tens·16+units> <tenths·16> <00 + | 01 −>`.
    RefLevel,
}

/// What a codec may need to know about the receiver it encodes for.
#[derive(Debug, Clone, Copy, Default)]
pub struct CodecCtx {
    /// The receiver's mode, when known.
    pub mode: Option<Mode>,
}

fn level_bytes(v: i64) -> Option<Vec<u8>> {
    let v = u16::try_from(v).ok().filter(|v| *v <= 255)?;
    civ::level_to_bcd(v).ok().map(|b| b.to_vec())
}

fn level_of(bytes: &[u8]) -> Option<i64> {
    match bytes {
        [hi, lo] => civ::bcd_to_level(&[*hi, *lo])
            .ok()
            .filter(|v| *v <= 255)
            .map(i64::from),
        _ => None,
    }
}

/// WPM of a key-speed level.
pub fn wpm_of_level(level: u16) -> u8 {
    (f64::from(level) / 6.071 + 6.0).round().clamp(6.0, 48.0) as u8
}

/// The key-speed level of `wpm` (6..48 maps onto 0..255).
pub fn level_of_wpm(wpm: u8) -> u16 {
    ((f64::from(wpm) - 6.0) * 6.071).round().clamp(0.0, 255.0) as u16
}

impl Codec {
    /// The bytes of value `raw`, or `None` when `raw` does not fit.
    pub fn encode(self, raw: i64, ctx: CodecCtx) -> Option<Vec<u8>> {
        match self {
            Codec::Level => level_bytes(raw),
            Codec::Byte { max } => {
                let v = u8::try_from(raw).ok().filter(|v| *v <= max)?;
                civ::bcd_byte(v).ok().map(|b| vec![b])
            }
            Codec::Flag | Codec::Switch { .. } => match raw {
                0 | 1 => Some(vec![raw as u8]),
                _ => None,
            },
            Codec::AntennaPort => match raw {
                1 | 2 => Some(vec![raw as u8 - 1]),
                _ => None,
            },
            Codec::RxAntenna => None,
            Codec::KeySpeed => {
                let wpm = u8::try_from(raw).ok().filter(|w| (6..=48).contains(w))?;
                level_bytes(i64::from(level_of_wpm(wpm)))
            }
            Codec::RitOffset => {
                if !(-9999..=9999).contains(&raw) {
                    return None;
                }
                let a = raw.unsigned_abs();
                let lo = civ::bcd_byte((a % 100) as u8).ok()?;
                let hi = civ::bcd_byte((a / 100) as u8).ok()?;
                Some(vec![lo, hi, u8::from(raw < 0)])
            }
            Codec::FilterWidth => {
                let hz = u32::try_from(raw).ok()?;
                let idx = civ::index_of_width_exact(ctx.mode?.code(), hz)?;
                civ::bcd_byte(idx).ok().map(|b| vec![b])
            }
            Codec::Span => {
                let hz = u64::try_from(raw).ok()?;
                civ::freq_to_bcd(hz).ok().map(|b| b.to_vec())
            }
            Codec::RefLevel => {
                if !(-300..=100).contains(&raw) || raw % 5 != 0 {
                    return None;
                }
                let a = raw.unsigned_abs();
                let (db, tenths) = ((a / 10) as u8, (a % 10) as u8);
                Some(vec![
                    civ::bcd_byte(db).ok()?,
                    tenths << 4,
                    u8::from(raw < 0),
                ])
            }
        }
    }

    /// The value of `bytes`, or `None` when they are not a valid encoding.
    pub fn decode(self, bytes: &[u8], ctx: CodecCtx) -> Option<i64> {
        match self {
            Codec::Level => level_of(bytes),
            Codec::Byte { max } => match bytes {
                [b] => civ::from_bcd_byte(*b)
                    .ok()
                    .filter(|v| *v <= max)
                    .map(i64::from),
                _ => None,
            },
            Codec::Flag => match bytes {
                [b @ (0 | 1)] => Some(i64::from(*b)),
                _ => None,
            },
            Codec::Switch { max } => match bytes {
                [b] if *b <= max => Some(i64::from(*b != 0)),
                _ => None,
            },
            Codec::AntennaPort => match bytes {
                [a @ (0 | 1)] | [a @ (0 | 1), 0 | 1] => Some(i64::from(*a) + 1),
                _ => None,
            },
            Codec::RxAntenna => match bytes {
                [0 | 1, r @ (0 | 1)] => Some(i64::from(*r)),
                _ => None,
            },
            Codec::KeySpeed => level_of(bytes).map(|l| i64::from(wpm_of_level(l as u16))),
            Codec::RitOffset => match bytes {
                [lo, hi, sign @ (0 | 1)] => {
                    let lo = i64::from(civ::from_bcd_byte(*lo).ok()?);
                    let hi = i64::from(civ::from_bcd_byte(*hi).ok()?);
                    let v = hi * 100 + lo;
                    Some(if *sign == 1 { -v } else { v })
                }
                _ => None,
            },
            Codec::FilterWidth => match bytes {
                [b] => {
                    let idx = civ::from_bcd_byte(*b).ok()?;
                    civ::width_of_index(ctx.mode?.code(), idx).map(i64::from)
                }
                _ => None,
            },
            Codec::Span => {
                if bytes.len() != 5 {
                    return None;
                }
                civ::bcd_to_freq(bytes)
                    .ok()
                    .and_then(|v| i64::try_from(v).ok())
            }
            Codec::RefLevel => match bytes {
                [db, tenths, sign @ (0 | 1)] => {
                    let db = i64::from(civ::from_bcd_byte(*db).ok()?);
                    let t = i64::from(tenths >> 4);
                    if tenths & 0x0F != 0 || t > 9 {
                        return None;
                    }
                    let v = db * 10 + t;
                    let v = if *sign == 1 { -v } else { v };
                    (-300..=100).contains(&v).then_some(v)
                }
                _ => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(c: Codec, raw: i64, bytes: &[u8], ctx: CodecCtx) {
        assert_eq!(c.encode(raw, ctx).as_deref(), Some(bytes), "{c:?} {raw}");
        assert_eq!(c.decode(bytes, ctx), Some(raw), "{c:?} {bytes:02X?}");
    }

    #[test]
    fn encodings_of_the_spec() {
        let none = CodecCtx::default();
        round_trip(Codec::Level, 128, &[0x01, 0x28], none);
        round_trip(Codec::Byte { max: 45 }, 45, &[0x45], none);
        round_trip(Codec::Flag, 1, &[0x01], none);
        round_trip(Codec::Switch { max: 3 }, 1, &[0x01], none);
        assert_eq!(
            Codec::Switch { max: 3 }.decode(&[0x03], none),
            Some(1),
            "APF narrow"
        );
        round_trip(Codec::AntennaPort, 2, &[0x01], none);
        assert_eq!(Codec::AntennaPort.decode(&[0x00, 0x01], none), Some(1));
        assert_eq!(Codec::RxAntenna.decode(&[0x00, 0x01], none), Some(1));
        round_trip(Codec::RitOffset, 50, &[0x50, 0x00, 0x00], none);
        round_trip(Codec::RitOffset, -123, &[0x23, 0x01, 0x01], none);
        round_trip(Codec::RefLevel, -50, &[0x05, 0x00, 0x01], none);
        round_trip(Codec::RefLevel, 25, &[0x02, 0x50, 0x00], none);
        round_trip(Codec::Span, 2500, &[0x00, 0x25, 0x00, 0x00, 0x00], none);
        let usb = CodecCtx {
            mode: Some(Mode::Usb),
        };
        round_trip(Codec::FilterWidth, 1700, &[0x21], usb);
        assert_eq!(Codec::KeySpeed.decode(&[0x01, 0x28], none), Some(27));
        assert_eq!(Codec::KeySpeed.encode(48, none), Some(vec![0x02, 0x55]));
        assert_eq!(Codec::KeySpeed.encode(6, none), Some(vec![0x00, 0x00]));
    }

    #[test]
    fn what_does_not_fit_is_refused() {
        let none = CodecCtx::default();
        assert_eq!(Codec::Level.encode(256, none), None);
        assert_eq!(Codec::Level.decode(&[0x02, 0x56], none), None);
        assert_eq!(Codec::Level.decode(&[0x0A, 0x00], none), None, "bad BCD");
        assert_eq!(Codec::Byte { max: 3 }.encode(4, none), None);
        assert_eq!(Codec::Flag.decode(&[2], none), None);
        assert_eq!(Codec::Switch { max: 3 }.decode(&[4], none), None);
        assert_eq!(Codec::Switch { max: 3 }.encode(2, none), None);
        assert_eq!(Codec::AntennaPort.encode(3, none), None);
        assert_eq!(Codec::AntennaPort.decode(&[0x02, 0x00], none), None);
        assert_eq!(Codec::RxAntenna.decode(&[0x00], none), None, "no RX byte");
        assert_eq!(
            Codec::RxAntenna.encode(1, none),
            None,
            "written with the port"
        );
        assert_eq!(Codec::RitOffset.encode(10_000, none), None);
        assert_eq!(Codec::RefLevel.encode(-301, none), None);
        assert_eq!(Codec::RefLevel.encode(-53, none), None, "0.5 dB steps");
        assert_eq!(Codec::FilterWidth.encode(1700, none), None, "mode unknown");
        let fm = CodecCtx {
            mode: Some(Mode::Fm),
        };
        assert_eq!(Codec::FilterWidth.encode(1700, fm), None);
        assert_eq!(Codec::KeySpeed.encode(5, none), None);
        assert_eq!(Codec::Span.decode(&[0; 4], none), None);
    }
}
