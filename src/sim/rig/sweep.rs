//! Scope sweeps (`27 00`, LAN single-frame format): scheduling per receiver and the
//! frame `27 00 <rx> 01 01 <mode> <f1×5> <f2×5> <oor> <pixels…>`. Sweeps flow while the
//! radio is on and both the display (`27 10`) and the wave-data output (`27 11`) are on:
//! for both receivers in dual mode, else for the one shown. Rate: the configured sweep
//! rate at "fast", half at "mid", a quarter at "slow".

use std::time::Duration;

use super::SimRig;
use super::codec::freq_bytes;
use crate::profile::ScopeSourceKind;
use crate::sim::audio_synth::mode;
use crate::sim::band::{SignalKind, SignalSample};
use crate::sim::rng::hash3;
use crate::sim::spectrum::SweepRequest;
use crate::wire::civ::Frame;
use crate::wire::civ::cmd::{self, scope};

/// Next sweep time per receiver (`None` = not sweeping).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct SweepClock {
    next: [Option<Duration>; 2],
}

impl SweepClock {
    /// The earliest scheduled sweep.
    pub fn next_due(&self) -> Option<Duration> {
        self.next.iter().flatten().min().copied()
    }
}

/// Where a sweep looks: the mode byte, the two frequency fields and the edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SweepWindow {
    pub mode: u8,
    pub f1: u64,
    pub f2: u64,
    pub lo: u64,
    pub hi: u64,
    pub out_of_range: bool,
}

impl SimRig {
    /// True if receiver `rx` should be sweeping now.
    fn sweeping(&self, rx: usize) -> bool {
        let s = &self.state.scope;
        let dual = s.dual && self.receivers() == 2;
        self.profile.scope.source == ScopeSourceKind::Hardware
            && self.state.powered
            && s.display
            && s.output
            && rx < self.receivers()
            && (dual || rx == usize::from(s.shown_rx))
    }

    /// Starts or stops each receiver's sweep clock after a state change.
    pub(super) fn sync_sweeps(&mut self, now: Duration) {
        for rx in 0..2 {
            let on = self.sweeping(rx);
            if let Some(next) = self.sweeps.next.get_mut(rx) {
                match (on, *next) {
                    (true, None) => *next = Some(now),
                    (false, Some(_)) => *next = None,
                    _ => {}
                }
            }
        }
    }

    /// Time between two sweeps of receiver `rx`.
    fn sweep_period(&self, rx: usize) -> Duration {
        let rate = if self.cfg.sweep_rate_hz.is_finite() && self.cfg.sweep_rate_hz > 0.0 {
            self.cfg.sweep_rate_hz.clamp(0.01, 1_000.0)
        } else {
            30.0
        };
        let speed = self.state.scope.rx.get(rx).map_or(0, |r| r.speed);
        let factor = match speed {
            0 => 1.0,
            1 => 0.5,
            _ => 0.25,
        };
        Duration::from_secs_f64(1.0 / (rate * factor))
    }

    /// Changes the sweep rate at "fast" (front-panel / operator setting).
    pub(super) fn set_sweep_rate(&mut self, hz: f64) {
        if hz.is_finite() && hz > 0.0 {
            self.cfg.sweep_rate_hz = hz.clamp(0.01, 1_000.0);
        }
    }

    /// Appends the sweeps due at `now` (at most one per receiver).
    pub(super) fn emit_sweeps(&mut self, now: Duration, out: &mut Vec<Frame>) {
        for rx in 0..2 {
            let Some(due) = self.sweeps.next.get(rx).copied().flatten() else {
                continue;
            };
            if due > now {
                continue;
            }
            let frame = self.sweep_frame(rx, due);
            out.push(frame);
            let period = self.sweep_period(rx);
            let mut next = due.saturating_add(period);
            if next <= now {
                next = now.saturating_add(period);
            }
            if let Some(n) = self.sweeps.next.get_mut(rx) {
                *n = Some(next);
            }
        }
    }

    /// The window of receiver `rx`'s scope.
    pub(super) fn sweep_window(&self, rx: usize) -> SweepWindow {
        let settings = self.state.scope.rx.get(rx).copied().unwrap_or_default();
        let f = self
            .state
            .vfo(self.state.rx_slot(rx))
            .map_or(0, |v| v.freq_hz);
        let half = settings.half_span_hz;
        let (lo, hi, f1, f2) = match settings.mode {
            0 | 2 => {
                let lo = f.saturating_sub(half);
                let hi = f + half;
                if settings.mode == 0 {
                    (lo, hi, f, half)
                } else {
                    (lo, hi, lo, hi)
                }
            }
            _ => {
                let edges = self
                    .fixed_range_of(f)
                    .and_then(|r| self.fixed_edges(r, settings.edge));
                let (lo, hi) = edges.unwrap_or((
                    f.saturating_sub(25_000) / 1_000 * 1_000,
                    f / 1_000 * 1_000 + 25_000,
                ));
                (lo, hi, lo, hi)
            }
        };
        let centered = settings.mode % 2 == 0;
        let out_of_range =
            (centered && f < half) || !self.profile.in_range(lo) || !self.profile.in_range(hi);
        SweepWindow {
            mode: settings.mode,
            f1,
            f2,
            lo,
            hi,
            out_of_range,
        }
    }

    /// The radio's own transmission as the scope sees it at `t` (while PTT on `rx`, or
    /// while the CW key is down).
    fn tx_signal(&self, rx: usize, t: Duration) -> Option<SignalSample> {
        let slot = self.tx_slot();
        let carrier = self.state.ptt || self.cw_key_down(t);
        if !carrier || slot.rx != rx {
            return None;
        }
        let v = self.state.vfo(slot)?;
        let kind = match v.mode {
            mode::USB | mode::PSK => SignalKind::Usb,
            mode::LSB | mode::PSK_R => SignalKind::Lsb,
            mode::AM => SignalKind::Am,
            mode::FM | mode::DV | mode::DD => SignalKind::Fm,
            _ => SignalKind::Cw,
        };
        let watts_db = 10.0 * (f32::from(self.state.rf_power()).max(1.0) / 255.0).log10();
        Some(SignalSample {
            id: u32::MAX - rx as u32,
            kind,
            freq_hz: v.freq_hz as f64,
            level_dbm: -25.0 + watts_db,
            voice: 0.8,
            pitch_hz: 150.0,
            shape: [1.0, 0.6, 0.3],
        })
    }

    /// One sweep of receiver `rx` at time `due`.
    fn sweep_frame(&mut self, rx: usize, due: Duration) -> Frame {
        let w = self.sweep_window(rx);
        let rxb = rx as u8;
        let mut data = Vec::with_capacity(16 + usize::from(self.profile.scope.pixels));
        // one frame per sweep on LAN: sequence 1 of 1
        data.extend_from_slice(&[scope::WAVE, rxb, 0x01, 0x01, w.mode]);
        data.extend_from_slice(&freq_bytes(w.f1));
        data.extend_from_slice(&freq_bytes(w.f2));
        data.push(u8::from(w.out_of_range));
        if !w.out_of_range {
            let pixels = usize::from(self.profile.scope.pixels);
            let hold = self.state.scope.rx.get(rx).is_some_and(|r| r.hold);
            let held = self.held.get(rx).filter(|h| hold && h.len() == pixels);
            if let Some(h) = held {
                data.extend_from_slice(h);
            } else {
                let req = SweepRequest {
                    lo_hz: w.lo,
                    hi_hz: w.hi,
                    pixels,
                    amp_max: self.profile.scope.amp_max,
                    t: due.as_secs_f64(),
                    frontend: self.frontend(rx),
                    ref_db: self
                        .state
                        .scope
                        .rx
                        .get(rx)
                        .map_or(0.0, |r| f32::from(r.ref_tenths_db) / 10.0),
                    texture_seed: hash3(self.cfg.seed, rx as u64, due.as_nanos() as u64),
                };
                let extra: Vec<SignalSample> = self.tx_signal(rx, due).into_iter().collect();
                let start = data.len();
                self.spectrum.render(&self.band, &req, &extra, &mut data);
                if let (Some(h), Some(px)) = (self.held.get_mut(rx), data.get(start..)) {
                    h.clear();
                    h.extend_from_slice(px);
                }
            }
        }
        Frame::new(
            self.state.scope.controller,
            self.civ_addr(),
            cmd::SCOPE,
            &data,
        )
    }
}
