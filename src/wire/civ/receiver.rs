//! The receivers of a two-receiver radio (MAIN and SUB). On the wire a receiver is a
//! byte (command 29's prefix, the scope's receiver byte, 0 MAIN and 1 SUB); everywhere
//! above the codecs it is a [`Receiver`].

use serde::Serialize;

/// A receiver: MAIN (the only one of a one-receiver radio, and the one A/B radios' VFOs
/// live on) or SUB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Receiver {
    /// MAIN receiver.
    #[default]
    Main,
    /// SUB receiver.
    Sub,
}

impl Receiver {
    /// Both receivers, MAIN first.
    pub const ALL: [Receiver; 2] = [Receiver::Main, Receiver::Sub];

    /// The byte on the wire (CI-V command 29, scope frames) and the number the web
    /// interface shows: 0 MAIN, 1 SUB.
    pub const fn code(self) -> u8 {
        match self {
            Receiver::Main => 0,
            Receiver::Sub => 1,
        }
    }

    /// The receiver of a wire byte, `None` for any other byte.
    pub const fn from_code(code: u8) -> Option<Receiver> {
        match code {
            0 => Some(Receiver::Main),
            1 => Some(Receiver::Sub),
            _ => None,
        }
    }

    /// Position in a per-receiver array (`[T; 2]`).
    pub const fn index(self) -> usize {
        self.code() as usize
    }

    /// The name the web interface uses (`MAIN`, `SUB`).
    pub const fn label(self) -> &'static str {
        match self {
            Receiver::Main => "MAIN",
            Receiver::Sub => "SUB",
        }
    }

    /// The other receiver.
    pub const fn other(self) -> Receiver {
        match self {
            Receiver::Main => Receiver::Sub,
            Receiver::Sub => Receiver::Main,
        }
    }
}

impl std::fmt::Display for Receiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// The web interface's JSON writes a receiver as its number (interface.md §2.2: the
/// state's `scope.receiver`, events' `receiver`).
impl Serialize for Receiver {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_other_bytes_are_no_receiver() {
        for r in Receiver::ALL {
            assert_eq!(Receiver::from_code(r.code()), Some(r));
            assert_eq!(Receiver::ALL[r.index()], r);
            assert_eq!(r.other().other(), r);
        }
        assert_eq!(Receiver::from_code(2), None);
        assert_eq!(Receiver::from_code(0xFF), None);
        assert_eq!(serde_json::to_string(&Receiver::Sub).unwrap(), "1");
        assert_eq!(Receiver::Main.to_string(), "MAIN");
    }
}
