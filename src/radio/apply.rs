//! Applies frames from the radio (read replies and transceive broadcasts, which share
//! one layout) to the state, with the selected/unselected semantics of `25`/`26`
//! (pitfall 16) and the per-receiver command-29 replies.

use super::command::Target;
use super::state::{RadioState, StateContent, VfoState};
use crate::profile::{Profile, VfoScheme};
use crate::wire::civ::{self, Frame};

/// The receiver currently selected (0 MAIN, 1 SUB).
pub fn selected_receiver(s: &RadioState) -> u8 {
    u8::from(s.active == "SUB")
}

/// The target that selector byte `sel` (00 selected, 01 unselected) addresses.
pub fn target_for_sel(s: &RadioState, scheme: VfoScheme, sel: u8) -> Target {
    match scheme {
        VfoScheme::MainSub => {
            let selected = selected_receiver(s);
            Target::Receiver(if sel == 0 { selected } else { 1 - selected })
        }
        VfoScheme::Ab => {
            let active = u8::from(s.active == "B");
            Target::Vfo(if sel == 0 { active } else { 1 - active })
        }
    }
}

/// The selector byte (00/01) that addresses `target` now.
pub fn sel_for_target(s: &RadioState, target: Target) -> u8 {
    match target {
        Target::Receiver(r) => u8::from(r != selected_receiver(s)),
        Target::Vfo(v) => u8::from(v != u8::from(s.active == "B")),
    }
}

fn vfo_mut(s: &mut RadioState, v: u8) -> Option<&mut VfoState> {
    if v == 0 {
        s.main.vfo_a.as_mut()
    } else {
        s.main.vfo_b.as_mut()
    }
}

/// Sets the frequency of `target`.
pub fn set_freq(s: &mut RadioState, target: Target, hz: u64) {
    match target {
        Target::Receiver(0) => s.main.freq_hz = hz,
        Target::Receiver(_) => {
            if let Some(sub) = s.sub.as_mut() {
                sub.freq_hz = hz;
            }
        }
        Target::Vfo(v) => {
            if let Some(x) = vfo_mut(s, v) {
                x.freq_hz = hz;
            }
            if v == u8::from(s.active == "B") {
                s.main.freq_hz = hz;
            }
        }
    }
}

/// Sets mode, DATA mode and filter of `target` (`None` keeps the current value).
pub fn set_mode(
    s: &mut RadioState,
    target: Target,
    mode: &str,
    data: Option<u8>,
    filter: Option<u8>,
) {
    let active_vfo = u8::from(s.active == "B");
    match target {
        Target::Receiver(r) => {
            let rx = if r == 0 {
                Some(&mut s.main)
            } else {
                s.sub.as_mut()
            };
            if let Some(rx) = rx {
                rx.mode = mode.to_string();
                if let Some(d) = data {
                    rx.data_mode = d;
                }
                if let Some(f) = filter {
                    rx.filter = f;
                }
            }
        }
        Target::Vfo(v) => {
            if let Some(x) = vfo_mut(s, v) {
                x.mode = mode.to_string();
                if let Some(f) = filter {
                    x.filter = f;
                }
            }
            if v == active_vfo {
                s.main.mode = mode.to_string();
                if let Some(d) = data {
                    s.main.data_mode = d;
                }
                if let Some(f) = filter {
                    s.main.filter = f;
                }
            }
        }
    }
}

/// Frequency, mode and filter of `target`.
pub fn vfo_of(s: &RadioState, target: Target) -> Option<(u64, String, u8, u8)> {
    match target {
        Target::Receiver(0) => Some((
            s.main.freq_hz,
            s.main.mode.clone(),
            s.main.filter,
            s.main.data_mode,
        )),
        Target::Receiver(_) => s
            .sub
            .as_ref()
            .map(|r| (r.freq_hz, r.mode.clone(), r.filter, r.data_mode)),
        Target::Vfo(v) => {
            let x = if v == 0 {
                s.main.vfo_a.as_ref()
            } else {
                s.main.vfo_b.as_ref()
            }?;
            Some((x.freq_hz, x.mode.clone(), x.filter, s.main.data_mode))
        }
    }
}

fn filter_byte(b: Option<&u8>) -> Option<u8> {
    b.and_then(|&f| civ::from_bcd_byte(f).ok())
        .filter(|f| (1..=3).contains(f))
}

fn mode_name(profile: &Profile, code: u8) -> Option<&'static str> {
    civ::mode_name(code).filter(|m| profile.modes.list.iter().any(|x| x == m))
}

/// Applies one frame from the radio; returns true if it changed or confirmed a field.
pub fn apply_frame(c: &mut StateContent, profile: &Profile, f: &Frame) -> bool {
    let scheme = profile.vfo.scheme;
    let s = &mut c.radio;
    let d = f.data.as_slice();
    match (f.cmd, d) {
        (0x00 | 0x03, bytes) if bytes.len() == 5 => {
            let Ok(hz) = civ::bcd_to_freq(bytes) else {
                return false;
            };
            let t = target_for_sel(s, scheme, 0);
            set_freq(s, t, hz);
        }
        (0x01 | 0x04, [mode, rest @ ..]) => {
            let Some(name) = mode_name(profile, *mode) else {
                return false;
            };
            let t = target_for_sel(s, scheme, 0);
            set_mode(s, t, name, None, filter_byte(rest.first()));
        }
        (0x25, [sel @ (0 | 1), bytes @ ..]) if bytes.len() == 5 => {
            let Ok(hz) = civ::bcd_to_freq(bytes) else {
                return false;
            };
            let t = target_for_sel(s, scheme, *sel);
            set_freq(s, t, hz);
        }
        (0x26, [sel @ (0 | 1), mode, data, rest @ ..]) => {
            let Some(name) = mode_name(profile, *mode) else {
                return false;
            };
            let t = target_for_sel(s, scheme, *sel);
            let data = civ::from_bcd_byte(*data).ok().filter(|x| *x <= 3);
            set_mode(s, t, name, data, filter_byte(rest.first()));
        }
        (0x07, [0xD2, x @ (0 | 1)]) if scheme == VfoScheme::MainSub && s.sub.is_some() => {
            s.active = if *x == 1 { "SUB" } else { "MAIN" }.into();
        }
        (0x07, [0xC2, x @ (0 | 1)]) => s.dual_watch = *x == 1,
        (0x0F, [x @ (0 | 1)]) => s.split = *x == 1,
        (0x11, [db]) => {
            let Ok(db) = civ::from_bcd_byte(*db) else {
                return false;
            };
            let r = selected_receiver(s);
            if let Some(rx) = s.receiver_mut(if scheme == VfoScheme::MainSub { r } else { 0 }) {
                rx.att = db;
            }
        }
        (0x16, [0x02, level]) => {
            let Ok(level) = civ::from_bcd_byte(*level) else {
                return false;
            };
            let r = selected_receiver(s);
            if let Some(rx) = s.receiver_mut(if scheme == VfoScheme::MainSub { r } else { 0 }) {
                rx.preamp = level;
            }
        }
        (0x14, [0x0A, hi, lo]) => {
            let Ok(v) = civ::bcd_to_level(&[*hi, *lo]) else {
                return false;
            };
            s.power = v.min(255) as u8;
        }
        (0x1C, [0x00, x @ (0 | 1)]) => s.ptt = *x == 1,
        (0x18, [x @ (0 | 1)]) => s.power_on = *x == 1,
        (0x29, [rx @ (0 | 1), inner @ ..]) => return apply_receiver(s, *rx, inner),
        (0x27, [0x12, x @ (0 | 1)]) => s.scope.receiver = *x,
        (0x27, [0x13, x @ (0 | 1)]) => s.scope.dual = *x == 1,
        (0x27, [0x14, rx, m]) if *rx == s.scope.receiver && *m <= 3 => s.scope.mode = *m,
        (0x27, [0x15, rx, bytes @ ..]) if *rx == s.scope.receiver && bytes.len() == 5 => {
            let Ok(hz) = civ::bcd_to_freq(bytes) else {
                return false;
            };
            s.scope.span_hz = hz;
        }
        _ => return false,
    }
    true
}

/// A command-29 reply for receiver `rx`: `<cmd> [<sub>] <data>`.
fn apply_receiver(s: &mut RadioState, rx: u8, inner: &[u8]) -> bool {
    let Some(r) = s.receiver_mut(rx) else {
        return false;
    };
    match inner {
        [0x11, db] => match civ::from_bcd_byte(*db) {
            Ok(db) => r.att = db,
            Err(_) => return false,
        },
        [0x16, 0x02, level] => match civ::from_bcd_byte(*level) {
            Ok(l) => r.preamp = l,
            Err(_) => return false,
        },
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ProfileRegistry;
    use crate::radio::state::ReceiverState;

    fn content(ab: bool, dual: bool) -> StateContent {
        let main = ReceiverState::new(14_074_000, "USB", ab);
        let sub = dual.then(|| ReceiverState::new(7_074_000, "LSB", false));
        StateContent::connecting(RadioState::new(main, sub), "")
    }

    #[test]
    fn selected_and_unselected_follow_the_selected_receiver() {
        let p = ProfileRegistry::embedded().get("ic7610").unwrap();
        let mut c = content(false, true);
        let f = |cmd, data: &[u8]| Frame::new(0xE0, 0x98, cmd, data);
        let mut d = vec![0x01];
        d.extend(civ::freq_to_bcd(7_100_000).unwrap());
        assert!(apply_frame(&mut c, &p, &f(0x25, &d)));
        assert_eq!(
            c.radio.sub.as_ref().unwrap().freq_hz,
            7_100_000,
            "unselected = SUB while MAIN selected"
        );
        assert!(apply_frame(&mut c, &p, &f(0x07, &[0xD2, 0x01])));
        assert_eq!(c.radio.active, "SUB");
        assert!(apply_frame(&mut c, &p, &f(0x25, &d)));
        assert_eq!(
            c.radio.main.freq_hz, 7_100_000,
            "unselected = MAIN while SUB selected"
        );
        // transceive broadcast of the selected receiver
        let b = Frame::new(0x00, 0x98, 0x00, &civ::freq_to_bcd(7_050_000).unwrap());
        assert!(apply_frame(&mut c, &p, &b));
        assert_eq!(c.radio.sub.as_ref().unwrap().freq_hz, 7_050_000);
        assert!(apply_frame(&mut c, &p, &f(0x29, &[0x01, 0x11, 0x12])));
        assert_eq!(c.radio.sub.as_ref().unwrap().att, 12);
        assert!(
            !apply_frame(&mut c, &p, &f(0x25, &[0x00, 0x0A, 0, 0, 0, 0])),
            "bad BCD"
        );
        assert!(
            !apply_frame(&mut c, &p, &f(0x26, &[0x00, 0x17, 0, 1])),
            "DV is not an IC-7610 mode"
        );
    }

    #[test]
    fn ab_radios_track_both_vfos() {
        let p = ProfileRegistry::embedded().get("ic705").unwrap();
        let mut c = content(true, false);
        let mut d = vec![0x01];
        d.extend(civ::freq_to_bcd(145_000_000).unwrap());
        assert!(apply_frame(&mut c, &p, &Frame::new(0xE0, 0xA4, 0x25, &d)));
        assert_eq!(c.radio.main.vfo_b.as_ref().unwrap().freq_hz, 145_000_000);
        assert_eq!(
            c.radio.main.freq_hz, 14_074_000,
            "VFO A stays the displayed one"
        );
        assert!(apply_frame(
            &mut c,
            &p,
            &Frame::new(0xE0, 0xA4, 0x26, &[0x00, 0x03, 0x00, 0x02])
        ));
        assert_eq!((c.radio.main.mode.as_str(), c.radio.main.filter), ("CW", 2));
    }
}
