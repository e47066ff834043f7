//! The receiver front end shared by the S-meter, the scope and the RX audio: attenuator,
//! preamp, the receiver's own noise, and the S-meter scale (0 = S0, 124 = S9 at −73 dBm,
//! 6 dB per S-unit below S9, 241 = S9+60 dB).

/// The receiver's own noise referred to its input, dBm in 500 Hz, preamp off.
pub const RX_NOISE_DBM: f32 = -131.0;
/// Antenna level of S9, dBm.
pub const S9_DBM: f32 = -73.0;
/// S-meter reading of S9.
pub const S9_RAW: f32 = 124.0;
/// Highest S-meter reading (S9+60 dB).
pub const SMAX_RAW: u16 = 241;

/// Converts dBm to milliwatts.
pub fn mw(dbm: f32) -> f32 {
    10f32.powf(dbm / 10.0)
}

/// Converts milliwatts to dBm (−200 for nothing).
pub fn dbm(mw: f32) -> f32 {
    if mw <= 0.0 { -200.0 } else { 10.0 * mw.log10() }
}

/// Power sum of two levels, dBm.
pub fn power_sum(a_dbm: f32, b_dbm: f32) -> f32 {
    dbm(mw(a_dbm) + mw(b_dbm))
}

/// Gain of a preamp setting, dB (0 off, 1 P.AMP1, 2 P.AMP2, 3 INT+EXT).
pub fn preamp_gain_db(preamp: u8) -> f32 {
    match preamp {
        0 => 0.0,
        1 => 10.0,
        2 => 16.0,
        _ => 20.0,
    }
}

/// Attenuator and preamp of one receiver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frontend {
    /// Attenuation, dB.
    pub att_db: f32,
    /// Preamp gain, dB.
    pub preamp_db: f32,
}

impl Frontend {
    /// No attenuator, no preamp.
    pub const OFF: Frontend = Frontend {
        att_db: 0.0,
        preamp_db: 0.0,
    };

    /// The front end for an ATT setting in dB and a preamp setting (0..3).
    pub fn new(att_db: u8, preamp: u8) -> Frontend {
        Frontend {
            att_db: f32::from(att_db),
            preamp_db: preamp_gain_db(preamp),
        }
    }

    /// A signal at the antenna as the receiver measures it, dBm (meter-referred).
    pub fn signal(&self, antenna_dbm: f32) -> f32 {
        antenna_dbm - self.att_db + self.preamp_db
    }

    /// Noise in `bw_hz` as the receiver measures it: the antenna noise floor (given in
    /// 500 Hz, attenuated by the ATT) plus the receiver's own noise, dBm.
    pub fn noise(&self, antenna_nf_500: f32, bw_hz: f32) -> f32 {
        let bw_db = 10.0 * (bw_hz.max(1.0) / 500.0).log10();
        let ant = antenna_nf_500 - self.att_db;
        let own = RX_NOISE_DBM - 0.8 * self.preamp_db;
        power_sum(ant, own) + bw_db + self.preamp_db
    }
}

/// S-meter reading (0..=241) of a level in dBm.
pub fn smeter_raw(dbm: f32) -> u16 {
    let s0 = S9_DBM - 54.0;
    let raw = if dbm <= S9_DBM {
        (dbm - s0) * S9_RAW / 54.0
    } else {
        S9_RAW + (dbm - S9_DBM) * (f32::from(SMAX_RAW) - S9_RAW) / 60.0
    };
    raw.clamp(0.0, f32::from(SMAX_RAW)).round() as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smeter_scale_points() {
        assert_eq!(smeter_raw(-140.0), 0);
        assert_eq!(smeter_raw(-127.0), 0);
        assert_eq!(smeter_raw(-73.0), 124);
        assert_eq!(smeter_raw(-13.0), 241);
        assert_eq!(smeter_raw(20.0), 241);
        // one S-unit (6 dB) below S9
        let s8 = smeter_raw(-79.0);
        assert!((109..=111).contains(&s8), "{s8}");
    }

    #[test]
    fn att_lowers_and_preamp_raises() {
        let off = Frontend::OFF;
        let att = Frontend::new(20, 0);
        let pre = Frontend::new(0, 2);
        assert_eq!(off.signal(-80.0), -80.0);
        assert_eq!(att.signal(-80.0), -100.0);
        assert_eq!(pre.signal(-80.0), -64.0);
        // the receiver's own noise limits how far the ATT lowers the noise
        let n_off = off.noise(-110.0, 2400.0);
        let n_att = att.noise(-110.0, 2400.0);
        assert!(n_att < n_off && n_off - n_att < 20.0);
        assert!(pre.noise(-110.0, 2400.0) > n_off);
        assert!((power_sum(-100.0, -100.0) + 96.99).abs() < 0.02);
        assert_eq!(dbm(0.0), -200.0);
        assert_eq!(preamp_gain_db(3), 20.0);
    }
}
