//! RX audio out of and TX audio into the simulated radio. The audio clock is the number
//! of samples rendered so far (independent of the `now` of the CI-V calls), so rendering
//! the same blocks gives the same audio.
//!
//! The receiver controls shape it: AF gain (loudness), RF gain, ATT and preamp (level
//! and noise), squelch (mutes below the threshold), NB and NR (less noise), auto notch
//! (carriers notched on SSB), the filter width (the passband), AF mute; while CW is sent
//! the receivers are muted and the sidetone (CW pitch) follows the key.

use std::time::Duration;

use super::SimRig;
use super::state::{CwKeying, TX_TAIL};
use crate::sim::audio_synth::RxView;
use crate::wire::civ::cmd::{ext, function, level};

/// Float sample (−1..1) to i16 with clipping.
fn to_i16(x: f32) -> i16 {
    (x * 32_767.0).round().clamp(-32_768.0, 32_767.0) as i16
}

/// Sidetone level at full AF gain.
const SIDETONE_LEVEL: f32 = 0.25;
/// Time constant of the sidetone's keying envelope (soft edges, no clicks), s.
const SIDETONE_EDGE_S: f32 = 0.003;

/// The CW sidetone oscillator and its keying envelope.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Sidetone {
    /// Phase, cycles (0..1).
    phase: f64,
    /// Envelope 0..1.
    env: f32,
}

impl Sidetone {
    /// One sample at audio time `t` (s) of the keying `cw`.
    fn next(&mut self, cw: Option<&CwKeying>, t: f64, pitch: f32, amp: f32, rate: u32) -> f32 {
        let key = cw.is_some_and(|c| {
            let since = (t - c.audio_start.as_secs_f64()).max(0.0);
            let offset = Duration::try_from_secs_f64(since).unwrap_or(Duration::MAX);
            c.key_down(c.start.saturating_add(offset))
        });
        let target = if key { 1.0 } else { 0.0 };
        if !key && self.env < 1e-4 {
            self.env = 0.0;
            return 0.0;
        }
        let k = 1.0 - (-1.0 / (SIDETONE_EDGE_S * rate as f32)).exp();
        self.env += (target - self.env) * k;
        self.phase = (self.phase + f64::from(pitch) / f64::from(rate)).fract();
        let s = (self.phase * std::f64::consts::TAU).sin() as f32;
        self.env * amp * s
    }
}

impl SimRig {
    /// What receiver `rx`'s audio chain looks like now.
    fn rx_view(&self, rx: usize) -> RxView {
        let st = &self.state;
        let nb = st.rx_function(rx, function::NB) == 1;
        let nr = st.rx_function(rx, function::NR) == 1;
        let frac = |sub: u8| f32::from(st.rx_level(rx, sub).min(255)) / 255.0;
        let mut noise_cut_db = 0.0;
        if nb {
            noise_cut_db += 1.0 + 3.0 * frac(level::NB);
        }
        if nr {
            noise_cut_db += 3.0 + 12.0 * frac(level::NR);
        }
        let af_mute = st
            .receivers
            .get(rx)
            .and_then(|r| r.settings_1a.get(&ext::AF_MUTE))
            .is_some_and(|v| *v == 1);
        RxView {
            passband: self.rx_passband(rx),
            frontend: self.frontend(rx),
            af: st.rx_level(rx, level::AF),
            rf_gain: st.rx_level(rx, level::RF_GAIN),
            squelch: st.rx_level(rx, level::SQUELCH),
            noise_cut_db,
            auto_notch: st.rx_function(rx, function::AUTO_NOTCH) == 1,
            muted: self.transmitting() || af_mute,
        }
    }

    /// The next block of RX audio, interleaved i16 with `channels` channels at
    /// `sample_rate`: channel 0 is MAIN, channel 1 SUB (MAIN again on single-receiver
    /// radios), further channels repeat MAIN. Silence in standby; muted while
    /// transmitting. Synthesised from the same band the scope shows.
    pub fn render_audio(&mut self, out: &mut [i16], channels: u8, sample_rate: u32) {
        let ch = usize::from(channels);
        if ch == 0 || sample_rate == 0 {
            out.fill(0);
            return;
        }
        let frames = out.len() / ch;
        let t0 = self.audio_time;
        self.audio_time += frames as f64 / f64::from(sample_rate);
        if !self.state.powered {
            out.fill(0);
            return;
        }
        let with_sub = ch >= 2 && self.receivers() == 2;
        for rx in 0..(if with_sub { 2 } else { 1 }) {
            let view = self.rx_view(rx);
            if let (Some(a), Some(buf)) = (self.audio.get_mut(rx), self.mix.get_mut(rx)) {
                buf.clear();
                buf.resize(frames, 0.0);
                a.render(&self.band, &view, t0, sample_rate, buf);
            }
        }
        let af = f32::from(self.state.rx_level(0, level::AF).min(255)) / 255.0;
        let tone_amp = SIDETONE_LEVEL * af * af.sqrt();
        let pitch = self.state.cw_pitch_hz();
        let cw = self.state.cw.as_ref();
        let tone = &mut self.sidetone;
        let [main, sub] = &self.mix;
        for (i, frame) in out.chunks_mut(ch).enumerate() {
            let t = t0 + i as f64 / f64::from(sample_rate);
            let st = tone.next(cw, t, pitch, tone_amp, sample_rate);
            let m = main.get(i).copied().unwrap_or(0.0) + st;
            let s = if with_sub {
                sub.get(i).copied().unwrap_or(0.0) + st
            } else {
                m
            };
            if frame.len() < ch {
                frame.fill(0);
                continue;
            }
            for (c, v) in frame.iter_mut().enumerate() {
                *v = to_i16(if c == 1 { s } else { m });
            }
        }
    }

    /// TX audio (mono i16) from the LAN: transmitted while transmitting with the MOD
    /// input of the current DATA mode on LAN (always, for profiles without
    /// `[mod_input]`): then it drives the ALC / COMP meters, is counted and its last
    /// samples are kept. Without PTT it is counted as dropped, with another MOD input
    /// as muted.
    pub fn accept_tx_audio(&mut self, samples: &[i16]) {
        let n = samples.len() as u64;
        if !(self.state.ptt && self.state.powered) {
            self.state.tx_audio_dropped += n;
            return;
        }
        if !self.mod_input_is_lan() {
            self.state.tx_audio_muted += n;
            return;
        }
        self.tx_level.accept(samples);
        self.state.tx_audio_samples += n;
        let tail = &mut self.state.tx_audio_tail;
        tail.extend_from_slice(samples);
        if tail.len() > TX_TAIL {
            tail.drain(..tail.len() - TX_TAIL);
        }
    }

    /// True when TX audio from the LAN modulates the transmitter: the `1A 05` MOD-input
    /// item of the transmitting VFO's DATA mode holds the profile's LAN value.
    pub fn mod_input_is_lan(&self) -> bool {
        let Some(m) = &self.profile.mod_input else {
            return true;
        };
        let data = self.state.vfo(self.tx_slot()).map_or(0, |v| v.data);
        let Some(item) = m.menu_for(data) else {
            return true;
        };
        let lan = crate::wire::civ::bcd_byte(m.lan).unwrap_or(0);
        self.state.menu.get(&item).and_then(|v| v.first()) == Some(&lan)
    }
}
