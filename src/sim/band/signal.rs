//! One synthetic transmission and how it looks at time `t`: keying (Morse), voice
//! envelopes (syllables and pauses), QSO overs (two stations taking turns), FT8 slots
//! and slow fading (QSB). Everything is a pure function of the signal's parameters and
//! `t`, so the scope and the audio see exactly the same band.

use crate::sim::rng::{hash2, hash3, mix64, unit};

/// What kind of emission a signal is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalKind {
    /// Hand-keyed CW, in overs.
    Cw,
    /// A beacon: a keyed identification, then a steady carrier, on a 30 s cycle.
    Beacon,
    /// SSB voice, upper sideband (`freq_hz` is the suppressed carrier).
    Usb,
    /// SSB voice, lower sideband (`freq_hz` is the suppressed carrier).
    Lsb,
    /// AM: a carrier with voice/music sidebands (broadcast: always on; airband/CB: overs).
    Am,
    /// FT8: 8-FSK tones 6.25 Hz apart, 12.64 s transmissions in 15 s slots.
    Ft8,
    /// Narrow FM voice (10 m, VHF, UHF).
    Fm,
    /// Wide FM broadcast.
    Wfm,
}

impl SignalKind {
    /// Largest distance, Hz, between `freq_hz` and any part of the emission.
    pub fn half_width_hz(self) -> u64 {
        match self {
            SignalKind::Cw | SignalKind::Beacon | SignalKind::Ft8 => 60,
            SignalKind::Usb | SignalKind::Lsb => 3_000,
            SignalKind::Am => 5_000,
            SignalKind::Fm => 6_000,
            SignalKind::Wfm => 100_000,
        }
    }
}

/// A signal as it is at one instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignalSample {
    /// Stable identity of the signal (index in the band), for phase-continuous audio.
    pub id: u32,
    /// Kind of emission.
    pub kind: SignalKind,
    /// Carrier, suppressed carrier or (FT8) current tone frequency, Hz.
    pub freq_hz: f64,
    /// Instantaneous power at the antenna, dBm (peak envelope power for SSB).
    pub level_dbm: f32,
    /// Modulation envelope 0..1 (voice or music loudness; 1 for CW/FT8 tones).
    pub voice: f32,
    /// Pitch of the voice/music, Hz (used to synthesise AM/FM audio).
    pub pitch_hz: f32,
    /// Relative spectral weights of the low, middle and high thirds of a voice band.
    pub shape: [f32; 3],
}

impl SignalSample {
    /// The occupied frequency range `(lo, hi)`, Hz.
    pub fn extent(&self) -> (f64, f64) {
        let f = self.freq_hz;
        match self.kind {
            SignalKind::Cw | SignalKind::Beacon | SignalKind::Ft8 => (f - 5.0, f + 5.0),
            SignalKind::Usb => (f + 300.0, f + 2_700.0),
            SignalKind::Lsb => (f - 2_700.0, f - 300.0),
            SignalKind::Am => (f - 4_500.0, f + 4_500.0),
            SignalKind::Fm => (f - 5_000.0, f + 5_000.0),
            SignalKind::Wfm => (f - 90_000.0, f + 90_000.0),
        }
    }
}

/// A stored signal: its fixed parameters.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Signal {
    /// Carrier / reference frequency, Hz.
    pub freq_hz: u64,
    /// Kind of emission.
    pub kind: SignalKind,
    /// Level of the first station of the QSO, dBm.
    pub base_dbm: f32,
    /// Level difference of the second station, dB.
    pub partner_db: f32,
    /// Fading depth, dB.
    pub qsb_depth_db: f32,
    /// Fading rate, Hz.
    pub qsb_rate_hz: f32,
    /// Fading phase, 0..1.
    pub qsb_phase: f32,
    /// Keying speed (CW, beacons), words per minute.
    pub wpm: f32,
    /// Length of one over cycle (both stations plus a pause), s.
    pub over_s: f32,
    /// Fraction of the over cycle with someone transmitting (1 = always on).
    pub duty: f32,
    /// Offset into the over cycle, s.
    pub phase_s: f32,
    /// FT8 slot parity (0 even, 1 odd).
    pub slot: u8,
    /// Per-signal hash key for keying, syllables and tones.
    pub key: u64,
}

/// Morse codes of A-Z and 0-9.
const MORSE: [&str; 36] = [
    ".-", "-...", "-.-.", "-..", ".", "..-.", "--.", "....", "..", ".---", "-.-", ".-..", "--",
    "-.", "---", ".--.", "--.-", ".-.", "...", "-", "..-", "...-", ".--", "-..-", "-.--", "--..",
    "-----", ".----", "..---", "...--", "....-", ".....", "-....", "--...", "---..", "----.",
];

/// Length of a Morse character in dit units (elements plus the gaps between them).
fn morse_len(code: &str) -> f64 {
    let elements: usize = code.bytes().map(|b| if b == b'.' { 1 } else { 3 }).sum();
    (elements + code.len().saturating_sub(1)) as f64
}

/// Key state of a Morse text at `t` seconds: "words" of 50 dit units filled with random
/// characters from `key` (the PARIS standard word length).
pub(crate) fn morse_key(key: u64, t: f64, wpm: f32) -> bool {
    if t < 0.0 || wpm <= 0.0 {
        return false;
    }
    let unit_s = 1.2 / f64::from(wpm);
    let u = t / unit_s;
    let word = (u / 50.0).floor();
    let pos = u - word * 50.0;
    let mut cursor = 0.0;
    for i in 0..16u64 {
        let code = MORSE[(hash3(key, word as u64, i) % MORSE.len() as u64) as usize];
        let len = morse_len(code);
        if cursor + len > 43.0 {
            return false;
        }
        if pos < cursor + len {
            let mut c = cursor;
            for el in code.bytes() {
                let d = if el == b'.' { 1.0 } else { 3.0 };
                if pos < c + d {
                    return true;
                }
                c += d + 1.0;
                if pos < c {
                    return false;
                }
            }
            return false;
        }
        cursor += len + 3.0;
        if pos < cursor {
            return false;
        }
    }
    false
}

/// One syllable of a voice: `(envelope 0..1, syllable hash)`. About 4.3 syllables per
/// second, with word gaps and an occasional breath pause.
pub(crate) fn syllable(key: u64, t: f64) -> (f32, u64) {
    let s = t * 4.3 + f64::from(unit(key)) * 7.0;
    let k = s.floor();
    let f = (s - k) as f32;
    let h = hash2(key, k as u64);
    // word gaps and breath pauses: about one syllable slot in five is silent.
    if unit(h) < 0.22 {
        return (0.0, h);
    }
    let amp = 0.35 + 0.65 * unit(mix64(h));
    (amp * (4.0 * f * (1.0 - f)).max(0.0).sqrt(), h)
}

impl Signal {
    /// The signal at `t` seconds, or `None` while it is silent (key up, pause, no over).
    pub fn eval(&self, id: u32, t: f64) -> Option<SignalSample> {
        let mut level = self.base_dbm + self.qsb(t);
        let mut sample = SignalSample {
            id,
            kind: self.kind,
            freq_hz: self.freq_hz as f64,
            level_dbm: level,
            voice: 1.0,
            pitch_hz: 0.0,
            shape: [1.0, 0.6, 0.3],
        };
        match self.kind {
            SignalKind::Beacon => {
                let tb = (t + f64::from(self.phase_s)).rem_euclid(30.0);
                if tb >= 28.0 || (tb < 10.0 && !morse_key(self.key, tb, self.wpm)) {
                    return None;
                }
            }
            SignalKind::Ft8 => {
                let cycle = (t / 15.0).floor();
                if (cycle as u64) % 2 != u64::from(self.slot) {
                    return None;
                }
                if unit(hash2(self.key, cycle as u64)) > 0.8 {
                    return None;
                }
                let tin = t - cycle * 15.0 - 0.5;
                if !(0.0..12.64).contains(&tin) {
                    return None;
                }
                let sym = (tin / 0.16).floor() as u64;
                let tone = hash3(self.key, cycle as u64, sym) % 8;
                sample.freq_hz += tone as f64 * 6.25;
            }
            SignalKind::Wfm => {
                let (v, h) = syllable(self.key, t * 0.5);
                sample.voice = 0.5 + 0.5 * v;
                sample.pitch_hz = 220.0 + 440.0 * unit(h >> 3);
            }
            _ => {
                let (station, tin) = self.over(t)?;
                if station == 1 {
                    level += self.partner_db;
                    sample.level_dbm = level;
                }
                let skey = self.key ^ u64::from(station);
                match self.kind {
                    SignalKind::Cw => {
                        if !morse_key(skey, tin, self.wpm) {
                            return None;
                        }
                    }
                    SignalKind::Usb | SignalKind::Lsb => {
                        let (v, h) = syllable(skey, t);
                        if v < 0.05 {
                            return None;
                        }
                        sample.level_dbm = level + 20.0 * v.log10();
                        sample.voice = v;
                        sample.pitch_hz = 100.0 + 120.0 * unit(h >> 5);
                        sample.shape = shape_of(h);
                    }
                    _ => {
                        // AM and FM keep their carrier; the voice only modulates.
                        let broadcast = self.duty >= 1.0;
                        let (v, h) = syllable(skey, if broadcast { t * 0.7 } else { t });
                        sample.voice = if broadcast { 0.4 + 0.6 * v } else { v };
                        sample.pitch_hz = if broadcast {
                            180.0 + 500.0 * unit(h >> 5)
                        } else {
                            100.0 + 120.0 * unit(h >> 5)
                        };
                        sample.shape = shape_of(h);
                    }
                }
            }
        }
        Some(sample)
    }

    /// Slow fading, dB (always <= 0).
    fn qsb(&self, t: f64) -> f32 {
        if self.qsb_depth_db <= 0.0 {
            return 0.0;
        }
        let x = (t * f64::from(self.qsb_rate_hz) + f64::from(self.qsb_phase)).fract() as f32;
        0.5 * self.qsb_depth_db * ((x * std::f32::consts::TAU).sin() - 1.0)
    }

    /// Which station (0/1) is transmitting at `t` and for how long it has been, or `None`
    /// during the pause of the over cycle.
    fn over(&self, t: f64) -> Option<(u8, f64)> {
        if self.duty >= 1.0 {
            return Some((0, t));
        }
        let over = f64::from(self.over_s.max(1.0));
        let pos = (t + f64::from(self.phase_s)).rem_euclid(over);
        let half = over * f64::from(self.duty) / 2.0;
        // a short turn-over gap between the two stations
        let gap = 0.8;
        if pos < half - gap {
            Some((0, pos))
        } else if pos >= half && pos < 2.0 * half - gap {
            Some((1, pos - half))
        } else {
            None
        }
    }
}

/// Spectral weights of a syllable (low formants dominate).
fn shape_of(h: u64) -> [f32; 3] {
    [
        0.6 + 0.4 * unit(mix64(h ^ 1)),
        0.25 + 0.45 * unit(mix64(h ^ 2)),
        0.05 + 0.25 * unit(mix64(h ^ 3)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(kind: SignalKind) -> Signal {
        Signal {
            freq_hz: 14_020_000,
            kind,
            base_dbm: -80.0,
            partner_db: -6.0,
            qsb_depth_db: 6.0,
            qsb_rate_hz: 0.05,
            qsb_phase: 0.3,
            wpm: 24.0,
            over_s: 60.0,
            duty: 0.8,
            phase_s: 0.0,
            slot: 0,
            key: 1234,
        }
    }

    #[test]
    fn morse_keying_has_marks_and_spaces_of_dit_length() {
        let wpm = 20.0;
        let unit_s = 1.2 / 20.0;
        let mut on = 0;
        let mut transitions = 0;
        let mut last = false;
        let n = 4000;
        for i in 0..n {
            let k = morse_key(99, i as f64 * unit_s / 4.0, wpm);
            if k {
                on += 1;
            }
            if k != last {
                transitions += 1;
            }
            last = k;
        }
        let duty = on as f64 / n as f64;
        assert!((0.2..0.7).contains(&duty), "duty {duty}");
        assert!(transitions > 100, "transitions {transitions}");
        assert!(!morse_key(99, -1.0, wpm));
    }

    #[test]
    fn ssb_voice_pauses_and_qso_turns() {
        let s = sig(SignalKind::Usb);
        let mut levels = Vec::new();
        let mut silent = 0;
        for i in 0..600 {
            match s.eval(0, f64::from(i) * 0.1) {
                Some(x) => levels.push(x.level_dbm),
                None => silent += 1,
            }
        }
        assert!(
            silent > 60,
            "voice needs pauses, got {silent} silent of 600"
        );
        assert!(levels.iter().all(|l| *l <= -80.0 + 0.01));
        assert!(levels.iter().any(|l| *l > -90.0));
    }

    #[test]
    fn ft8_transmits_only_in_its_slot_with_fsk_tones() {
        let mut s = sig(SignalKind::Ft8);
        s.key = 5; // a key that transmits in cycle 0
        let mut tones = std::collections::BTreeSet::new();
        let mut any = false;
        for cycle in 0..8u32 {
            for i in 0..100 {
                let t = f64::from(cycle) * 15.0 + 0.6 + f64::from(i) * 0.12;
                if let Some(x) = s.eval(0, t) {
                    assert_eq!(cycle % 2, 0, "odd slot must stay silent");
                    let off = x.freq_hz - 14_020_000.0;
                    assert!((0.0..=43.75).contains(&off));
                    tones.insert((off / 6.25).round() as i32);
                    any = true;
                }
            }
            // never at the end of a slot
            assert!(s.eval(0, f64::from(cycle) * 15.0 + 14.0).is_none());
        }
        assert!(any);
        assert!(tones.len() >= 4, "tones {tones:?}");
    }

    #[test]
    fn beacons_are_mostly_on_and_qsb_stays_bounded() {
        let mut s = sig(SignalKind::Beacon);
        s.duty = 1.0;
        let on = (0..300)
            .filter(|i| s.eval(0, f64::from(*i) * 0.1).is_some())
            .count();
        assert!(on > 150, "beacon on {on} of 300");
        for i in 0..100 {
            let q = s.qsb(f64::from(i));
            assert!((-6.01..=0.0).contains(&q));
        }
    }

    #[test]
    fn extents_follow_the_sideband() {
        let mut x = sig(SignalKind::Lsb).eval(0, 0.0);
        for i in 0..50 {
            if x.is_some() {
                break;
            }
            x = sig(SignalKind::Lsb).eval(0, f64::from(i) * 0.05);
        }
        let x = x.expect("an LSB syllable");
        let (lo, hi) = x.extent();
        assert!(hi < x.freq_hz && lo > x.freq_hz - 3000.0);
        assert_eq!(SignalKind::Wfm.half_width_hz(), 100_000);
    }
}
