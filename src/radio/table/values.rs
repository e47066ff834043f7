//! The types of settings' values as the state keeps them, and how each is made from a
//! setting's raw integer (the number its codec carries and a command's parameter
//! checks): levels, flags, Hz, the named choices (AGC, tuner, scope speed: each word's
//! name and byte declared once, below) and reference levels in tenths of a dB.

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::util::vocabulary::vocabulary;

/// A type a setting's value is kept as.
pub trait SettingValue: Copy + Serialize {
    /// The value of raw integer `raw`, or `None` when `raw` is not one.
    fn from_raw(raw: i64) -> Option<Self>;

    /// The value as the state shows it.
    fn shown(self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

macro_rules! integers {
    ($($t:ty),*) => {
        $(impl SettingValue for $t {
            fn from_raw(raw: i64) -> Option<$t> {
                <$t>::try_from(raw).ok()
            }
        })*
    };
}

integers!(u8, u16, u32, u64, i32);

impl SettingValue for bool {
    fn from_raw(raw: i64) -> Option<bool> {
        match raw {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}

/// Tenths of a dB, shown as a number of dB (the scope reference level).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tenths(pub i16);

impl Serialize for Tenths {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(f64::from(self.0) / 10.0)
    }
}

impl SettingValue for Tenths {
    fn from_raw(raw: i64) -> Option<Tenths> {
        i16::try_from(raw).ok().map(Tenths)
    }
}

/// Named choices: the name is what the state shows and a command takes, the value the
/// byte on the wire (a parameter's `Domain::Choices` is the vocabulary's `NAMED`).
macro_rules! choices {
    ($($t:ty),*) => {
        $(impl SettingValue for $t {
            fn from_raw(raw: i64) -> Option<$t> {
                <$t>::from_value(raw)
            }
        })*
    };
}

vocabulary! {
    /// AGC time constant: its value is the `16 12` byte.
    pub enum Agc: i64 {
        /// Fast.
        Fast = "fast" => 1,
        /// Mid.
        Mid = "mid" => 2,
        /// Slow.
        Slow = "slow" => 3,
    }
}

vocabulary! {
    /// Antenna tuner: its value is the `1C 01` byte.
    pub enum Tuner: i64 {
        /// Off (through).
        Off = "off" => 0,
        /// On.
        On = "on" => 1,
        /// Tuning now.
        Tune = "tune" => 2,
    }
}

vocabulary! {
    /// Scope sweep speed: its value is the `27 1A` byte.
    pub enum ScopeSpeed: i64 {
        /// Fast.
        Fast = "fast" => 0,
        /// Mid.
        Mid = "mid" => 1,
        /// Slow.
        Slow = "slow" => 2,
    }
}

choices!(Agc, Tuner, ScopeSpeed);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_values_become_typed_values_or_nothing() {
        assert_eq!(u16::from_raw(255), Some(255));
        assert_eq!(u8::from_raw(256), None);
        assert_eq!(bool::from_raw(2), None);
        assert_eq!(Agc::from_raw(3), Some(Agc::Slow));
        assert_eq!(Agc::from_raw(0), None, "AGC starts at 1");
        assert_eq!(ScopeSpeed::from_raw(0), Some(ScopeSpeed::Fast));
        assert_eq!(Tuner::Tune.shown(), serde_json::json!("tune"));
        assert_eq!(Tenths(-25).shown(), serde_json::json!(-2.5));
    }
}
