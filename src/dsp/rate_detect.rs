//! Detects the sample rate of the radio's RX audio from what actually arrives, sans-IO:
//! fed `(packet length, arrival time)`, it answers the rate to use.
//!
//! Real radios do not always send what the conninfo asked for (IC-7610 users report
//! 16 kHz PCM after asking for 48 kHz, which a client that trusts the request plays as
//! "chipmunk" audio). Two measurements, both needed:
//!
//! * **Block size.** The radio sends one 20 ms block at a time, cut into packets of at
//!   most 1364 bytes, so a block ends with the first packet shorter than that. Frames per
//!   block × 50 is a candidate rate; the candidate of most of the last
//!   [`VOTES`] blocks (at least [`QUORUM`]) counts. Loss and jitter do not bias it.
//! * **Cadence.** Frames received over the last [`WINDOW`] divided by the time they took:
//!   a rough rate (loss lowers it) that confirms the block candidate when within
//!   ±[`CADENCE_TOLERANCE`], or, when no block size agrees (blocks of another length),
//!   decides alone after [`CADENCE_ALONE`] by snapping to the nearest standard rate.
//!
//! Until a decision, the block-size candidate is used once it has its quorum, and the
//! requested rate before that.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Rates a radio may send.
pub const STANDARD_RATES: [u32; 9] = [
    8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000,
];
/// Blocks that vote.
pub const VOTES: usize = 8;
/// Votes a candidate needs.
pub const QUORUM: usize = 5;
/// Span of the cadence measurement.
pub const WINDOW: Duration = Duration::from_secs(2);
/// Cadence needed before it may confirm a block candidate.
pub const CADENCE_MIN: Duration = Duration::from_millis(400);
/// Cadence needed to decide without a block candidate.
pub const CADENCE_ALONE: Duration = Duration::from_millis(1_500);
/// How far the cadence may be from a block candidate (fraction) and still confirm it.
pub const CADENCE_TOLERANCE: f64 = 0.3;
/// Duration of the radio's audio blocks.
pub const BLOCK: Duration = Duration::from_millis(20);

/// See the module docs.
#[derive(Debug, Clone)]
pub struct RateDetector {
    requested: u32,
    bytes_per_frame: usize,
    max_packet: usize,
    block_bytes: usize,
    votes: VecDeque<u32>,
    arrivals: VecDeque<(Instant, usize)>,
    detected: Option<u32>,
}

impl RateDetector {
    /// A detector for audio of `bytes_per_frame` bytes per frame (sample size × channels)
    /// sent in packets of at most `max_packet` bytes, requested at `requested` Hz.
    pub fn new(requested: u32, bytes_per_frame: usize, max_packet: usize) -> RateDetector {
        RateDetector {
            requested,
            bytes_per_frame: bytes_per_frame.max(1),
            max_packet: max_packet.max(1),
            block_bytes: 0,
            votes: VecDeque::new(),
            arrivals: VecDeque::new(),
            detected: None,
        }
    }

    /// The rate to use now: the detected one; before a decision the block-size
    /// candidate once it has its quorum (100 ms of audio), else the requested one.
    pub fn rate(&self) -> u32 {
        self.settled().unwrap_or(self.requested)
    }

    /// The detected rate, once there is one.
    pub fn detected(&self) -> Option<u32> {
        self.detected
    }

    /// The rate once there is evidence for one (the detected rate, or the block-size
    /// candidate with its quorum), `None` while only the request speaks for it.
    pub fn settled(&self) -> Option<u32> {
        self.detected.or_else(|| self.block_candidate())
    }

    /// Frames per second arriving, measured over the last [`WINDOW`] (loss lowers it),
    /// once the measurement spans at least [`CADENCE_MIN`].
    pub fn cadence_hz(&self) -> Option<f64> {
        self.cadence()
            .filter(|(_, span)| *span >= CADENCE_MIN)
            .map(|(hz, _)| hz)
    }

    /// Forgets everything measured (the stream restarted).
    pub fn reset(&mut self) {
        self.block_bytes = 0;
        self.votes.clear();
        self.arrivals.clear();
        self.detected = None;
    }

    /// A packet of `len` bytes arrived at `now`. Returns the new rate when the decision
    /// changed.
    pub fn push(&mut self, len: usize, now: Instant) -> Option<u32> {
        self.block_bytes += len;
        if len < self.max_packet {
            let frames = self.block_bytes / self.bytes_per_frame;
            self.block_bytes = 0;
            let per_second = (frames as u64 * 1_000 / BLOCK.as_millis() as u64) as u32;
            self.votes.push_back(per_second);
            if self.votes.len() > VOTES {
                self.votes.pop_front();
            }
        }
        self.arrivals.push_back((now, len / self.bytes_per_frame));
        while self
            .arrivals
            .front()
            .is_some_and(|(t, _)| now.saturating_duration_since(*t) > WINDOW)
        {
            self.arrivals.pop_front();
        }
        let decision = self.decide();
        if decision.is_some() && decision != self.detected {
            self.detected = decision;
            return decision;
        }
        None
    }

    /// `(frames per second, span)` over the window, not counting the first arrival.
    fn cadence(&self) -> Option<(f64, Duration)> {
        let (first, _) = *self.arrivals.front()?;
        let (last, _) = *self.arrivals.back()?;
        let span = last.saturating_duration_since(first);
        if span.is_zero() {
            return None;
        }
        let frames: usize = self.arrivals.iter().skip(1).map(|(_, f)| f).sum();
        Some((frames as f64 / span.as_secs_f64(), span))
    }

    fn block_candidate(&self) -> Option<u32> {
        let mut best: Option<(u32, usize)> = None;
        for &r in &self.votes {
            if !STANDARD_RATES.contains(&r) {
                continue;
            }
            let n = self.votes.iter().filter(|&&v| v == r).count();
            if best.is_none_or(|(_, m)| n > m) {
                best = Some((r, n));
            }
        }
        best.filter(|(_, n)| *n >= QUORUM).map(|(r, _)| r)
    }

    fn decide(&self) -> Option<u32> {
        let (cadence, span) = self.cadence()?;
        if let Some(c) = self.block_candidate()
            && span >= CADENCE_MIN
            && (cadence / f64::from(c) - 1.0).abs() <= CADENCE_TOLERANCE
        {
            return Some(c);
        }
        if span >= CADENCE_ALONE {
            let nearest = STANDARD_RATES.iter().copied().min_by(|a, b| {
                (f64::from(*a) - cadence)
                    .abs()
                    .total_cmp(&(f64::from(*b) - cadence).abs())
            })?;
            if (cadence / f64::from(nearest) - 1.0).abs() <= 0.1 {
                return Some(nearest);
            }
        }
        self.detected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `seconds` of 20 ms blocks of `rate` Hz PCM16 with `channels`, cut at 1364
    /// bytes, arriving with ±`jitter_ms`; `lose(i)` drops packet i.
    fn feed(
        d: &mut RateDetector,
        rate: u32,
        channels: usize,
        seconds: f64,
        jitter_ms: u64,
        lose: impl Fn(usize) -> bool,
    ) -> Vec<u32> {
        let t0 = Instant::now();
        let block = rate as usize / 50 * 2 * channels;
        let mut changes = Vec::new();
        let mut i = 0;
        for b in 0..(seconds * 50.0) as u64 {
            let j = [0, jitter_ms, 0, jitter_ms / 2][(b % 4) as usize];
            let at = t0 + Duration::from_millis(b * 20 + j);
            let mut left = block;
            while left > 0 {
                let n = left.min(1364);
                left -= n;
                if !lose(i)
                    && let Some(r) = d.push(n, at)
                {
                    changes.push(r);
                }
                i += 1;
            }
        }
        changes
    }

    #[test]
    fn the_requested_rate_until_there_is_evidence() {
        let d = RateDetector::new(48_000, 4, 1364);
        assert_eq!(d.rate(), 48_000);
        assert_eq!(d.detected(), None);
    }

    #[test]
    fn sixteen_khz_stereo_sent_after_asking_for_48() {
        let mut d = RateDetector::new(48_000, 4, 1364);
        let changes = feed(&mut d, 16_000, 2, 1.0, 6, |_| false);
        assert_eq!(changes, vec![16_000]);
        assert_eq!(d.rate(), 16_000);
    }

    #[test]
    fn forty_eight_khz_in_three_packets_with_loss_and_jitter() {
        let mut d = RateDetector::new(48_000, 4, 1364);
        // 10 % of the packets lost: the cadence reads about 43 kHz
        let changes = feed(&mut d, 48_000, 2, 2.0, 8, |i| i % 10 == 3);
        assert_eq!(changes, vec![48_000]);
        let mut m = RateDetector::new(8_000, 2, 1364);
        assert_eq!(feed(&mut m, 24_000, 1, 1.0, 0, |_| false), vec![24_000]);
    }

    #[test]
    fn a_rate_change_is_followed() {
        let mut d = RateDetector::new(48_000, 2, 1364);
        feed(&mut d, 48_000, 1, 1.0, 0, |_| false);
        assert_eq!(d.rate(), 48_000);
        d.reset();
        assert_eq!(feed(&mut d, 16_000, 1, 1.0, 0, |_| false), vec![16_000]);
    }

    #[test]
    fn blocks_of_another_length_are_decided_by_cadence() {
        // 10 ms blocks of 12 kHz mono: the block size says 6 kHz (not standard)
        let mut d = RateDetector::new(48_000, 2, 1364);
        let t0 = Instant::now();
        let mut changes = Vec::new();
        for b in 0..200u64 {
            if let Some(r) = d.push(240, t0 + Duration::from_millis(b * 10)) {
                changes.push(r);
            }
        }
        assert_eq!(changes, vec![12_000]);
    }

    #[test]
    fn three_times_real_time_keeps_the_block_rate_and_shows_in_the_cadence() {
        // 48 kHz blocks, 150 a second (a sound card running three times too fast)
        let mut d = RateDetector::new(48_000, 4, 1364);
        let t0 = Instant::now();
        for b in 0..300u64 {
            for n in [1364, 1364, 1112] {
                d.push(n, t0 + Duration::from_micros(b * 20_000 / 3));
            }
        }
        assert_eq!(
            d.settled(),
            Some(48_000),
            "the block size speaks for 48 kHz"
        );
        assert_eq!(d.detected(), None, "the cadence does not confirm it");
        let ratio = d.cadence_hz().unwrap() / 48_000.0;
        assert!((ratio - 3.0).abs() < 0.1, "{ratio}");
    }

    #[test]
    fn garbage_never_decides() {
        let mut d = RateDetector::new(48_000, 4, 1364);
        let t0 = Instant::now();
        for i in 0..500u64 {
            d.push(
                (i as usize * 7919) % 1500,
                t0 + Duration::from_micros(i * 37),
            );
        }
        assert!(d.detected().is_none_or(|r| STANDARD_RATES.contains(&r)));
        let mut z = RateDetector::new(48_000, 0, 0);
        z.push(0, t0);
        z.push(0, t0);
        assert_eq!(z.rate(), 48_000);
    }
}
