//! What each command sends and what it changes in the state (the encoder and
//! state-effect columns of the command table): the procedure of every [`Command`].

use serde_json::{Value, json};

use super::band::SetBand;
use super::meters::ReadMeters;
use super::power::{Power, PttKey};
use super::proc::{Cx, Effect, Item, Procedure, Script, Then, route};
use crate::profile::{ScopeSourceKind, VfoScheme};
use crate::radio::apply::{self, sel_for_target, selected_receiver, vfo_of};
use crate::radio::command::{Command, Target, Write};
use crate::radio::error::{CommandError, ErrorCode};
use crate::radio::request::CivRequest;
use crate::radio::state::Selected;
use crate::radio::table::SHOWN_SCOPE_RECEIVER;
use crate::radio::table::codec::CodecCtx;
use crate::radio::table::settings::Place;
use crate::wire::civ::{self, cmd};

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
        } => Box::new(set_mode(cx, *target, Some(mode), *filter, None)),
        Command::SetFilter { target, filter } => {
            Box::new(set_mode(cx, *target, None, Some(*filter), None))
        }
        Command::SetDataMode { target, data } => {
            Box::new(set_mode(cx, *target, None, None, Some(*data)))
        }
        Command::Ptt(on) => Box::new(PttKey::new(*on)),
        Command::Release => Box::new(PttKey::release()),
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
    let scope_rx = cx.store.read(|c| c.radio.scope.receiver);
    for w in writes {
        let s = w.setting();
        let rx = match s.place {
            Place::ScopeReceiver if w.receiver == SHOWN_SCOPE_RECEIVER => scope_rx,
            Place::Global => 0,
            _ => w.receiver,
        };
        let ctx = CodecCtx {
            mode: cx.store.read(|c| {
                c.radio
                    .receiver(rx)
                    .and_then(|r| r.mode.as_deref())
                    .and_then(civ::mode_code)
            }),
        };
        let mut data = s.prefix.to_vec();
        if s.place == Place::ScopeReceiver {
            data.push(rx);
        }
        match (s.set_bytes, s.codec.encode(w.raw, ctx)) {
            (Some(pair), Some(_)) => data = vec![pair[usize::from(w.raw == 1)]],
            (None, Some(bytes)) => data.extend(bytes),
            (_, None) => {
                let mode = cx
                    .store
                    .read(|c| c.radio.receiver(rx).and_then(|r| r.mode.clone()));
                let why = match (s.id, mode) {
                    (crate::radio::table::settings::SettingId::FilterWidth, Some(m)) => {
                        match civ::mode_code(&m).and_then(civ::width_range) {
                            Some((lo, hi)) => format!(
                                "{} Hz is not a filter width of {m}; allowed {lo}..{hi} Hz (see byMode)",
                                w.raw
                            ),
                            None => format!("{m} has a fixed filter width"),
                        }
                    }
                    (crate::radio::table::settings::SettingId::FilterWidth, None) => {
                        return Script::fail(unknown("the receiver's mode"));
                    }
                    _ => format!("{} cannot be encoded", w.raw),
                };
                return Script::fail(CommandError::param(s.key, why));
            }
        }
        let req = CivRequest::set(addr, s.cmd, &data);
        let (id, raw) = (s.id, w.raw);
        let then = Then::Set(Box::new(move |c| {
            let s = crate::radio::table::settings::Setting::of(id);
            (s.field.set)(&mut c.radio, rx, raw);
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

pub(super) fn set_freq(cx: &Cx, target: Target, hz: u64) -> Script {
    let addr = cx.addr();
    let Ok(bcd) = civ::freq_to_bcd(hz) else {
        return Script::fail(CommandError::param(
            "freq",
            format!("{hz} Hz cannot be sent"),
        ));
    };
    let result = json!({"vfo": target.label(), "freq": hz});
    let then = || Then::Set(Box::new(move |c| apply::set_freq(&mut c.radio, target, hz)));
    let mut items = Vec::new();
    let sel = match cx.store.read(|c| sel_for_target(&c.radio, target)) {
        Some(sel) => sel,
        None => {
            // an A/B radio whose selected VFO is not known: select the one asked for
            let Target::Vfo(v) = target else {
                return Script::fail(unknown("the VFO"));
            };
            let bytes = if v == 0 {
                &cx.profile.vfo.select_main
            } else {
                &cx.profile.vfo.select_sub
            };
            items.push(Item::set(
                CivRequest::set(addr, cmd::VFO, bytes),
                Then::Set(Box::new(move |c| {
                    c.radio.active = Some(if v == 0 { Selected::A } else { Selected::B })
                })),
            ));
            0
        }
    };
    if sel == 0 {
        // the selected receiver / VFO: the classic command every Icom radio has
        items.push(Item::set(
            CivRequest::set(addr, cmd::SET_FREQ, &bcd),
            then(),
        ));
    } else {
        let mut data = vec![sel];
        data.extend(bcd);
        items.push(Item::set(
            CivRequest::set(addr, cmd::SEL_FREQ, &data),
            then(),
        ));
    }
    Script::new(items, result)
}

/// Sets mode, filter and DATA mode of `target`; what is `None` stays as it is.
pub(super) fn set_mode(
    cx: &Cx,
    target: Target,
    mode: Option<&str>,
    filter: Option<u8>,
    data: Option<u8>,
) -> Script {
    let addr = cx.addr();
    let Some((_, cur_mode, cur_filter, cur_data)) = cx.store.read(|c| vfo_of(&c.radio, target))
    else {
        return Script::fail(CommandError::new(
            ErrorCode::NotSupported,
            format!("this radio has no {}", target.label()),
        ));
    };
    let Some(mode) = mode.map(str::to_string).or(cur_mode) else {
        return Script::fail(unknown("the mode"));
    };
    let Some(code) = cx.profile.mode_code(&mode) else {
        return Script::fail(CommandError::param(
            "mode",
            format!("{mode:?} is not a mode of the {}", cx.profile.model()),
        ));
    };
    let filter = filter.or(cur_filter);
    let sel = cx.store.read(|c| sel_for_target(&c.radio, target));
    let with_filter = civ::has_filter(code);
    let fil = filter.and_then(|f| civ::bcd_byte(f).ok());
    let req = match (sel, data.or(cur_data)) {
        // the selected receiver with its DATA mode unchanged: the classic `06`
        (Some(0), d) if data.is_none() || d == cur_data => {
            let mut bytes = vec![code];
            if let (true, Some(f)) = (with_filter, fil) {
                bytes.push(f);
            }
            CivRequest::set(addr, cmd::SET_MODE, &bytes)
        }
        (Some(sel), Some(d)) => {
            let mut bytes = vec![sel, code, civ::bcd_byte(d).unwrap_or(0)];
            match (with_filter, fil) {
                (true, Some(f)) => bytes.push(f),
                (true, None) => return Script::fail(unknown("the filter")),
                (false, _) => {}
            }
            CivRequest::set(addr, cmd::SEL_MODE, &bytes)
        }
        (None, _) => return Script::fail(unknown("the selected VFO")),
        (Some(_), None) => return Script::fail(unknown("the DATA mode")),
    };
    let new_data = data.or(cur_data);
    let result = json!({
        "vfo": target.label(), "mode": mode, "filter": filter.map(|f| format!("FIL{f}")),
        "data": new_data,
    });
    let m = mode.clone();
    let then = Then::Set(Box::new(move |c| {
        apply::set_mode(&mut c.radio, target, &m, new_data, filter)
    }));
    Script::new(vec![Item::set(req, then)], result)
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
    let mode = cx.store.read(|c| {
        let r = selected_receiver(&c.radio);
        c.radio.receiver(r).and_then(|x| x.mode.clone())
    });
    match mode.as_deref() {
        Some("CW" | "CW-R") => {}
        Some(m) => {
            return Script::fail(CommandError::param(
                "text",
                format!("CW is sent in mode CW or CW-R; the selected receiver is in {m}"),
            ));
        }
        None => return Script::fail(unknown("the mode")),
    }
    let item = Item::set(
        CivRequest::set(cx.addr(), cmd::SEND_CW, text.as_bytes()),
        Then::Nothing,
    )
    .once();
    Script::new(vec![item], json!({"sent": text.len()}))
}
