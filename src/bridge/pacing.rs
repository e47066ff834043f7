//! Timing rules of the bridge, sans-IO.
//!
//! * [`queue_has_room`]: RX audio keeps at most [`MAX_QUEUE`] in the playback device, so
//!   that the latency it adds stays bounded even when the radio's clock runs faster than
//!   the sound card's (a frame that would overfill it is dropped and counted).
//! * [`RealTime`]: TX audio is taken from the capture device no faster than real time.
//!   A sound card is its own clock; a device that is not (ALSA's `file` plugin reads its
//!   input file as fast as it is asked) would otherwise flood the radio.
//! * [`LatencyStats`]: the RX latency the bridge adds, kept for the benchmark and the log.

use std::time::{Duration, Instant};

/// The device rate.
pub const RATE: u32 = 48_000;
/// One 20 ms frame at [`RATE`].
pub const FRAME: usize = 960;
/// Most RX audio queued in the playback device after a write.
pub const MAX_QUEUE: Duration = Duration::from_millis(40);
/// Playback starts once this much is queued (a radio frame arrives every 20 ms, give or
/// take the network's jitter).
pub const START_QUEUE: Duration = Duration::from_millis(30);
/// The device buffer asked for (room for jitter; [`MAX_QUEUE`] bounds what is used).
pub const DEVICE_BUFFER: Duration = Duration::from_millis(100);

/// Frames in `d` at [`RATE`].
pub fn frames(d: Duration) -> usize {
    (d.as_micros() * u128::from(RATE) / 1_000_000) as usize
}

/// True if `len` more frames fit with `queued` frames in the device (unknown: yes).
pub fn queue_has_room(queued: Option<i64>, len: usize) -> bool {
    queued.is_none_or(|q| q.max(0) as usize + len <= frames(MAX_QUEUE))
}

/// See the module docs: may read up to [`RealTime::AHEAD`] ahead of real time.
#[derive(Debug, Clone, Default)]
pub struct RealTime {
    start: Option<Instant>,
    frames: u64,
}

impl RealTime {
    /// How far reads may run ahead of the clock.
    pub const AHEAD: Duration = Duration::from_millis(60);

    fn played(&self) -> Duration {
        Duration::from_micros(self.frames * 1_000_000 / u64::from(RATE))
    }

    /// How long to wait before the next read (`None`: read now). A device that stalled
    /// for more than a second is not caught up with: the clock starts over.
    pub fn wait(&mut self, now: Instant) -> Option<Duration> {
        let start = *self.start.get_or_insert(now);
        let due = (start + self.played())
            .checked_sub(Self::AHEAD)
            .unwrap_or(start);
        if due > now {
            return Some(due - now);
        }
        if now - due > Duration::from_secs(1) {
            self.start = Some(now);
            self.frames = 0;
        }
        None
    }

    /// `n` frames were read.
    pub fn took(&mut self, n: usize) {
        self.frames += n as u64;
    }
}

/// The last [`LatencyStats::KEPT`] latencies, µs.
#[derive(Debug, Clone, Default)]
pub struct LatencyStats {
    samples: Vec<u32>,
    next: usize,
}

/// Percentiles of [`LatencyStats`], µs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Percentiles {
    /// Samples.
    pub count: usize,
    /// Median.
    pub p50: u32,
    /// 99th percentile.
    pub p99: u32,
    /// Largest.
    pub max: u32,
}

impl LatencyStats {
    /// How many recent samples are kept.
    pub const KEPT: usize = 4096;

    /// Adds one.
    pub fn add(&mut self, d: Duration) {
        let us = d.as_micros().min(u128::from(u32::MAX)) as u32;
        if self.samples.len() < Self::KEPT {
            self.samples.push(us);
        } else {
            self.samples[self.next] = us;
        }
        self.next = (self.next + 1) % Self::KEPT;
    }

    /// Percentiles of the kept samples.
    pub fn percentiles(&self) -> Percentiles {
        let mut s = self.samples.clone();
        if s.is_empty() {
            return Percentiles::default();
        }
        s.sort_unstable();
        let at = |q: f64| s[((s.len() - 1) as f64 * q).round() as usize];
        Percentiles {
            count: s.len(),
            p50: at(0.5),
            p99: at(0.99),
            max: at(1.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_playback_queue_is_bounded() {
        assert_eq!(frames(MAX_QUEUE), 1920);
        assert!(queue_has_room(None, FRAME));
        assert!(queue_has_room(Some(960), FRAME));
        assert!(!queue_has_room(Some(961), FRAME));
        assert!(queue_has_room(Some(-5), FRAME));
    }

    #[test]
    fn reads_keep_to_real_time() {
        let t = Instant::now();
        let mut rt = RealTime::default();
        let mut read = 0;
        // a device that always has data: read whenever allowed, for one simulated second
        let mut now = t;
        while now < t + Duration::from_secs(1) {
            match rt.wait(now) {
                Some(d) => now += d,
                None => {
                    rt.took(FRAME);
                    read += FRAME;
                }
            }
        }
        let ahead = frames(RealTime::AHEAD);
        assert!(
            (48_000..=48_000 + ahead + FRAME).contains(&read),
            "{read} frames in a second"
        );
    }

    #[test]
    fn a_stall_is_not_caught_up_with() {
        let t = Instant::now();
        let mut rt = RealTime::default();
        assert_eq!(rt.wait(t), None);
        rt.took(FRAME);
        // the device gave nothing for 5 s: no burst of 5 s afterwards
        let later = t + Duration::from_secs(5);
        assert_eq!(rt.wait(later), None);
        rt.took(frames(Duration::from_millis(100)));
        assert!(rt.wait(later).is_some(), "100 ms is ahead of the new clock");
    }

    #[test]
    fn latency_percentiles() {
        let mut s = LatencyStats::default();
        assert_eq!(s.percentiles().count, 0);
        for ms in 1..=100u64 {
            s.add(Duration::from_millis(ms));
        }
        let p = s.percentiles();
        assert_eq!((p.count, p.max), (100, 100_000));
        assert!((50_000..=51_000).contains(&p.p50));
        assert_eq!(p.p99, 99_000);
        for _ in 0..LatencyStats::KEPT {
            s.add(Duration::from_millis(1));
        }
        assert_eq!(s.percentiles().max, 1000, "old samples age out");
    }
}
