//! RX audio out of and TX audio into the simulated radio. The audio clock is the number
//! of samples rendered so far (independent of the `now` of the CI-V calls), so rendering
//! the same blocks gives the same audio.

use super::SimRig;
use super::state::TX_TAIL;
use crate::sim::audio_synth::RxView;

/// Float sample (−1..1) to i16 with clipping.
fn to_i16(x: f32) -> i16 {
    (x * 32_767.0).round().clamp(-32_768.0, 32_767.0) as i16
}

impl SimRig {
    /// What receiver `rx`'s audio chain looks like now.
    fn rx_view(&self, rx: usize) -> RxView {
        RxView {
            passband: self.rx_passband(rx),
            frontend: self.frontend(rx),
            af: self.state.rx_level(rx, 0x01),
            rf_gain: self.state.rx_level(rx, 0x02),
            squelch: self.state.rx_level(rx, 0x03),
            muted: self.state.ptt,
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
        let [main, sub] = &self.mix;
        for (i, frame) in out.chunks_mut(ch).enumerate() {
            let m = main.get(i).copied().unwrap_or(0.0);
            let s = if with_sub {
                sub.get(i).copied().unwrap_or(0.0)
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
