//! The simulated radio's CI-V brain: a pure, deterministic, sans-IO model of an Icom
//! transceiver driven by one profile. The LAN server feeds it CI-V frames with the time
//! since the simulation started and sends back whatever it returns; it polls it for
//! scope sweeps and asks it for RX audio.
//!
//! Addressing: frames to the radio's address or to 0x00 are answered, to the sender's
//! address, from the radio's address. Replies are ACK `FB`, NAK `FA` or data. Command 29
//! (receiver prefix) is accepted only for the profile's routes; its read replies are
//! wrapped the same way, its set replies are plain. `00` / `01` (set frequency / mode
//! without a reply) are applied and broadcast. In standby the radio sends no CI-V at
//! all: only `18 01` is heard (it switches the radio on, answered `FB`, or `FA` while
//! the radio boots).

mod audio;
mod bsr;
mod clock;
mod codec;
mod commands_freq;
mod commands_front;
mod commands_misc;
mod commands_scope;
mod commands_tx;
mod cw;
mod memory;
mod menu;
mod meters;
mod panel;
mod panel_ops;
mod power;
mod state;
mod sweep;
mod transceive;

#[cfg(test)]
mod tests_audio;
#[cfg(test)]
mod tests_controls;
#[cfg(test)]
mod tests_cw;
#[cfg(test)]
mod tests_freq;
#[cfg(test)]
mod tests_memory;
#[cfg(test)]
mod tests_misc;
#[cfg(test)]
mod tests_power;
#[cfg(test)]
mod tests_scope;
#[cfg(test)]
mod tests_transceive;

pub use memory::MemoryBank;
pub use panel::{Knob, PanelAction, ScopeSetting, Switch, TunerState};
pub use state::{
    BsrBand, BsrEntry, CwKeying, ReceiverState, RigSnapshot, RigState, ScopeRx, ScopeState,
    VfoState,
};

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use crate::profile::{Profile, VfoScheme};
use crate::sim::audio_synth::RxAudio;
use crate::sim::band::Band;
use crate::sim::rng::hash2;
use crate::sim::spectrum::Spectrum;
use crate::wire::civ::cmd;
use crate::wire::civ::{ACK, BROADCAST, CMD_RECEIVER_PREFIX, Frame, NAK, has_sub};
use audio::Sidetone;
use codec::Reply;
use meters::TxAudioLevel;
use sweep::SweepClock;

/// Commands a radio takes under command 29 beyond its profile's routes (the routes are
/// what rigweb sends wrapped; spec §8.3 lists the IC-7610's). The IC-7610's AGC `16 12`
/// is per receiver and taken under command 29 by the real radio: spec §4.7 counts it
/// among the cmd29-only per-receiver reads (as the AGC time constant `1A 04`, which
/// §8.3 routes), although §8.3's list lacks it. `(model, command, sub-command)`.
const MORE_CMD29: &[(&str, u8, u8)] = &[("IC-7610", cmd::FUNCTION, cmd::function::AGC)];

/// How the simulated radio behaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimRigConfig {
    /// Seed of everything random: the band, the scope texture, the audio noise.
    pub seed: u64,
    /// Scope sweeps per second per receiver at the "fast" sweep speed (default 30).
    pub sweep_rate_hz: f64,
    /// CI-V transceive on at start (default true).
    pub transceive: bool,
    /// Start in standby (default false): the LAN side works, CI-V is silent until `18 01`.
    pub start_in_standby: bool,
    /// How long the radio boots after `18 01` (or the power key) in standby; `18 01`
    /// is answered `FA` meanwhile. Zero (the default): it is on at once and says `FB`.
    pub boot_time: Duration,
    /// The simulated wall clock (date / time menu items) at the start, seconds since
    /// the Unix epoch, UTC; `None`: 2025-01-01 00:00 (the LAN server uses the host's clock).
    pub clock_start_unix_s: Option<u64>,
}

impl Default for SimRigConfig {
    fn default() -> SimRigConfig {
        SimRigConfig {
            seed: 0x5EED_1C0F,
            sweep_rate_hz: 30.0,
            transceive: true,
            start_in_standby: false,
            boot_time: Duration::ZERO,
            clock_start_unix_s: None,
        }
    }
}

/// Which receiver a command addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// Plain command: the selected receiver.
    Selected,
    /// Command-29 wrapped: this receiver.
    Rx(u8),
}

/// The simulated radio.
#[derive(Debug, Clone)]
pub struct SimRig {
    profile: Arc<Profile>,
    cfg: SimRigConfig,
    band: Band,
    state: RigState,
    spectrum: Spectrum,
    sweeps: SweepClock,
    pending: VecDeque<(Duration, Frame)>,
    held: [Vec<u8>; 2],
    audio: [RxAudio; 2],
    audio_time: f64,
    mix: [Vec<f32>; 2],
    tx_level: TxAudioLevel,
    sidetone: Sidetone,
    now: Duration,
    tune_until: Option<Duration>,
    boot_until: Option<Duration>,
}

impl SimRig {
    /// A radio described by `profile`, powered on, in its start state.
    pub fn new(profile: Arc<Profile>, cfg: SimRigConfig) -> SimRig {
        let hotspots: Vec<u64> = profile.bands().map(|b| b.default_hz).collect();
        let band = Band::with_hotspots(cfg.seed, &hotspots);
        let state = RigState::new(&profile, cfg.transceive, !cfg.start_in_standby);
        SimRig {
            band,
            state,
            spectrum: Spectrum::new(),
            sweeps: SweepClock::default(),
            pending: VecDeque::new(),
            held: [Vec::new(), Vec::new()],
            audio: [
                RxAudio::new(hash2(cfg.seed, 0xA0)),
                RxAudio::new(hash2(cfg.seed, 0xA1)),
            ],
            audio_time: 0.0,
            mix: [Vec::new(), Vec::new()],
            tx_level: TxAudioLevel::default(),
            sidetone: Sidetone::default(),
            now: Duration::ZERO,
            tune_until: None,
            boot_until: None,
            profile,
            cfg,
        }
    }

    /// The profile the radio follows.
    pub fn profile(&self) -> &Arc<Profile> {
        &self.profile
    }

    /// The band model behind the scope, the meters and the audio.
    pub fn band(&self) -> &Band {
        &self.band
    }

    /// The radio's CI-V address.
    pub fn civ_addr(&self) -> u8 {
        self.profile.radio.civ_addr
    }

    /// One CI-V frame received from a controller, at `now` since the simulation started.
    /// Returns the replies (addressed to the sender). Never panics.
    pub fn handle(&mut self, frame: &Frame, now: Duration) -> Vec<Frame> {
        let addr = self.civ_addr();
        if (frame.to != addr && frame.to != BROADCAST)
            || frame.from == addr
            || frame.cmd == ACK
            || frame.cmd == NAK
        {
            return Vec::new();
        }
        self.advance(now);
        let reply = if !self.state.powered {
            self.standby(frame.cmd, &frame.data)
        } else if frame.cmd == CMD_RECEIVER_PREFIX {
            self.cmd29(&frame.data, frame.from)
        } else {
            self.exec(Target::Selected, frame.cmd, &frame.data, frame.from)
        };
        self.sync_sweeps(now);
        let out = match reply {
            Reply::Silent => return Vec::new(),
            Reply::Ack => Frame::new(frame.from, addr, ACK, &[]),
            Reply::Nak => Frame::new(frame.from, addr, NAK, &[]),
            Reply::Data(command, data) => Frame::new(frame.from, addr, command, &data),
        };
        vec![out]
    }

    /// Unsolicited frames due at `now`: scope sweeps and queued transceive broadcasts.
    pub fn poll(&mut self, now: Duration) -> Vec<Frame> {
        self.advance(now);
        self.sync_sweeps(now);
        let mut out = Vec::new();
        while let Some((due, _)) = self.pending.front() {
            if *due > now {
                break;
            }
            if let Some((_, f)) = self.pending.pop_front() {
                out.push(f);
            }
        }
        self.emit_sweeps(now, &mut out);
        out
    }

    /// When [`SimRig::poll`] next has something to emit (`None` = nothing scheduled).
    pub fn next_due(&self) -> Option<Duration> {
        [
            self.pending.front().map(|(d, _)| *d),
            self.sweeps.next_due(),
            self.tune_until,
            self.boot_until,
            self.state.cw.as_ref().map(|c| c.end()),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// True unless the radio is in standby (or still booting).
    pub fn powered(&self) -> bool {
        self.state.powered
    }

    /// True while the radio boots after a power-on from standby.
    pub fn booting(&self) -> bool {
        self.boot_until.is_some()
    }

    /// True while transmitting: the PTT is keyed or CW is being sent.
    pub fn ptt(&self) -> bool {
        self.transmitting()
    }

    /// True while transmitting: the PTT is keyed or CW is being sent.
    fn transmitting(&self) -> bool {
        self.state.ptt || self.state.cw.is_some()
    }

    /// A copy of the whole state.
    pub fn snapshot(&self) -> RigSnapshot {
        self.state.clone()
    }

    /// Moves the model's clock forward (never backwards) and settles timed state: the
    /// end of a tune (broadcast `1C 01 01`), of a CW message, of booting.
    fn advance(&mut self, now: Duration) {
        if now > self.now {
            self.now = now;
        }
        if self.tune_until.is_some_and(|until| self.now >= until) {
            self.tune_until = None;
            if self.state.tuner == commands_tx::TUNER_TUNING {
                self.state.tuner = commands_tx::TUNER_ON;
                self.announce(None, cmd::TX, vec![cmd::tx::TUNER, commands_tx::TUNER_ON]);
            }
        }
        if self.state.cw.as_ref().is_some_and(|c| c.end() <= self.now) {
            self.state.cw = None;
        }
        if self.boot_until.is_some_and(|until| self.now >= until) {
            self.boot_until = None;
            self.set_power(true);
        }
    }

    fn scheme(&self) -> VfoScheme {
        self.profile.vfo.scheme
    }

    fn receivers(&self) -> usize {
        self.state.receivers.len()
    }

    /// The receiver index a per-receiver command addresses.
    fn rx_of(&self, target: Target) -> usize {
        match target {
            Target::Selected => self.state.selected_slot(self.scheme()).rx,
            Target::Rx(r) => usize::from(r).min(self.receivers().saturating_sub(1)),
        }
    }

    /// Command 29: `29 <rx> <cmd> [<sub>] [<data>]`.
    fn cmd29(&mut self, data: &[u8], from: u8) -> Reply {
        if self.profile.cmd29.routes.is_empty() {
            return Reply::Nak;
        }
        let (rx, command, rest) = match data {
            [rx, command, rest @ ..] => (*rx, *command, rest),
            _ => return Reply::Nak,
        };
        if usize::from(rx) >= self.receivers() {
            return Reply::Nak;
        }
        let sub = if has_sub(command) {
            rest.first().copied()
        } else {
            None
        };
        let more = MORE_CMD29
            .iter()
            .any(|&(m, c, s)| m == self.profile.model() && c == command && Some(s) == sub);
        if !self.profile.uses_cmd29(command, sub) && !more {
            return Reply::Nak;
        }
        match self.exec(Target::Rx(rx), command, rest, from) {
            Reply::Data(c, d) => {
                let mut wrapped = Vec::with_capacity(d.len() + 2);
                wrapped.push(rx);
                wrapped.push(c);
                wrapped.extend_from_slice(&d);
                Reply::Data(CMD_RECEIVER_PREFIX, wrapped)
            }
            other => other,
        }
    }

    /// Executes one (unwrapped) command.
    fn exec(&mut self, target: Target, command: u8, data: &[u8], from: u8) -> Reply {
        match command {
            cmd::FREQ_NO_REPLY => self.cmd_freq_no_reply(data),
            cmd::MODE_NO_REPLY => self.cmd_mode_no_reply(data),
            cmd::BAND_EDGE => self.cmd_band_edge(data),
            cmd::READ_FREQ => self.cmd_read_freq(data),
            cmd::READ_MODE => self.cmd_read_mode(data),
            cmd::SET_FREQ => self.cmd_set_freq(data),
            cmd::SET_MODE => self.cmd_set_mode(data),
            cmd::VFO => self.cmd_vfo(data),
            cmd::MEMORY_SELECT => self.cmd_memory_select(data),
            cmd::MEMORY_WRITE => self.cmd_memory_write(data),
            cmd::MEMORY_TO_VFO => self.cmd_memory_to_vfo(data),
            cmd::SPLIT => self.cmd_split(data),
            cmd::TUNING_STEP => self.cmd_tuning_step(data),
            cmd::ATTENUATOR => self.cmd_att(target, data),
            cmd::ANTENNA => self.cmd_antenna(target, data),
            cmd::LEVEL => self.cmd_level(target, data),
            cmd::METER => self.cmd_meter(target, data),
            cmd::FUNCTION => self.cmd_function(target, data),
            cmd::SEND_CW => self.cmd_send_cw(data),
            cmd::POWER => self.cmd_power(data),
            cmd::ID => self.cmd_id(data),
            cmd::EXT => self.cmd_ext(target, data),
            cmd::TONE => self.cmd_tone(target, data),
            cmd::TX => self.cmd_tx(data),
            cmd::RIT => self.cmd_rit(data),
            cmd::SEL_FREQ => self.cmd_sel_freq(data),
            cmd::SEL_MODE => self.cmd_sel_mode(data),
            cmd::SCOPE => self.cmd_scope(data, from),
            _ => Reply::Nak,
        }
    }

    /// Queues a frame for [`SimRig::poll`] at `due`.
    fn queue(&mut self, due: Duration, frame: Frame) {
        let at = self.pending.partition_point(|(d, _)| *d <= due);
        self.pending.insert(at, (due, frame));
    }
}
