//! Tuning procedures shared by commands: frequency, and mode / filter / DATA mode of a
//! receiver or VFO, with the classic commands for the selected one and `25`/`26` for
//! the other (or, on radios without them, the classic ones while it is selected).

use crate::radio::engine::proc::{Cx, Effect, Item, Script, Then, route};
use crate::radio::engine::request::CivRequest;
use crate::radio::engine::vfo;
use crate::radio::state::RadioState;
use crate::radio::state::apply::{self, sel_for_target, selected_vfo, vfo_of};
use crate::radio::table::answer::Answer;
use crate::radio::table::command::Target;
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::wire::civ::{self, Mode, Receiver, cmd};

fn unknown(what: &str) -> CommandError {
    CommandError::new(
        ErrorCode::RadioUnavailable,
        format!("{what} is not known yet (the radio has not reported it); try again shortly"),
    )
}

/// Tunes `target` to `hz`: the selected receiver / VFO with `05`, the other with
/// `25 01` where the radio has it, else by selecting it for the duration.
pub fn set_freq(cx: &Cx, target: Target, hz: u64) -> Script {
    let addr = cx.addr();
    let Ok(bcd) = civ::freq_to_bcd(hz) else {
        return Script::fail(CommandError::param(
            "freq",
            format!("{hz} Hz cannot be sent"),
        ));
    };
    let result = Answer::Tuned { target, hz };
    let then = Then::Set(Box::new(move |c| apply::set_freq(&mut c.radio, target, hz)));
    match cx.state.read(|c| sel_for_target(&c.radio, target)) {
        None => Script::fail(unknown("the selected VFO")),
        Some(0) => Script::new(
            vec![Item::set(CivRequest::set(addr, cmd::SET_FREQ, &bcd), then)],
            result,
        ),
        Some(_) if vfo::has_unselected(cx.profile) => {
            let mut data = vec![cmd::sel::UNSELECTED];
            data.extend(bcd);
            Script::new(
                vec![Item::set(CivRequest::set(addr, cmd::SEL_FREQ, &data), then)],
                result,
            )
        }
        Some(_) => {
            let Some(index) = vfo::target_index(target) else {
                return Script::fail(unknown("the selected VFO"));
            };
            let (there, back) = vfo::switch_to(cx, index);
            let set = Item::set(CivRequest::set(addr, cmd::SET_FREQ, &bcd), then);
            Script::new(vec![there, set], result).finally(vec![back])
        }
    }
}

/// The data bytes of a `1A 06` DATA-mode set: the DATA mode, and the filter with it when
/// DATA is on and the filter is known.
fn data_mode_bytes(data: u8, fil: Option<u8>, with_filter: bool) -> Vec<u8> {
    let mut bytes = vec![cmd::ext::DATA_MODE, civ::bcd_byte(data).unwrap_or(0)];
    if let (true, true, Some(f)) = (data != 0, with_filter, fil) {
        bytes.push(f);
    }
    bytes
}

/// Sets mode, filter and DATA mode of `target`; what is `None` stays as it is. The
/// selected one with `06` (and `26 00`, or `1A 06` without `26`, when the DATA mode
/// changes); the other with `26 01`, or by selecting it for the duration.
pub fn set_mode(
    cx: &mut Cx,
    target: Target,
    mode: Option<Mode>,
    filter: Option<u8>,
    data: Option<u8>,
) -> Script {
    let addr = cx.addr();
    let Some((_, cur_mode, cur_filter, cur_data)) = cx.state.read(|c| vfo_of(&c.radio, target))
    else {
        return Script::fail(CommandError::new(
            ErrorCode::NotSupported,
            format!("this radio has no {}", target.label()),
        ));
    };
    let Some(mode) = mode.or(cur_mode) else {
        return Script::fail(unknown(&format!("the mode of {}", target.label())));
    };
    if !cx.profile.has_mode(mode) {
        return Script::fail(CommandError::param(
            "mode",
            format!("{mode} is not a mode of the {}", cx.profile.model()),
        ));
    }
    let code = mode.code();
    let filter = filter.or(cur_filter);
    let sel = cx.state.read(|c| sel_for_target(&c.radio, target));
    let with_filter = mode.has_filter();
    let fil = filter.and_then(|f| civ::bcd_byte(f).ok());
    let new_data = data.or(cur_data);
    let data_changes = data.is_some() && data != cur_data;
    let classic = || {
        let mut bytes = vec![code];
        if let (true, Some(f)) = (with_filter, fil) {
            bytes.push(f);
        }
        CivRequest::set(addr, cmd::SET_MODE, &bytes)
    };
    let then = move || {
        Then::Set(Box::new(move |c| {
            apply::set_mode(&mut c.radio, target, mode, new_data, filter)
        }))
    };
    let has_26 = vfo::has_unselected(cx.profile);
    let mut finally = Vec::new();
    let items = match (sel, new_data) {
        (None, _) => return Script::fail(unknown("the selected VFO")),
        // the selected receiver with its DATA mode unchanged: the classic `06`
        (Some(0), _) if !data_changes => vec![Item::set(classic(), then())],
        (Some(sel), Some(d)) if has_26 => {
            let mut bytes = vec![sel, code, civ::bcd_byte(d).unwrap_or(0)];
            match (with_filter, fil) {
                (true, Some(f)) => bytes.push(f),
                (true, None) => {
                    return Script::fail(unknown(&format!("the filter of {}", target.label())));
                }
                (false, _) => {}
            }
            vec![Item::set(
                CivRequest::set(addr, cmd::SEL_MODE, &bytes),
                then(),
            )]
        }
        (Some(_), None) if has_26 => {
            return Script::fail(unknown(&format!("the DATA mode of {}", target.label())));
        }
        // without 26: `06`, then `1A 06` for the DATA mode, on the VFO while selected
        (Some(sel), _) => {
            let mut items = Vec::new();
            if sel != 0 {
                let Some(index) = vfo::target_index(target) else {
                    return Script::fail(unknown("the selected VFO"));
                };
                let (there, back) = vfo::switch_to(cx, index);
                items.push(there);
                finally.push(back);
            }
            if data_changes {
                items.push(Item::set(classic(), Then::Nothing));
                let bytes = data_mode_bytes(data.unwrap_or(0), fil, with_filter);
                items.push(Item::set(CivRequest::set(addr, cmd::EXT, &bytes), then()));
            } else {
                items.push(Item::set(classic(), then()));
            }
            items
        }
    };
    let result = Answer::ModeSet {
        target,
        mode,
        filter,
        data: new_data,
    };
    if let Some(rx) = cx.state.read(|c| width_receiver(&c.radio, target)) {
        cx.effects.push(Effect::WidthStale(rx));
    }
    Script::new(items, result).finally(finally)
}

/// The receiver whose filter width `target` shows (`None`: an unselected VFO of an A/B
/// radio, whose width the radio does not show).
fn width_receiver(s: &RadioState, target: Target) -> Option<Receiver> {
    match target {
        Target::Receiver(r) => Some(r),
        Target::Vfo(v) => (selected_vfo(s) == Some(v)).then_some(Receiver::Main),
        Target::SelectedVfo => Some(Receiver::Main),
    }
}

/// Reads receiver `rx`'s IF filter width again after its mode or filter changed (the
/// radio keeps one per mode and filter and reports none of it): plainly or through
/// command 29; a receiver that could only be read by changing the operator's selection
/// has its width marked unknown instead.
pub fn width_refresh(cx: &mut Cx, rx: Receiver) -> Script {
    let req = CivRequest::read(cx.addr(), cmd::EXT, &[cmd::ext::FILTER_WIDTH]);
    match route(cx, rx, req, false) {
        Some(r) => Script::new(vec![Item::read(r.req, r.answer_for)], Answer::Done),
        None => {
            cx.state.modify(|c| {
                if let Some(r) = c.radio.receiver_mut(rx) {
                    r.settings.filter_width = None;
                }
            });
            Script::new(Vec::new(), Answer::Done)
        }
    }
}
