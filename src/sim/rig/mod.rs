//! The simulated radio's CI-V brain: a pure, deterministic, sans-IO model of an Icom
//! transceiver driven by one profile. The LAN server feeds it CI-V frames with the time
//! since the simulation started and sends back whatever it returns; it polls it for
//! scope sweeps and asks it for RX audio.
//!
//! Addressing: frames to the radio's address or to 0x00 are answered, to the sender's
//! address, from the radio's address. Replies are ACK `FB`, NAK `FA` or data. Command 29
//! (receiver prefix) is accepted only for the profile's routes; its read replies are
//! wrapped the same way, its set replies are plain. In standby only `18 01`, `18` and
//! `19 00` are answered with something else than a NAK.

mod audio;
mod bsr;
mod codec;
mod commands_freq;
mod commands_front;
mod commands_misc;
mod commands_scope;
mod meters;
mod panel;
mod state;
mod sweep;

#[cfg(test)]
mod tests_freq;
#[cfg(test)]
mod tests_misc;
#[cfg(test)]
mod tests_scope;

pub use panel::PanelAction;
pub use state::{
    BsrBand, BsrEntry, ReceiverState, RigSnapshot, RigState, ScopeRx, ScopeState, VfoState,
};

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use crate::profile::{Profile, VfoScheme};
use crate::sim::audio_synth::RxAudio;
use crate::sim::band::Band;
use crate::sim::rng::hash2;
use crate::sim::spectrum::Spectrum;
use crate::wire::civ::{ACK, BROADCAST, CMD_RECEIVER_PREFIX, Frame, NAK, has_sub};
use codec::Reply;
use meters::TxAudioLevel;
use sweep::SweepClock;

/// How the simulated radio behaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimRigConfig {
    /// Seed of everything random: the band, the scope texture, the audio noise.
    pub seed: u64,
    /// Scope sweeps per second per receiver at the "fast" sweep speed (default 30).
    pub sweep_rate_hz: f64,
    /// CI-V transceive on at start (default true).
    pub transceive: bool,
}

impl Default for SimRigConfig {
    fn default() -> SimRigConfig {
        SimRigConfig {
            seed: 0x5EED_1C0F,
            sweep_rate_hz: 30.0,
            transceive: true,
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
    now: Duration,
    tune_until: Option<Duration>,
}

impl SimRig {
    /// A radio described by `profile`, powered on, in its start state.
    pub fn new(profile: Arc<Profile>, cfg: SimRigConfig) -> SimRig {
        let hotspots: Vec<u64> = profile.bands().map(|b| b.default_hz).collect();
        let band = Band::with_hotspots(cfg.seed, &hotspots);
        let state = RigState::new(&profile, cfg.transceive);
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
            now: Duration::ZERO,
            tune_until: None,
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
            self.standby(frame)
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
            Reply::Data(cmd, data) => Frame::new(frame.from, addr, cmd, &data),
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
        let pending = self.pending.front().map(|(d, _)| *d);
        match (pending, self.sweeps.next_due()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// True unless the radio is in standby.
    pub fn powered(&self) -> bool {
        self.state.powered
    }

    /// True while transmitting.
    pub fn ptt(&self) -> bool {
        self.state.ptt
    }

    /// A copy of the whole state.
    pub fn snapshot(&self) -> RigSnapshot {
        self.state.clone()
    }

    /// Moves the model's clock forward (never backwards) and settles timed state.
    fn advance(&mut self, now: Duration) {
        if now > self.now {
            self.now = now;
        }
        if self.tune_until.is_some_and(|until| self.now >= until) {
            self.tune_until = None;
            if self.state.tuner == 2 {
                self.state.tuner = 1;
            }
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

    /// Standby: only power on, the power read and the ID read work.
    fn standby(&mut self, frame: &Frame) -> Reply {
        match (frame.cmd, frame.data.as_slice()) {
            (0x18, []) => Reply::data(0x18, &[&[0x00]]),
            (0x18, [0x01]) => {
                self.set_power(true);
                Reply::Ack
            }
            (0x19, [0x00]) => Reply::data(0x19, &[&[0x00, self.civ_addr()]]),
            _ => Reply::Nak,
        }
    }

    /// Command 29: `29 <rx> <cmd> [<sub>] [<data>]`.
    fn cmd29(&mut self, data: &[u8], from: u8) -> Reply {
        if self.profile.cmd29.routes.is_empty() {
            return Reply::Nak;
        }
        let (rx, cmd, rest) = match data {
            [rx, cmd, rest @ ..] => (*rx, *cmd, rest),
            _ => return Reply::Nak,
        };
        if usize::from(rx) >= self.receivers() {
            return Reply::Nak;
        }
        let sub = if has_sub(cmd) {
            rest.first().copied()
        } else {
            None
        };
        if !self.profile.uses_cmd29(cmd, sub) {
            return Reply::Nak;
        }
        match self.exec(Target::Rx(rx), cmd, rest, from) {
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
    fn exec(&mut self, target: Target, cmd: u8, data: &[u8], from: u8) -> Reply {
        match cmd {
            0x00 | 0x01 => Reply::Silent,
            0x02 => self.cmd_band_edge(data),
            0x03 => self.cmd_read_freq(data),
            0x04 => self.cmd_read_mode(data),
            0x05 => self.cmd_set_freq(data),
            0x06 => self.cmd_set_mode(data),
            0x07 => self.cmd_vfo(data),
            0x0F => self.cmd_split(data),
            0x10 => self.cmd_tuning_step(data),
            0x11 => self.cmd_att(target, data),
            0x14 => self.cmd_level(target, data),
            0x15 => self.cmd_meter(target, data),
            0x16 => self.cmd_function(target, data),
            0x18 => self.cmd_power(data),
            0x19 => self.cmd_id(data),
            0x1A => self.cmd_1a(target, data),
            0x1B => self.cmd_tone(target, data),
            0x1C => self.cmd_1c(data),
            0x21 => self.cmd_rit(data),
            0x25 => self.cmd_sel_freq(data),
            0x26 => self.cmd_sel_mode(data),
            0x27 => self.cmd_scope(data, from),
            _ => Reply::Nak,
        }
    }

    /// Power on/off (standby keeps the state; PTT drops).
    fn set_power(&mut self, on: bool) {
        self.state.powered = on;
        if !on {
            self.state.ptt = false;
            self.pending.clear();
        }
    }

    /// Queues a frame for [`SimRig::poll`] at `due`.
    fn queue(&mut self, due: Duration, frame: Frame) {
        let at = self.pending.partition_point(|(d, _)| *d <= due);
        self.pending.insert(at, (due, frame));
    }
}
