//! What a command's validity depends on besides the profile: the radio's state (a filter
//! width of the receiver's current mode, CW text only in CW). Checked before the rate
//! limit, so that an invalid command is always answered with its error at once; the
//! engine encodes with the same function when the command runs (the state may have
//! changed in between).

use crate::radio::state::RadioState;
use crate::radio::state::apply::{selected_receiver, selected_vfo};
use crate::radio::table::codec::CodecCtx;
use crate::radio::table::command::{Command, Write};
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::radio::table::settings::{Place, Setting, SettingId};
use crate::wire::civ::{self, Mode, Receiver};

fn unknown(what: &str) -> CommandError {
    CommandError::new(
        ErrorCode::RadioUnavailable,
        format!("{what} is not known yet (the radio has not reported it); try again shortly"),
    )
}

/// The receiver a write addresses and the data bytes of its CI-V set (after the command
/// byte), given the radio's state.
pub fn encode_write(w: &Write, s: &RadioState) -> Result<(Receiver, Vec<u8>), CommandError> {
    let setting = Setting::of(w.id);
    let rx = match (setting.place, w.receiver) {
        (Place::Global, _) => Receiver::Main,
        (_, Some(r)) => r,
        (Place::ScopeReceiver, None) => s.scope.receiver,
        (Place::Receiver, None) => selected_receiver(s),
    };
    let mode = s.receiver(rx).and_then(|r| r.mode);
    let ctx = CodecCtx { mode };
    let Some(bytes) = setting.codec.encode(w.raw, ctx) else {
        let why = match (setting.id, mode) {
            (SettingId::FilterWidth, Some(m)) => match civ::width_range(m.code()) {
                Some((lo, hi)) => format!(
                    "{} Hz is not a filter width of {m}; allowed {lo}..{hi} Hz (see byMode)",
                    w.raw
                ),
                None => format!("{m} has a fixed filter width"),
            },
            (SettingId::FilterWidth, None) => return Err(unknown("the receiver's mode")),
            _ => format!("{} cannot be encoded", w.raw),
        };
        return Err(CommandError::param(setting.key, why));
    };
    let data = match setting.set_bytes {
        Some(pair) => vec![pair[usize::from(w.raw == 1)]],
        None => {
            let mut data = setting.prefix.to_vec();
            if setting.place == Place::ScopeReceiver {
                data.push(rx.code());
            }
            data.extend(bytes);
            data
        }
    };
    Ok((rx, data))
}

/// Checks `cmd` against the radio's state `s`.
pub fn check_against(cmd: &Command, s: &RadioState) -> Result<(), CommandError> {
    match cmd {
        Command::Write { writes, .. } => {
            for w in writes {
                encode_write(w, s)?;
            }
            Ok(())
        }
        Command::SendCw(_) => {
            let (label, mode) = tx_vfo(s);
            match mode {
                Some(m) => cw_mode_allows(&label, m),
                // in split the engine reads the TX VFO's mode (`26 01`) before it sends
                None if s.settings.split == Some(true) => Ok(()),
                None => Err(unknown("the mode")),
            }
        }
        _ => Ok(()),
    }
}

/// The receiver or VFO the radio keys, named for messages, and its mode if known: the
/// unselected one while split is on (TX on the other VFO / receiver), else the selected
/// one.
pub fn tx_vfo(s: &RadioState) -> (String, Option<Mode>) {
    let selected = selected_receiver(s);
    if s.settings.split != Some(true) {
        let mode = s.receiver(selected).and_then(|r| r.mode);
        return ("the selected receiver".into(), mode);
    }
    if s.sub.is_some() {
        let tx = selected.other();
        let label = format!("the TX receiver ({tx}, split)");
        return (label, s.receiver(tx).and_then(|r| r.mode));
    }
    match selected_vfo(s) {
        Some(v) => {
            let other = if v == 0 { &s.main.vfo_b } else { &s.main.vfo_a };
            let label = format!("the TX VFO ({}, split)", if v == 0 { "B" } else { "A" });
            (label, other.as_ref().and_then(|x| x.mode))
        }
        None => ("the TX VFO (the unselected one, split)".into(), None),
    }
}

/// CW goes out only in CW or CW-R: an error naming `label` and its `mode` otherwise.
pub fn cw_mode_allows(label: &str, mode: Mode) -> Result<(), CommandError> {
    match mode {
        m if m.is_cw() => Ok(()),
        m => Err(CommandError::param(
            "text",
            format!("CW is sent in mode CW or CW-R; {label} is in {m}"),
        )),
    }
}
