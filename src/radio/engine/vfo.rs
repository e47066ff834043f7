//! VFO selection and reading both VFOs (issue 15 item 4).
//!
//! * An A/B radio cannot say which VFO is selected, so `active` is unknown after every
//!   connect. A command that names `A` or `B` then selects that VFO first (`07 00` /
//!   `07 01`) and reads both VFOs, so that the state is known from then on.
//! * Where the radio has `25`/`26` (feature `unselected_vfo`), the unselected receiver or
//!   VFO is read and set with them, without switching; a command that needs the current
//!   filter or DATA mode of its target and does not know it reads it (`26 <sel>`) first.
//! * Without them (IC-7100) the selected VFO is read with `03`/`04`/`1A 06`, and the
//!   unselected one is reached by selecting it for the duration (the state follows every
//!   switch, so that replies land on the VFO that gave them).

use crate::profile::{Feature, Profile, VfoScheme};
use crate::radio::engine::proc::{Cx, Effect, Item, Outcome, Procedure, Script, Step, Then};
use crate::radio::engine::request::CivRequest;
use crate::radio::state::apply::{self, sel_for_target, selected_vfo, vfo_of};
use crate::radio::table::answer::Answer;
use crate::radio::table::command::{Command, Target};
use crate::wire::civ::{Receiver, cmd};

/// True if the radio reads and sets the unselected receiver / VFO with `25`/`26`.
pub fn has_unselected(p: &Profile) -> bool {
    p.has_feature(Feature::UnselectedVfo)
}

/// `07` selecting VFO / receiver `index` (0 A or MAIN, 1 B or SUB); on A/B radios the
/// state follows (the receiver shows that VFO).
pub fn select(cx: &Cx, index: u8) -> Item {
    let p = cx.profile;
    let bytes = if index == 0 {
        &p.vfo.select_main
    } else {
        &p.vfo.select_sub
    };
    let then = if p.vfo.scheme == VfoScheme::Ab {
        Then::Set(Box::new(move |c| apply::select_vfo(&mut c.radio, index)))
    } else {
        Then::Nothing
    };
    Item::set(CivRequest::set(cx.addr(), cmd::VFO, bytes), then)
}

/// Reads of the selected receiver / VFO without `25`/`26`: frequency, mode and filter,
/// DATA mode.
fn read_selected(cx: &Cx) -> Vec<Item> {
    let a = cx.addr();
    let mut items = vec![
        Item::read(CivRequest::read(a, cmd::READ_FREQ, &[]), None),
        Item::read(CivRequest::read(a, cmd::READ_MODE, &[]), None),
    ];
    if cx.profile.has_feature(Feature::DataMode) {
        items.push(Item::read(
            CivRequest::read(a, cmd::EXT, &[cmd::ext::DATA_MODE]),
            None,
        ));
    }
    items
}

/// Reads frequency and mode of every receiver / VFO the radio shows without switching:
/// both with `25`/`26`, else the selected one.
pub fn read_all(cx: &Cx) -> Vec<Item> {
    let p = cx.profile;
    if !has_unselected(p) {
        return read_selected(cx);
    }
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

/// The two `07` items that reach the unselected receiver / VFO `index` on a radio
/// without `25`/`26`: select it, and select the other one again afterwards.
pub fn switch_to(cx: &Cx, index: u8) -> (Item, Item) {
    (select(cx, index), select(cx, 1 - index))
}

/// What runs before `command` so that it can be built: the selection of the VFO it names
/// while the radio's selection is not known, or a read of the current mode, filter and
/// DATA mode of its target when it needs them and they are not known. `None`: nothing.
pub fn prepare(cx: &mut Cx, command: &Command) -> Option<Vec<Item>> {
    let p = cx.profile;
    let s = cx.state.read(|c| c.radio.clone());
    if p.vfo.scheme == VfoScheme::Ab
        && let Some(v) = command.named_vfo()
        && selected_vfo(&s).is_none()
    {
        let mut items = vec![select(cx, v)];
        items.extend(read_all(cx));
        // the radio shows the filter width of that VFO's mode now
        if p.has_feature(Feature::FilterWidth) {
            cx.effects.push(Effect::WidthStale(Receiver::Main));
        }
        return Some(items);
    }
    let (Command::SetMode { target, .. }
    | Command::SetFilter { target, .. }
    | Command::SetDataMode { target, .. }) = command
    else {
        return None;
    };
    let (_, mode, filter, data) = vfo_of(&s, *target)?;
    if mode.is_some() && filter.is_some() && data.is_some() {
        return None;
    }
    let sel = sel_for_target(&s, *target)?;
    if has_unselected(p) {
        let read = CivRequest::read(cx.addr(), cmd::SEL_MODE, &[sel]);
        return Some(vec![Item::read(read, None)]);
    }
    if sel == 0 {
        return Some(read_selected(cx));
    }
    if p.vfo.scheme != VfoScheme::Ab {
        return None;
    }
    // the unselected VFO of a radio without 26: read while it is selected
    let index = target_index(*target)?;
    let (there, back) = switch_to(cx, index);
    let mut items = vec![there];
    items.extend(read_selected(cx));
    items.push(back);
    Some(items)
}

/// The VFO / receiver index of `target` (0 VFO A or MAIN, 1 VFO B or SUB; `None`: the
/// selected VFO, whichever it is).
pub fn target_index(target: Target) -> Option<u8> {
    match target {
        Target::Receiver(r) => Some(r.code()),
        Target::Vfo(i) => Some(i),
        Target::SelectedVfo => None,
    }
}

/// Builds a procedure from the state as it is when it starts.
pub type Build = Box<dyn FnOnce(&mut Cx) -> Box<dyn Procedure> + Send>;

/// A procedure that runs its preparation first and is built after it, from what the
/// preparation learnt (see [`prepare`]).
pub struct Prepared {
    prep: Script,
    build: Option<Build>,
    inner: Option<Box<dyn Procedure>>,
}

impl Prepared {
    /// Runs `prep`, then the procedure `build` makes.
    pub fn new(prep: Vec<Item>, build: Build) -> Prepared {
        Prepared {
            prep: Script::new(prep, Answer::Done),
            build: Some(build),
            inner: None,
        }
    }
}

impl Procedure for Prepared {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        if let Some(inner) = self.inner.as_mut() {
            return inner.step(cx, last);
        }
        match self.prep.step(cx, last) {
            Step::Done(Err(e)) => Step::Done(Err(e)),
            Step::Done(Ok(_)) => {
                let build = self.build.take().expect("built once");
                let inner = self.inner.insert(build(cx));
                inner.step(cx, None)
            }
            other => other,
        }
    }
}
