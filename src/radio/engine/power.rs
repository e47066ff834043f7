//! Power on/off (`18`) and PTT (`1C 00`), the commands whose failures matter most.
//!
//! * Power off when already off, or on when already on, is a harmless success.
//! * Power on is repeated while a booting radio NAKs (up to 5 times, 1 s apart) and
//!   after a lost answer (up to 3 times); over LAN no `FE` preamble padding is sent.
//! * `ptt true`: when both attempts time out, PTT is read back; a transmitter found keyed
//!   is reported keyed (so the transmit timeout is armed), one whose state cannot be read
//!   is put in doubt and released.
//! * `ptt false` that fails hands over to the release that retries until confirmed.

use std::time::Duration;

use serde_json::json;

use super::proc::{Cx, Effect, Outcome, Procedure, Step};
use crate::radio::error::{CommandError, ErrorCode};
use crate::radio::request::CivRequest;
use crate::wire::civ::cmd;

/// The power procedure.
pub struct Power {
    on: bool,
    attempts: u32,
    naks: u32,
}

impl Power {
    /// Switch on (`true`) or off.
    pub fn new(on: bool) -> Power {
        Power {
            on,
            attempts: 0,
            naks: 0,
        }
    }

    fn result(&self) -> serde_json::Value {
        json!({"state": if self.on { "on" } else { "off" }})
    }
}

/// NAKs of a booting radio tolerated before power-on fails.
const BOOT_NAKS: u32 = 5;
/// Lost answers tolerated before power-on fails.
const POWER_TRIES: u32 = 3;

impl Procedure for Power {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        let on = self.on;
        match last {
            None if self.attempts == 0 && cx.store.read(|c| c.radio.power_on) == Some(on) => {
                return Step::Done(Ok(self.result()));
            }
            None => {}
            Some(Ok(_)) => {
                cx.store.modify(|c| {
                    c.radio.power_on = Some(on);
                    if !on {
                        c.radio.ptt = Some(false);
                    }
                });
                cx.effects.push(if on {
                    Effect::PoweredOn
                } else {
                    Effect::PoweredOff
                });
                return Step::Done(Ok(self.result()));
            }
            Some(Err(e)) if on && e.code == ErrorCode::RadioRejected && self.naks < BOOT_NAKS => {
                self.naks += 1;
                log::info!("power on: the radio refused (booting?); trying again in 1 s");
                return Step::Sleep(Duration::from_secs(1));
            }
            Some(Err(e))
                if on && e.code == ErrorCode::RadioTimeout && self.attempts < POWER_TRIES => {}
            Some(Err(e)) => return Step::Done(Err(e)),
        }
        self.attempts += 1;
        Step::Send {
            req: CivRequest::set(cx.addr(), cmd::POWER, &[u8::from(on)]),
            // power-on repeats itself (above); power-off is retried once
            retry: !on,
        }
    }
}

enum PttPhase {
    Start,
    Keying,
    ReadingBack(CommandError),
}

/// `ptt` from a client (the release, an unkey that must succeed, is the engine's own:
/// see `safety.rs`).
pub struct PttKey {
    on: bool,
    phase: PttPhase,
}

impl PttKey {
    /// `ptt <on>` from a client.
    pub fn new(on: bool) -> PttKey {
        PttKey {
            on,
            phase: PttPhase::Start,
        }
    }
}

impl Procedure for PttKey {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        let on = self.on;
        match (std::mem::replace(&mut self.phase, PttPhase::Start), last) {
            (PttPhase::Start, _) => {
                self.phase = PttPhase::Keying;
                Step::Send {
                    req: CivRequest::set(cx.addr(), cmd::TX, &[cmd::tx::PTT, u8::from(on)]),
                    retry: true,
                }
            }
            (PttPhase::Keying, Some(Ok(_))) => {
                cx.store.modify(|c| c.radio.ptt = Some(on));
                Step::Done(Ok(json!({"state": on})))
            }
            (PttPhase::Keying, Some(Err(e))) if on && e.code == ErrorCode::RadioTimeout => {
                // the radio may have keyed and its answer was lost: ask it
                self.phase = PttPhase::ReadingBack(e);
                Step::Send {
                    req: CivRequest::read(cx.addr(), cmd::TX, &[cmd::tx::PTT]),
                    retry: false,
                }
            }
            (PttPhase::Keying, Some(Err(e))) => {
                if !on {
                    cx.effects.push(Effect::Release);
                }
                Step::Done(Err(e))
            }
            (PttPhase::ReadingBack(e), Some(Ok(f))) => {
                let keyed = f.data.as_slice() == [cmd::tx::PTT, 1];
                cx.store.modify(|c| {
                    if let [cmd::tx::PTT, x @ (0 | 1)] = f.data.as_slice() {
                        c.radio.ptt = Some(*x == 1);
                    }
                });
                if keyed {
                    Step::Done(Ok(json!({"state": true})))
                } else {
                    Step::Done(Err(e))
                }
            }
            (PttPhase::ReadingBack(e), Some(Err(_))) => {
                // keyed or not, nobody knows: put PTT in doubt and make sure it is off
                cx.store.modify(|c| c.radio.ptt = None);
                cx.effects.push(Effect::Release);
                Step::Done(Err(e))
            }
            (_, None) => Step::Done(Err(CommandError::new(
                ErrorCode::RadioUnavailable,
                "internal: PTT step without an outcome",
            ))),
        }
    }
}
