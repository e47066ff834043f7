//! The radio's typed state and the resource around it (interface.md §2.2, decisions.md
//! "State resource fields"). A value the radio has not reported (never read, or its read
//! timed out) is `None` and shows as `null`: nothing is made up.

use serde::{Serialize, Serializer};

/// The selected receiver (MAIN/SUB radios) or VFO (A/B radios).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Selected {
    /// MAIN receiver.
    #[serde(rename = "MAIN")]
    Main,
    /// SUB receiver.
    #[serde(rename = "SUB")]
    Sub,
    /// VFO A.
    A,
    /// VFO B.
    B,
}

impl Selected {
    /// The label the web interface uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Selected::Main => "MAIN",
            Selected::Sub => "SUB",
            Selected::A => "A",
            Selected::B => "B",
        }
    }

    /// 0 for MAIN / VFO A, 1 for SUB / VFO B.
    pub fn index(self) -> u8 {
        match self {
            Selected::Main | Selected::A => 0,
            Selected::Sub | Selected::B => 1,
        }
    }
}

/// Where the link to the radio stands (`radioDetail.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RadioStatus {
    /// Connected, answering.
    Connected,
    /// Connecting (discovery, login, streams, first state read).
    Connecting,
    /// Lost; the next attempt starts after a pause.
    Reconnecting,
    /// Logged out on request.
    Disconnected,
    /// Given up (wrong credentials).
    Failed,
    /// The radio is in standby.
    PoweredOff,
    /// CI-V went silent; re-opening.
    Recovering,
    /// CI-V stays silent although the LAN session is alive.
    NotResponding,
}

impl RadioStatus {
    /// The name the web interface uses.
    pub fn as_str(self) -> &'static str {
        match self {
            RadioStatus::Connected => "connected",
            RadioStatus::Connecting => "connecting",
            RadioStatus::Reconnecting => "reconnecting",
            RadioStatus::Disconnected => "disconnected",
            RadioStatus::Failed => "failed",
            RadioStatus::PoweredOff => "powered_off",
            RadioStatus::Recovering => "recovering",
            RadioStatus::NotResponding => "not_responding",
        }
    }
}

/// AGC time constant (`16 12`: 1 fast, 2 mid, 3 slow).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Agc {
    /// Fast.
    Fast,
    /// Mid.
    Mid,
    /// Slow.
    Slow,
}

/// Antenna tuner (`1C 01`: 0 off, 1 on, 2 tuning).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tuner {
    /// Off (through).
    Off,
    /// On.
    On,
    /// Tuning now.
    Tune,
}

/// Scope sweep speed (`27 1A`: 0 fast, 1 mid, 2 slow).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScopeSpeed {
    /// Fast.
    Fast,
    /// Mid.
    Mid,
    /// Slow.
    Slow,
}

/// One VFO of an A/B radio.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct VfoState {
    /// Frequency, Hz.
    pub freq_hz: Option<u64>,
    /// Mode name.
    pub mode: Option<String>,
    /// Filter number 1..3.
    pub filter: Option<u8>,
    /// DATA mode (0 off, 1..3 D1..D3).
    pub data_mode: Option<u8>,
}

/// One receiver (MAIN or SUB).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ReceiverState {
    /// Frequency of the receiver (of its selected VFO on A/B radios), Hz.
    pub freq_hz: Option<u64>,
    /// Mode name (USB, LSB, CW, ...).
    pub mode: Option<String>,
    /// Filter number 1..3.
    pub filter: Option<u8>,
    /// DATA mode (0 off, 1..3 D1..D3).
    pub data_mode: Option<u8>,
    /// Attenuator, dB.
    pub att: Option<u8>,
    /// Preamp level (0 off).
    pub preamp: Option<u8>,
    /// AF gain 0..255.
    pub af_gain: Option<u16>,
    /// RF gain 0..255.
    pub rf_gain: Option<u16>,
    /// Squelch 0..255.
    pub squelch: Option<u16>,
    /// AGC time constant.
    pub agc: Option<Agc>,
    /// Noise blanker on.
    pub nb: Option<bool>,
    /// Noise blanker level 0..255.
    pub nb_level: Option<u16>,
    /// Noise reduction on.
    pub nr: Option<bool>,
    /// Noise reduction level 0..255.
    pub nr_level: Option<u16>,
    /// Auto notch on.
    pub auto_notch: Option<bool>,
    /// IF filter width, Hz.
    pub filter_width: Option<u32>,
    /// VFO A (A/B radios only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vfo_a: Option<VfoState>,
    /// VFO B (A/B radios only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vfo_b: Option<VfoState>,
}

impl ReceiverState {
    /// A receiver about which nothing is known yet; `ab` gives it VFOs A and B.
    pub fn unknown(ab: bool) -> ReceiverState {
        ReceiverState {
            vfo_a: ab.then(VfoState::default),
            vfo_b: ab.then(VfoState::default),
            ..ReceiverState::default()
        }
    }

    /// A receiver at `freq_hz` in `mode`, FIL1, DATA off (for tests and fixtures).
    pub fn tuned(freq_hz: u64, mode: &str, ab: bool) -> ReceiverState {
        let vfo = VfoState {
            freq_hz: Some(freq_hz),
            mode: Some(mode.to_string()),
            filter: Some(1),
            data_mode: Some(0),
        };
        ReceiverState {
            freq_hz: Some(freq_hz),
            mode: Some(mode.to_string()),
            filter: Some(1),
            data_mode: Some(0),
            vfo_a: ab.then(|| vfo.clone()),
            vfo_b: ab.then_some(vfo),
            ..ReceiverState::default()
        }
    }
}

/// Serialises a reference level kept in tenths of a dB as a number of dB.
fn tenths_as_db<S: Serializer>(v: &Option<i16>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(t) => s.serialize_f64(f64::from(*t) / 10.0),
        None => s.serialize_none(),
    }
}

/// Spectrum scope settings as last reported by the radio.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ScopeState {
    /// Receiver shown (0 MAIN, 1 SUB).
    pub receiver: u8,
    /// Both receivers shown.
    pub dual: bool,
    /// 0 center, 1 fixed, 2 scroll-C, 3 scroll-F.
    pub mode: Option<u8>,
    /// Half-span in center mode, Hz.
    pub span_hz: Option<u64>,
    /// Reference level, tenths of a dB (shown as `refDb` in dB).
    #[serde(rename = "refDb", serialize_with = "tenths_as_db")]
    pub ref_tenths_db: Option<i16>,
    /// Sweep speed.
    pub speed: Option<ScopeSpeed>,
    /// Hold.
    pub hold: Option<bool>,
    /// Fixed-edge set shown in fixed mode (1..=4).
    pub edge: Option<u8>,
    /// Lower edge of the last sweep, Hz.
    pub start_freq: u64,
    /// Upper edge of the last sweep, Hz.
    pub end_freq: u64,
    /// The last sweep was out of range.
    pub out_of_range: bool,
    /// The radio is sending sweeps.
    pub streaming: bool,
}

/// Settings of the radio.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RadioState {
    /// MAIN receiver.
    pub main: ReceiverState,
    /// SUB receiver (two-receiver radios only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sub: Option<ReceiverState>,
    /// The selected receiver or VFO.
    pub active: Option<Selected>,
    /// Transmitting (`null` while the link is down: nothing is known).
    pub ptt: Option<bool>,
    /// Radio switched on (false in standby).
    pub power_on: Option<bool>,
    /// RF power level 0..255.
    pub power: Option<u16>,
    /// Split.
    pub split: Option<bool>,
    /// Dual watch.
    pub dual_watch: Option<bool>,
    /// RIT on.
    pub rit: Option<bool>,
    /// RIT offset, Hz.
    pub rit_offset_hz: Option<i32>,
    /// Antenna tuner.
    pub tuner: Option<Tuner>,
    /// CW key speed, WPM.
    pub cw_speed: Option<u8>,
    /// Speech compressor on.
    pub comp: Option<bool>,
    /// Speech compressor level 0..255.
    pub comp_level: Option<u16>,
    /// Microphone gain 0..255.
    pub mic_gain: Option<u16>,
    /// Monitor gain 0..255.
    pub monitor_gain: Option<u16>,
    /// VOX gain 0..255.
    pub vox_gain: Option<u16>,
    /// Scope settings.
    pub scope: ScopeState,
}

impl RadioState {
    /// A radio with these receivers before anything else is known.
    pub fn new(main: ReceiverState, sub: Option<ReceiverState>) -> RadioState {
        RadioState {
            main,
            sub,
            active: None,
            ptt: None,
            power_on: None,
            power: None,
            split: None,
            dual_watch: None,
            rit: None,
            rit_offset_hz: None,
            tuner: None,
            cw_speed: None,
            comp: None,
            comp_level: None,
            mic_gain: None,
            monitor_gain: None,
            vox_gain: None,
            scope: ScopeState::default(),
        }
    }

    /// Receiver `r` (0 MAIN, 1 SUB), if the radio has it.
    pub fn receiver(&self, r: u8) -> Option<&ReceiverState> {
        if r == 0 {
            Some(&self.main)
        } else {
            self.sub.as_ref()
        }
    }

    /// Receiver `r` (0 MAIN, 1 SUB), if the radio has it.
    pub fn receiver_mut(&mut self, r: u8) -> Option<&mut ReceiverState> {
        if r == 0 {
            Some(&mut self.main)
        } else {
            self.sub.as_mut()
        }
    }

    /// True while the radio is known to transmit.
    pub fn transmitting(&self) -> bool {
        self.ptt == Some(true)
    }

    /// Forgets everything the radio reported (the shape, i.e. receivers and VFOs, stays).
    pub fn forget(&mut self) {
        let ab = self.main.vfo_a.is_some();
        let sub = self.sub.is_some();
        *self = RadioState::new(
            ReceiverState::unknown(ab),
            sub.then(|| ReceiverState::unknown(false)),
        );
    }
}

/// The `connection` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Connection {
    /// The CI-V stream to the radio is open.
    pub rig_connected: bool,
    /// Connected, powered on, answering, and state fetched: commands will work.
    pub radio_ready: bool,
    /// The control session (login) is up.
    pub control_connected: bool,
}

/// Connected WebSocket clients per channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct WsClients {
    /// `/api/v1/scope`.
    pub scope: u32,
    /// `/api/v1/ws`.
    pub control: u32,
    /// `/api/v1/audio`.
    pub audio: u32,
    /// `/api/v1/meters`.
    pub meters: u32,
}

/// The `radioDetail` object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RadioDetail {
    /// Where the link stands.
    pub status: RadioStatus,
    /// Model name.
    pub model: String,
    /// The current problem, in words a user can act on (absent when there is none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Everything the state resource shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateContent {
    /// Radio settings.
    pub radio: RadioState,
    /// Connection flags.
    pub connection: Connection,
    /// WebSocket clients.
    pub ws_clients: WsClients,
    /// Radio status.
    pub detail: RadioDetail,
}

impl StateContent {
    /// `radio` of `model` before the link is up: nothing connected, no WebSocket
    /// clients, status "connecting".
    pub fn connecting(radio: RadioState, model: &str) -> StateContent {
        StateContent {
            radio,
            connection: Connection::default(),
            ws_clients: WsClients::default(),
            detail: RadioDetail {
                status: RadioStatus::Connecting,
                model: model.to_string(),
                message: None,
            },
        }
    }
}
