//! What each command sends and what it changes in the state (the encoder and
//! state-effect columns of the command table): the procedure of every [`Command`].

use serde_json::{Value, json};

use super::band::SetBand;
use super::meters::ReadMeters;
use super::mod_input::{ReadModInput, set_mod_input};
use super::power::{Power, PttKey};
use super::proc::{Cx, Effect, Item, Procedure, Script, Then, route};
use super::tuning::{set_freq, set_mode};
use crate::profile::{ScopeSourceKind, VfoScheme};
use crate::radio::command::{Command, Write};
use crate::radio::error::{CommandError, ErrorCode};
use crate::radio::request::CivRequest;
use crate::radio::table::settings::Place;
use crate::radio::table::{check_against, encode_write};
use crate::wire::civ::cmd;

fn unknown(what: &str) -> CommandError {
    CommandError::new(
        ErrorCode::RadioUnavailable,
        format!("{what} is not known yet (the radio has not reported it); try again shortly"),
    )
}

/// The procedure of `command`.
pub fn procedure(cx: &mut Cx, command: &Command) -> Box<dyn Procedure> {
    let addr = cx.addr();
    match command {
        Command::Write { writes, result } => Box::new(write(cx, writes, result.clone())),
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
        Command::VfoSwap | Command::VfoEqualize => {
            let p = cx.profile;
            let bytes = if *command == Command::VfoSwap {
                &p.vfo.swap
            } else {
                &p.vfo.equalize
            };
            let mut op = Item::set(CivRequest::set(addr, cmd::VFO, bytes), Then::Nothing);
            op.retry = command.is_idempotent();
            let mut items = vec![op];
            items.extend(read_vfos(cx));
            Box::new(Script::new(items, json!({})))
        }
        Command::SetBand(code) => Box::new(SetBand::new(*code)),
        Command::Power(on) => Box::new(Power::new(*on)),
        Command::ScopeOutput(on) => Box::new(scope_output(cx, *on)),
        Command::ScopeDual(on) => Box::new(scope_dual(cx, *on)),
        Command::SendCw(text) => Box::new(send_cw(cx, text)),
        Command::StopCw => Box::new(Script::new(
            vec![Item::set(
                CivRequest::set(addr, cmd::SEND_CW, &[cmd::CW_STOP]),
                Then::Nothing,
            )],
            json!({}),
        )),
        Command::ReadMeters(kinds) => Box::new(ReadMeters::new(kinds.clone())),
        Command::ReadModInput => Box::new(ReadModInput::new()),
        Command::SetModInput { data_mode, value } => {
            Box::new(set_mod_input(cx, *data_mode, *value))
        }
        Command::Refresh => Box::new(super::fetch::Fetch::new()),
    }
}

/// Reads frequency and mode of every receiver / VFO.
pub fn read_vfos(cx: &Cx) -> Vec<Item> {
    let p = cx.profile;
    let n = if p.vfo.scheme == VfoScheme::Ab || p.is_dual() {
        2
    } else {
        1
    };
    let mut items = Vec::new();
    for sel in 0..n {
        for c in [cmd::SEL_FREQ, cmd::SEL_MODE] {
            items.push(Item::read(CivRequest::read(cx.addr(), c, &[sel]), None));
        }
    }
    items
}

/// Writes settings of the table.
fn write(cx: &Cx, writes: &[Write], result: Value) -> Script {
    let addr = cx.addr();
    let mut items = Vec::new();
    let mut finally = Vec::new();
    for w in writes {
        let s = w.setting();
        let (rx, data) = match cx.store.read(|c| encode_write(w, &c.radio)) {
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
    Script::new(items, result).finally(finally)
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
    Script::new(items, json!({"output": on}))
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
        json!({"dual": on}),
    )
}

fn send_cw(cx: &Cx, text: &str) -> Script {
    let cmd = Command::SendCw(text.to_string());
    if let Err(e) = cx.store.read(|c| check_against(&cmd, &c.radio)) {
        return Script::fail(e);
    }
    let item = Item::set(
        CivRequest::set(cx.addr(), cmd::SEND_CW, text.as_bytes()),
        Then::Nothing,
    )
    .once();
    Script::new(vec![item], json!({"sent": text.len()}))
}
