//! Holds RX audio to real time, sans-IO: fed `(packet length, arrival time)`, the sample
//! rate the [`RateDetector`](super::rate_detect::RateDetector) settled on and the
//! cadence it measures, it drops the radio blocks that a radio sending faster than real
//! time (or a faulty sound card behind a radio server: three times real time reached
//! every web stream as 150 frames a second) sends beyond real time.
//!
//! It engages only while the cadence (frames arriving per second over the detector's
//! 2 s window) exceeds the settled rate by more than [`TOO_FAST`]: a sustained excess
//! that loss can only lower, and that neither network jitter nor our own scheduling
//! delays (which bunch arrivals up but do not add any) produce. Engaged, it is a token
//! bucket in sample frames: it fills at the sample rate as time passes, up to
//! [`ALLOWANCE`] of audio, and every passed packet takes its frames out. A radio block
//! (20 ms, one or more packets of at most `max_packet` bytes, ending with the first
//! shorter one) is passed or dropped as a whole, decided at its first packet: passed
//! while the bucket is not in debt. Engaging (or a change of rate) starts it full.

use std::time::{Duration, Instant};

/// How far the passed audio may run ahead of real time once the gate is engaged.
pub const ALLOWANCE: Duration = Duration::from_millis(100);
/// The gate engages while the cadence exceeds the settled rate by this factor.
pub const TOO_FAST: f64 = 1.25;

/// See the module docs.
#[derive(Debug, Clone)]
pub struct RealTimeGate {
    bytes_per_frame: usize,
    max_packet: usize,
    /// The rate the bucket fills at, and when it was last filled.
    clock: Option<(u32, Instant)>,
    /// Frames that may still pass (negative: in debt by part of a block).
    credit: f64,
    /// A block is under way (its last packet was full size).
    in_block: bool,
    /// The decision for the block under way.
    passing: bool,
    dropped_blocks: u64,
}

/// What became of a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Within real time: pass it on.
    Pass,
    /// Part of a block that came too early: drop it.
    Drop,
    /// The first packet of a block that came too early: drop it (and count the block).
    DropBlock,
}

impl RealTimeGate {
    /// A gate for audio of `bytes_per_frame` bytes per frame (sample size × channels)
    /// sent in packets of at most `max_packet` bytes.
    pub fn new(bytes_per_frame: usize, max_packet: usize) -> RealTimeGate {
        RealTimeGate {
            bytes_per_frame: bytes_per_frame.max(1),
            max_packet: max_packet.max(1),
            clock: None,
            credit: 0.0,
            in_block: false,
            passing: true,
            dropped_blocks: 0,
        }
    }

    /// Starts over (the stream restarted).
    pub fn reset(&mut self) {
        self.clock = None;
        self.in_block = false;
        self.passing = true;
    }

    /// Radio blocks dropped so far.
    pub fn dropped_blocks(&self) -> u64 {
        self.dropped_blocks
    }

    /// A packet of `len` bytes arrived at `now`; `rate` is the sample rate settled on
    /// (`None`: not yet), `cadence_hz` the frames arriving per second (`None`: not
    /// measured yet). Everything passes unless the cadence exceeds the rate by more than
    /// [`TOO_FAST`].
    pub fn admit(
        &mut self,
        len: usize,
        now: Instant,
        rate: Option<u32>,
        cadence_hz: Option<f64>,
    ) -> Verdict {
        let first_of_block = !self.in_block;
        self.in_block = len >= self.max_packet;
        let too_fast = |r: &u32| *r > 0 && cadence_hz.is_some_and(|c| c > f64::from(*r) * TOO_FAST);
        let Some(rate) = rate.filter(too_fast) else {
            self.clock = None;
            self.passing = true;
            return Verdict::Pass;
        };
        let cap = f64::from(rate) * ALLOWANCE.as_secs_f64();
        match self.clock {
            Some((r, last)) if r == rate => {
                let filled = now.saturating_duration_since(last).as_secs_f64() * f64::from(rate);
                self.credit = (self.credit + filled).min(cap);
            }
            _ => self.credit = cap,
        }
        self.clock = Some((rate, now));
        if first_of_block {
            self.passing = self.credit > 0.0;
        }
        if !self.passing {
            if first_of_block {
                self.dropped_blocks += 1;
                return Verdict::DropBlock;
            }
            return Verdict::Drop;
        }
        self.credit -= (len / self.bytes_per_frame) as f64;
        Verdict::Pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsp::rate_detect::RateDetector;

    /// A detector and a gate fed together, as the audio pump feeds them.
    struct Rx {
        detector: RateDetector,
        gate: RealTimeGate,
    }

    impl Rx {
        fn new() -> Rx {
            Rx {
                detector: RateDetector::new(48_000, 4, 1364),
                gate: RealTimeGate::new(4, 1364),
            }
        }

        /// One 20 ms block of 48 kHz PCM16 stereo (3840 bytes: packets of 1364, 1364,
        /// 1112) whose packets were read at `at`; true if it passed whole.
        fn block(&mut self, at: Instant) -> bool {
            let v: Vec<Verdict> = [1364, 1364, 1112]
                .iter()
                .map(|&len| {
                    self.detector.push(len, at);
                    let (rate, cadence) = (self.detector.settled(), self.detector.cadence_hz());
                    self.gate.admit(len, at, rate, cadence)
                })
                .collect();
            assert!(
                v.iter().all(|x| *x == Verdict::Pass) || v[0] == Verdict::DropBlock,
                "a block passes or drops whole: {v:?}"
            );
            assert!(v[1..].iter().all(|x| *x != Verdict::DropBlock));
            v[0] == Verdict::Pass
        }

        /// Blocks at `at(i)` for i in 0..n; how many passed.
        fn blocks(&mut self, n: u64, at: impl Fn(u64) -> Instant) -> u64 {
            (0..n).filter(|&i| self.block(at(i))).count() as u64
        }
    }

    #[test]
    fn real_time_passes_whole_through_jitter_and_stalls() {
        let t0 = Instant::now();
        let mut rx = Rx::new();
        // ±15 ms of jitter around 50 blocks a second, and every 2 s a stall of 300 ms
        // (the network, or our thread not scheduled) after which its blocks come at once
        let at = |b: u64| {
            let on_time = b * 20;
            let read = match on_time % 2_000 {
                t @ 1_000..1_300 => on_time - t + 1_300,
                _ => on_time + [0, 15, 3, 9, 0, 12][(b % 6) as usize],
            };
            t0 + Duration::from_millis(read)
        };
        assert_eq!(rx.blocks(1_500, at), 1_500, "30 s of real time");
        assert_eq!(rx.gate.dropped_blocks(), 0);
    }

    #[test]
    fn three_times_real_time_is_cut_to_real_time() {
        let t0 = Instant::now();
        let mut rx = Rx::new();
        // 150 blocks a second (three at once every 20 ms, as the simulator sends them)
        let at = |b: u64| t0 + Duration::from_millis(b / 3 * 20);
        // the cadence needs 400 ms to tell: up to then everything passes
        let first = rx.blocks(3 * 21, at);
        assert_eq!(first, 63);
        let passed = rx.blocks(3 * 500, |b| at(b + 63));
        // 10 s of real time is 500 blocks, plus the allowance (5) and one in debt
        assert!((499..=506).contains(&passed), "{passed}");
        assert_eq!(rx.gate.dropped_blocks(), 1_500 - passed);
        // back to real time: the cadence falls below the threshold within the window,
        // and then nothing is dropped
        let back = t0 + Duration::from_millis(521 * 20);
        rx.blocks(150, |b| back + Duration::from_millis(b * 20));
        let dropped = rx.gate.dropped_blocks();
        assert_eq!(
            rx.blocks(500, |b| back + Duration::from_millis((150 + b) * 20)),
            500
        );
        assert_eq!(rx.gate.dropped_blocks(), dropped);
    }

    #[test]
    fn unsettled_or_unmeasured_passes_and_a_new_rate_starts_full() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let mut g = RealTimeGate::new(4, 1364);
        // three blocks at once, over and over: no rate or no cadence, no dropping
        for b in 0..300 {
            assert_eq!(
                g.admit(1112, ms(b / 3 * 20), None, Some(144_000.0)),
                Verdict::Pass
            );
            assert_eq!(
                g.admit(1112, ms(b / 3 * 20), Some(48_000), None),
                Verdict::Pass
            );
        }
        // engaged at 16 kHz: a block of 960 frames (60 ms) every 20 ms is three times
        // too much (one packet a block here)
        let mut g = RealTimeGate::new(4, 4096);
        let fast = Some(48_000.0);
        let passed = (0..30u64)
            .filter(|&b| g.admit(3840, ms(10_000 + b * 20), Some(16_000), fast) == Verdict::Pass)
            .count();
        assert!((10..=13).contains(&passed), "{passed}");
        // another rate: the bucket starts full
        assert_eq!(
            g.admit(1112, ms(10_600), Some(8_000), Some(24_000.0)),
            Verdict::Pass
        );
        g.reset();
        assert_eq!(g.admit(1364, ms(10_600), Some(8_000), fast), Verdict::Pass);
    }

    #[test]
    fn odd_input_never_panics() {
        let t0 = Instant::now();
        let mut g = RealTimeGate::new(0, 0);
        for i in 0..100u64 {
            g.admit(
                (i as usize * 7919) % 3000,
                t0 + Duration::from_micros(i),
                Some(8_000),
                Some(1e9),
            );
        }
        assert_eq!(
            g.admit(10, t0, Some(0), Some(1e9)),
            Verdict::Pass,
            "a zero rate is no rate"
        );
        assert_eq!(g.admit(10, t0, Some(8_000), Some(f64::NAN)), Verdict::Pass);
    }
}
