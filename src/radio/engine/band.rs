//! `set_band` (interface.md §3 rule 5): a code the profile has no band for is
//! acknowledged and the radio left where it is (no CI-V at all); otherwise the band
//! stack register is recalled (`1A 01 <band> 01`) and its frequency, mode, filter and
//! DATA mode applied, and when the radio refuses the recall, the band's `default_hz`
//! is tuned.

use crate::profile::VfoScheme;
use crate::radio::engine::proc::{Cx, Outcome, Procedure, Step};
use crate::radio::engine::request::CivRequest;
use crate::radio::engine::tuning::{set_freq, set_mode};
use crate::radio::table::answer::{Answer, BandChange, BandSource};
use crate::radio::table::command::Target;
use crate::radio::table::error::ErrorCode;
use crate::wire::civ::{self, Frame, Receiver, cmd};

/// `(freq, mode code, filter, DATA mode)` from a band stack register reply
/// `1A 01 <band> <reg> <freq x5> <mode> <filter> <data<<4 | sql type> ...`.
fn parse_bsr(f: &Frame, code: u8) -> Option<(u64, u8, u8, Option<u8>)> {
    let d = &f.data;
    if d.len() < 10 || d[0] != cmd::ext::BAND_STACK || d[1] != code {
        return None;
    }
    let hz = civ::bcd_to_freq(&d[3..8]).ok()?;
    let filter = civ::from_bcd_byte(d[9]).ok()?;
    let data = d.get(10).map(|b| b >> 4).filter(|x| *x <= 3);
    Some((hz, d[8], filter, data))
}

enum Phase {
    Start,
    Recalling,
    Applying(Answer),
}

/// The `set_band` procedure.
pub struct SetBand {
    code: u8,
    phase: Phase,
    children: Vec<Box<dyn Procedure>>,
}

impl SetBand {
    /// A band change to band stack register `code`.
    pub fn new(code: u8) -> SetBand {
        SetBand {
            code,
            phase: Phase::Start,
            children: Vec::new(),
        }
    }

    fn target(cx: &Cx) -> Target {
        if cx.profile.vfo.scheme == VfoScheme::Ab {
            Target::SelectedVfo
        } else {
            Target::Receiver(Receiver::Main)
        }
    }

    /// Runs the children in order, then answers `result`.
    fn run_children(&mut self, cx: &mut Cx, mut last: Option<Outcome>, result: &Answer) -> Step {
        while let Some(child) = self.children.first_mut() {
            match child.step(cx, last.take()) {
                Step::Done(Ok(_)) => {
                    self.children.remove(0);
                }
                Step::Done(Err(e)) => return Step::Done(Err(e)),
                other => return other,
            }
        }
        Step::Done(Ok(result.clone()))
    }
}

impl Procedure for SetBand {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        let code = self.code;
        match std::mem::replace(&mut self.phase, Phase::Start) {
            Phase::Start => {
                if cx.profile.band_by_bsr(code).is_none() {
                    return Step::Done(Ok(Answer::Band(BandChange::unknown(code))));
                }
                self.phase = Phase::Recalling;
                Step::Send {
                    req: CivRequest::read(
                        cx.addr(),
                        cmd::EXT,
                        &[cmd::ext::BAND_STACK, code, cmd::ext::BSR_LATEST],
                    ),
                    retry: true,
                }
            }
            Phase::Recalling => {
                let Some(band) = cx.profile.band_by_bsr(code).cloned() else {
                    return Step::Done(Ok(Answer::Band(BandChange::unknown(code))));
                };
                let target = Self::target(cx);
                let recalled = match last {
                    Some(Ok(f)) => parse_bsr(&f, code).filter(|r| cx.profile.in_range(r.0)),
                    Some(Err(e))
                        if matches!(e.code, ErrorCode::RadioRejected | ErrorCode::RadioTimeout) =>
                    {
                        log::debug!("band stack register {code:#04x} recall failed: {e}");
                        None
                    }
                    Some(Err(e)) => return Step::Done(Err(e)),
                    None => None,
                };
                let result = match recalled {
                    Some((hz, mode_code, filter, data)) => {
                        self.children.push(Box::new(set_freq(cx, target, hz)));
                        // the mode is applied once the frequency is there
                        let mode = cx.profile.mode_of_code(mode_code);
                        if let Some(m) = mode {
                            let filter = (1..=3).contains(&filter).then_some(filter);
                            let data = data.filter(|d| *d <= cx.profile.modes.data_modes);
                            self.children.push(Box::new(Deferred::new(Box::new(
                                move |cx: &mut Cx| {
                                    Box::new(set_mode(cx, target, Some(m), filter, data))
                                        as Box<dyn Procedure>
                                },
                            ))));
                        }
                        Answer::Band(BandChange {
                            band: code,
                            name: None,
                            source: BandSource::Bsr,
                            freq: Some(hz),
                        })
                    }
                    None => {
                        self.children
                            .push(Box::new(set_freq(cx, target, band.default_hz)));
                        Answer::Band(BandChange {
                            band: code,
                            name: Some(band.name),
                            source: BandSource::Default,
                            freq: Some(band.default_hz),
                        })
                    }
                };
                self.phase = Phase::Applying(result.clone());
                self.run_children(cx, None, &result)
            }
            Phase::Applying(result) => {
                self.phase = Phase::Applying(result.clone());
                self.run_children(cx, last, &result)
            }
        }
    }
}

/// A procedure built when it starts (so that it sees the state its predecessors left).
type Build = Box<dyn FnOnce(&mut Cx) -> Box<dyn Procedure> + Send>;

enum Deferred {
    Pending(Build),
    Started(Box<dyn Procedure>),
    Empty,
}

impl Deferred {
    fn new(build: Build) -> Deferred {
        Deferred::Pending(build)
    }
}

impl Procedure for Deferred {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        match std::mem::replace(self, Deferred::Empty) {
            Deferred::Pending(build) => {
                let mut p = build(cx);
                let step = p.step(cx, None);
                *self = Deferred::Started(p);
                step
            }
            Deferred::Started(mut p) => {
                let step = p.step(cx, last);
                *self = Deferred::Started(p);
                step
            }
            Deferred::Empty => Step::Done(Ok(Answer::Done)),
        }
    }
}
