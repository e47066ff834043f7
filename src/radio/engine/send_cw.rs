//! `send_cw`: the radio's keyer sends the text on the VFO it transmits on — the
//! unselected one while split is on — so that VFO must be in CW or CW-R. In split its
//! mode is read first (`26 01`, where the radio has it), since the state may not know it
//! (an A/B radio whose selection is unknown) or the front panel may have changed it.

use crate::radio::engine::proc::{Cx, Outcome, Procedure, Step};
use crate::radio::engine::request::CivRequest;
use crate::radio::engine::vfo;
use crate::radio::state::apply::apply_frame;
use crate::radio::state::{cw_mode_allows, tx_vfo};
use crate::radio::table::answer::Answer;
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::wire::civ::{Frame, Mode, cmd};

fn unknown_tx_mode(label: &str) -> CommandError {
    CommandError::new(
        ErrorCode::RadioUnavailable,
        format!(
            "the mode of {label} is not known yet (the radio has not reported it); try again shortly"
        ),
    )
}

enum Phase {
    Start,
    /// `26 01` sent: the TX VFO's mode comes back.
    ReadingTx,
    /// `17 <text>` sent.
    Sending,
}

/// The `send_cw` procedure.
pub struct SendCw {
    text: String,
    phase: Phase,
}

impl SendCw {
    /// Sends `text` (CW characters, at most 30).
    pub fn new(text: &str) -> SendCw {
        SendCw {
            text: text.to_string(),
            phase: Phase::Start,
        }
    }

    /// Checks `mode` of the TX VFO `label`, then sends the text.
    fn send_if(&mut self, cx: &Cx, label: &str, mode: Option<Mode>) -> Step {
        let Some(mode) = mode else {
            return Step::Done(Err(unknown_tx_mode(label)));
        };
        if let Err(e) = cw_mode_allows(label, mode) {
            return Step::Done(Err(e));
        }
        self.phase = Phase::Sending;
        Step::Send {
            req: CivRequest::set(cx.addr(), cmd::SEND_CW, self.text.as_bytes()),
            // not idempotent: a lost answer must not send the text twice
            retry: false,
        }
    }
}

/// The mode of a `26 <sel> <mode> <data> <filter>` reply, if the profile has it.
fn mode_of(cx: &Cx, f: &Frame) -> Option<Mode> {
    cx.profile.mode_of_code(*f.data.get(1)?)
}

impl Procedure for SendCw {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        match self.phase {
            Phase::Start => {
                let s = cx.state.read(|c| c.radio.clone());
                let (label, mode) = tx_vfo(&s);
                if s.settings.split == Some(true) && vfo::has_unselected(cx.profile) {
                    self.phase = Phase::ReadingTx;
                    return Step::Send {
                        req: CivRequest::read(cx.addr(), cmd::SEL_MODE, &[cmd::sel::UNSELECTED]),
                        retry: true,
                    };
                }
                self.send_if(cx, &label, mode)
            }
            Phase::ReadingTx => {
                let label = cx.state.read(|c| tx_vfo(&c.radio).0);
                match last {
                    Some(Ok(f)) => {
                        let profile = cx.profile;
                        cx.state.modify(|c| apply_frame(c, profile, &f));
                        let mode = mode_of(cx, &f);
                        self.send_if(cx, &label, mode)
                    }
                    Some(Err(e)) => Step::Done(Err(e)),
                    None => Step::Done(Err(unknown_tx_mode(&label))),
                }
            }
            Phase::Sending => match last {
                Some(Ok(_)) => Step::Done(Ok(Answer::CwSent {
                    chars: self.text.len(),
                })),
                Some(Err(e)) => Step::Done(Err(e)),
                None => Step::Done(Err(CommandError::new(
                    ErrorCode::RadioTimeout,
                    "no answer to the CW text",
                ))),
            },
        }
    }
}
