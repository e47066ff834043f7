//! The MOD input of the transmitter (a `1A 05` menu item per DATA mode, named by the
//! profile's `[mod_input]`): read before web TX audio starts, set to LAN, and put back
//! to the operator's setting afterwards.

use crate::radio::engine::proc::{Cx, Item, Outcome, Procedure, Script, Step, Then};
use crate::radio::engine::request::CivRequest;
use crate::radio::table::answer::Answer;
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::wire::civ::{self, cmd};

/// The menu item of `data_mode`'s MOD input.
fn item(cx: &Cx, data_mode: u8) -> Result<(u8, u8), CommandError> {
    cx.profile
        .mod_input
        .as_ref()
        .and_then(|m| m.menu_for(data_mode))
        .ok_or_else(|| {
            CommandError::new(
                ErrorCode::NotSupported,
                format!("the {} has no MOD-input setting", cx.profile.model()),
            )
        })
}

/// Reads the MOD input of MAIN's current DATA mode: `{"data_mode", "value"}`.
pub struct ReadModInput {
    asked: Option<(u8, (u8, u8))>,
}

impl ReadModInput {
    /// A read.
    pub fn new() -> ReadModInput {
        ReadModInput { asked: None }
    }
}

impl Procedure for ReadModInput {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        match (self.asked, last) {
            (None, _) => {
                let Some(data_mode) = cx.state.read(|c| c.radio.main.data_mode) else {
                    return Step::Done(Err(CommandError::new(
                        ErrorCode::RadioUnavailable,
                        "the DATA mode is not known yet",
                    )));
                };
                let (hi, lo) = match item(cx, data_mode) {
                    Ok(i) => i,
                    Err(e) => return Step::Done(Err(e)),
                };
                self.asked = Some((data_mode, (hi, lo)));
                Step::Send {
                    req: CivRequest::read(cx.addr(), cmd::EXT, &[cmd::ext::MENU, hi, lo]),
                    retry: true,
                }
            }
            (Some((data_mode, (hi, lo))), Some(Ok(f))) => match f.data.as_slice() {
                [sub, h, l, v, ..] if *sub == cmd::ext::MENU && (*h, *l) == (hi, lo) => {
                    match civ::from_bcd_byte(*v) {
                        Ok(value) => Step::Done(Ok(Answer::ModInput { data_mode, value })),
                        Err(_) => Step::Done(Err(CommandError::new(
                            ErrorCode::RadioRejected,
                            format!("MOD-input value {v:02X} is not BCD"),
                        ))),
                    }
                }
                other => Step::Done(Err(CommandError::new(
                    ErrorCode::RadioRejected,
                    format!("unexpected MOD-input reply {other:02X?}"),
                ))),
            },
            (Some(_), Some(Err(e))) => Step::Done(Err(e)),
            (Some(_), None) => Step::Done(Err(CommandError::new(
                ErrorCode::RadioUnavailable,
                "internal: MOD-input read without an outcome",
            ))),
        }
    }
}

/// Sets the MOD input of `data_mode` to `value`.
pub fn set_mod_input(cx: &Cx, data_mode: u8, value: u8) -> Script {
    let (hi, lo) = match item(cx, data_mode) {
        Ok(i) => i,
        Err(e) => return Script::fail(e),
    };
    let Ok(v) = civ::bcd_byte(value) else {
        return Script::fail(CommandError::param(
            "value",
            format!("{value} is not a menu value"),
        ));
    };
    Script::new(
        vec![Item::set(
            CivRequest::set(cx.addr(), cmd::EXT, &[cmd::ext::MENU, hi, lo, v]),
            Then::Nothing,
        )],
        Answer::ModInput { data_mode, value },
    )
}
