//! The simulated radio's state (also its test snapshot) and the initial state built from
//! a profile: per-receiver VFOs and front-end settings, global settings, band stacking
//! registers and scope settings.

use std::collections::BTreeMap;

use std::time::Duration;

use crate::profile::{Profile, VfoScheme};
use crate::sim::audio_synth::mode;
use crate::wire::civ::cmd::{ext, function as func, level as lvl};
use crate::wire::civ::index_of_width;

/// One VFO: what the radio is tuned to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VfoState {
    /// Frequency, Hz.
    pub freq_hz: u64,
    /// Mode (CI-V code).
    pub mode: u8,
    /// Filter 1..3.
    pub filter: u8,
    /// DATA mode 0 (off) .. 3 (D3).
    pub data: u8,
}

/// One receiver (MAIN or SUB; the only one on single-receiver radios).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiverState {
    /// VFO A and VFO B.
    pub vfo: [VfoState; 2],
    /// Active VFO (0 = A, 1 = B).
    pub active_vfo: u8,
    /// Attenuator, dB.
    pub att_db: u8,
    /// Preamp 0..3.
    pub preamp: u8,
    /// Per-receiver `14 xx` levels (AF 01, RF 02, squelch 03, ...), 0..255.
    pub levels: BTreeMap<u8, u16>,
    /// Per-receiver `16 xx` functions (AGC 12, NB 22, NR 40, ...).
    pub functions: BTreeMap<u8, u8>,
    /// `1A 03` filter-width index per (mode, filter), when changed from the default.
    pub widths: BTreeMap<(u8, u8), u8>,
    /// `1B 00` repeater tone, 3 BCD bytes (`00 88 05` = 88.5 Hz).
    pub tone: [u8; 3],
    /// `1B 01` tone-squelch frequency, 3 BCD bytes.
    pub tsql: [u8; 3],
    /// Other per-receiver `1A xx` one-byte settings (04 AGC time constant, 09 AF mute).
    pub settings_1a: BTreeMap<u8, u8>,
    /// `12` antenna: 0 ANT1, 1 ANT2 (radios with antenna selection).
    pub antenna: u8,
    /// `12` RX antenna on.
    pub rx_antenna: bool,
}

/// One band stacking register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BsrEntry {
    /// Frequency, Hz.
    pub freq_hz: u64,
    /// Mode (CI-V code).
    pub mode: u8,
    /// Filter 1..3.
    pub filter: u8,
    /// DATA mode.
    pub data: u8,
    /// Squelch type (tone / TSQL), low nibble of the `data << 4 | sqltype` byte.
    pub sql_type: u8,
    /// Repeater tone, 3 BCD bytes.
    pub tone: [u8; 3],
    /// TSQL tone, 3 BCD bytes.
    pub tsql: [u8; 3],
}

/// The three registers of one band (index 0 = register 01, the newest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BsrBand {
    /// BSR band code (BCD byte).
    pub code: u8,
    /// Registers 01, 02, 03.
    pub regs: [BsrEntry; 3],
}

/// Scope settings of one receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScopeRx {
    /// 0 center, 1 fixed, 2 scroll-C, 3 scroll-F.
    pub mode: u8,
    /// Half-span of the center modes, Hz.
    pub half_span_hz: u64,
    /// Fixed-edge number 1..4.
    pub edge: u8,
    /// Hold.
    pub hold: bool,
    /// Reference level in tenths of a dB (−300..=100, steps of 5).
    pub ref_tenths_db: i16,
    /// Sweep speed 0 fast, 1 mid, 2 slow.
    pub speed: u8,
    /// Center type (`27 1C`).
    pub center_type: u8,
    /// VBW (`27 1D`).
    pub vbw: u8,
    /// RBW (`27 1F`).
    pub rbw: u8,
}

impl Default for ScopeRx {
    fn default() -> ScopeRx {
        ScopeRx {
            mode: 0,
            half_span_hz: 25_000,
            edge: 1,
            hold: false,
            ref_tenths_db: 0,
            speed: 0,
            center_type: 0,
            vbw: 0,
            rbw: 0,
        }
    }
}

/// Scope settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeState {
    /// `27 10` display on.
    pub display: bool,
    /// `27 11` wave-data output to CI-V on.
    pub output: bool,
    /// `27 12` receiver shown (0 MAIN, 1 SUB).
    pub shown_rx: u8,
    /// `27 13` dual scope.
    pub dual: bool,
    /// `27 1B` scope during TX.
    pub during_tx: u8,
    /// Per-receiver settings.
    pub rx: [ScopeRx; 2],
    /// `27 1E` fixed edges per (range, edge), when changed from the default.
    pub fixed_edges: BTreeMap<(u8, u8), (u64, u64)>,
    /// Controller address sweeps are sent to (the one that switched the output on).
    pub controller: u8,
}

/// The whole radio state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RigState {
    /// Powered on (false = standby).
    pub powered: bool,
    /// The PTT line is keyed (`1C 00 01` or the front panel); see also [`RigState::cw`].
    pub ptt: bool,
    /// The PTT was keyed on the front panel (a remote session ending does not release it).
    pub ptt_from_panel: bool,
    /// CW being sent (`17`): the transmitter is keyed while it lasts.
    pub cw: Option<CwKeying>,
    /// The receivers (1 or 2).
    pub receivers: Vec<ReceiverState>,
    /// Selected receiver (0 MAIN, 1 SUB).
    pub selected_rx: u8,
    /// Split.
    pub split: bool,
    /// Dual watch.
    pub dual_watch: bool,
    /// Global `14 xx` levels (RF power 0A, mic gain 0B, ...).
    pub levels: BTreeMap<u8, u16>,
    /// Global `16 xx` functions (comp 44, VOX 46, break-in 47, ...).
    pub functions: BTreeMap<u8, u8>,
    /// `1A 05` menu items by (hi, lo), as last written.
    pub menu: BTreeMap<(u8, u8), Vec<u8>>,
    /// CI-V transceive on.
    pub transceive: bool,
    /// Band stacking registers.
    pub bsr: Vec<BsrBand>,
    /// Memory channels.
    pub memory: super::memory::MemoryBank,
    /// Scope settings.
    pub scope: ScopeState,
    /// RIT offset, Hz (−9999..=9999).
    pub rit_hz: i16,
    /// RIT on.
    pub rit_on: bool,
    /// ∆TX (XIT) on.
    pub xit_on: bool,
    /// Tuner 0 off, 1 on, 2 tuning.
    pub tuner: u8,
    /// `1C 02` XFC.
    pub xfc: u8,
    /// `1C 03` TX frequency monitor.
    pub tx_monitor: u8,
    /// `10` tuning step code.
    pub tuning_step: u8,
    /// Seconds added to the simulated wall clock by writes of the date / time menu items.
    pub clock_offset_s: i64,
    /// TX audio samples accepted while transmitting.
    pub tx_audio_samples: u64,
    /// TX audio samples dropped because PTT was off.
    pub tx_audio_dropped: u64,
    /// TX audio samples that arrived while transmitting but were not transmitted: the
    /// MOD input of the current DATA mode is not LAN (profiles with `[mod_input]`).
    pub tx_audio_muted: u64,
    /// The last TX audio samples transmitted (at most [`TX_TAIL`]), for tests.
    pub tx_audio_tail: Vec<i16>,
    /// Meter reads (`15 xx`) by (receiver of a command-29 read, `None` for a plain one;
    /// meter sub-command), for tests.
    pub meter_reads: BTreeMap<(Option<u8>, u8), u64>,
}

/// TX audio samples kept in [`RigState::tx_audio_tail`].
pub const TX_TAIL: usize = 9_600;

/// A copy of the state for tests and diagnostics.
pub type RigSnapshot = RigState;

/// CW being sent with `17`: the key-down intervals on the radio's clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CwKeying {
    /// The text of this transmission: its messages, upper case.
    pub text: String,
    /// Key-down intervals `[start, end)` on the radio's clock, in order.
    pub elements: Vec<(Duration, Duration)>,
    /// When the message started, on the radio's clock.
    pub start: Duration,
    /// When it started on the RX audio clock (samples rendered so far).
    pub audio_start: Duration,
}

impl CwKeying {
    /// The end of the last element (the transmitter unkeys then).
    pub fn end(&self) -> Duration {
        self.elements.last().map_or(self.start, |e| e.1)
    }

    /// True if the key is down at `t` (radio clock).
    pub fn key_down(&self, t: Duration) -> bool {
        let i = self.elements.partition_point(|e| e.1 <= t);
        self.elements.get(i).is_some_and(|e| e.0 <= t)
    }
}

/// A (receiver, VFO) pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    pub rx: usize,
    pub vfo: usize,
}

/// Per-receiver `14 xx` levels and their defaults.
pub(crate) const RX_LEVELS: &[(u8, u16)] = &[
    (lvl::AF, 128),
    (lvl::RF_GAIN, 255),
    (lvl::SQUELCH, 0),
    (lvl::APF, 128),
    (lvl::NR, 128),
    (lvl::PBT_INNER, 128),
    (lvl::PBT_OUTER, 128),
    (lvl::NOTCH, 128),
    (lvl::NB, 128),
    (lvl::DIGI_SEL_SHIFT, 128),
];

/// Global `14 xx` levels and their defaults.
pub(crate) const GLOBAL_LEVELS: &[(u8, u16)] = &[
    (lvl::CW_PITCH, 128),
    (lvl::RF_POWER, 128),
    (lvl::MIC_GAIN, 128),
    (lvl::KEY_SPEED, 128),
    (lvl::COMP, 128),
    (lvl::BREAK_IN_DELAY, 128),
    (lvl::DRIVE, 128),
    (lvl::MONITOR, 128),
    (lvl::VOX, 128),
    (lvl::ANTI_VOX, 128),
];

/// `16 xx` functions: (sub, per receiver, largest value, default).
pub(crate) const FUNCTIONS: &[(u8, bool, u8, u8)] = &[
    (func::AGC, true, 3, 2),
    (func::NB, true, 1, 0),
    (func::APF, true, 3, 0),
    (func::NR, true, 1, 0),
    (func::AUTO_NOTCH, true, 1, 0),
    (func::REPEATER_TONE, true, 1, 0),
    (func::TSQL, true, 1, 0),
    (func::COMP, false, 1, 0),
    (func::MONITOR, false, 1, 0),
    (func::VOX, false, 1, 0),
    (func::BREAK_IN, false, 2, 0),
    (func::MANUAL_NOTCH, true, 1, 0),
    (func::DIGI_SEL, true, 1, 0),
    (func::TWIN_PEAK, true, 1, 0),
    (func::DIAL_LOCK, false, 1, 0),
    (func::RX_ANTENNA, true, 1, 0),
    (func::DSP_FILTER_TYPE, true, 1, 0),
    (func::NOTCH_WIDTH, false, 2, 0),
    (func::SSB_TX_BANDWIDTH, false, 2, 1),
    (func::IP_PLUS, true, 1, 0),
];

/// The smallest value of a `16 xx` function (AGC is 1 fast, 2 mid, 3 slow).
pub(crate) fn function_min(sub: u8) -> u8 {
    u8::from(sub == func::AGC)
}

/// The mode a radio uses by default at `hz`: WFM on the FM broadcast band, AM on the
/// airband, FM on VHF/UHF, LSB below 10 MHz, else USB (if the radio has it).
pub(crate) fn default_mode(profile: &Profile, hz: u64) -> u8 {
    let wanted = match hz {
        74_800_000..108_000_000 => mode::WFM,
        108_000_000..137_000_000 => mode::AM,
        137_000_000.. => mode::FM,
        0..10_000_000 => mode::LSB,
        _ => mode::USB,
    };
    let supported = |code: u8| profile.mode_of_code(code).is_some();
    if supported(wanted) {
        return wanted;
    }
    [mode::FM, mode::USB, mode::LSB]
        .into_iter()
        .find(|c| supported(*c))
        .or_else(|| profile.modes.list.first().map(|m| m.code()))
        .unwrap_or(mode::USB)
}

/// The default `1A 03` index of (mode, filter) from the profile's widths.
pub(crate) fn default_width_index(profile: &Profile, mode_code: u8, filter: u8) -> Option<u8> {
    let mode = crate::wire::civ::Mode::from_code(mode_code)?;
    let hz = profile
        .filter_widths(mode)
        .and_then(|w| w.get(usize::from(filter.max(1) - 1)).copied())
        .unwrap_or(2_400);
    index_of_width(mode_code, hz)
}

/// A VFO on the default frequency of the first band named in `prefer` (or band `nth`).
fn start_vfo(profile: &Profile, prefer: &[&str], nth: usize) -> VfoState {
    let bands: Vec<_> = profile.bands().collect();
    let hz = prefer
        .iter()
        .find_map(|p| bands.iter().find(|b| b.name == *p))
        .or_else(|| bands.get(nth))
        .or_else(|| bands.first())
        .map(|b| b.default_hz)
        .or_else(|| profile.freq_ranges.first().map(|r| r.start_hz))
        .unwrap_or(14_200_000);
    VfoState {
        freq_hz: hz,
        mode: default_mode(profile, hz),
        filter: 1,
        data: 0,
    }
}

impl RigState {
    /// The power-on state of a radio described by `profile`.
    pub fn new(profile: &Profile, transceive: bool, powered: bool) -> RigState {
        let main = start_vfo(profile, &["20m", "2m"], 0);
        let other = start_vfo(profile, &["40m", "70cm"], 1);
        let ab = profile.vfo.scheme == VfoScheme::Ab;
        let receivers = (0..profile.radio.receivers.clamp(1, 2))
            .map(|i| {
                let a = if i == 0 { main } else { other };
                let b = if ab { other } else { a };
                let fm = a.mode == mode::FM;
                ReceiverState {
                    vfo: [a, b],
                    active_vfo: 0,
                    att_db: 0,
                    preamp: 0,
                    levels: RX_LEVELS
                        .iter()
                        .map(|&(k, v)| (k, if k == lvl::SQUELCH && fm { 60 } else { v }))
                        .collect(),
                    functions: FUNCTIONS
                        .iter()
                        .filter(|f| f.1)
                        .map(|f| (f.0, f.3))
                        .collect(),
                    widths: BTreeMap::new(),
                    tone: [0x00, 0x88, 0x05],
                    tsql: [0x00, 0x88, 0x05],
                    settings_1a: [(ext::AGC_TIME, 0), (ext::AF_MUTE, 0)]
                        .into_iter()
                        .collect(),
                    antenna: 0,
                    rx_antenna: false,
                }
            })
            .collect();
        let bsr = profile
            .bands()
            .filter_map(|b| {
                let code = b.bsr_code?;
                let e = BsrEntry {
                    freq_hz: b.default_hz,
                    mode: default_mode(profile, b.default_hz),
                    filter: 1,
                    data: 0,
                    sql_type: 0,
                    tone: [0x00, 0x88, 0x05],
                    tsql: [0x00, 0x88, 0x05],
                };
                Some(BsrBand { code, regs: [e; 3] })
            })
            .collect();
        RigState {
            powered,
            ptt: false,
            ptt_from_panel: false,
            cw: None,
            receivers,
            selected_rx: 0,
            split: false,
            dual_watch: false,
            levels: GLOBAL_LEVELS.iter().copied().collect(),
            functions: FUNCTIONS
                .iter()
                .filter(|f| !f.1)
                .map(|f| (f.0, f.3))
                .collect(),
            menu: BTreeMap::new(),
            transceive,
            bsr,
            memory: super::memory::MemoryBank::new(profile),
            scope: ScopeState {
                display: true,
                output: false,
                shown_rx: 0,
                dual: false,
                during_tx: 0,
                rx: [ScopeRx::default(); 2],
                fixed_edges: BTreeMap::new(),
                controller: crate::wire::civ::CONTROLLER,
            },
            rit_hz: 0,
            rit_on: false,
            xit_on: false,
            tuner: 0,
            xfc: 0,
            tx_monitor: 0,
            tuning_step: 0,
            clock_offset_s: 0,
            tx_audio_samples: 0,
            tx_audio_dropped: 0,
            tx_audio_muted: 0,
            tx_audio_tail: Vec::new(),
            meter_reads: BTreeMap::new(),
        }
    }

    /// The slot the operator works on: the selected receiver's active VFO (MAIN/SUB
    /// radios) or the active VFO (A/B radios).
    pub(crate) fn selected_slot(&self, scheme: VfoScheme) -> Slot {
        let rx = match scheme {
            VfoScheme::MainSub => {
                usize::from(self.selected_rx).min(self.receivers.len().saturating_sub(1))
            }
            VfoScheme::Ab => 0,
        };
        let vfo = self
            .receivers
            .get(rx)
            .map_or(0, |r| usize::from(r.active_vfo & 1));
        Slot { rx, vfo }
    }

    /// The other slot: the unselected receiver (MAIN/SUB radios) or the other VFO.
    pub(crate) fn unselected_slot(&self, scheme: VfoScheme) -> Slot {
        let sel = self.selected_slot(scheme);
        if scheme == VfoScheme::MainSub && self.receivers.len() == 2 {
            let rx = 1 - sel.rx;
            let vfo = self
                .receivers
                .get(rx)
                .map_or(0, |r| usize::from(r.active_vfo & 1));
            Slot { rx, vfo }
        } else {
            Slot {
                rx: sel.rx,
                vfo: 1 - sel.vfo,
            }
        }
    }

    /// The active slot of receiver `rx`.
    pub(crate) fn rx_slot(&self, rx: usize) -> Slot {
        let rx = rx.min(self.receivers.len().saturating_sub(1));
        let vfo = self
            .receivers
            .get(rx)
            .map_or(0, |r| usize::from(r.active_vfo & 1));
        Slot { rx, vfo }
    }

    /// The VFO of a slot.
    pub(crate) fn vfo(&self, s: Slot) -> Option<&VfoState> {
        self.receivers.get(s.rx).and_then(|r| r.vfo.get(s.vfo))
    }

    /// The VFO of a slot, mutably.
    pub(crate) fn vfo_mut(&mut self, s: Slot) -> Option<&mut VfoState> {
        self.receivers
            .get_mut(s.rx)
            .and_then(|r| r.vfo.get_mut(s.vfo))
    }

    /// RF power level 0..255.
    pub fn rf_power(&self) -> u16 {
        self.level(lvl::RF_POWER)
    }

    /// A transceiver-global level, or its default.
    pub fn level(&self, sub: u8) -> u16 {
        self.levels
            .get(&sub)
            .copied()
            .or_else(|| GLOBAL_LEVELS.iter().find(|l| l.0 == sub).map(|l| l.1))
            .unwrap_or(128)
    }

    /// A per-receiver function's value, or its default.
    pub fn rx_function(&self, rx: usize, sub: u8) -> u8 {
        self.receivers
            .get(rx)
            .and_then(|r| r.functions.get(&sub).copied())
            .or_else(|| FUNCTIONS.iter().find(|f| f.0 == sub).map(|f| f.3))
            .unwrap_or(0)
    }

    /// A transceiver-global function's value, or its default.
    pub fn function(&self, sub: u8) -> u8 {
        self.functions
            .get(&sub)
            .copied()
            .or_else(|| FUNCTIONS.iter().find(|f| f.0 == sub).map(|f| f.3))
            .unwrap_or(0)
    }

    /// A per-receiver level, or its default.
    pub fn rx_level(&self, rx: usize, sub: u8) -> u16 {
        self.receivers
            .get(rx)
            .and_then(|r| r.levels.get(&sub).copied())
            .or_else(|| RX_LEVELS.iter().find(|l| l.0 == sub).map(|l| l.1))
            .unwrap_or(128)
    }

    /// CW pitch in Hz from the `14 09` level (spec §4.5).
    pub fn cw_pitch_hz(&self) -> f32 {
        let raw = f32::from(self.level(lvl::CW_PITCH));
        ((600.0 / 255.0 * raw + 300.0) / 5.0).round() * 5.0
    }

    /// CW key speed in WPM from the `14 0C` level (spec §4.5: `round(raw/6.071 + 6)`).
    pub fn cw_wpm(&self) -> u32 {
        let raw = f64::from(self.level(lvl::KEY_SPEED).min(255));
        (raw / 6.071 + 6.0).round().clamp(6.0, 48.0) as u32
    }
}
