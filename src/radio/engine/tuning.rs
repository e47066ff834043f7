//! Tuning procedures shared by commands: frequency, and mode / filter / DATA mode of a
//! receiver or VFO, with the classic commands for the selected one and `25`/`26` for
//! the other.

use serde_json::json;

use super::proc::{Cx, Effect, Item, Script, Then, route};
use crate::radio::apply::{self, sel_for_target, selected_vfo, vfo_of};
use crate::radio::command::Target;
use crate::radio::error::{CommandError, ErrorCode};
use crate::radio::request::CivRequest;
use crate::radio::state::{RadioState, Selected};
use crate::wire::civ::{self, Mode, cmd};

fn unknown(what: &str) -> CommandError {
    CommandError::new(
        ErrorCode::RadioUnavailable,
        format!("{what} is not known yet (the radio has not reported it); try again shortly"),
    )
}

/// Tunes `target` to `hz`.
pub fn set_freq(cx: &Cx, target: Target, hz: u64) -> Script {
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
pub fn set_mode(
    cx: &mut Cx,
    target: Target,
    mode: Option<Mode>,
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
    let Some(mode) = mode.or(cur_mode) else {
        return Script::fail(unknown("the mode"));
    };
    if !cx.profile.has_mode(mode) {
        return Script::fail(CommandError::param(
            "mode",
            format!("{mode} is not a mode of the {}", cx.profile.model()),
        ));
    }
    let code = mode.code();
    let filter = filter.or(cur_filter);
    let sel = cx.store.read(|c| sel_for_target(&c.radio, target));
    let with_filter = mode.has_filter();
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
    let then = Then::Set(Box::new(move |c| {
        apply::set_mode(&mut c.radio, target, mode, new_data, filter)
    }));
    if let Some(rx) = cx.store.read(|c| width_receiver(&c.radio, target)) {
        cx.effects.push(Effect::WidthStale(rx));
    }
    Script::new(vec![Item::set(req, then)], result)
}

/// The receiver whose filter width `target` shows (`None`: an unselected VFO of an A/B
/// radio, whose width the radio does not show).
fn width_receiver(s: &RadioState, target: Target) -> Option<u8> {
    match target {
        Target::Receiver(r) => Some(r),
        Target::Vfo(v) => (selected_vfo(s) == Some(v)).then_some(0),
        Target::SelectedVfo => Some(0),
    }
}

/// Reads receiver `rx`'s IF filter width again after its mode or filter changed (the
/// radio keeps one per mode and filter and reports none of it): plainly or through
/// command 29; a receiver that could only be read by changing the operator's selection
/// has its width marked unknown instead.
pub fn width_refresh(cx: &Cx, rx: u8) -> Script {
    let req = CivRequest::read(cx.addr(), cmd::EXT, &[cmd::ext::FILTER_WIDTH]);
    match route(cx, rx, req, false) {
        Some(r) => Script::new(vec![Item::read(r.req, r.answer_for)], json!({})),
        None => {
            cx.store.modify(|c| {
                if let Some(r) = c.radio.receiver_mut(rx) {
                    r.settings.filter_width = None;
                }
            });
            Script::new(Vec::new(), json!({}))
        }
    }
}
