//! RX audio synthesised from the band model, through a receiver's mode and filter.
//!
//! Every control tick (2 ms) the renderer asks the band for the signals in the receiver's
//! passband and turns each into a "part": CW, beacons and FT8 become tones at their beat
//! frequency, SSB becomes band-limited noise with a syllabic envelope and a voice buzz at
//! its audio offset (mirrored on the opposite sideband), AM carriers become a voice-like
//! modulated tone in AM mode (and a whistle on SSB), FM voice becomes voice noise with
//! limiter quieting of the receiver noise. A simple AGC references all levels to the
//! strongest of (signal + noise, a knee raised by the RF gain control). Per sample, the
//! voices are phase accumulators on a sine table and band-pass biquads on white noise.

pub mod dsp;
pub mod passband;

pub use passband::{Detector, Passband, mode};

use crate::sim::band::{Band, SignalKind, SignalSample};
use crate::sim::frontend::{Frontend, dbm, mw, smeter_raw};
use crate::sim::rng::Rng;
use dsp::{BandPass, Ramp, phase_step, sin_at, sine_table};

/// AGC knee: below this total level the audio gain stops rising, dBm (about S4, where a
/// receiver's AGC starts to act: a quiet band's noise plays below full output, as on a
/// real radio, and a signal above it at full output).
pub const AGC_KNEE_DBM: f32 = -100.0;
/// Output of a signal at the AGC's level at AF 255, relative to full scale. The AF control
/// tapers as `af^1.5`, so the middle setting (128) gives −9 dBFS, about a real radio's
/// LAN audio at its default output level (it was −15 dBFS, 6 dB quieter).
const MASTER_AT_FULL_AF: f32 = 1.0;
/// Voiced speech: harmonics of the pitch nearest these audio frequencies (near the first
/// formants), Hz from the carrier, with their amplitudes relative to the voice's noise.
/// They give a voice the spectral lines a real one has (an audio FFT shows its peaks).
const FORMANTS: [(f32, f32); 3] = [(500.0, 0.45), (1_000.0, 0.35), (1_700.0, 0.2)];
/// Most voices rendered at once per receiver.
const MAX_VOICES: usize = 24;

/// What a receiver is doing, as the audio sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RxView {
    /// Mode, filter and dial frequency.
    pub passband: Passband,
    /// ATT / preamp.
    pub frontend: Frontend,
    /// AF level 0..255.
    pub af: u16,
    /// RF gain 0..255 (255 = full gain).
    pub rf_gain: u16,
    /// Squelch level 0..255 (0 = open).
    pub squelch: u16,
    /// How much the noise blanker and noise reduction lower the receiver noise, dB
    /// (0 with both off).
    pub noise_cut_db: f32,
    /// Auto notch: steady carriers heard as tones on SSB are notched out (−30 dB).
    pub auto_notch: bool,
    /// True while the receiver must be silent (power off, transmitting, AF mute).
    pub muted: bool,
}

/// Amplitude left of a carrier by the auto notch (−30 dB).
const NOTCH_GAIN: f32 = 0.03;

/// One signal's share of the audio at a control tick.
#[derive(Debug, Clone, Copy)]
struct Part {
    id: u32,
    /// Level in the passband, dBm; `None` for FM-limited audio (constant loudness).
    level_dbm: Option<f32>,
    tones: [(f32, f32); 3],
    /// Band-limited noise: (centre Hz, width Hz, relative amplitude).
    noise: (f32, f32, f32),
    pitch_hz: f32,
    buzz: f32,
}

impl Part {
    fn new(id: u32, level_dbm: Option<f32>) -> Part {
        Part {
            id,
            level_dbm,
            tones: [(0.0, 0.0); 3],
            noise: (1_000.0, 1_000.0, 0.0),
            pitch_hz: 0.0,
            buzz: 0.0,
        }
    }
}

/// A sounding signal: oscillators and a noise filter with ramped gains.
#[derive(Debug, Clone)]
struct Voice {
    id: u32,
    phase: [u32; 3],
    step: [u32; 3],
    tone: [Ramp; 3],
    noise: Ramp,
    bp: BandPass,
    pitch_phase: u32,
    pitch_step: u32,
    buzz: f32,
    live: bool,
}

impl Voice {
    fn new(id: u32, sample_rate: u32) -> Voice {
        Voice {
            id,
            phase: [0; 3],
            step: [0; 3],
            tone: [Ramp::default(); 3],
            noise: Ramp::default(),
            bp: BandPass::new(1_000.0, 1_000.0, sample_rate),
            pitch_phase: 0,
            pitch_step: 0,
            buzz: 0.0,
            live: false,
        }
    }

    fn silent(&self) -> bool {
        self.tone
            .iter()
            .chain(std::iter::once(&self.noise))
            .all(|r| r.value == 0.0 && r.target() == 0.0)
    }

    #[inline]
    fn next(&mut self, table: &[f32], rng: &mut Rng) -> f32 {
        let mut s = 0.0;
        for k in 0..3 {
            let a = self.tone[k].step();
            if a != 0.0 {
                s += a * sin_at(table, self.phase[k]);
            }
            self.phase[k] = self.phase[k].wrapping_add(self.step[k]);
        }
        let na = self.noise.step();
        if na != 0.0 {
            let buzz = 1.0 - self.buzz * (0.5 - 0.5 * sin_at(table, self.pitch_phase));
            s += na * buzz * self.bp.process(rng.bipolar());
        }
        self.pitch_phase = self.pitch_phase.wrapping_add(self.pitch_step);
        s
    }
}

/// The audio renderer of one receiver. Keeps oscillator phases and filter states between
/// blocks so consecutive blocks join without clicks.
#[derive(Debug, Clone)]
pub struct RxAudio {
    rng: Rng,
    voices: Vec<Voice>,
    noise_bp: BandPass,
    noise: Ramp,
    master: Ramp,
    parts: Vec<Part>,
}

impl RxAudio {
    /// A renderer whose noise is seeded with `seed`.
    pub fn new(seed: u64) -> RxAudio {
        RxAudio {
            rng: Rng::new(seed),
            voices: Vec::new(),
            noise_bp: BandPass::new(1_400.0, 2_400.0, 48_000),
            noise: Ramp::default(),
            master: Ramp::default(),
            parts: Vec::new(),
        }
    }

    /// Fills `out` (mono, −1..1) with the audio of `view` starting `t0` seconds after the
    /// simulation started.
    pub fn render(
        &mut self,
        band: &Band,
        view: &RxView,
        t0: f64,
        sample_rate: u32,
        out: &mut [f32],
    ) {
        if sample_rate == 0 {
            out.fill(0.0);
            return;
        }
        // a 2 ms control tick: keying edges ramp over 2 ms, like a soft keying envelope
        let tick = (sample_rate / 500).max(1) as usize;
        let table = sine_table();
        for (k, chunk) in out.chunks_mut(tick).enumerate() {
            let t = t0 + (k * tick) as f64 / f64::from(sample_rate);
            self.control(band, view, t, sample_rate, chunk.len());
            for s in chunk.iter_mut() {
                let mut acc = 0.0;
                for v in self.voices.iter_mut() {
                    acc += v.next(table, &mut self.rng);
                }
                let n = self.noise.step();
                if n != 0.0 {
                    acc += n * self.noise_bp.process(self.rng.bipolar());
                }
                *s = acc * self.master.step();
            }
        }
    }

    /// One control tick: find the parts, run the AGC and squelch, retarget the voices.
    fn control(&mut self, band: &Band, view: &RxView, t: f64, sr: u32, len: usize) {
        let pb = &view.passband;
        let fe = view.frontend;
        let noise_dbm = fe.noise(Band::noise_floor(pb.dial_hz.max(0.0) as u64), pb.width_hz);
        let mut total_mw = mw(noise_dbm);
        let mut carrier_dbm = -200.0f32;
        self.parts.clear();
        let (lo, hi) = pb.search_window();
        let nyquist = sr as f32 / 2.0;
        for s in band.signals_near(lo, hi, t) {
            let lvl = fe.signal(s.level_dbm);
            let (part, in_band_mw) = match pb.detector {
                Detector::Product { shift_hz, .. } => {
                    // the auto notch works on SSB (no BFO shift), not CW / RTTY
                    let notch = view.auto_notch && shift_hz == 0.0;
                    product_part(pb, &s, lvl, notch)
                }
                Detector::Envelope => envelope_part(pb, &s, lvl),
                Detector::Fm => {
                    let g = pb.gain_at(s.freq_hz);
                    if g > 0.3 {
                        carrier_dbm = carrier_dbm.max(lvl);
                    }
                    (fm_part(pb, &s, g), mw(lvl) * g * g)
                }
            };
            total_mw += in_band_mw;
            if let Some(mut p) = part {
                for tone in &mut p.tones {
                    if tone.0 <= 20.0 || tone.0 >= nyquist {
                        tone.1 = 0.0;
                    }
                }
                self.parts.push(p);
            }
        }
        let total = dbm(total_mw);
        let rf_red = f32::from(255u16.saturating_sub(view.rf_gain)) / 255.0 * 50.0;
        let l_ref = total.max(AGC_KNEE_DBM + rf_red);
        let fm = matches!(pb.detector, Detector::Fm);
        let cut = 10f32.powf(-view.noise_cut_db.max(0.0) / 20.0);
        let noise_amp = cut
            * if fm {
                1.0 / (1.0 + 10f32.powf((carrier_dbm - noise_dbm - 6.0) / 10.0))
            } else {
                10f32.powf((noise_dbm - l_ref) / 20.0)
            };
        let open =
            view.squelch == 0 || f32::from(smeter_raw(total)) >= f32::from(view.squelch) * 0.6;
        let af = f32::from(view.af.min(255)) / 255.0;
        let master = if view.muted || !open {
            0.0
        } else {
            af * af.sqrt() * MASTER_AT_FULL_AF
        };
        self.master.set(master, len);
        self.noise_bp.tune(
            (pb.audio_lo + pb.audio_hi) / 2.0,
            pb.audio_hi - pb.audio_lo,
            sr,
        );
        self.noise.set(noise_amp, len);
        self.retarget(l_ref, 1.0 - noise_amp, sr, len);
    }

    /// Points the voices at this tick's parts; voices without a part fade out.
    fn retarget(&mut self, l_ref: f32, limiter: f32, sr: u32, len: usize) {
        self.parts.sort_by(|a, b| {
            let la = a.level_dbm.unwrap_or(f32::MAX);
            let lb = b.level_dbm.unwrap_or(f32::MAX);
            lb.total_cmp(&la)
        });
        self.parts.truncate(MAX_VOICES);
        for v in &mut self.voices {
            v.live = false;
        }
        for p in &self.parts {
            let gain = match p.level_dbm {
                Some(l) => 10f32.powf((l - l_ref) / 20.0),
                None => 0.8 * limiter,
            };
            let idx = match self.voices.iter().position(|v| v.id == p.id) {
                Some(i) => i,
                None => {
                    self.voices.push(Voice::new(p.id, sr));
                    self.voices.len() - 1
                }
            };
            let Some(v) = self.voices.get_mut(idx) else {
                continue;
            };
            for (k, &(f, a)) in p.tones.iter().enumerate() {
                if let (Some(step), Some(ramp)) = (v.step.get_mut(k), v.tone.get_mut(k)) {
                    *step = phase_step(f, sr);
                    ramp.set(a * gain, len);
                }
            }
            let (c, w, a) = p.noise;
            if a > 0.0 {
                v.bp.tune(c, w, sr);
            }
            v.noise.set(a * gain, len);
            v.pitch_step = phase_step(p.pitch_hz, sr);
            v.buzz = p.buzz;
            v.live = true;
        }
        for v in &mut self.voices {
            if !v.live {
                for r in &mut v.tone {
                    r.set(0.0, len);
                }
                v.noise.set(0.0, len);
            }
        }
        self.voices.retain(|v| v.live || !v.silent());
    }
}

/// A voice band mapped through the passband: (centre, width, fraction of the signal's
/// bandwidth that passes), or `None` when less than 30 Hz passes.
fn voice_band(pb: &Passband, lo_rf: f64, hi_rf: f64) -> Option<(f32, f32, f32)> {
    let (a, b) = (pb.audio_hz(lo_rf), pb.audio_hz(hi_rf));
    let (alo, ahi) = (a.min(b), a.max(b));
    let olo = alo.max(pb.audio_lo);
    let ohi = ahi.min(pb.audio_hi);
    if ohi - olo < 30.0 || ahi <= alo {
        return None;
    }
    Some(((olo + ohi) / 2.0, ohi - olo, (ohi - olo) / (ahi - alo)))
}

/// SSB/CW/RTTY/PSK reception of one signal: `(part, power inside the passband mW)`.
/// With `notch`, steady carriers (CW, beacons, FM and AM carriers) are notched out of
/// the audio (FT8 hops too fast for the auto notch).
fn product_part(pb: &Passband, s: &SignalSample, lvl: f32, notch: bool) -> (Option<Part>, f32) {
    let carrier = if notch { NOTCH_GAIN } else { 1.0 };
    match s.kind {
        SignalKind::Cw | SignalKind::Beacon | SignalKind::Ft8 | SignalKind::Fm => {
            let g = pb.gain_at(s.freq_hz);
            if g <= 0.0 {
                return (None, 0.0);
            }
            let mut p = Part::new(s.id, Some(lvl));
            let a = if s.kind == SignalKind::Ft8 {
                1.0
            } else {
                carrier
            };
            p.tones[0] = (pb.audio_hz(s.freq_hz), g * a);
            (Some(p), mw(lvl) * g * g)
        }
        SignalKind::Usb | SignalKind::Lsb | SignalKind::Wfm => {
            let (l, h) = s.extent();
            let Some((c, w, frac)) = voice_band(pb, l, h) else {
                return (None, 0.0);
            };
            let mut p = Part::new(s.id, Some(lvl));
            p.noise = (c, w, 0.6 * frac.sqrt());
            p.pitch_hz = s.pitch_hz;
            p.buzz = 0.6;
            if s.kind != SignalKind::Wfm {
                voiced(&mut p, pb, s);
            }
            (Some(p), mw(lvl) * frac)
        }
        SignalKind::Am => {
            let g = pb.gain_at(s.freq_hz);
            let (l, h) = s.extent();
            let band = voice_band(pb, l, h);
            if g <= 0.0 && band.is_none() {
                return (None, 0.0);
            }
            let mut p = Part::new(s.id, Some(lvl));
            p.tones[0] = (pb.audio_hz(s.freq_hz), 0.84 * g * carrier);
            let mut power = mw(lvl) * 0.7 * g * g;
            if let Some((c, w, frac)) = band {
                p.noise = (c, w, (0.3 * s.voice * frac).sqrt());
                p.pitch_hz = s.pitch_hz;
                p.buzz = 0.3;
                power += mw(lvl) * 0.3 * s.voice * frac;
            }
            (Some(p), power)
        }
    }
}

/// The voiced harmonics of an SSB voice `s` (pitch harmonics near [`FORMANTS`], on its
/// sideband) into `p`'s tones, through the passband.
fn voiced(p: &mut Part, pb: &Passband, s: &SignalSample) {
    if s.pitch_hz <= 0.0 {
        return;
    }
    let side = if s.kind == SignalKind::Lsb { -1.0 } else { 1.0 };
    for (tone, (f, a)) in p.tones.iter_mut().zip(FORMANTS) {
        let offset = (f / s.pitch_hz).round().max(1.0) * s.pitch_hz;
        let rf = s.freq_hz + side * f64::from(offset);
        let g = pb.gain_at(rf);
        if g > 0.0 {
            *tone = (pb.audio_hz(rf), a * g);
        }
    }
}

/// AM (envelope detector) reception of one signal.
fn envelope_part(pb: &Passband, s: &SignalSample, lvl: f32) -> (Option<Part>, f32) {
    let g = pb.gain_at(s.freq_hz);
    match s.kind {
        SignalKind::Am if g > 0.05 => {
            let mut p = Part::new(s.id, Some(lvl + 20.0 * g.log10()));
            let v = s.voice;
            let f0 = s.pitch_hz.max(80.0);
            p.tones = [(f0, 0.6 * v), (2.0 * f0, 0.35 * v), (3.0 * f0, 0.2 * v)];
            p.noise = (1_400.0, 2_400.0_f32.min(pb.audio_hi * 2.0), 0.4 * v);
            p.pitch_hz = f0;
            p.buzz = 0.3;
            (Some(p), mw(lvl) * g * g)
        }
        SignalKind::Usb | SignalKind::Lsb => {
            let (l, h) = s.extent();
            let Some((c, w, frac)) = voice_band(pb, l, h) else {
                return (None, 0.0);
            };
            let mut p = Part::new(s.id, Some(lvl));
            p.noise = (c, w, 0.7 * frac.sqrt());
            p.pitch_hz = s.pitch_hz;
            p.buzz = 0.6;
            (Some(p), mw(lvl) * frac)
        }
        _ => (None, mw(lvl) * g * g),
    }
}

/// FM reception of one signal (`g` = filter gain at its carrier).
fn fm_part(pb: &Passband, s: &SignalSample, g: f32) -> Option<Part> {
    if g <= 0.3 {
        return None;
    }
    let mut p = Part::new(s.id, None);
    let v = s.voice;
    match s.kind {
        SignalKind::Fm => {
            p.noise = (1_200.0, 2_000.0, 0.9 * v);
            p.pitch_hz = s.pitch_hz;
            p.buzz = 0.7;
        }
        SignalKind::Wfm | SignalKind::Am => {
            let f0 = s.pitch_hz.max(80.0);
            p.tones = [(f0, 0.5 * v), (1.5 * f0, 0.35 * v), (2.0 * f0, 0.3 * v)];
            p.noise = (pb.audio_hi / 3.0, pb.audio_hi / 2.0, 0.15 * v);
            p.pitch_hz = f0;
            p.buzz = 0.2;
        }
        _ => return None,
    }
    Some(p)
}

#[cfg(test)]
mod tests;
