//! Procedures: what a command does on the wire, as a small state machine the engine
//! drives one request at a time. A procedure is asked for its next step with the outcome
//! of the previous request; it answers "send this request" or "done". Most commands are
//! a [`Script`]: a list of requests, each with what it changes in the state when it
//! succeeds, and requests that run even after a failure (restoring the selected receiver).

use std::collections::VecDeque;
use std::time::Duration;

use crate::profile::{Profile, VfoScheme};
use crate::radio::engine::request::CivRequest;
use crate::radio::state::apply::{apply_frame_to, selected_receiver};
use crate::radio::state::{StateContent, TrackedState};
use crate::radio::table::answer::Answer;
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::wire::civ::{Frame, Receiver, cmd};

/// The outcome of one request: the answer (ACK or data), or why there is none.
pub type Outcome = Result<Frame, CommandError>;

/// What the engine does for a procedure next.
pub enum Step {
    /// Send this request (retried once on a timeout when `retry`) and report its outcome.
    Send {
        /// The request.
        req: CivRequest,
        /// Retry once when it times out.
        retry: bool,
    },
    /// Wait this long, then ask again (with no outcome).
    Sleep(Duration),
    /// Finished.
    Done(Result<Answer, CommandError>),
}

/// Something a procedure asks of the engine besides its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// The radio was switched off (nothing more to read until it is back).
    PoweredOff,
    /// The radio was switched on: read its state again.
    PoweredOn,
    /// The transmitter must be unkeyed (an unkey failed or PTT is in doubt).
    Release,
    /// The scope output was switched (restore it after a reconnect when on).
    ScopeOutput(bool),
    /// The mode, filter or DATA mode of this receiver changed: the radio keeps an IF
    /// filter width per mode and filter and does not report it, so read it again.
    WidthStale(Receiver),
}

/// What a procedure may use.
pub struct Cx<'a> {
    /// The profile.
    pub profile: &'a Profile,
    /// The state (the engine's: changes made here are published in order).
    pub state: &'a mut TrackedState,
    /// Requests for the engine.
    pub effects: &'a mut Vec<Effect>,
    /// Transceive frames applied since the procedure started (oldest first).
    pub transceive: &'a [Frame],
}

impl Cx<'_> {
    /// The radio's CI-V address.
    pub fn addr(&self) -> u8 {
        self.profile.radio.civ_addr
    }
}

/// A procedure.
pub trait Procedure: Send {
    /// The next step; `last` is the outcome of the request of the previous step (`None`
    /// at the start and after a [`Step::Sleep`]).
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step;
}

/// A state change made when a request succeeds.
pub type SetState = Box<dyn FnOnce(&mut StateContent) + Send>;

/// What a script does with a successful answer.
pub enum Then {
    /// Nothing.
    Nothing,
    /// Apply the answer to the state (a read), its per-receiver settings to this receiver
    /// when given.
    Apply(Option<Receiver>),
    /// Change the state.
    Set(SetState),
}

/// One request of a script.
pub struct Item {
    /// The request.
    pub req: CivRequest,
    /// Retry once on a timeout.
    pub retry: bool,
    /// A NAK skips this item instead of failing the script.
    pub optional: bool,
    /// What a success changes.
    pub then: Then,
}

impl Item {
    /// A set that must succeed (retried once).
    pub fn set(req: CivRequest, then: Then) -> Item {
        Item {
            req,
            retry: true,
            optional: false,
            then,
        }
    }

    /// A read whose answer is applied; a NAK (not supported) skips it.
    pub fn read(req: CivRequest, receiver: Option<Receiver>) -> Item {
        Item {
            req,
            retry: true,
            optional: true,
            then: Then::Apply(receiver),
        }
    }

    /// The same item without retry (not idempotent).
    pub fn once(mut self) -> Item {
        self.retry = false;
        self
    }
}

/// A list of requests run in order; the first failure stops it (its `finally` items
/// still run) and is the script's result.
pub struct Script {
    items: VecDeque<Item>,
    finally: VecDeque<Item>,
    current: Option<Item>,
    result: Answer,
    error: Option<CommandError>,
}

impl Script {
    /// A script answering `result` when every item succeeds.
    pub fn new(items: Vec<Item>, result: Answer) -> Script {
        Script {
            items: items.into(),
            finally: VecDeque::new(),
            current: None,
            result,
            error: None,
        }
    }

    /// Adds items that run after the others, even when one failed.
    pub fn finally(mut self, items: Vec<Item>) -> Script {
        self.finally.extend(items);
        self
    }

    /// A script that fails at once with `e`.
    pub fn fail(e: CommandError) -> Script {
        let mut s = Script::new(Vec::new(), Answer::Done);
        s.error = Some(e);
        s
    }
}

impl Procedure for Script {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        if let (Some(item), Some(outcome)) = (self.current.take(), last) {
            match outcome {
                Ok(f) => match item.then {
                    Then::Nothing => {}
                    Then::Apply(rx) => {
                        let profile = cx.profile;
                        cx.state.modify(|c| apply_frame_to(c, profile, &f, rx));
                    }
                    Then::Set(change) => cx.state.modify(change),
                },
                Err(e) if e.code == ErrorCode::RadioRejected && item.optional => {}
                Err(e) => {
                    if self.error.is_none() {
                        self.error = Some(e);
                    }
                    self.items.clear();
                }
            }
        }
        let next = if self.error.is_none() {
            self.items.pop_front()
        } else {
            None
        }
        .or_else(|| self.finally.pop_front());
        match next {
            Some(item) => {
                let step = Step::Send {
                    req: item.req.clone(),
                    retry: item.retry,
                };
                self.current = Some(item);
                step
            }
            None => Step::Done(match self.error.take() {
                Some(e) => Err(e),
                None => Ok(std::mem::replace(&mut self.result, Answer::Done)),
            }),
        }
    }
}

/// How a per-receiver request reaches `receiver`: the items before it, the request
/// itself (maybe wrapped in command 29), and the items that restore the selection.
pub struct Route {
    /// Items before the request.
    pub before: Vec<Item>,
    /// The request as it is sent.
    pub req: CivRequest,
    /// The receiver its answer belongs to, when the answer does not say.
    pub answer_for: Option<Receiver>,
    /// Items that restore the selection.
    pub after: Vec<Item>,
}

/// Routes `req` to `receiver`: wrapped in command 29 where the profile routes it, plain
/// when the receiver is selected (or on A/B radios), else by selecting it for the
/// duration (`switch` true; with `switch` false such a request is `None`).
pub fn route(cx: &Cx, receiver: Receiver, req: CivRequest, switch: bool) -> Option<Route> {
    let p = cx.profile;
    let f = &req.frame;
    let sub = if crate::wire::civ::has_sub(f.cmd) {
        f.data.first().copied()
    } else {
        None
    };
    if p.uses_cmd29(f.cmd, sub) {
        return Some(Route {
            before: Vec::new(),
            req: req.for_receiver(receiver),
            answer_for: Some(receiver),
            after: Vec::new(),
        });
    }
    let selected = cx.state.read(|c| selected_receiver(&c.radio));
    if p.vfo.scheme == VfoScheme::Ab || receiver == selected {
        return Some(Route {
            before: Vec::new(),
            req,
            answer_for: Some(receiver),
            after: Vec::new(),
        });
    }
    if !switch {
        return None;
    }
    let (there, back) = if receiver == Receiver::Sub {
        (&p.vfo.select_sub, &p.vfo.select_main)
    } else {
        (&p.vfo.select_main, &p.vfo.select_sub)
    };
    let addr = cx.addr();
    Some(Route {
        before: vec![Item::set(
            CivRequest::set(addr, cmd::VFO, there),
            Then::Nothing,
        )],
        req,
        answer_for: Some(receiver),
        after: vec![Item::set(
            CivRequest::set(addr, cmd::VFO, back),
            Then::Nothing,
        )],
    })
}
