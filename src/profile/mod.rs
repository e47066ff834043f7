//! Rig profiles: per-model facts as data (`profiles/*.toml`).
//!
//! The four profiles shipped in `profiles/` are embedded in the binary. A directory
//! given with `--profile-dir` may add profiles or override embedded ones by `id`
//! (a file `<anything>.toml` whose `[radio] id` matches). Every profile is validated
//! when loaded: an invalid file is an error that names the file and the field.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;

use crate::util::vocabulary::vocabulary;
use crate::wire::civ::Mode;
use crate::wire::lan::codec::LanCodec;
use crate::wire::meter::MeterKind;

mod feature;
mod registry;
mod validate;

pub use feature::Feature;
pub use registry::ProfileRegistry;

/// The embedded profiles, as `(file name, TOML text)`.
const EMBEDDED: &[(&str, &str)] = &[
    ("ic7610.toml", include_str!("../../profiles/ic7610.toml")),
    ("ic705.toml", include_str!("../../profiles/ic705.toml")),
    ("ic9700.toml", include_str!("../../profiles/ic9700.toml")),
    ("ic7100.toml", include_str!("../../profiles/ic7100.toml")),
];

/// One radio model.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Identity and global facts.
    pub radio: RadioSection,
    /// VFO scheme and the `07` data bytes that select, swap and equalize.
    pub vfo: VfoSection,
    /// Command-29 routes (IC-7610).
    #[serde(default)]
    pub cmd29: Cmd29Section,
    /// Operating modes.
    pub modes: ModesSection,
    /// Filters and their default widths.
    pub filters: FiltersSection,
    /// Attenuator steps in dB (0 = off).
    pub attenuator: ValuesSection,
    /// Preamp levels (0 = off).
    pub preamp: ValuesSection,
    /// Output power range.
    pub power: PowerSection,
    /// Meters the radio reports.
    pub meters: MetersSection,
    /// Spectrum scope.
    pub scope: ScopeSection,
    /// LAN audio.
    pub audio: AudioSection,
    /// Frequency coverage and bands.
    pub freq_ranges: Vec<FreqRange>,
    /// The MOD-input menu items (radios that hear LAN TX audio only when told so).
    #[serde(default)]
    pub mod_input: Option<ModInputSection>,
    /// Memory channels (radios with the `memory` feature).
    #[serde(default)]
    pub memory: Option<MemorySection>,
}

/// `[memory]`: the regular memory channels (`08`, `09`, `0A`, `1A 00`), without scan
/// edges or call channels.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemorySection {
    /// First channel number.
    pub first: u16,
    /// Last channel number.
    pub last: u16,
}

/// `[mod_input]`: which `1A 05` menu item selects the modulation input of each DATA mode
/// and which value means LAN. While a web client transmits audio the server sets the
/// current DATA mode's item to `lan` and restores the operator's value afterwards.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModInputSection {
    /// `[hi, lo]` of the `1A 05` item per DATA mode: DATA OFF, DATA1, DATA2, ...
    pub menus: Vec<Vec<u8>>,
    /// The value that selects LAN.
    pub lan: u8,
}

impl ModInputSection {
    /// `(hi, lo)` of the item of DATA mode `data_mode` (the last one for higher modes).
    pub fn menu_for(&self, data_mode: u8) -> Option<(u8, u8)> {
        let i = usize::from(data_mode).min(self.menus.len().checked_sub(1)?);
        match self.menus.get(i).map(Vec::as_slice) {
            Some([hi, lo]) => Some((*hi, *lo)),
            _ => None,
        }
    }
}

/// `[radio]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RadioSection {
    /// Short id used on the command line (`ic7610`).
    pub id: String,
    /// Model name as the radio reports it (`IC-7610`).
    pub model: String,
    /// Default CI-V address.
    pub civ_addr: u8,
    /// 1 or 2 receivers.
    pub receivers: u8,
    /// Reachable over the Icom LAN protocol.
    pub lan: bool,
    /// Capabilities connection type (0x073F Ethernet, 0x0707 WiFi).
    #[serde(default)]
    pub conn_type: u16,
    /// Connection type string of the login response ("FTTH" unless a wfview server).
    #[serde(default)]
    pub lan_server: Option<String>,
    /// The `1A 05` menu item that switches CI-V transceive.
    #[serde(default)]
    pub transceive_menu: Vec<u8>,
    /// Capabilities (audio, tx, scope, ...); an unknown name is a load error.
    #[serde(default)]
    pub features: Vec<Feature>,
}

/// `[vfo]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VfoSection {
    /// "ab" or "main_sub".
    pub scheme: VfoScheme,
    /// `07` data selecting VFO A / MAIN.
    pub select_main: Vec<u8>,
    /// `07` data selecting VFO B / SUB.
    pub select_sub: Vec<u8>,
    /// `07` data swapping A/B or MAIN/SUB.
    pub swap: Vec<u8>,
    /// `07` data equalizing (A=B or MAIN=SUB).
    pub equalize: Vec<u8>,
}

vocabulary! {
    /// How VFOs are labelled.
    pub enum VfoScheme {
        /// VFO A / VFO B on one receiver.
        Ab = "ab",
        /// MAIN / SUB receivers.
        MainSub = "main_sub",
    }
}

/// `[cmd29]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cmd29Section {
    /// `[cmd]` or `[cmd, sub]` pairs sent with the receiver prefix.
    #[serde(default)]
    pub routes: Vec<Vec<u8>>,
}

/// `[modes]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModesSection {
    /// Modes (an unknown name is a load error).
    pub list: Vec<Mode>,
    /// Number of DATA modes (D1..Dn).
    #[serde(default)]
    pub data_modes: u8,
}

/// `[filters]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FiltersSection {
    /// Filter names (FIL1..FIL3).
    pub list: Vec<String>,
    /// Default widths per mode, in Hz, one per filter.
    #[serde(default)]
    pub widths: BTreeMap<Mode, Vec<u32>>,
}

/// A list of allowed values.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValuesSection {
    /// Allowed values.
    pub values: Vec<u8>,
}

/// `[power]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerSection {
    /// Output at level 0, W.
    pub min_watts: u32,
    /// Output at level 255, W.
    pub max_watts: u32,
}

/// `[meters]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetersSection {
    /// Meters (smeter, smeter_sub, power, swr, alc, comp, id, vd, temp; an unknown name
    /// is a load error).
    pub list: Vec<MeterKind>,
}

/// `[scope]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeSection {
    /// Where spectrum data comes from.
    pub source: ScopeSourceKind,
    /// Pixels per sweep (hardware scope).
    #[serde(default)]
    pub pixels: u16,
    /// USB multi-frame count (hardware scope).
    #[serde(default)]
    pub seq_max: u8,
    /// Largest amplitude the radio sends.
    #[serde(default)]
    pub amp_max: u8,
    /// Default span (hardware scope width, or audio FFT bandwidth), Hz.
    pub default_span_hz: u32,
    /// Half-spans the hardware scope offers in center mode (`27 15`), Hz.
    #[serde(default)]
    pub spans_hz: Vec<u32>,
    /// Fixed-edge sets the hardware scope offers in fixed mode (`27 16`, numbered
    /// 1..=n per band range; 0: none).
    #[serde(default)]
    pub fixed_edges: u8,
}

/// Source of spectrum data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScopeSourceKind {
    /// The radio's own scope over CI-V `27 00`.
    Hardware,
    /// An FFT of the RX audio.
    AudioFft,
    /// None.
    None,
}

impl ScopeSourceKind {
    /// The `scopeSource` value of the capabilities resource.
    pub fn as_json(self) -> Option<&'static str> {
        match self {
            ScopeSourceKind::Hardware => Some("hardware"),
            ScopeSourceKind::AudioFft => Some("audio_fft"),
            ScopeSourceKind::None => None,
        }
    }
}

/// `[audio]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AudioSection {
    /// RX codecs in order of preference (first is used).
    pub rx_codecs: Vec<LanCodec>,
    /// TX codec (mono).
    pub tx_codec: LanCodec,
    /// Sample rate, Hz.
    pub sample_rate: u32,
}

/// `[[freq_ranges]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FreqRange {
    /// Label ("HF").
    pub label: String,
    /// Lowest tunable frequency, Hz.
    pub start_hz: u64,
    /// Highest tunable frequency, Hz.
    pub end_hz: u64,
    /// Bands inside the range.
    #[serde(default)]
    pub bands: Vec<Band>,
}

/// An amateur band.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Band {
    /// Name ("20m").
    pub name: String,
    /// Lower edge, Hz.
    pub start_hz: u64,
    /// Upper edge, Hz.
    pub end_hz: u64,
    /// Frequency used when the band stack register cannot be recalled.
    pub default_hz: u64,
    /// Band Stack Register code (a BCD byte on the wire), if the radio has one.
    #[serde(default)]
    pub bsr_code: Option<u8>,
}

/// Why a profile could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileError {
    /// File (or id) the error is about.
    pub source: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "profile {}: {}", self.source, self.message)
    }
}

impl std::error::Error for ProfileError {}

impl Profile {
    /// Parses and validates one profile.
    pub fn from_toml(source: &str, text: &str) -> Result<Profile, ProfileError> {
        let profile: Profile = toml::from_str(text).map_err(|e| ProfileError {
            source: source.to_string(),
            message: e.to_string(),
        })?;
        profile.validate().map_err(|message| ProfileError {
            source: source.to_string(),
            message,
        })?;
        Ok(profile)
    }

    /// Short id (`ic7610`).
    pub fn id(&self) -> &str {
        &self.radio.id
    }

    /// Model name (`IC-7610`).
    pub fn model(&self) -> &str {
        &self.radio.model
    }

    /// True if the profile lists capability `feature`.
    pub fn has_feature(&self, feature: Feature) -> bool {
        self.radio.features.contains(&feature)
    }

    /// True for two-receiver radios.
    pub fn is_dual(&self) -> bool {
        self.radio.receivers == 2
    }

    /// True if this radio has `mode`.
    pub fn has_mode(&self, mode: Mode) -> bool {
        self.modes.list.contains(&mode)
    }

    /// The mode of a CI-V code, if this radio has it.
    pub fn mode_of_code(&self, code: u8) -> Option<Mode> {
        Mode::from_code(code).filter(|m| self.has_mode(*m))
    }

    /// True if `(cmd, sub)` is sent with the command-29 receiver prefix.
    pub fn uses_cmd29(&self, cmd: u8, sub: Option<u8>) -> bool {
        self.cmd29.routes.iter().any(|r| match r.as_slice() {
            [c] => *c == cmd,
            [c, s] => *c == cmd && Some(*s) == sub,
            _ => false,
        })
    }

    /// True if `hz` is inside one of the tunable ranges.
    pub fn in_range(&self, hz: u64) -> bool {
        self.freq_ranges
            .iter()
            .any(|r| (r.start_hz..=r.end_hz).contains(&hz))
    }

    /// Every band, in profile order.
    pub fn bands(&self) -> impl Iterator<Item = &Band> {
        self.freq_ranges.iter().flat_map(|r| r.bands.iter())
    }

    /// The band with Band Stack Register `code`.
    pub fn band_by_bsr(&self, code: u8) -> Option<&Band> {
        self.bands().find(|b| b.bsr_code == Some(code))
    }

    /// The band containing `hz`.
    pub fn band_for_freq(&self, hz: u64) -> Option<&Band> {
        self.bands().find(|b| (b.start_hz..=b.end_hz).contains(&hz))
    }

    /// The preferred RX codec byte.
    pub fn rx_codec_byte(&self) -> u8 {
        self.audio
            .rx_codecs
            .first()
            .map_or(LanCodec::Pcm16Mono, |c| *c)
            .value()
    }

    /// The TX codec byte.
    pub fn tx_codec_byte(&self) -> u8 {
        self.audio.tx_codec.value()
    }

    /// Default filter widths of `mode`, Hz.
    pub fn filter_widths(&self, mode: Mode) -> Option<&[u32]> {
        self.filters.widths.get(&mode).map(Vec::as_slice)
    }

    /// True if the profile reports meter `kind`.
    pub fn has_meter(&self, kind: MeterKind) -> bool {
        self.meters.list.contains(&kind)
    }
}
