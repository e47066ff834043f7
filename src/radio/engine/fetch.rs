//! Reading the whole state after (re)connecting or powering on: power, the selected
//! receiver, frequency and mode of every receiver / VFO, every setting of the settings
//! table the profile has (per receiver: command 29 where routed, else the selected
//! receiver plainly and the other one by selecting it for the duration), PTT, scope
//! settings and the transceive menu item. Reads the radio refuses (NAK) are skipped;
//! three timeouts abort the fetch. A radio that NAKs the power read but answers others
//! is switched on. The answers are applied in one change on top of a
//! state that forgot what the radio reported before (so what it no longer answers shows
//! as unknown), followed by the transceive updates that arrived meanwhile (so a fetch
//! never overwrites a newer front-panel change).

use std::collections::VecDeque;

use crate::profile::{ScopeSourceKind, VfoScheme};
use crate::radio::engine::proc::{Cx, Outcome, Procedure, Step};
use crate::radio::engine::request::CivRequest;
use crate::radio::state::StateContent;
use crate::radio::state::apply::{apply_frame, apply_frame_to, selected_receiver};
use crate::radio::table::answer::Answer;
use crate::radio::table::error::ErrorCode;
use crate::radio::table::settings::{Place, SETTINGS};
use crate::wire::civ::{Frame, Receiver, cmd};

/// Reads of the scope settings (mode, span, reference, speed, hold) of the scope of
/// receiver `rx`.
pub fn scope_reads(cx: &Cx, rx: Receiver) -> Vec<CivRequest> {
    SETTINGS
        .iter()
        .filter(|s| s.place == Place::ScopeReceiver && s.supported(cx.profile))
        .map(|s| {
            let mut data = s.prefix.to_vec();
            data.push(rx.code());
            CivRequest::read(cx.addr(), s.cmd, &data)
        })
        .collect()
}

/// One request of the fetch.
struct Read {
    req: CivRequest,
    /// The receiver a plain answer belongs to.
    answer_for: Option<Receiver>,
    /// A selection change (ACK expected, nothing to apply).
    select: bool,
}

impl Read {
    fn of(req: CivRequest, answer_for: Option<Receiver>) -> Read {
        Read {
            req,
            answer_for,
            select: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Power,
    Selection,
    Rest,
}

/// The fetch procedure.
pub struct Fetch {
    stage: Stage,
    queue: VecDeque<Read>,
    current: Option<Read>,
    scratch: Option<StateContent>,
    replies: Vec<(Frame, Option<Receiver>)>,
    timeouts: u32,
}

impl Default for Fetch {
    fn default() -> Self {
        Fetch::new()
    }
}

impl Fetch {
    /// A fetch of the whole state.
    pub fn new() -> Fetch {
        Fetch {
            stage: Stage::Power,
            queue: VecDeque::new(),
            current: None,
            scratch: None,
            replies: Vec::new(),
            timeouts: 0,
        }
    }

    fn plan_power(&mut self, cx: &Cx) {
        self.queue
            .push_back(Read::of(CivRequest::read(cx.addr(), cmd::POWER, &[]), None));
    }

    fn plan_selection(&mut self, cx: &Cx) {
        let p = cx.profile;
        if p.vfo.scheme == VfoScheme::MainSub && p.is_dual() {
            self.queue.push_back(Read::of(
                CivRequest::read(cx.addr(), cmd::VFO, &[cmd::vfo::SELECTED]),
                None,
            ));
        }
    }

    fn plan_rest(&mut self, cx: &Cx, scratch: &StateContent) {
        let p = cx.profile;
        let a = cx.addr();
        let dual = p.vfo.scheme == VfoScheme::MainSub && p.is_dual();
        let q = &mut self.queue;
        // the selected receiver with the classic reads, for radios without 25/26
        q.push_back(Read::of(CivRequest::read(a, cmd::READ_FREQ, &[]), None));
        q.push_back(Read::of(CivRequest::read(a, cmd::READ_MODE, &[]), None));
        let selectors = if dual || p.vfo.scheme == VfoScheme::Ab {
            2
        } else {
            1
        };
        for sel in 0..selectors {
            q.push_back(Read::of(CivRequest::read(a, cmd::SEL_FREQ, &[sel]), None));
            q.push_back(Read::of(CivRequest::read(a, cmd::SEL_MODE, &[sel]), None));
        }
        let selected = selected_receiver(&scratch.radio);
        let receivers: &[Receiver] = if dual {
            &Receiver::ALL
        } else {
            &[Receiver::Main]
        };
        let mut switched = Vec::new();
        for s in SETTINGS.iter().filter(|s| s.polled && s.supported(p)) {
            let req = CivRequest::read(a, s.cmd, s.prefix);
            match s.place {
                Place::Global => q.push_back(Read::of(req, None)),
                Place::Receiver => {
                    for &rx in receivers {
                        if p.uses_cmd29(s.cmd, s.sub()) {
                            q.push_back(Read::of(req.for_receiver(rx), Some(rx)));
                        } else if rx == selected || !dual {
                            q.push_back(Read::of(req.clone(), Some(rx)));
                        } else {
                            switched.push(Read::of(req.clone(), Some(rx)));
                        }
                    }
                }
                Place::ScopeReceiver => {}
            }
        }
        if !switched.is_empty() {
            // radios without command 29 (IC-9700): the other receiver's settings are
            // read while it is selected, then the operator's selection is restored
            let (there, back) = if selected == Receiver::Main {
                (&p.vfo.select_sub, &p.vfo.select_main)
            } else {
                (&p.vfo.select_main, &p.vfo.select_sub)
            };
            q.push_back(Read {
                req: CivRequest::set(a, cmd::VFO, there),
                answer_for: None,
                select: true,
            });
            q.extend(switched);
            q.push_back(Read {
                req: CivRequest::set(a, cmd::VFO, back),
                answer_for: None,
                select: true,
            });
        }
        q.push_back(Read::of(
            CivRequest::read(a, cmd::TX, &[cmd::tx::PTT]),
            None,
        ));
        if p.scope.source == ScopeSourceKind::Hardware {
            if dual {
                q.push_back(Read::of(
                    CivRequest::read(a, cmd::SCOPE, &[cmd::scope::RECEIVER]),
                    None,
                ));
                q.push_back(Read::of(
                    CivRequest::read(a, cmd::SCOPE, &[cmd::scope::DUAL]),
                    None,
                ));
            }
            let rx = scratch.radio.scope.receiver;
            q.extend(scope_reads(cx, rx).into_iter().map(|r| Read::of(r, None)));
        }
        if let [_, rest @ ..] = p.radio.transceive_menu.as_slice()
            && !rest.is_empty()
        {
            q.push_back(Read::of(CivRequest::read(a, cmd::EXT, rest), None));
        }
    }

    /// Applies everything read, in one change.
    fn finish(&mut self, cx: &mut Cx) -> Step {
        let profile = cx.profile;
        let replies = std::mem::take(&mut self.replies);
        let during = cx.transceive;
        cx.state.modify(|c| {
            let scope = c.radio.scope.clone();
            c.radio.forget();
            let s = &mut c.radio.scope;
            (s.start_freq, s.end_freq, s.out_of_range, s.streaming) = (
                scope.start_freq,
                scope.end_freq,
                scope.out_of_range,
                scope.streaming,
            );
            for (f, rx) in &replies {
                apply_frame_to(c, profile, f, *rx);
            }
            // the power read is not in every radio's tables (it may be NAKed); a radio
            // that answers reads at all is switched on (in standby it answers none)
            if c.radio.power_on.is_none() && !replies.is_empty() {
                c.radio.power_on = Some(true);
            }
            for f in during {
                apply_frame(c, profile, f);
            }
        });
        Step::Done(Ok(Answer::Done))
    }
}

impl Procedure for Fetch {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        if self.scratch.is_none() {
            self.scratch = Some(cx.state.read(|c| c.clone()));
            self.plan_power(cx);
        }
        if let (Some(read), Some(outcome)) = (self.current.take(), last) {
            match outcome {
                Ok(_) if read.select => {}
                Ok(f) => {
                    let off = f.cmd == cmd::POWER && f.data == [0x00];
                    if let Some(s) = self.scratch.as_mut() {
                        apply_frame_to(s, cx.profile, &f, read.answer_for);
                    }
                    if f.cmd == cmd::EXT && f.data.last() == Some(&0x00) {
                        log::warn!(
                            "CI-V transceive is off on the radio: changes made on its front panel \
                             will not be seen (menu item {:02X?})",
                            cx.profile.radio.transceive_menu
                        );
                    }
                    self.replies.push((f, read.answer_for));
                    if off {
                        // switched off: nothing else will answer
                        self.queue.clear();
                        return self.finish(cx);
                    }
                }
                Err(e) if e.code == ErrorCode::RadioRejected => {}
                Err(e) if e.code == ErrorCode::RadioTimeout => {
                    self.timeouts += 1;
                    if self.timeouts >= 3 {
                        return Step::Done(Err(e));
                    }
                }
                Err(e) => return Step::Done(Err(e)),
            }
        }
        loop {
            if let Some(read) = self.queue.pop_front() {
                let step = Step::Send {
                    req: read.req.clone(),
                    retry: true,
                };
                self.current = Some(read);
                return step;
            }
            let scratch = self
                .scratch
                .clone()
                .unwrap_or_else(|| cx.state.read(|c| c.clone()));
            match self.stage {
                Stage::Power => {
                    self.stage = Stage::Selection;
                    self.plan_selection(cx);
                }
                Stage::Selection => {
                    self.stage = Stage::Rest;
                    self.plan_rest(cx, &scratch);
                }
                Stage::Rest => return self.finish(cx),
            }
        }
    }
}
