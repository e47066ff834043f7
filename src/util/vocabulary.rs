//! Closed vocabularies declared once: [`vocabulary!`] turns one line per word into an
//! enum, its list, its names (as profiles and the web interface write them) and, where
//! the words stand for numbers on the wire, those numbers. Serde reads and writes the
//! name; an unknown name is an error that lists the known ones, so a typo in a profile
//! fails at load.

/// Declares a closed vocabulary.
///
/// ```text
/// vocabulary! {
///     /// AGC time constant.
///     pub enum Agc: i64 {
///         /// Fast.
///         Fast = "fast" => 1,
///         ...
///     }
/// }
/// ```
///
/// makes `enum Agc` with `Agc::ALL`, `name()`, `from_name()`, `value()`,
/// `from_value()`, `NAMED` (`(name, value)` pairs, for parameter choices), `Display` and
/// serde as the name. Without `: T` and `=> value` the words have names only.
macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Enum:ident: $T:ty {
            $($(#[$doc:meta])* $Variant:ident = $name:literal => $value:expr,)*
        }
    ) => {
        $crate::util::vocabulary::vocabulary! {
            $(#[$meta])*
            $vis enum $Enum {
                $($(#[$doc])* $Variant = $name,)*
            }
        }

        impl $Enum {
            /// Each word's name and number.
            pub const NAMED: &'static [(&'static str, $T)] = &[$(($name, $value),)*];

            /// The number this word stands for.
            pub const fn value(self) -> $T {
                match self {
                    $($Enum::$Variant => $value,)*
                }
            }

            /// The word of a number, if any.
            pub fn from_value(value: $T) -> Option<$Enum> {
                Self::ALL.iter().copied().find(|w| w.value() == value)
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $Enum:ident {
            $($(#[$doc:meta])* $Variant:ident = $name:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $Enum {
            $($(#[$doc])* $Variant,)*
        }

        impl $Enum {
            /// Every word, in declaration order.
            pub const ALL: &'static [$Enum] = &[$($Enum::$Variant,)*];

            /// The name, as profiles and the web interface write it.
            pub const fn name(self) -> &'static str {
                match self {
                    $($Enum::$Variant => $name,)*
                }
            }

            /// The word of a name (exact), if any.
            pub fn from_name(name: &str) -> Option<$Enum> {
                Self::ALL.iter().copied().find(|w| w.name() == name)
            }

            /// Every name, comma-separated (for messages).
            pub fn known() -> String {
                Self::ALL.iter().map(|w| w.name()).collect::<Vec<_>>().join(", ")
            }
        }

        impl std::fmt::Display for $Enum {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl serde::Serialize for $Enum {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $Enum {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<$Enum, D::Error> {
                let name = <std::string::String as serde::Deserialize>::deserialize(d)?;
                $Enum::from_name(&name).ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "unknown {} {name:?}; known: {}",
                        $crate::util::vocabulary::words(stringify!($Enum)),
                        $Enum::known()
                    ))
                })
            }
        }
    };
}

pub(crate) use vocabulary;

/// A type name in words for messages (`MeterKind` -> "meter kind").
pub fn words(type_name: &str) -> String {
    let mut out = String::new();
    for (i, c) in type_name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push(' ');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    vocabulary! {
        /// A test vocabulary.
        enum Speed: i64 {
            /// Fast.
            Fast = "fast" => 0,
            /// Slow.
            SlowDown = "slow_down" => 2,
        }
    }

    #[test]
    fn names_values_and_serde_come_from_one_line_each() {
        assert_eq!(Speed::ALL, &[Speed::Fast, Speed::SlowDown]);
        assert_eq!(Speed::SlowDown.name(), "slow_down");
        assert_eq!(Speed::from_value(2), Some(Speed::SlowDown));
        assert_eq!(Speed::from_value(1), None);
        assert_eq!(Speed::NAMED, &[("fast", 0), ("slow_down", 2)]);
        assert_eq!(serde_json::to_string(&Speed::Fast).unwrap(), "\"fast\"");
        assert_eq!(
            serde_json::from_str::<Speed>("\"slow_down\"").unwrap(),
            Speed::SlowDown
        );
        let e = serde_json::from_str::<Speed>("\"fats\"").unwrap_err();
        assert!(
            e.to_string()
                .contains("unknown speed \"fats\"; known: fast, slow_down"),
            "{e}"
        );
        let e = serde_json::from_str::<Speed>("3").unwrap_err();
        assert!(e.to_string().contains("expected a string"), "{e}");
    }
}
