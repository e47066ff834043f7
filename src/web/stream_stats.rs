//! Delivery latency of stream frames: from the moment the datagram that completed a
//! frame's data arrived at the radio link's UDP socket (stamped by the LAN thread and
//! carried with the sweep or the RX audio block) to the moment its WebSocket frame has
//! been written to the client's socket (after the write and flush, not when queued).
//! Fixed 20 µs buckets up to 40 ms, lock-free, for the benchmarks and diagnostics.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Width of a bucket.
const BUCKET: Duration = Duration::from_micros(20);
/// Buckets (the last one also holds everything slower).
const BUCKETS: usize = 2_000;

/// A latency histogram.
pub struct LatencyHistogram {
    counts: Box<[AtomicU64]>,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        LatencyHistogram {
            counts: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

impl LatencyHistogram {
    /// Counts one delivery that took `d`.
    pub fn record(&self, d: Duration) {
        let i = (d.as_micros() / BUCKET.as_micros()).min(BUCKETS as u128 - 1) as usize;
        self.counts[i].fetch_add(1, Ordering::Relaxed);
    }

    /// Deliveries counted.
    pub fn count(&self) -> u64 {
        self.counts.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }

    /// The `p`-th percentile (0..=100), as the upper edge of its bucket.
    pub fn percentile(&self, p: f64) -> Option<Duration> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        let rank = ((p / 100.0) * total as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c.load(Ordering::Relaxed);
            if seen >= rank {
                return Some(BUCKET * (i as u32 + 1));
            }
        }
        Some(BUCKET * BUCKETS as u32)
    }

    /// Forgets everything counted.
    pub fn reset(&self) {
        for c in self.counts.iter() {
            c.store(0, Ordering::Relaxed);
        }
    }
}

/// Latency of each kind of stream, and the frames dropped for clients that were behind
/// (every client's queue adds to these: `LatestWins::counting_drops`).
#[derive(Default)]
pub struct StreamStats {
    /// Scope frames (hardware or audio-FFT).
    pub scope: LatencyHistogram,
    /// RX audio frames.
    pub audio: LatencyHistogram,
    /// Meter frames.
    pub meters: LatencyHistogram,
    /// Scope frames dropped.
    pub scope_dropped: Arc<AtomicU64>,
    /// RX audio frames dropped.
    pub audio_dropped: Arc<AtomicU64>,
    /// Meter frames dropped.
    pub meters_dropped: Arc<AtomicU64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_bucket() {
        let h = LatencyHistogram::default();
        assert_eq!(h.percentile(50.0), None);
        for us in [10u64, 30, 50, 70, 90_000] {
            h.record(Duration::from_micros(us));
        }
        assert_eq!(h.count(), 5);
        assert_eq!(h.percentile(50.0), Some(Duration::from_micros(60)));
        assert_eq!(h.percentile(0.0), Some(Duration::from_micros(20)));
        assert_eq!(h.percentile(100.0), Some(Duration::from_millis(40)));
        h.reset();
        assert_eq!(h.count(), 0);
    }
}
