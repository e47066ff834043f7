//! How a receiver's mode and filter turn RF into audio: which RF frequencies pass the IF
//! filter and at which audio frequency each one is heard.
//!
//! * USB/LSB: audio = ±(rf − dial), passband 200 Hz .. 200 Hz + width.
//! * CW/CW-R: audio = pitch ± (rf − dial), passband pitch ± width/2.
//! * RTTY/RTTY-R: mark at the dial frequency is heard at 2125 Hz (RTTY is LSB-like).
//! * PSK/PSK-R: USB/LSB-like, passband centred on 1500 Hz.
//! * AM: envelope detector, dial ± width/2.
//! * FM/DV/DD/WFM: FM detector, dial ± width/2.

/// Mode codes (CI-V, BCD): the wire layer's names.
pub use crate::wire::civ::mode_codes as mode;

/// The demodulator of a mode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Detector {
    /// Product detector: audio = `sign` · (rf − dial) + `shift_hz`.
    Product {
        /// +1 for upper-sideband modes, −1 for lower.
        sign: f32,
        /// Audio frequency of a signal exactly on the dial, Hz.
        shift_hz: f32,
    },
    /// AM envelope detector.
    Envelope,
    /// FM discriminator.
    Fm,
}

/// A receiver's passband.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Passband {
    /// Dial frequency (with RIT), Hz.
    pub dial_hz: f64,
    /// Demodulator.
    pub detector: Detector,
    /// Filter width, Hz.
    pub width_hz: f32,
    /// Lowest audio frequency passed, Hz.
    pub audio_lo: f32,
    /// Highest audio frequency passed, Hz.
    pub audio_hi: f32,
    /// Lowest RF frequency passed, Hz.
    pub rf_lo: f64,
    /// Highest RF frequency passed, Hz.
    pub rf_hi: f64,
}

/// Width of the filter skirt (from the passband edge to −60 dB), Hz.
pub const SKIRT_HZ: f64 = 300.0;

impl Passband {
    /// The passband of `mode` (CI-V code) on `dial_hz` with a filter `width_hz` wide;
    /// `cw_pitch_hz` is the CW sidetone / BFO offset.
    pub fn new(mode: u8, dial_hz: f64, width_hz: f32, cw_pitch_hz: f32) -> Passband {
        let w = width_hz.max(50.0);
        let (detector, lo, hi) = match mode {
            mode::LSB => (product(-1.0, 0.0), 200.0, 200.0 + w),
            mode::CW => (
                product(1.0, cw_pitch_hz),
                cw_pitch_hz - w / 2.0,
                cw_pitch_hz + w / 2.0,
            ),
            mode::CW_R => (
                product(-1.0, cw_pitch_hz),
                cw_pitch_hz - w / 2.0,
                cw_pitch_hz + w / 2.0,
            ),
            mode::RTTY => (product(-1.0, 2125.0), 2040.0 - w / 2.0, 2040.0 + w / 2.0),
            mode::RTTY_R => (product(1.0, 2125.0), 2040.0 - w / 2.0, 2040.0 + w / 2.0),
            mode::PSK => (product(1.0, 0.0), 1500.0 - w / 2.0, 1500.0 + w / 2.0),
            mode::PSK_R => (product(-1.0, 0.0), 1500.0 - w / 2.0, 1500.0 + w / 2.0),
            mode::AM => (Detector::Envelope, 100.0, (w / 2.0).max(200.0)),
            mode::FM | mode::DV | mode::DD => (Detector::Fm, 300.0, 3_000.0),
            mode::WFM => (Detector::Fm, 50.0, 15_000.0),
            _ => (product(1.0, 0.0), 200.0, 200.0 + w),
        };
        let audio_lo = lo.max(20.0);
        let audio_hi = hi.max(audio_lo + 10.0);
        let (rf_lo, rf_hi) = match detector {
            Detector::Product { sign, shift_hz } => {
                let a = dial_hz + f64::from((audio_lo - shift_hz) * sign);
                let b = dial_hz + f64::from((audio_hi - shift_hz) * sign);
                (a.min(b), a.max(b))
            }
            _ => (dial_hz - f64::from(w) / 2.0, dial_hz + f64::from(w) / 2.0),
        };
        Passband {
            dial_hz,
            detector,
            width_hz: w,
            audio_lo,
            audio_hi,
            rf_lo,
            rf_hi,
        }
    }

    /// The audio frequency an RF frequency is heard at (product detector), or its
    /// distance from the dial (AM/FM), Hz.
    pub fn audio_hz(&self, rf_hz: f64) -> f32 {
        match self.detector {
            Detector::Product { sign, shift_hz } => {
                ((rf_hz - self.dial_hz) as f32) * sign + shift_hz
            }
            _ => (rf_hz - self.dial_hz).abs() as f32,
        }
    }

    /// Amplitude gain (0..1) of the IF filter at `rf_hz`: flat inside, falling to
    /// −60 dB over [`SKIRT_HZ`] outside.
    pub fn gain_at(&self, rf_hz: f64) -> f32 {
        let out = if rf_hz < self.rf_lo {
            self.rf_lo - rf_hz
        } else if rf_hz > self.rf_hi {
            rf_hz - self.rf_hi
        } else {
            return 1.0;
        };
        if out >= SKIRT_HZ {
            0.0
        } else {
            10f32.powf(-3.0 * (out / SKIRT_HZ) as f32)
        }
    }

    /// The RF window worth looking at for signals (passband plus skirts), Hz.
    pub fn search_window(&self) -> (u64, u64) {
        let lo = (self.rf_lo - SKIRT_HZ).max(0.0) as u64;
        let hi = (self.rf_hi + SKIRT_HZ).max(0.0) as u64;
        (lo, hi)
    }
}

fn product(sign: f32, shift_hz: f32) -> Detector {
    Detector::Product { sign, shift_hz }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usb_lsb_and_cw_map_rf_to_audio() {
        let usb = Passband::new(mode::USB, 14_200_000.0, 2_400.0, 600.0);
        assert_eq!(usb.audio_hz(14_201_000.0), 1_000.0);
        assert_eq!((usb.rf_lo, usb.rf_hi), (14_200_200.0, 14_202_600.0));
        let lsb = Passband::new(mode::LSB, 7_100_000.0, 2_400.0, 600.0);
        assert_eq!(lsb.audio_hz(7_099_000.0), 1_000.0);
        assert_eq!((lsb.rf_lo, lsb.rf_hi), (7_097_400.0, 7_099_800.0));
        let cw = Passband::new(mode::CW, 7_030_000.0, 500.0, 600.0);
        assert_eq!(cw.audio_hz(7_030_000.0), 600.0);
        assert_eq!(cw.audio_hz(7_030_100.0), 700.0);
        let cwr = Passband::new(mode::CW_R, 7_030_000.0, 500.0, 600.0);
        assert_eq!(cwr.audio_hz(7_030_100.0), 500.0);
        assert_eq!((cw.rf_lo, cw.rf_hi), (7_029_750.0, 7_030_250.0));
        let rtty = Passband::new(mode::RTTY, 14_080_000.0, 500.0, 600.0);
        assert_eq!(rtty.audio_hz(14_080_000.0), 2125.0);
        assert_eq!(rtty.audio_hz(14_079_830.0), 2295.0);
    }

    #[test]
    fn filter_gain_inside_skirt_outside() {
        let cw = Passband::new(mode::CW, 7_030_000.0, 500.0, 600.0);
        assert_eq!(cw.gain_at(7_030_000.0), 1.0);
        let edge = cw.gain_at(7_030_400.0);
        assert!(edge > 0.0 && edge < 0.1, "{edge}");
        assert_eq!(cw.gain_at(7_031_000.0), 0.0);
        let am = Passband::new(mode::AM, 9_500_000.0, 6_000.0, 600.0);
        assert_eq!(am.detector, Detector::Envelope);
        assert_eq!(am.audio_hz(9_499_000.0), 1_000.0);
        let (lo, hi) = am.search_window();
        assert!(lo < 9_497_000 && hi > 9_503_000);
        let fm = Passband::new(mode::FM, 145_500_000.0, 15_000.0, 600.0);
        assert_eq!(fm.detector, Detector::Fm);
    }
}
