//! Metrics for `GET /metrics`: the Prometheus text format (version 0.0.4) and the few
//! figures no other part keeps. Everything else is read, when a scrape comes, from the
//! counters the parts already keep (engine, DSP, link, stream and client counts): no
//! metric is a global that hot paths have to update.

use std::fmt::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::radio::events::RadioEvent;
use crate::radio::state_store::{StateChange, StateSink};

/// The kind of a metric family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// Only goes up (resets with the process).
    Counter,
    /// Goes up and down.
    Gauge,
}

impl MetricKind {
    fn as_str(self) -> &'static str {
        match self {
            MetricKind::Counter => "counter",
            MetricKind::Gauge => "gauge",
        }
    }
}

/// A page in the Prometheus text exposition format.
#[derive(Debug, Default)]
pub struct MetricsText {
    out: String,
}

impl MetricsText {
    /// Starts a family: its `# HELP` and `# TYPE` lines.
    pub fn family(&mut self, name: &str, kind: MetricKind, help: &str) -> &mut Self {
        let help = help.replace('\\', "\\\\").replace('\n', "\\n");
        let _ = writeln!(self.out, "# HELP {name} {help}");
        let _ = writeln!(self.out, "# TYPE {name} {}", kind.as_str());
        self
    }

    /// One sample of the family just started, with `labels` (name, value).
    pub fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) -> &mut Self {
        self.out.push_str(name);
        if !labels.is_empty() {
            self.out.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                let v = v
                    .replace('\\', "\\\\")
                    .replace('"', "\\\"")
                    .replace('\n', "\\n");
                let _ = write!(self.out, "{k}=\"{v}\"");
            }
            self.out.push('}');
        }
        let _ = writeln!(self.out, " {value}");
        self
    }

    /// A family with one unlabelled sample.
    pub fn single(&mut self, name: &str, kind: MetricKind, help: &str, value: f64) -> &mut Self {
        self.family(name, kind, help).sample(name, &[], value)
    }

    /// The page.
    pub fn finish(self) -> String {
        self.out
    }
}

/// Time on the air, from the radio's own PTT reports (a state sink: it sees every
/// change the radio confirms, whoever keyed).
#[derive(Debug, Default)]
pub struct TxClock {
    inner: Mutex<TxTime>,
}

#[derive(Debug, Default)]
struct TxTime {
    total: Duration,
    keyed_since: Option<Instant>,
}

impl TxClock {
    /// The radio started (`true`) or stopped transmitting at `now`.
    pub fn ptt(&self, on: bool, now: Instant) {
        let mut t = self.inner.lock();
        match (on, t.keyed_since) {
            (true, None) => t.keyed_since = Some(now),
            (false, Some(since)) => {
                t.total += now.saturating_duration_since(since);
                t.keyed_since = None;
            }
            _ => {}
        }
    }

    /// Transmitting time until `now`, the current transmission included.
    pub fn total(&self, now: Instant) -> Duration {
        let t = self.inner.lock();
        t.total
            + t.keyed_since
                .map_or(Duration::ZERO, |s| now.saturating_duration_since(s))
    }
}

impl StateSink for TxClock {
    fn on_change(&self, change: &Arc<StateChange>) {
        for e in &change.events {
            if let RadioEvent::Ptt(Some(on)) = e {
                self.ptt(*on, Instant::now());
            }
        }
    }
}

/// The figures kept for the metrics page.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Time on the air.
    pub tx: Arc<TxClock>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_format() {
        let mut m = MetricsText::default();
        m.single("up_seconds", MetricKind::Gauge, "Uptime.", 1.5);
        m.family("x_total", MetricKind::Counter, "Things\nby kind.")
            .sample("x_total", &[("kind", "a\"b"), ("k2", "c")], 3.0);
        assert_eq!(
            m.finish(),
            "# HELP up_seconds Uptime.\n# TYPE up_seconds gauge\nup_seconds 1.5\n\
             # HELP x_total Things\\nby kind.\n# TYPE x_total counter\n\
             x_total{kind=\"a\\\"b\",k2=\"c\"} 3\n"
        );
    }

    #[test]
    fn tx_clock_adds_transmissions() {
        let c = TxClock::default();
        let t0 = Instant::now();
        assert_eq!(c.total(t0), Duration::ZERO);
        c.ptt(true, t0);
        c.ptt(true, t0 + Duration::from_secs(1)); // a repeated report changes nothing
        assert_eq!(c.total(t0 + Duration::from_secs(2)), Duration::from_secs(2));
        c.ptt(false, t0 + Duration::from_secs(3));
        c.ptt(false, t0 + Duration::from_secs(4));
        assert_eq!(c.total(t0 + Duration::from_secs(9)), Duration::from_secs(3));
        c.ptt(true, t0 + Duration::from_secs(10));
        assert_eq!(
            c.total(t0 + Duration::from_secs(11)),
            Duration::from_secs(4)
        );
    }
}
