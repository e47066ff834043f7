//! What each command sends and what it changes in the state (the encoder and
//! state-effect columns of the command table): the procedure of every [`Command`].

use crate::profile::{ScopeSourceKind, VfoScheme};
use crate::radio::engine::antenna::set_antenna;
use crate::radio::engine::band::SetBand;
use crate::radio::engine::memory::{ListMemories, MemoryCommand, MemoryOp};
use crate::radio::engine::meters::ReadMeters;
use crate::radio::engine::mod_input::{ReadModInput, set_mod_input};
use crate::radio::engine::power::{Power, PttKey};
use crate::radio::engine::proc::{Cx, Effect, Item, Procedure, Script, Then, route};
use crate::radio::engine::request::CivRequest;
use crate::radio::engine::send_cw::SendCw;
use crate::radio::engine::tuning::{set_freq, set_mode};
use crate::radio::engine::vfo::{self, Prepared};
use crate::radio::state::apply;
use crate::radio::state::encode_write;
use crate::radio::table::answer::{Answer, Written};
use crate::radio::table::command::{Command, Write};
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::radio::table::settings::Place;
use crate::wire::civ::cmd;

fn unknown(what: &str) -> CommandError {
    CommandError::new(
        ErrorCode::RadioUnavailable,
        format!("{what} is not known yet (the radio has not reported it); try again shortly"),
    )
}

/// The procedure of `command`: after what it needs to know first (the VFO it names
/// selected, its target's mode read: [`vfo::prepare`]), built from the state then.
pub fn procedure(cx: &mut Cx, command: &Command) -> Box<dyn Procedure> {
    match vfo::prepare(cx, command) {
        Some(prep) => {
            let command = command.clone();
            Box::new(Prepared::new(prep, Box::new(move |cx| build(cx, &command))))
        }
        None => build(cx, command),
    }
}

fn build(cx: &mut Cx, command: &Command) -> Box<dyn Procedure> {
    let addr = cx.addr();
    match command {
        Command::Write { writes, result, .. } => Box::new(write(cx, writes, result.clone())),
        Command::SetFreq { target, hz } => Box::new(set_freq(cx, *target, *hz)),
        Command::SetMode {
            target,
            mode,
            filter,
        } => Box::new(set_mode(cx, *target, Some(*mode), *filter, None)),
        Command::SetFilter { target, filter } => {
            Box::new(set_mode(cx, *target, None, Some(*filter), None))
        }
        Command::SetDataMode { target, data } => {
            Box::new(set_mode(cx, *target, None, None, Some(*data)))
        }
        Command::Ptt(on) => Box::new(PttKey::new(*on)),
        // the engine takes the release itself when it is submitted (`safety.rs`); were
        // it ever run as a procedure, it would be a plain unkey
        Command::Release => Box::new(PttKey::new(false)),
        Command::VfoSwap | Command::VfoEqualize => Box::new(swap_or_equalize(cx, command)),
        Command::SetBand(code) => Box::new(SetBand::new(*code)),
        Command::Power(on) => Box::new(Power::new(*on)),
        Command::ScopeOutput(on) => Box::new(scope_output(cx, *on)),
        Command::ScopeDual(on) => Box::new(scope_dual(cx, *on)),
        Command::SendCw(text) => Box::new(SendCw::new(text)),
        Command::StopCw => Box::new(Script::new(
            vec![Item::set(
                CivRequest::set(addr, cmd::SEND_CW, &[cmd::CW_STOP]),
                Then::Nothing,
            )],
            Answer::Done,
        )),
        Command::ReadMeters(kinds) => Box::new(ReadMeters::new(kinds.clone())),
        Command::ReadModInput => Box::new(ReadModInput::new()),
        Command::SetModInput { data_mode, value } => {
            Box::new(set_mod_input(cx, *data_mode, *value))
        }
        Command::Refresh => Box::new(crate::radio::engine::fetch::Fetch::new()),
        Command::SetAntenna {
            receiver,
            ant,
            rx_ant,
        } => Box::new(set_antenna(cx, *receiver, *ant, *rx_ant)),
        Command::ListMemories { first, last } => Box::new(ListMemories::new(*first, *last)),
        Command::RecallMemory(ch) => Box::new(MemoryCommand::new(MemoryOp::Recall, *ch)),
        Command::StoreMemory(ch) => Box::new(MemoryCommand::new(MemoryOp::Store, *ch)),
    }
}

/// `vfo_swap` / `vfo_equalize`, then both receivers / VFOs read again (on radios without
/// `25`/`26` the unselected VFO follows in the state and the selected one is read).
fn swap_or_equalize(cx: &Cx, command: &Command) -> Script {
    let p = cx.profile;
    let swap = *command == Command::VfoSwap;
    let bytes = if swap { &p.vfo.swap } else { &p.vfo.equalize };
    let local = p.vfo.scheme == VfoScheme::Ab && !vfo::has_unselected(p);
    let then = match (local, swap) {
        (false, _) => Then::Nothing,
        (true, true) => Then::Set(Box::new(|c| apply::swap_vfos(&mut c.radio))),
        (true, false) => Then::Set(Box::new(|c| apply::equalize_vfos(&mut c.radio))),
    };
    let mut op = Item::set(CivRequest::set(cx.addr(), cmd::VFO, bytes), then);
    op.retry = command.is_idempotent();
    let mut items = vec![op];
    items.extend(vfo::read_all(cx));
    Script::new(items, Answer::Done)
}

/// Writes settings of the table.
fn write(cx: &Cx, writes: &[Write], result: Written) -> Script {
    let addr = cx.addr();
    let mut items = Vec::new();
    let mut finally = Vec::new();
    for w in writes {
        let s = w.setting();
        let (rx, data) = match cx.state.read(|c| encode_write(w, &c.radio)) {
            Ok(x) => x,
            Err(e) => return Script::fail(e),
        };
        let req = CivRequest::set(addr, s.cmd, &data);
        let (id, raw) = (s.id, w.raw);
        let then = Then::Set(Box::new(move |c| {
            c.radio.set_setting(id, rx, raw);
        }));
        if s.place == Place::Receiver {
            let Some(r) = route(cx, rx, req, true) else {
                return Script::fail(unknown("the receiver"));
            };
            items.extend(r.before);
            items.push(Item::set(r.req, then));
            if finally.is_empty() {
                finally = r.after;
            }
        } else {
            items.push(Item::set(req, then));
        }
    }
    Script::new(items, Answer::Written(result)).finally(finally)
}

fn scope_output(cx: &mut Cx, on: bool) -> Script {
    let addr = cx.addr();
    if cx.profile.scope.source != ScopeSourceKind::Hardware {
        return Script::fail(CommandError::new(
            ErrorCode::NotSupported,
            format!("the {} has no hardware scope", cx.profile.model()),
        ));
    }
    cx.effects.push(Effect::ScopeOutput(on));
    let mut items = Vec::new();
    if on {
        items.push(Item::set(
            CivRequest::set(addr, cmd::SCOPE, &[cmd::scope::DISPLAY, 0x01]),
            Then::Nothing,
        ));
    }
    items.push(Item::set(
        CivRequest::set(addr, cmd::SCOPE, &[cmd::scope::OUTPUT, u8::from(on)]),
        Then::Set(Box::new(move |c| c.radio.scope.streaming = on)),
    ));
    Script::new(items, Answer::ScopeOutput(on))
}

fn scope_dual(cx: &Cx, on: bool) -> Script {
    let p = cx.profile;
    if p.scope.source != ScopeSourceKind::Hardware || !p.is_dual() {
        return Script::fail(CommandError::new(
            ErrorCode::NotSupported,
            format!("the {} has no second receiver on its scope", p.model()),
        ));
    }
    Script::new(
        vec![Item::set(
            CivRequest::set(cx.addr(), cmd::SCOPE, &[cmd::scope::DUAL, u8::from(on)]),
            Then::Set(Box::new(move |c| c.radio.scope.dual = on)),
        )],
        Answer::ScopeDual(on),
    )
}
