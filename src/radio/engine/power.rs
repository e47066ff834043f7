//! Power on/off (`18`) and PTT (`1C 00`), the commands whose failures matter most. What
//! the radio says is the truth: after a PTT or power-off command that is refused (NAK)
//! or not answered, the state is read back from the radio and acted on — a radio may act
//! on a command and still answer NAK, or its answer may be lost.
//!
//! * Power off when already off, or on when already on, is a harmless success.
//! * Power off unkeys first when the transmitter may be keyed (a key that ran just
//!   before, a PTT in doubt); a power-off that fails is read back (`18`).
//! * Power on is repeated while a booting radio NAKs (up to 5 times, 1 s apart) and
//!   after a lost answer (up to 3 times); over LAN no `FE` preamble padding is sent.
//! * `ptt <on>` that fails is read back (`1C 00`; asked again after a NAK, up to three
//!   reads, not after a timeout): PTT shows `null` meanwhile, then what
//!   the radio says. A key the radio reports keyed counts as done (`ok`, with
//!   `readBack: true` and a note; the transmit timer runs); an unkey the radio reports
//!   unkeyed likewise. A transmitter still keyed after `ptt false`, or one whose state
//!   cannot be read, is handed to the release (`safety.rs`), which retries until the
//!   radio confirms.

use std::time::Duration;

use crate::radio::engine::proc::{Cx, Effect, Outcome, Procedure, Step};
use crate::radio::engine::request::CivRequest;
use crate::radio::table::answer::Answer;
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::wire::civ::{Frame, cmd};

/// Reads of a read-back before the state counts as unknown.
const READ_BACK_TRIES: u32 = 3;

/// True when a read-back whose read number `tries` ended with `last` (no usable answer)
/// should ask again: after a refusal (a radio that NAKs now may answer the next read),
/// not after a timeout (a radio that does not answer now will hardly do so in a moment,
/// and the unkey that may follow should not wait for it).
pub(super) fn read_again(last: Option<&Outcome>, tries: u32) -> bool {
    let refused = match last {
        Some(Err(e)) => e.code == ErrorCode::RadioRejected,
        Some(Ok(_)) => true, // an answer that says nothing usable
        None => false,
    };
    refused && tries < READ_BACK_TRIES
}

/// The PTT state a `1C 00 <00|01>` reply reports.
pub(super) fn ptt_reply(f: &Frame) -> Option<bool> {
    match f.data.as_slice() {
        [cmd::tx::PTT, x @ (0 | 1)] => Some(*x == 1),
        _ => None,
    }
}

/// `1C 00 <on>`.
pub(super) fn ptt_set(addr: u8, on: bool) -> CivRequest {
    CivRequest::set(addr, cmd::TX, &[cmd::tx::PTT, u8::from(on)])
}

/// `1C 00`: is the transmitter keyed?
pub(super) fn ptt_read(addr: u8) -> CivRequest {
    CivRequest::read(addr, cmd::TX, &[cmd::tx::PTT])
}

/// The power state a `18 <00|01>` reply reports.
fn power_reply(f: &Frame) -> Option<bool> {
    match f.data.as_slice() {
        [x @ (cmd::power::OFF | cmd::power::ON)] => Some(*x == cmd::power::ON),
        _ => None,
    }
}

enum PowerPhase {
    Start,
    /// Unkeying before switching off.
    Unkeying,
    /// `18 <on>` on its way (or a pause between two power-on attempts).
    Switching,
    /// The power-off failed: reading the power state back.
    ReadingBack {
        error: CommandError,
        tries: u32,
    },
}

/// The power procedure.
pub struct Power {
    on: bool,
    phase: PowerPhase,
    attempts: u32,
    naks: u32,
    /// The unkey before switching off failed.
    unkey_failed: bool,
}

impl Power {
    /// Switch on (`true`) or off.
    pub fn new(on: bool) -> Power {
        Power {
            on,
            phase: PowerPhase::Start,
            attempts: 0,
            naks: 0,
            unkey_failed: false,
        }
    }

    fn result(&self, read_back: Option<String>) -> Answer {
        Answer::Power {
            on: self.on,
            read_back,
        }
    }

    fn switch(&mut self, cx: &Cx) -> Step {
        self.phase = PowerPhase::Switching;
        self.attempts += 1;
        Step::Send {
            req: CivRequest::set(cx.addr(), cmd::POWER, &[u8::from(self.on)]),
            // power-on repeats itself (below); power-off is retried once
            retry: !self.on,
        }
    }

    fn read_back(&mut self, cx: &Cx, error: CommandError, tries: u32) -> Step {
        self.phase = PowerPhase::ReadingBack { error, tries };
        Step::Send {
            req: CivRequest::read(cx.addr(), cmd::POWER, &[]),
            retry: false,
        }
    }

    /// The radio is in the state asked for.
    fn switched(&self, cx: &mut Cx, result: Answer) -> Step {
        let on = self.on;
        cx.state.modify(|c| {
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
        Step::Done(Ok(result))
    }
}

/// NAKs of a booting radio tolerated before power-on fails.
const BOOT_NAKS: u32 = 5;
/// Lost answers tolerated before power-on fails.
const POWER_TRIES: u32 = 3;

impl Procedure for Power {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        let on = self.on;
        match (std::mem::replace(&mut self.phase, PowerPhase::Start), last) {
            (PowerPhase::Start, _) => {
                let (power_on, ptt) = cx.state.read(|c| (c.radio.power_on, c.radio.ptt));
                if power_on == Some(on) {
                    return Step::Done(Ok(self.result(None)));
                }
                if !on && ptt != Some(false) {
                    // a key that ran just before (another client's, say) or a PTT in
                    // doubt: the carrier goes before the radio does
                    log::info!("power off while the transmitter may be keyed: unkeying first");
                    self.phase = PowerPhase::Unkeying;
                    return Step::Send {
                        req: ptt_set(cx.addr(), false),
                        retry: true,
                    };
                }
                self.switch(cx)
            }
            (PowerPhase::Unkeying, Some(Ok(_))) => {
                cx.state.modify(|c| c.radio.ptt = Some(false));
                self.switch(cx)
            }
            (PowerPhase::Unkeying, outcome) => {
                if let Some(Err(e)) = outcome {
                    log::warn!(
                        "power off: the unkey before it failed ({e}); switching off all the same"
                    );
                }
                self.unkey_failed = true;
                self.switch(cx)
            }
            (PowerPhase::Switching, None) => self.switch(cx),
            (PowerPhase::Switching, Some(Ok(_))) => self.switched(cx, self.result(None)),
            (PowerPhase::Switching, Some(Err(e)))
                if on && e.code == ErrorCode::RadioRejected && self.naks < BOOT_NAKS =>
            {
                self.naks += 1;
                log::info!("power on: the radio refused (booting?); trying again in 1 s");
                self.phase = PowerPhase::Switching;
                Step::Sleep(Duration::from_secs(1))
            }
            (PowerPhase::Switching, Some(Err(e)))
                if on && e.code == ErrorCode::RadioTimeout && self.attempts < POWER_TRIES =>
            {
                self.switch(cx)
            }
            (PowerPhase::Switching, Some(Err(e))) if !on => {
                log::warn!("power off: {e}; reading the power state back");
                self.read_back(cx, e, 1)
            }
            (PowerPhase::Switching, Some(Err(e))) => Step::Done(Err(e)),
            (PowerPhase::ReadingBack { error, tries }, last) => {
                match last.as_ref().map(|o| o.as_ref().ok().and_then(power_reply)) {
                    Some(Some(false)) => {
                        log::info!("power off: the radio answered \"{error}\" but reads back off");
                        let r = self.result(Some(format!(
                            "the radio did not confirm the power-off ({}) but reads back switched off",
                            error.message
                        )));
                        self.switched(cx, r)
                    }
                    Some(Some(true)) => {
                        cx.state.modify(|c| c.radio.power_on = Some(true));
                        if self.unkey_failed {
                            cx.effects.push(Effect::Release);
                        }
                        Step::Done(Err(error))
                    }
                    _ if read_again(last.as_ref(), tries) => self.read_back(cx, error, tries + 1),
                    _ => {
                        // a radio in standby says nothing: off, most likely, but unknown
                        cx.state.modify(|c| c.radio.power_on = None);
                        if self.unkey_failed {
                            cx.effects.push(Effect::Release);
                        }
                        Step::Done(Err(error))
                    }
                }
            }
        }
    }
}

enum PttPhase {
    Start,
    Keying,
    /// The command failed: reading PTT back.
    ReadingBack {
        error: CommandError,
        tries: u32,
    },
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

    fn read_back(&mut self, cx: &Cx, error: CommandError, tries: u32) -> Step {
        self.phase = PttPhase::ReadingBack { error, tries };
        Step::Send {
            req: ptt_read(cx.addr()),
            retry: false,
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
                    req: ptt_set(cx.addr(), on),
                    retry: true,
                }
            }
            (PttPhase::Keying, Some(Ok(_))) => {
                cx.state.modify(|c| c.radio.ptt = Some(on));
                Step::Done(Ok(Answer::Ptt {
                    on,
                    read_back: None,
                }))
            }
            (PttPhase::Keying, Some(Err(e))) => {
                // the radio may have acted all the same (a NAK that lies, a lost
                // answer): nobody knows until it is asked
                log::warn!("ptt {on}: {e}; reading PTT back from the radio");
                cx.state.modify(|c| c.radio.ptt = None);
                self.read_back(cx, e, 1)
            }
            (PttPhase::ReadingBack { error, tries }, last) => {
                match last
                    .as_ref()
                    .and_then(|o| o.as_ref().ok())
                    .and_then(ptt_reply)
                {
                    Some(keyed) => {
                        cx.state.modify(|c| c.radio.ptt = Some(keyed));
                        log::info!(
                            "ptt {on}: PTT read back {}",
                            if keyed { "keyed" } else { "not keyed" }
                        );
                        if keyed == on {
                            let state = if on {
                                "transmitting"
                            } else {
                                "not transmitting"
                            };
                            Step::Done(Ok(Answer::Ptt {
                                on,
                                read_back: Some(format!(
                                    "the radio did not confirm the command ({}) but reads back {state}",
                                    error.message
                                )),
                            }))
                        } else {
                            if keyed {
                                // still keyed after an unkey: the release takes over
                                cx.effects.push(Effect::Release);
                            }
                            Step::Done(Err(error))
                        }
                    }
                    None if read_again(last.as_ref(), tries) => {
                        self.read_back(cx, error, tries + 1)
                    }
                    None => {
                        // keyed or not, nobody knows: PTT is in doubt; make sure it is off
                        log::warn!("ptt {on}: PTT could not be read back; releasing it");
                        cx.effects.push(Effect::Release);
                        Step::Done(Err(error))
                    }
                }
            }
            (PttPhase::Keying, None) => Step::Done(Err(CommandError::new(
                ErrorCode::RadioUnavailable,
                "internal: PTT step without an outcome",
            ))),
        }
    }
}
