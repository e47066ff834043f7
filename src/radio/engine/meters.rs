//! Reading meters (`15 xx`): each receiver's S-meter is its own reading (command 29 on
//! the IC-7610; on radios without it only the selected receiver's S-meter can be read,
//! as selecting the other one for a poll would flicker the radio's display), TX meters
//! plain. A radio that refuses the command-29 read (an older firmware, a simpler peer)
//! has the selected receiver's S-meter read plainly. A NAK skips a meter; a timeout
//! fails the round.

use crate::radio::engine::proc::{Cx, Outcome, Procedure, Step, route};
use crate::radio::engine::request::CivRequest;
use crate::radio::state::apply::selected_receiver;
use crate::radio::table::answer::Answer;
use crate::radio::table::error::ErrorCode;
use crate::wire::civ::cmd::meter;
use crate::wire::civ::{self, Receiver, cmd};
use crate::wire::meter::MeterKind;

/// The meter-reading procedure.
pub struct ReadMeters {
    kinds: Vec<MeterKind>,
    next: usize,
    current: Option<MeterKind>,
    /// The plain read to try when the command-29 one was refused (selected receiver).
    fallback: Option<CivRequest>,
    values: Vec<(MeterKind, u16)>,
}

impl ReadMeters {
    /// Reads `kinds` in order.
    pub fn new(kinds: Vec<MeterKind>) -> ReadMeters {
        ReadMeters {
            kinds,
            next: 0,
            current: None,
            fallback: None,
            values: Vec::new(),
        }
    }
}

impl Procedure for ReadMeters {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        if let (Some(kind), Some(outcome)) = (self.current.take(), last) {
            match outcome {
                Ok(f) => {
                    let payload = match f.unwrap_receiver() {
                        Some((_, inner)) => inner.data,
                        None => f.data,
                    };
                    if let Some(v) = payload.get(1..3).and_then(|b| civ::bcd_to_level(b).ok()) {
                        self.values.push((kind, v.min(255)));
                    }
                }
                Err(e) if e.code == ErrorCode::RadioRejected => {
                    if let Some(req) = self.fallback.take() {
                        self.current = Some(kind);
                        return Step::Send { req, retry: false };
                    }
                }
                Err(e) => return Step::Done(Err(e)),
            }
        }
        self.fallback = None;
        while let Some(&kind) = self.kinds.get(self.next) {
            self.next += 1;
            let Some((sub, rx)) = civ_read(kind) else {
                continue;
            };
            if !cx.profile.has_meter(kind) {
                continue;
            }
            let req = CivRequest::read(cx.addr(), cmd::METER, &[sub]);
            let req = if matches!(kind, MeterKind::Smeter | MeterKind::SmeterSub) {
                let selected = cx.state.read(|c| selected_receiver(&c.radio)) == rx;
                match route(cx, rx, req.clone(), false) {
                    Some(r) => {
                        let wrapped = r.req != req;
                        self.fallback = (wrapped && selected).then_some(req);
                        r.req
                    }
                    None => continue,
                }
            } else {
                req
            };
            self.current = Some(kind);
            return Step::Send { req, retry: false };
        }
        Step::Done(Ok(Answer::Meters(std::mem::take(&mut self.values))))
    }
}

/// The CI-V `15 <sub>` read of `kind` and the receiver it targets, if the meter has one.
pub fn civ_read(kind: MeterKind) -> Option<(u8, Receiver)> {
    Some(match kind {
        MeterKind::Smeter => (meter::S_METER, Receiver::Main),
        MeterKind::SmeterSub => (meter::S_METER, Receiver::Sub),
        MeterKind::Power => (meter::PO, Receiver::Main),
        MeterKind::Swr => (meter::SWR, Receiver::Main),
        MeterKind::Alc => (meter::ALC, Receiver::Main),
        MeterKind::Comp => (meter::COMP, Receiver::Main),
        MeterKind::Vd => (meter::VD, Receiver::Main),
        MeterKind::Id => (meter::ID, Receiver::Main),
        MeterKind::Temp => return None,
    })
}
