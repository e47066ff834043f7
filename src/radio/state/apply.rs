//! Applies frames from the radio (read replies and transceive broadcasts, which share
//! one layout) to the state: frequency and mode with the selected/unselected semantics
//! of `25`/`26` (pitfall 16), PTT, power, receiver selection, scope selection, the
//! command-29 receiver prefix, and every setting of the settings table.

use crate::profile::{Profile, VfoScheme};
use crate::radio::state::{RadioState, Selected, StateContent, VfoState};
use crate::radio::table::codec::CodecCtx;
use crate::radio::table::command::Target;
use crate::radio::table::settings::{self, Place, ScopeSettings};
use crate::wire::civ::{self, Frame, Mode, Receiver, cmd};

/// The receiver currently selected; MAIN while unknown and on A/B radios.
pub fn selected_receiver(s: &RadioState) -> Receiver {
    match s.active {
        Some(Selected::Sub) => Receiver::Sub,
        _ => Receiver::Main,
    }
}

/// The receiver a selector byte of `25`/`26` (00 selected, 01 unselected) addresses.
fn receiver_of_sel(s: &RadioState, sel: u8) -> Receiver {
    let selected = selected_receiver(s);
    if sel == 0 { selected } else { selected.other() }
}

/// The VFO selected on an A/B radio (0 A, 1 B), if known.
pub fn selected_vfo(s: &RadioState) -> Option<u8> {
    match s.active {
        Some(Selected::A) => Some(0),
        Some(Selected::B) => Some(1),
        _ => None,
    }
}

/// The selector byte (00 selected, 01 unselected) that addresses `target` now (`None`:
/// a VFO of an A/B radio whose selected VFO is not known).
pub fn sel_for_target(s: &RadioState, target: Target) -> Option<u8> {
    match target {
        Target::Receiver(r) => Some(u8::from(r != selected_receiver(s))),
        Target::Vfo(v) => selected_vfo(s).map(|a| u8::from(v != a)),
        Target::SelectedVfo => Some(0),
    }
}

fn vfo_mut(s: &mut RadioState, v: u8) -> Option<&mut VfoState> {
    if v == 0 {
        s.main.vfo_a.as_mut()
    } else {
        s.main.vfo_b.as_mut()
    }
}

/// VFO `v` of an A/B radio was selected (by us): the receiver shows that VFO now, as far
/// as it is known.
pub fn select_vfo(s: &mut RadioState, v: u8) {
    s.active = Some(if v == 0 { Selected::A } else { Selected::B });
    let x = vfo_mut(s, v).cloned().unwrap_or_default();
    let m = &mut s.main;
    (m.freq_hz, m.mode, m.filter, m.data_mode) = (x.freq_hz, x.mode, x.filter, x.data_mode);
}

/// VFO A and B were swapped (`07 B0` on an A/B radio): their contents change places; the
/// receiver shows the selected one's (unknown while the selection is).
pub fn swap_vfos(s: &mut RadioState) {
    let m = &mut s.main;
    std::mem::swap(&mut m.vfo_a, &mut m.vfo_b);
    match selected_vfo(s) {
        Some(v) => select_vfo(s, v),
        None => {
            let m = &mut s.main;
            (m.freq_hz, m.mode, m.filter, m.data_mode) = (None, None, None, None);
        }
    }
}

/// The selected VFO was copied onto the other (`07 A0` on an A/B radio).
pub fn equalize_vfos(s: &mut RadioState) {
    let Some(v) = selected_vfo(s) else {
        return;
    };
    let m = &s.main;
    let copy = VfoState {
        freq_hz: m.freq_hz,
        mode: m.mode,
        filter: m.filter,
        data_mode: m.data_mode,
    };
    if let Some(x) = vfo_mut(s, 1 - v) {
        *x = copy;
    }
}

/// Sets the frequency of `target`.
pub fn set_freq(s: &mut RadioState, target: Target, hz: u64) {
    match target {
        Target::Receiver(r) => {
            if let Some(rx) = s.receiver_mut(r) {
                rx.freq_hz = Some(hz);
            }
        }
        Target::Vfo(v) => {
            if let Some(x) = vfo_mut(s, v) {
                x.freq_hz = Some(hz);
            }
            if selected_vfo(s) == Some(v) {
                s.main.freq_hz = Some(hz);
            }
        }
        Target::SelectedVfo => match selected_vfo(s) {
            Some(a) => set_freq(s, Target::Vfo(a), hz),
            None => s.main.freq_hz = Some(hz),
        },
    }
}

/// Sets mode, DATA mode and filter of `target` (`None` keeps the current value).
pub fn set_mode(
    s: &mut RadioState,
    target: Target,
    mode: Mode,
    data: Option<u8>,
    filter: Option<u8>,
) {
    let rx = match target {
        Target::SelectedVfo => {
            let t = selected_vfo(s).map_or(Target::Receiver(Receiver::Main), Target::Vfo);
            return set_mode(s, t, mode, data, filter);
        }
        Target::Receiver(r) => s.receiver_mut(r),
        Target::Vfo(v) => {
            if let Some(x) = vfo_mut(s, v) {
                x.mode = Some(mode);
                if filter.is_some() {
                    x.filter = filter;
                }
                if data.is_some() {
                    x.data_mode = data;
                }
            }
            (selected_vfo(s) == Some(v)).then_some(&mut s.main)
        }
    };
    if let Some(rx) = rx {
        rx.mode = Some(mode);
        if data.is_some() {
            rx.data_mode = data;
        }
        if filter.is_some() {
            rx.filter = filter;
        }
    }
}

/// What is known of one receiver or VFO: frequency, mode, filter, DATA mode.
pub type VfoView = (Option<u64>, Option<Mode>, Option<u8>, Option<u8>);

/// Frequency, mode, filter and DATA mode of `target` (each `None` when unknown).
pub fn vfo_of(s: &RadioState, target: Target) -> Option<VfoView> {
    match target {
        Target::SelectedVfo => vfo_of(s, Target::Receiver(Receiver::Main)),
        Target::Receiver(r) => s
            .receiver(r)
            .map(|x| (x.freq_hz, x.mode, x.filter, x.data_mode)),
        Target::Vfo(v) => {
            let x = if v == 0 {
                s.main.vfo_a.as_ref()
            } else {
                s.main.vfo_b.as_ref()
            }?;
            Some((x.freq_hz, x.mode, x.filter, x.data_mode))
        }
    }
}

fn filter_byte(b: Option<&u8>) -> Option<u8> {
    b.and_then(|&f| civ::from_bcd_byte(f).ok())
        .filter(|f| (1..=3).contains(f))
}

/// What the selector byte `sel` of a `25`/`26` frame addresses: a receiver, a VFO, or
/// (A/B radio, selected VFO unknown) the selected VFO seen through MAIN only.
fn apply_sel_freq(s: &mut RadioState, scheme: VfoScheme, sel: u8, hz: u64) {
    match scheme {
        VfoScheme::MainSub => {
            set_freq(s, Target::Receiver(receiver_of_sel(s, sel)), hz);
        }
        VfoScheme::Ab => match selected_vfo(s) {
            Some(a) => set_freq(s, Target::Vfo(if sel == 0 { a } else { 1 - a }), hz),
            None if sel == 0 => s.main.freq_hz = Some(hz),
            None => {}
        },
    }
}

fn apply_sel_mode(
    s: &mut RadioState,
    scheme: VfoScheme,
    sel: u8,
    mode: Mode,
    data: Option<u8>,
    filter: Option<u8>,
) {
    match scheme {
        VfoScheme::MainSub => {
            set_mode(
                s,
                Target::Receiver(receiver_of_sel(s, sel)),
                mode,
                data,
                filter,
            );
        }
        VfoScheme::Ab => match selected_vfo(s) {
            Some(a) => set_mode(
                s,
                Target::Vfo(if sel == 0 { a } else { 1 - a }),
                mode,
                data,
                filter,
            ),
            None if sel == 0 => set_mode(s, Target::Receiver(Receiver::Main), mode, data, filter),
            None => {}
        },
    }
}

/// The receiver whose mode, filter or DATA mode a frame from the radio sets (`None`: it
/// sets none, or only an unselected VFO of an A/B radio, whose filter width the radio
/// does not show).
pub fn mode_frame_receiver(s: &RadioState, scheme: VfoScheme, f: &Frame) -> Option<Receiver> {
    let of_sel = |sel: u8| match scheme {
        VfoScheme::MainSub => Some(receiver_of_sel(s, sel)),
        VfoScheme::Ab => (sel == 0).then_some(Receiver::Main),
    };
    match (f.cmd, f.data.as_slice()) {
        (cmd::MODE_NO_REPLY, [_, ..]) => of_sel(0),
        (cmd::SEL_MODE, [sel @ (0 | 1), _, ..]) => of_sel(*sel),
        (cmd::EXT, [civ::cmd::ext::DATA_MODE, _, ..]) => of_sel(0),
        (cmd::RECEIVER_PREFIX, _) => {
            let (rx, inner) = f.unwrap_receiver()?;
            mode_frame_receiver(s, scheme, &inner).map(|_| rx)
        }
        _ => None,
    }
}

/// Applies one frame from the radio; returns true if it changed or confirmed a field.
pub fn apply_frame(c: &mut StateContent, profile: &Profile, f: &Frame) -> bool {
    apply_frame_to(c, profile, f, None)
}

/// [`apply_frame`] with per-receiver settings attributed to `receiver` (a command-29
/// reply, or a read made while that receiver was selected for it) instead of the
/// selected receiver.
pub fn apply_frame_to(
    c: &mut StateContent,
    profile: &Profile,
    f: &Frame,
    receiver: Option<Receiver>,
) -> bool {
    let scheme = profile.vfo.scheme;
    let s = &mut c.radio;
    let d = f.data.as_slice();
    match (f.cmd, d) {
        (cmd::FREQ_NO_REPLY | cmd::READ_FREQ, bytes) if bytes.len() == 5 => {
            let Ok(hz) = civ::bcd_to_freq(bytes) else {
                return false;
            };
            apply_sel_freq(s, scheme, 0, hz);
        }
        (cmd::MODE_NO_REPLY | cmd::READ_MODE, [mode, rest @ ..]) => {
            let Some(mode) = profile.mode_of_code(*mode) else {
                return false;
            };
            apply_sel_mode(s, scheme, 0, mode, None, filter_byte(rest.first()));
        }
        (cmd::SEL_FREQ, [sel @ (0 | 1), bytes @ ..]) if bytes.len() == 5 => {
            let Ok(hz) = civ::bcd_to_freq(bytes) else {
                return false;
            };
            apply_sel_freq(s, scheme, *sel, hz);
        }
        (cmd::SEL_MODE, [sel @ (0 | 1), mode, data, rest @ ..]) => {
            let Some(mode) = profile.mode_of_code(*mode) else {
                return false;
            };
            let data = civ::from_bcd_byte(*data).ok().filter(|x| *x <= 3);
            apply_sel_mode(s, scheme, *sel, mode, data, filter_byte(rest.first()));
        }
        (cmd::VFO, [civ::cmd::vfo::SELECTED, x @ (0 | 1)])
            if scheme == VfoScheme::MainSub && s.sub.is_some() =>
        {
            s.active = Some(if *x == 1 {
                Selected::Sub
            } else {
                Selected::Main
            });
        }
        (cmd::TX, [civ::cmd::tx::PTT, x @ (0 | 1)]) => s.ptt = Some(*x == 1),
        (cmd::POWER, [x @ (0 | 1)]) => {
            s.power_on = Some(*x == 1);
            if *x == 0 {
                // switched off: so is the transmitter
                s.ptt = Some(false);
            }
        }
        (cmd::RECEIVER_PREFIX, _) => {
            let Some((rx, inner)) = f.unwrap_receiver() else {
                return false;
            };
            return apply_frame_to(c, profile, &inner, Some(rx));
        }
        (cmd::EXT, [civ::cmd::ext::DATA_MODE, data, rest @ ..]) => {
            // `1A 06 <data> [<filter>]`: of the selected receiver / VFO (or the one a
            // command-29 prefix names)
            let Some(data) = civ::from_bcd_byte(*data).ok().filter(|x| *x <= 3) else {
                return false;
            };
            let target = match (scheme, receiver) {
                (VfoScheme::MainSub, Some(rx)) => Target::Receiver(rx),
                (VfoScheme::MainSub, None) => Target::Receiver(selected_receiver(s)),
                (VfoScheme::Ab, _) => Target::SelectedVfo,
            };
            let Some((_, Some(mode), _, _)) = vfo_of(s, target) else {
                return false;
            };
            set_mode(s, target, mode, Some(data), filter_byte(rest.first()));
        }
        (cmd::SCOPE, [civ::cmd::scope::RECEIVER, x]) => {
            let Some(x) = Receiver::from_code(*x) else {
                return false;
            };
            if s.scope.receiver != x {
                // the settings shown were the other receiver's: unknown until read
                s.scope.receiver = x;
                s.scope.settings = ScopeSettings::default();
            }
        }
        (cmd::SCOPE, [civ::cmd::scope::DUAL, x @ (0 | 1)]) => s.scope.dual = *x == 1,
        _ => return apply_setting(s, scheme, f, receiver),
    }
    true
}

/// A frame of settings of the table (one, or several sharing the frame).
fn apply_setting(
    s: &mut RadioState,
    scheme: VfoScheme,
    f: &Frame,
    receiver: Option<Receiver>,
) -> bool {
    let mut applied = false;
    for (setting, scope_rx, value) in settings::lookup(f.cmd, &f.data) {
        let rx = match setting.place {
            Place::Global => Receiver::Main,
            Place::Receiver if scheme == VfoScheme::Ab => Receiver::Main,
            Place::Receiver => receiver.unwrap_or_else(|| selected_receiver(s)),
            Place::ScopeReceiver => match scope_rx.and_then(Receiver::from_code) {
                Some(r) => r,
                None => continue,
            },
        };
        let ctx = CodecCtx {
            mode: s.receiver(rx).and_then(|r| r.mode),
        };
        if let Some(raw) = setting.codec.decode(value, ctx) {
            applied |= s.set_setting(setting.id, rx, raw);
        }
    }
    applied
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ProfileRegistry;
    use crate::radio::state::ReceiverState;
    use crate::radio::table::values::Tenths;

    fn content(ab: bool, dual: bool) -> StateContent {
        let main = ReceiverState::tuned(14_074_000, Mode::Usb, ab);
        let sub = dual.then(|| ReceiverState::tuned(7_074_000, Mode::Lsb, false));
        let mut radio = RadioState::new(main, sub);
        radio.active = Some(if ab { Selected::A } else { Selected::Main });
        StateContent::connecting(radio, "")
    }

    #[test]
    fn selected_and_unselected_follow_the_selected_receiver() {
        let p = ProfileRegistry::embedded().get("ic7610").unwrap();
        let mut c = content(false, true);
        let f = |cmd, data: &[u8]| Frame::new(0xE0, 0x98, cmd, data);
        let mut d = vec![0x01];
        d.extend(civ::freq_to_bcd(7_100_000).unwrap());
        assert!(apply_frame(&mut c, &p, &f(0x25, &d)));
        assert_eq!(c.radio.sub.as_ref().unwrap().freq_hz, Some(7_100_000));
        assert!(apply_frame(&mut c, &p, &f(0x07, &[0xD2, 0x01])));
        assert_eq!(c.radio.active, Some(Selected::Sub));
        assert!(apply_frame(&mut c, &p, &f(0x25, &d)));
        assert_eq!(
            c.radio.main.freq_hz,
            Some(7_100_000),
            "unselected = MAIN now"
        );
        let b = Frame::new(0x00, 0x98, 0x00, &civ::freq_to_bcd(7_050_000).unwrap());
        assert!(apply_frame(&mut c, &p, &b));
        assert_eq!(c.radio.sub.as_ref().unwrap().freq_hz, Some(7_050_000));
        assert!(apply_frame(&mut c, &p, &f(0x29, &[0x01, 0x11, 0x12])));
        assert_eq!(c.radio.sub.as_ref().unwrap().settings.att, Some(12));
        assert!(apply_frame(
            &mut c,
            &p,
            &f(0x29, &[0x00, 0x14, 0x01, 0x01, 0x28])
        ));
        assert_eq!(
            c.radio.main.settings.af_gain,
            Some(128),
            "AF of MAIN by command 29"
        );
        assert!(apply_frame(&mut c, &p, &f(0x14, &[0x02, 0x02, 0x00])));
        assert_eq!(
            c.radio.sub.as_ref().unwrap().settings.rf_gain,
            Some(200),
            "plain = selected (SUB)"
        );
        assert!(
            !apply_frame(&mut c, &p, &f(0x25, &[0x00, 0x0A, 0, 0, 0, 0])),
            "bad BCD"
        );
        assert!(
            !apply_frame(&mut c, &p, &f(0x26, &[0x00, 0x17, 0, 1])),
            "DV is not an IC-7610 mode"
        );
        assert!(!apply_frame(&mut c, &p, &f(0x16, &[0x12, 0x04])), "AGC 4");
        assert!(apply_frame(&mut c, &p, &f(0x21, &[0x00, 0x23, 0x01, 0x01])));
        assert_eq!(c.radio.settings.rit_offset_hz, Some(-123));
        assert!(apply_frame(
            &mut c,
            &p,
            &f(0x27, &[0x19, 0x00, 0x05, 0x00, 0x01])
        ));
        assert_eq!(c.radio.scope.settings.ref_db, Some(Tenths(-50)));
        assert!(
            !apply_frame(&mut c, &p, &f(0x27, &[0x19, 0x01, 0x05, 0x00, 0x01])),
            "scope shows MAIN"
        );
    }

    #[test]
    fn ab_radios_track_both_vfos_once_the_selected_one_is_known() {
        let p = ProfileRegistry::embedded().get("ic705").unwrap();
        let mut c = content(true, false);
        let mut d = vec![0x01];
        d.extend(civ::freq_to_bcd(145_000_000).unwrap());
        assert!(apply_frame(&mut c, &p, &Frame::new(0xE0, 0xA4, 0x25, &d)));
        assert_eq!(
            c.radio.main.vfo_b.as_ref().unwrap().freq_hz,
            Some(145_000_000)
        );
        assert_eq!(
            c.radio.main.freq_hz,
            Some(14_074_000),
            "VFO A stays the displayed one"
        );
        assert!(apply_frame(
            &mut c,
            &p,
            &Frame::new(0xE0, 0xA4, 0x26, &[0x00, 0x03, 0x00, 0x02])
        ));
        assert_eq!(
            (c.radio.main.mode, c.radio.main.filter),
            (Some(Mode::Cw), Some(2))
        );
        c.radio.active = None;
        assert!(apply_frame(&mut c, &p, &Frame::new(0xE0, 0xA4, 0x25, &d)));
        assert_eq!(
            c.radio.main.freq_hz,
            Some(14_074_000),
            "unselected of an unknown selection"
        );
        d[0] = 0;
        assert!(apply_frame(&mut c, &p, &Frame::new(0xE0, 0xA4, 0x25, &d)));
        assert_eq!(
            c.radio.main.freq_hz,
            Some(145_000_000),
            "the selected VFO is the dial"
        );
    }
}
