//! Meters (`15 xx`, read only) and what drives them. RX: the S-meter reads the band
//! model's signals inside the receiver's passband plus the band noise, through the ATT /
//! preamp, so it fades with QSB and differs per band. TX: Po follows the RF power level
//! (and the speech envelope on SSB), SWR is fixed per band (lower with the tuner on),
//! ALC / COMP follow the TX audio, Id rises and Vd dips. While receiving the TX meters
//! read 0 and Vd reads 185 (13.8 V).

use super::codec::{Reply, level_bytes};
use super::state::Slot;
use super::{SimRig, Target};
use crate::sim::audio_synth::{Passband, mode};
use crate::sim::band::Band;
use crate::sim::band::voice_envelope;
use crate::sim::frontend::{Frontend, power_sum, smeter_raw};
use crate::sim::rng::{hash2, unit};
use crate::wire::civ::cmd::{self, function, level, meter};
use crate::wire::civ::width_of_index;
use crate::wire::meter::MeterKind;

/// Vd reading at 13.8 V.
const VD_IDLE: u16 = 185;

/// Smoothed level of the TX audio received while transmitting.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct TxAudioLevel {
    /// RMS, 0..1 of full scale.
    pub rms: f32,
    /// Decaying peak, 0..1.
    pub peak: f32,
    /// True once audio arrived during this transmission.
    pub seen: bool,
}

impl TxAudioLevel {
    /// Folds one block of samples into the level.
    pub fn accept(&mut self, samples: &[i16]) {
        if samples.is_empty() {
            return;
        }
        let mut sum = 0.0f64;
        let mut peak = 0.0f32;
        for &s in samples {
            let v = f32::from(s) / 32_768.0;
            sum += f64::from(v * v);
            peak = peak.max(v.abs());
        }
        let rms = (sum / samples.len() as f64).sqrt() as f32;
        self.rms = if self.seen {
            0.6 * self.rms + 0.4 * rms
        } else {
            rms
        };
        self.peak = peak.max(self.peak * 0.7);
        self.seen = true;
    }
}

/// Piecewise-linear interpolation through `(x, y)` points sorted by x.
fn interp(points: &[(f32, f32)], x: f32) -> f32 {
    let Some(&(x0, y0)) = points.first() else {
        return 0.0;
    };
    if x <= x0 {
        return y0;
    }
    for w in points.windows(2) {
        let ((a, ya), (b, yb)) = (w[0], w[1]);
        if x <= b {
            return ya + (yb - ya) * (x - a) / (b - a);
        }
    }
    points.last().map_or(0.0, |p| p.1)
}

/// TX meter readings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct TxMeters {
    pub po: u16,
    pub swr: u16,
    pub alc: u16,
    pub comp: u16,
    pub id: u16,
    pub vd: u16,
}

impl SimRig {
    /// Filter width of a slot, Hz: the `1A 03` index where the mode has one, else the
    /// profile's fixed width.
    pub(super) fn filter_width_hz(&self, slot: Slot) -> f32 {
        let Some(v) = self.state.vfo(slot) else {
            return 2_400.0;
        };
        let idx = self
            .state
            .receivers
            .get(slot.rx)
            .and_then(|r| r.widths.get(&(v.mode, v.filter)).copied())
            .or_else(|| super::state::default_width_index(&self.profile, v.mode, v.filter));
        if let Some(hz) = idx.and_then(|i| width_of_index(v.mode, i)) {
            return hz as f32;
        }
        crate::wire::civ::Mode::from_code(v.mode)
            .and_then(|m| self.profile.filter_widths(m))
            .and_then(|w| w.get(usize::from(v.filter.max(1) - 1)).copied())
            .map_or(2_400.0, |w| w as f32)
    }

    /// The passband of receiver `rx` (its active VFO; RIT on the selected receiver).
    pub(super) fn rx_passband(&self, rx: usize) -> Passband {
        let slot = self.state.rx_slot(rx);
        let v = self.state.vfo(slot).copied().unwrap_or(super::VfoState {
            freq_hz: 0,
            mode: mode::USB,
            filter: 1,
            data: 0,
        });
        let mut dial = v.freq_hz as f64;
        if self.state.rit_on && slot == self.state.selected_slot(self.scheme()) {
            dial += f64::from(self.state.rit_hz);
        }
        Passband::new(
            v.mode,
            dial,
            self.filter_width_hz(slot),
            self.state.cw_pitch_hz(),
        )
    }

    /// ATT / preamp of receiver `rx`.
    pub(super) fn frontend(&self, rx: usize) -> Frontend {
        self.state
            .receivers
            .get(rx)
            .map_or(Frontend::OFF, |r| Frontend::new(r.att_db, r.preamp))
    }

    /// Total level in receiver `rx`'s passband (signals + noise), dBm meter-referred.
    fn rx_level_dbm(&self, rx: usize) -> f32 {
        let pb = self.rx_passband(rx);
        let fe = self.frontend(rx);
        let t = self.now.as_secs_f64();
        let lo = pb.rf_lo.max(0.0) as u64;
        let hi = pb.rf_hi.max(0.0) as u64;
        let sig = self.band.signal_power_dbm(lo, hi, t);
        // band noise is not steady: it wanders by about ±1.5 dB from one tenth of a
        // second to the next, as a real S-meter shows on an empty frequency
        let tick = (t * 10.0) as u64;
        let wander = (unit(hash2(self.cfg.seed ^ rx as u64, tick)) - 0.5) * 3.0;
        let noise = fe.noise(Band::noise_floor(pb.dial_hz.max(0.0) as u64), pb.width_hz) + wander;
        power_sum(fe.signal(sig), noise)
    }

    /// S-meter of receiver `rx` (0 while transmitting).
    pub(super) fn smeter(&self, rx: usize) -> u16 {
        if self.transmitting() {
            0
        } else {
            smeter_raw(self.rx_level_dbm(rx))
        }
    }

    /// True if receiver `rx`'s squelch is open.
    fn squelch_open(&self, rx: usize) -> bool {
        let sql = self.state.rx_level(rx, level::SQUELCH);
        sql == 0 || f32::from(self.smeter(rx)) >= f32::from(sql) * 0.6
    }

    /// ADC overload: a very strong signal near the receiver.
    fn overflow(&self, rx: usize) -> bool {
        let pb = self.rx_passband(rx);
        let d = pb.dial_hz.max(0.0) as u64;
        let t = self.now.as_secs_f64();
        let p = self
            .band
            .signal_power_dbm(d.saturating_sub(50_000), d + 50_000, t);
        self.frontend(rx).signal(p) > -20.0
    }

    /// The slot that transmits: the unselected one in split, else the selected one.
    pub(super) fn tx_slot(&self) -> Slot {
        if self.state.split {
            self.state.unselected_slot(self.scheme())
        } else {
            self.state.selected_slot(self.scheme())
        }
    }

    /// The TX meters now (while CW is sent: only while the key is down).
    pub(super) fn tx_meters(&self) -> TxMeters {
        let carrier = self.state.ptt || self.cw_key_down(self.now);
        if !carrier {
            return TxMeters {
                vd: VD_IDLE,
                ..TxMeters::default()
            };
        }
        let p = &self.profile.power;
        let max_w = p.max_watts.max(1) as f32;
        let set_w = p.min_watts as f32
            + (p.max_watts as f32 - p.min_watts as f32) * f32::from(self.state.rf_power()) / 255.0;
        let v = self.state.vfo(self.tx_slot()).copied();
        let voice_mode = v.is_some_and(|v| {
            matches!(v.mode, mode::USB | mode::LSB | mode::AM | mode::DV) && v.data == 0
        });
        let mic = f32::from(self.state.level(level::MIC_GAIN)) / 128.0;
        let tx = self.tx_level;
        let env = if tx.seen {
            (tx.rms * 4.0 * mic).min(1.0)
        } else {
            let e = voice_envelope(hash2(self.cfg.seed, 0x7E), self.now.as_secs_f64());
            0.35 + 0.65 * e
        };
        let drive = if voice_mode || v.is_some_and(|v| v.data > 0) {
            env
        } else {
            1.0
        };
        let frac = set_w * drive / max_w;
        let po = interp(
            &[(0.0, 0.0), (0.5, 143.0), (1.0, 213.0), (1.2, 255.0)],
            frac,
        );
        let hz = v.map_or(0, |v| v.freq_hz);
        let band_idx = self
            .profile
            .bands()
            .position(|b| (b.start_hz..=b.end_hz).contains(&hz))
            .unwrap_or(0);
        let x = unit(hash2(self.cfg.seed, band_idx as u64));
        let tuned =
            self.state.tuner == 1 && self.profile.has_feature(crate::profile::Feature::Tuner);
        let ratio = if tuned { 1.0 + 0.1 * x } else { 1.1 + 0.9 * x };
        let swr = interp(
            &[
                (1.0, 0.0),
                (1.5, 48.0),
                (2.0, 80.0),
                (3.0, 120.0),
                (6.0, 255.0),
            ],
            ratio,
        );
        let alc = if tx.seen {
            (tx.peak * 160.0 * mic).min(255.0)
        } else {
            20.0 + 60.0 * drive
        };
        let comp_on = self.state.function(function::COMP) == 1;
        let comp_level = f32::from(self.state.level(level::COMP)) / 255.0;
        let comp = if comp_on && voice_mode {
            241.0 * comp_level * drive
        } else {
            0.0
        };
        let amps = 0.5 + frac * max_w * 0.2;
        let id = interp(
            &[(0.0, 0.0), (10.0, 77.0), (20.0, 165.0), (30.0, 241.0)],
            amps,
        );
        let vd = f32::from(VD_IDLE) - 8.0 * frac.min(1.0);
        let r = |x: f32| x.round().clamp(0.0, 255.0) as u16;
        TxMeters {
            po: r(po),
            swr: if frac > 0.0 { r(swr) } else { 0 },
            alc: r(alc),
            comp: r(comp),
            id: r(id),
            vd: r(vd),
        }
    }

    /// `15 <sub>`: meters (read only).
    pub(super) fn cmd_meter(&mut self, target: Target, data: &[u8]) -> Reply {
        let [sub] = data else {
            return Reply::Nak;
        };
        let via29 = match target {
            Target::Selected => None,
            Target::Rx(r) => Some(r),
        };
        *self.state.meter_reads.entry((via29, *sub)).or_default() += 1;
        let rx = self.rx_of(target);
        let has = |kind: MeterKind| self.profile.has_meter(kind);
        let two = |v: u16| Reply::data(cmd::METER, &[&[*sub], &level_bytes(v)]);
        let one = |v: bool| Reply::data(cmd::METER, &[&[*sub, u8::from(v)]]);
        match *sub {
            meter::SQUELCH_OPEN | meter::VARIOUS_SQUELCH => one(self.squelch_open(rx)),
            meter::S_METER => two(self.smeter(rx)),
            meter::OVERFLOW => one(self.overflow(rx)),
            meter::PO if has(MeterKind::Power) => two(self.tx_meters().po),
            meter::SWR if has(MeterKind::Swr) => two(self.tx_meters().swr),
            meter::ALC if has(MeterKind::Alc) => two(self.tx_meters().alc),
            meter::COMP if has(MeterKind::Comp) => two(self.tx_meters().comp),
            meter::VD if has(MeterKind::Vd) => two(self.tx_meters().vd),
            meter::ID if has(MeterKind::Id) => two(self.tx_meters().id),
            _ => Reply::Nak,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_and_tx_level() {
        let pts = [(0.0, 0.0), (0.5, 143.0), (1.0, 213.0)];
        assert_eq!(interp(&pts, -1.0), 0.0);
        assert_eq!(interp(&pts, 0.5), 143.0);
        assert_eq!(interp(&pts, 0.75), 178.0);
        assert_eq!(interp(&pts, 9.0), 213.0);
        assert_eq!(interp(&[], 1.0), 0.0);
        let mut l = TxAudioLevel::default();
        l.accept(&[]);
        assert!(!l.seen);
        l.accept(&[16_384, -16_384, 16_384, -16_384]);
        assert!(l.seen);
        assert!((l.rms - 0.5).abs() < 1e-3 && (l.peak - 0.5).abs() < 1e-3);
    }
}
