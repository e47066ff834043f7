//! The radio's typed state and the resource around it (interface.md §2.2, decisions.md
//! "State resource fields"). A value the radio has not reported (never read, or its read
//! timed out) is `None` and shows as `null`: nothing is made up.

use serde::Serialize;

use crate::radio::table::settings::{
    GlobalSettings, Place, ReceiverSettings, ScopeSettings, Setting, SettingId,
};
use crate::util::vocabulary::vocabulary;
use crate::wire::civ::{Mode, Receiver};

vocabulary! {
    /// The selected receiver (MAIN/SUB radios) or VFO (A/B radios).
    pub enum Selected {
        /// MAIN receiver.
        Main = "MAIN",
        /// SUB receiver.
        Sub = "SUB",
        /// VFO A.
        A = "A",
        /// VFO B.
        B = "B",
    }
}

impl Selected {
    /// 0 for MAIN / VFO A, 1 for SUB / VFO B.
    pub fn index(self) -> u8 {
        match self {
            Selected::Main | Selected::A => 0,
            Selected::Sub | Selected::B => 1,
        }
    }
}

vocabulary! {
    /// Where the link to the radio stands (`radioDetail.status`).
    pub enum RadioStatus {
        /// Connected, answering.
        Connected = "connected",
        /// Connecting (discovery, login, streams, first state read).
        Connecting = "connecting",
        /// Lost; the next attempt starts after a pause.
        Reconnecting = "reconnecting",
        /// Logged out on request.
        Disconnected = "disconnected",
        /// Given up (wrong credentials).
        Failed = "failed",
        /// The radio is in standby.
        PoweredOff = "powered_off",
        /// CI-V went silent; re-opening.
        Recovering = "recovering",
        /// CI-V stays silent although the LAN session is alive.
        NotResponding = "not_responding",
    }
}

/// One VFO of an A/B radio.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct VfoState {
    /// Frequency, Hz.
    pub freq_hz: Option<u64>,
    /// Mode.
    pub mode: Option<Mode>,
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
    /// Mode.
    pub mode: Option<Mode>,
    /// Filter number 1..3.
    pub filter: Option<u8>,
    /// DATA mode (0 off, 1..3 D1..D3).
    pub data_mode: Option<u8>,
    /// The per-receiver settings of the settings table.
    #[serde(flatten)]
    pub settings: ReceiverSettings,
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
    pub fn tuned(freq_hz: u64, mode: Mode, ab: bool) -> ReceiverState {
        let vfo = VfoState {
            freq_hz: Some(freq_hz),
            mode: Some(mode),
            filter: Some(1),
            data_mode: Some(0),
        };
        ReceiverState {
            freq_hz: Some(freq_hz),
            mode: Some(mode),
            filter: Some(1),
            data_mode: Some(0),
            vfo_a: ab.then(|| vfo.clone()),
            vfo_b: ab.then_some(vfo),
            ..ReceiverState::default()
        }
    }
}

/// Spectrum scope settings as last reported by the radio.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ScopeState {
    /// Receiver shown.
    pub receiver: Receiver,
    /// Both receivers shown.
    pub dual: bool,
    /// The scope settings of the settings table (of the receiver shown).
    #[serde(flatten)]
    pub settings: ScopeSettings,
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
    /// The global settings of the settings table.
    #[serde(flatten)]
    pub settings: GlobalSettings,
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
            settings: GlobalSettings::default(),
            scope: ScopeState::default(),
        }
    }

    /// Receiver `r`, if the radio has it.
    pub fn receiver(&self, r: Receiver) -> Option<&ReceiverState> {
        match r {
            Receiver::Main => Some(&self.main),
            Receiver::Sub => self.sub.as_ref(),
        }
    }

    /// Receiver `r`, if the radio has it.
    pub fn receiver_mut(&mut self, r: Receiver) -> Option<&mut ReceiverState> {
        match r {
            Receiver::Main => Some(&mut self.main),
            Receiver::Sub => self.sub.as_mut(),
        }
    }

    /// The value of setting `id` for receiver `rx` (ignored for global settings; a scope
    /// setting is known for the receiver the scope shows) as the state shows it, `None`
    /// when unknown.
    pub fn setting(&self, id: SettingId, rx: Receiver) -> Option<serde_json::Value> {
        match Setting::of(id).place {
            Place::Global => self.settings.get(id),
            Place::Receiver => self.receiver(rx)?.settings.get(id),
            Place::ScopeReceiver if self.scope.receiver == rx => self.scope.settings.get(id),
            Place::ScopeReceiver => None,
        }
    }

    /// Sets setting `id` for receiver `rx` from its raw value; false when the receiver
    /// (or, for a scope setting, the receiver the scope shows) is not `rx` or the value is
    /// not one of the setting's.
    pub fn set_setting(&mut self, id: SettingId, rx: Receiver, raw: i64) -> bool {
        match Setting::of(id).place {
            Place::Global => self.settings.set(id, raw),
            Place::Receiver => self
                .receiver_mut(rx)
                .is_some_and(|r| r.settings.set(id, raw)),
            Place::ScopeReceiver if self.scope.receiver == rx => self.scope.settings.set(id, raw),
            Place::ScopeReceiver => false,
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
