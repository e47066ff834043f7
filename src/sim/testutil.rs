//! Helpers shared by the simulator's tests.

use std::sync::Arc;

use crate::profile::{Profile, ProfileRegistry};
use crate::sim::band::{Band, SignalKind};

/// Power of frequency `freq_hz` in `x` (Goertzel), normalised by the length.
pub fn goertzel(x: &[f32], freq_hz: f32, sample_rate: u32) -> f32 {
    let w = std::f32::consts::TAU * freq_hz / sample_rate as f32;
    let c = 2.0 * w.cos();
    let (mut s1, mut s2) = (0.0f32, 0.0f32);
    for &v in x {
        let s0 = v + c * s1 - s2;
        s2 = s1;
        s1 = s0;
    }
    let p = s1 * s1 + s2 * s2 - c * s1 * s2;
    p / (x.len().max(1) as f32).powi(2)
}

/// An embedded profile by id.
pub fn profile(id: &str) -> Arc<Profile> {
    ProfileRegistry::embedded()
        .get(id)
        .unwrap_or_else(|| panic!("profile {id}"))
}

/// A beacon that keeps its carrier up for the whole of `t0..t0 + dur` inside
/// `lo..hi`: `(frequency, t0)`.
pub fn steady_beacon(band: &Band, lo: u64, hi: u64, dur: f64) -> (f64, f64) {
    for step in 0..120 {
        let t0 = f64::from(step) * 0.5;
        let first: Vec<_> = band
            .signals_near(lo, hi, t0)
            .filter(|s| s.kind == SignalKind::Beacon)
            .collect();
        for cand in first {
            let steady = (0..=20).all(|i| {
                let t = t0 + dur * f64::from(i) / 20.0;
                band.signals_near(lo, hi, t).any(|s| s.id == cand.id)
            });
            if steady {
                return (cand.freq_hz, t0);
            }
        }
    }
    panic!("no steady beacon in {lo}..{hi}");
}

use std::time::Duration;

use crate::sim::rig::{SimRig, SimRigConfig};
use crate::wire::civ::Frame;

/// Every embedded profile.
pub const ALL: [&str; 4] = ["ic7610", "ic705", "ic9700", "ic7100"];

/// A simulated radio of profile `id` with the default configuration.
pub fn rig(id: &str) -> SimRig {
    SimRig::new(profile(id), SimRigConfig::default())
}

/// Sends `cmd data` from 0xE0 at `t` seconds; returns the replies.
pub fn ask_at(rig: &mut SimRig, t: f64, cmd: u8, data: &[u8]) -> Vec<Frame> {
    let f = Frame::new(rig.civ_addr(), 0xE0, cmd, data);
    rig.handle(&f, Duration::from_secs_f64(t))
}

/// Sends `cmd data` from 0xE0 at t = 1 s and returns the single reply.
pub fn one(rig: &mut SimRig, cmd: u8, data: &[u8]) -> Frame {
    let mut r = ask_at(rig, 1.0, cmd, data);
    assert_eq!(r.len(), 1, "one reply to {cmd:02X} {data:02X?}: {r:?}");
    let f = r.remove(0);
    assert_eq!((f.to, f.from), (0xE0, rig.civ_addr()), "reply addressing");
    f
}

/// Asserts `cmd data` is acknowledged.
pub fn ack(rig: &mut SimRig, cmd: u8, data: &[u8]) {
    let f = one(rig, cmd, data);
    assert!(
        f.is_ack(),
        "ACK expected for {cmd:02X} {data:02X?}, got {f:?}"
    );
}

/// Asserts `cmd data` is refused.
pub fn nak(rig: &mut SimRig, cmd: u8, data: &[u8]) {
    let f = one(rig, cmd, data);
    assert!(
        f.is_nak(),
        "NAK expected for {cmd:02X} {data:02X?}, got {f:?}"
    );
}

/// The data of the reply to a read, checking the command byte.
pub fn read(rig: &mut SimRig, cmd: u8, data: &[u8]) -> Vec<u8> {
    let f = one(rig, cmd, data);
    assert_eq!(f.cmd, cmd, "reply to {cmd:02X} {data:02X?}: {f:?}");
    f.data
}

/// A 5-byte BCD frequency.
pub fn fb(hz: u64) -> [u8; 5] {
    crate::wire::civ::freq_to_bcd(hz).expect("frequency")
}
