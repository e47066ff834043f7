//! What a command's validity depends on besides the profile: the radio's state (a filter
//! width of the receiver's current mode, CW text only in CW). Checked before the rate
//! limit, so that an invalid command is always answered with its error at once; the
//! engine encodes with the same function when the command runs (the state may have
//! changed in between).

use super::SHOWN_SCOPE_RECEIVER;
use super::codec::CodecCtx;
use super::settings::{Place, Setting, SettingId};
use crate::radio::apply::selected_receiver;
use crate::radio::command::{Command, Write};
use crate::radio::error::{CommandError, ErrorCode};
use crate::radio::state::RadioState;
use crate::wire::civ;

fn unknown(what: &str) -> CommandError {
    CommandError::new(
        ErrorCode::RadioUnavailable,
        format!("{what} is not known yet (the radio has not reported it); try again shortly"),
    )
}

/// The receiver a write addresses and the data bytes of its CI-V set (after the command
/// byte), given the radio's state.
pub fn encode_write(w: &Write, s: &RadioState) -> Result<(u8, Vec<u8>), CommandError> {
    let setting = Setting::of(w.id);
    let rx = match setting.place {
        Place::ScopeReceiver if w.receiver == SHOWN_SCOPE_RECEIVER => s.scope.receiver,
        Place::Global => 0,
        _ => w.receiver,
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
                data.push(rx);
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
            let mode = s.receiver(selected_receiver(s)).and_then(|r| r.mode);
            match mode {
                Some(m) if m.is_cw() => Ok(()),
                Some(m) => Err(CommandError::param(
                    "text",
                    format!("CW is sent in mode CW or CW-R; the selected receiver is in {m}"),
                )),
                None => Err(unknown("the mode")),
            }
        }
        _ => Ok(()),
    }
}
