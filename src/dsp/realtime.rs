//! Holds RX audio to real time, sans-IO: fed `(packet length, arrival time)` and the
//! sample rate the [`RateDetector`](super::rate_detect::RateDetector) settled on, it
//! passes whole radio blocks while the audio passed does not run ahead of real time by
//! more than [`ALLOWANCE`], and drops the blocks beyond. A radio (or a faulty sound card
//! behind a radio server) that sends three times real time would otherwise reach every
//! web stream as 150 frames a second.
//!
//! A token bucket in sample frames: it fills at the sample rate as time passes, up to
//! [`ALLOWANCE`] of audio (what a burst after a network hiccup may bring at once), and
//! every passed packet takes its frames out. A radio block (20 ms, one or more packets
//! of at most `max_packet` bytes, ending with the first shorter one) is passed or dropped
//! as a whole, decided at its first packet: passed while the bucket is not in debt. Until
//! a rate is settled everything passes (the detector needs about 100 ms of audio), and a
//! change of rate refills the bucket.

use std::time::{Duration, Instant};

/// How far the passed audio may run ahead of real time (jitter and bursts).
pub const ALLOWANCE: Duration = Duration::from_millis(100);

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
    /// (`None`: not yet, everything passes).
    pub fn admit(&mut self, len: usize, now: Instant, rate: Option<u32>) -> Verdict {
        let first_of_block = !self.in_block;
        self.in_block = len >= self.max_packet;
        let Some(rate) = rate.filter(|r| *r > 0) else {
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

    /// 20 ms blocks of 48 kHz PCM16 stereo (3840 bytes: packets of 1364, 1364, 1112),
    /// `speed` blocks per 20 ms of virtual time, each block's packets arriving together
    /// at `at(block)`; returns the blocks passed whole and the verdicts' count.
    fn run(
        gate: &mut RealTimeGate,
        blocks: u64,
        at: impl Fn(u64) -> Instant,
        rate: Option<u32>,
    ) -> (u64, usize) {
        let mut whole = 0;
        let mut verdicts = 0;
        for b in 0..blocks {
            let v: Vec<Verdict> = [1364, 1364, 1112]
                .iter()
                .map(|&len| gate.admit(len, at(b), rate))
                .collect();
            verdicts += v.len();
            assert!(
                v.iter().all(|x| *x == Verdict::Pass) || v[0] == Verdict::DropBlock,
                "a block passes or drops whole: {v:?}"
            );
            assert!(v[1..].iter().all(|x| *x != Verdict::DropBlock));
            if v[0] == Verdict::Pass {
                whole += 1;
            }
        }
        (whole, verdicts)
    }

    fn gate() -> RealTimeGate {
        RealTimeGate::new(4, 1364)
    }

    #[test]
    fn real_time_with_jitter_and_a_burst_passes_whole() {
        let t0 = Instant::now();
        let mut g = gate();
        // ±15 ms of jitter around a steady 50 blocks a second
        let jitter = |b: u64| [0, 15, 3, 9, 0, 12][(b % 6) as usize];
        let (passed, _) = run(
            &mut g,
            500,
            |b| t0 + Duration::from_millis(b * 20 + jitter(b)),
            Some(48_000),
        );
        assert_eq!(passed, 500);
        // a network stall of 300 ms, then what it held comes at once: what fits in the
        // allowance passes, the rest would pile up ahead of real time
        let resume = t0 + Duration::from_millis(500 * 20 + 300);
        let (passed, _) = run(&mut g, 15, |_| resume, Some(48_000));
        assert_eq!(passed, 5, "100 ms of allowance: five 20 ms blocks");
        assert_eq!(g.dropped_blocks(), 10);
    }

    #[test]
    fn three_times_real_time_is_cut_to_real_time() {
        let t0 = Instant::now();
        let mut g = gate();
        // 150 blocks a second for 10 s of virtual time
        let (passed, verdicts) = run(
            &mut g,
            1_500,
            |b| t0 + Duration::from_micros(b * 20_000 / 3),
            Some(48_000),
        );
        assert_eq!(verdicts, 4_500);
        // 10 s of real time is 500 blocks, plus the allowance (5) and one in debt
        assert!((500..=506).contains(&passed), "{passed}");
        assert_eq!(g.dropped_blocks(), 1_500 - passed);
    }

    #[test]
    fn nothing_is_dropped_before_a_rate_is_settled_and_a_new_rate_starts_afresh() {
        let t0 = Instant::now();
        let mut g = gate();
        let fast = |b: u64| t0 + Duration::from_micros(b * 20_000 / 3);
        let (passed, _) = run(&mut g, 30, fast, None);
        assert_eq!(passed, 30, "no rate yet: everything passes");
        // the rate settles on 16 kHz: blocks of 48 kHz worth are three blocks' time
        let later = t0 + Duration::from_secs(1);
        let (passed, _) = run(
            &mut g,
            10,
            |b| later + Duration::from_millis(b * 20),
            Some(16_000),
        );
        assert!(passed < 10, "{passed}");
        // settled on 48 kHz: the bucket is full again, real time passes
        let again = later + Duration::from_secs(1);
        let (passed, _) = run(
            &mut g,
            100,
            |b| again + Duration::from_millis(b * 20),
            Some(48_000),
        );
        assert_eq!(passed, 100);
        g.reset();
        assert_eq!(g.admit(1364, again, Some(48_000)), Verdict::Pass);
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
            );
        }
        assert_eq!(
            g.admit(10, t0, Some(0)),
            Verdict::Pass,
            "a zero rate is no rate"
        );
    }
}
