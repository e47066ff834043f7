//! Hamlib's vocabulary as the NET rigctl protocol carries it: error codes, mode names and
//! bits, VFO names, power states. The numbers are those of Hamlib 4.5's `rig.h`
//! (`rig_errcode_e`, `RIG_MODE_*`, `RIG_VFO_*`, `RIG_POWER_*`).

use crate::profile::{Profile, VfoScheme};
use crate::wire::civ::Mode;

/// A Hamlib error, sent as `RPRT -n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RigError {
    /// `RIG_EINVAL`: an invalid parameter (also: PTT owned by another client).
    InvalidParam,
    /// `RIG_ENIMPL`: no such command.
    NotImplemented,
    /// `RIG_ETIMEOUT`: the radio did not answer in time.
    Timeout,
    /// `RIG_EIO`: the radio is not reachable.
    Io,
    /// `RIG_ERJCTED`: the radio refused the command (NAK).
    Rejected,
    /// `RIG_ENAVAIL`: the radio (or this server) cannot do it.
    NotAvailable,
    /// `RIG_BUSBUSY`: the radio's command queue is full.
    BusBusy,
    /// `RIG_EVFO`: an invalid VFO.
    InvalidVfo,
    /// `RIG_ESECURITY`: refused.
    Security,
    /// `RIG_EPOWER`: the radio is switched off.
    PowerOff,
}

impl RigError {
    /// The number after `RPRT` (negative).
    pub fn code(self) -> i32 {
        -match self {
            RigError::InvalidParam => 1,
            RigError::NotImplemented => 4,
            RigError::Timeout => 5,
            RigError::Io => 6,
            RigError::Rejected => 9,
            RigError::NotAvailable => 11,
            RigError::BusBusy => 14,
            RigError::InvalidVfo => 16,
            RigError::Security => 19,
            RigError::PowerOff => 20,
        }
    }
}

/// One Hamlib mode: its name, its `RIG_MODE_*` bit, and the profile's mode and DATA
/// state it stands for (Hamlib's PKT modes are the radio's DATA modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HamlibMode {
    /// Name on the wire.
    pub name: &'static str,
    /// `RIG_MODE_*` bit number.
    pub bit: u8,
    /// The radio's mode.
    pub mode: Mode,
    /// DATA mode on.
    pub data: bool,
}

const fn m(name: &'static str, bit: u8, mode: Mode, data: bool) -> HamlibMode {
    HamlibMode {
        name,
        bit,
        mode,
        data,
    }
}

/// Every mode this server maps (a profile has those whose `mode` it lists).
pub const MODES: &[HamlibMode] = &[
    m("AM", 0, Mode::Am, false),
    m("CW", 1, Mode::Cw, false),
    m("USB", 2, Mode::Usb, false),
    m("LSB", 3, Mode::Lsb, false),
    m("RTTY", 4, Mode::Rtty, false),
    m("FM", 5, Mode::Fm, false),
    m("WFM", 6, Mode::Wfm, false),
    m("CWR", 7, Mode::CwR, false),
    m("RTTYR", 8, Mode::RttyR, false),
    m("PKTLSB", 10, Mode::Lsb, true),
    m("PKTUSB", 11, Mode::Usb, true),
    m("PKTFM", 12, Mode::Fm, true),
    m("PKTAM", 22, Mode::Am, true),
    m("DSTAR", 24, Mode::Dv, false),
    m("PSK", 30, Mode::Psk, false),
    m("PSKR", 31, Mode::PskR, false),
    m("DD", 32, Mode::Dd, false),
];

/// The Hamlib mode called `name` (case-insensitive, as Hamlib's `rig_parse_mode`).
pub fn mode_by_name(name: &str) -> Option<&'static HamlibMode> {
    MODES.iter().find(|m| m.name.eq_ignore_ascii_case(name))
}

/// The Hamlib mode of the profile's `mode` with DATA `data` (DATA on a mode without a
/// PKT twin shows the plain mode).
pub fn mode_of(mode: Mode, data: bool) -> Option<&'static HamlibMode> {
    MODES
        .iter()
        .find(|m| m.mode == mode && m.data == data)
        .or_else(|| MODES.iter().find(|m| m.mode == mode && !m.data))
}

/// True if `profile` can be in Hamlib mode `m`.
pub fn profile_has(profile: &Profile, m: &HamlibMode) -> bool {
    profile.modes.list.contains(&m.mode) && (!m.data || profile.modes.data_modes > 0)
}

/// The `RIG_MODE_*` mask of every mode `profile` has.
pub fn mode_mask(profile: &Profile) -> u64 {
    MODES
        .iter()
        .filter(|m| profile_has(profile, m))
        .fold(0, |acc, m| acc | 1u64 << m.bit)
}

/// A VFO as a client names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VfoName {
    /// `VFOA` (or `Main`): VFO A of A/B radios, MAIN of MAIN/SUB radios.
    First,
    /// `VFOB` (or `Sub`).
    Second,
    /// `currVFO` (also `VFO`, `RX`): the selected one.
    Current,
    /// `TX`: the one that transmits.
    Tx,
}

impl VfoName {
    /// Parses a Hamlib VFO name (`MEM` and others this server has no use for: `None`).
    pub fn parse(s: &str) -> Option<VfoName> {
        match s {
            "VFOA" | "Main" | "MainA" | "A" => Some(VfoName::First),
            "VFOB" | "Sub" | "MainB" | "B" => Some(VfoName::Second),
            "currVFO" | "VFO" | "RX" => Some(VfoName::Current),
            "TX" => Some(VfoName::Tx),
            _ => None,
        }
    }
}

/// The name of VFO `index` (0 or 1) on a radio of `scheme`: `VFOA`/`VFOB` on A/B
/// radios, `Main`/`Sub` on MAIN/SUB radios (what Hamlib's Icom backends report).
pub fn vfo_label(scheme: VfoScheme, index: u8) -> &'static str {
    match (scheme, index) {
        (VfoScheme::Ab, 0) => "VFOA",
        (VfoScheme::Ab, _) => "VFOB",
        (VfoScheme::MainSub, 0) => "Main",
        (VfoScheme::MainSub, _) => "Sub",
    }
}

/// The `RIG_VFO_*` mask of the VFOs of a radio of `scheme` (VFO A|B, or MAIN|SUB).
pub fn vfo_mask(scheme: VfoScheme) -> u32 {
    match scheme {
        VfoScheme::Ab => 0x3,
        VfoScheme::MainSub => (1 << 25) | (1 << 26),
    }
}

/// `RIG_POWER_OFF`.
pub const POWER_OFF: u8 = 0;
/// `RIG_POWER_ON`.
pub const POWER_ON: u8 = 1;
/// `RIG_PTT_RIG`: PTT by CAT command.
pub const PTT_RIG: u8 = 1;
/// `targetable_vfo`: none (`RIG_TARGETABLE_NONE`). A client that is told a VFO is
/// targetable but not to prefix VFO arguments (`\chk_vfo` 0) reads the other VFO with a
/// plain `f`/`m` and gets the receiving VFO's values (Hamlib 4.5's `rigctl -m 2`: `i`
/// after `S 1 VFOB` answered VFO A's frequency). Without it, the client reads the
/// other VFO with `V VFOB` / `V VFOA` around the read, or with `i`/`x`; this server's
/// `V` only chooses the VFO the client addresses (the radio's selection stays), so
/// that toggling is correct and harmless.
pub const TARGETABLE: u32 = 0;
/// `RIG_OP_CPY | RIG_OP_XCHG`: the VFO operations this server does (`G CPY`, `G XCHG`).
pub const VFO_OPS: u32 = 0x3;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ProfileRegistry;

    #[test]
    fn pkt_modes_are_data_modes_and_back() {
        let pkt = mode_by_name("pktusb").unwrap();
        assert_eq!((pkt.mode, pkt.data), (Mode::Usb, true));
        assert_eq!(mode_of(Mode::Usb, true).unwrap().name, "PKTUSB");
        assert_eq!(mode_of(Mode::CwR, false).unwrap().name, "CWR");
        assert_eq!(
            mode_of(Mode::Cw, true).unwrap().name,
            "CW",
            "DATA on CW shows CW"
        );
        assert_eq!(mode_by_name("XYZ"), None);
    }

    #[test]
    fn mode_masks_follow_the_profiles() {
        let reg = ProfileRegistry::embedded();
        let ic7610 = mode_mask(&reg.get("ic7610").unwrap());
        // USB LSB CW CWR AM FM RTTY RTTYR + PKTUSB PKTLSB PKTFM PKTAM + PSK PSKR
        assert_eq!(ic7610, 0x1dbf | 1 << 22 | 1 << 30 | 1 << 31, "{ic7610:#x}");
        let ic705 = mode_mask(&reg.get("ic705").unwrap());
        assert_ne!(ic705 & 1 << 6, 0, "IC-705 has WFM");
        assert_ne!(ic705 & 1 << 24, 0, "and D-STAR");
        assert_eq!(ic7610 & 1 << 6, 0, "the IC-7610 has no WFM");
    }

    #[test]
    fn vfo_names_and_errors() {
        assert_eq!(VfoName::parse("VFOB"), Some(VfoName::Second));
        assert_eq!(VfoName::parse("Main"), Some(VfoName::First));
        assert_eq!(VfoName::parse("currVFO"), Some(VfoName::Current));
        assert_eq!(VfoName::parse("MEM"), None);
        assert_eq!(vfo_label(VfoScheme::MainSub, 1), "Sub");
        assert_eq!(RigError::NotImplemented.code(), -4);
        assert_eq!(RigError::PowerOff.code(), -20);
        assert_eq!(RigError::InvalidVfo.code(), -16);
    }
}
