//! The MOD input of radios that transmit LAN audio only when told so (profile
//! `[mod_input]`, the IC-7610): when a web client starts TX audio (its `audio_start` tx
//! while it owns a confirmed PTT, or its first accepted frame), the MOD input of the
//! current DATA mode is read and, unless it already is LAN, set to LAN;
//! when PTT drops (whatever the cause) the operator's setting is put back.
//!
//! [`ModInputSwitch`] is the sans-IO state machine; `web/ptt_watch.rs` drives it through
//! the radio's command queue.

use crate::radio::command::Command;

/// Where the switch stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing changed on the radio.
    Idle,
    /// The operator's setting is being read; `aborted` when PTT dropped meanwhile.
    Reading { aborted: bool },
    /// Set to LAN; `restore` is the operator's `(data mode, value)` (none if it was
    /// LAN already).
    Switched { restore: Option<(u8, u8)> },
}

/// See the module docs.
#[derive(Debug)]
pub struct ModInputSwitch {
    state: State,
}

impl Default for ModInputSwitch {
    fn default() -> Self {
        ModInputSwitch { state: State::Idle }
    }
}

impl ModInputSwitch {
    /// TX audio starts reaching the radio: read the setting (once per transmission).
    pub fn tx_started(&mut self) -> Option<Command> {
        match self.state {
            State::Idle => {
                self.state = State::Reading { aborted: false };
                Some(Command::ReadModInput)
            }
            State::Reading { .. } => {
                self.state = State::Reading { aborted: false };
                None
            }
            State::Switched { .. } => None,
        }
    }

    /// The read ended: `(data mode, value)`, or `None` when it failed. Returns the
    /// command that selects `lan`, if one is needed.
    pub fn read_done(&mut self, read: Option<(u8, u8)>, lan: u8) -> Option<Command> {
        let State::Reading { aborted } = self.state else {
            return None;
        };
        match read {
            _ if aborted => {
                self.state = State::Idle;
                None
            }
            None => {
                self.state = State::Idle;
                None
            }
            Some((_, value)) if value == lan => {
                self.state = State::Switched { restore: None };
                None
            }
            Some((data_mode, value)) => {
                self.state = State::Switched {
                    restore: Some((data_mode, value)),
                };
                Some(Command::SetModInput {
                    data_mode,
                    value: lan,
                })
            }
        }
    }

    /// PTT dropped: the command that restores the operator's setting, if any.
    pub fn unkeyed(&mut self) -> Option<Command> {
        match self.state {
            State::Idle => None,
            State::Reading { .. } => {
                self.state = State::Reading { aborted: true };
                None
            }
            State::Switched { restore } => {
                self.state = State::Idle;
                restore.map(|(data_mode, value)| Command::SetModInput { data_mode, value })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switch_and_restore() {
        let mut s = ModInputSwitch::default();
        assert_eq!(s.unkeyed(), None, "nothing to restore");
        assert_eq!(s.tx_started(), Some(Command::ReadModInput));
        assert_eq!(s.tx_started(), None, "one read per transmission");
        assert_eq!(
            s.read_done(Some((1, 2)), 5),
            Some(Command::SetModInput {
                data_mode: 1,
                value: 5
            })
        );
        assert_eq!(s.tx_started(), None, "already switched");
        assert_eq!(
            s.unkeyed(),
            Some(Command::SetModInput {
                data_mode: 1,
                value: 2
            })
        );
        assert_eq!(s.unkeyed(), None);
    }

    #[test]
    fn already_lan_is_left_alone() {
        let mut s = ModInputSwitch::default();
        s.tx_started();
        assert_eq!(s.read_done(Some((0, 5)), 5), None);
        assert_eq!(s.unkeyed(), None);
        assert_eq!(s.tx_started(), Some(Command::ReadModInput));
    }

    #[test]
    fn an_unkey_during_the_read_cancels_the_switch() {
        let mut s = ModInputSwitch::default();
        s.tx_started();
        assert_eq!(s.unkeyed(), None);
        assert_eq!(
            s.read_done(Some((0, 1)), 5),
            None,
            "not switched after PTT fell"
        );
        assert_eq!(s.tx_started(), Some(Command::ReadModInput));
        assert_eq!(s.read_done(None, 5), None, "a failed read changes nothing");
        assert_eq!(s.unkeyed(), None);
        assert_eq!(
            s.read_done(Some((0, 1)), 5),
            None,
            "a stray reply is ignored"
        );
    }
}
