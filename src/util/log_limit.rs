//! Rate limiting of repeated log lines of one kind, so that a client repeating a bad
//! request (or a flood of them) cannot fill the log: of each kind, the first
//! [`LogLimiter::burst`] lines of an interval are logged, the rest are counted, and the
//! next line logged after the interval says how many were left out
//! ("… 297 similar lines suppressed"), as the kernel's `printk_ratelimit` does.
//!
//! A kind is one [`LogLimiter`], usually a `static` next to the line it limits, shared
//! by every thread and connection (the limit is server-wide). The limiter is sans-IO:
//! [`LogLimiter::admit`] takes the time; [`log_limited!`](crate::log_limited) is the
//! shell that reads the clock and logs.

use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// Lines of one kind logged per interval before the rest are counted instead.
pub const DEFAULT_BURST: u32 = 5;
/// Length of an interval.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(10);

/// What to do with one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Log it; `suppressed` lines of this kind were left out before it (tell so).
    Log {
        /// Lines left out since the last one logged.
        suppressed: u64,
    },
    /// Leave it out (counted).
    Suppress,
}

#[derive(Debug)]
struct Window {
    start: Option<Instant>,
    logged: u32,
    suppressed: u64,
}

/// The limit of one kind of line; see the module docs.
#[derive(Debug)]
pub struct LogLimiter {
    burst: u32,
    interval: Duration,
    window: Mutex<Window>,
}

impl Default for LogLimiter {
    fn default() -> Self {
        LogLimiter::new(DEFAULT_BURST, DEFAULT_INTERVAL)
    }
}

impl LogLimiter {
    /// At most `burst` lines per `interval` (a `burst` of 0 counts as 1).
    pub const fn new(burst: u32, interval: Duration) -> LogLimiter {
        LogLimiter {
            burst: if burst == 0 { 1 } else { burst },
            interval,
            window: Mutex::new(Window {
                start: None,
                logged: 0,
                suppressed: 0,
            }),
        }
    }

    /// Lines logged per interval.
    pub fn burst(&self) -> u32 {
        self.burst
    }

    /// Whether a line that comes at `now` is logged.
    pub fn admit(&self, now: Instant) -> Admit {
        let mut w = self.window.lock();
        let fresh = w
            .start
            .is_none_or(|s| now.saturating_duration_since(s) >= self.interval);
        if fresh {
            w.start = Some(now);
            w.logged = 0;
        }
        if w.logged < self.burst {
            w.logged += 1;
            let suppressed = std::mem::take(&mut w.suppressed);
            return Admit::Log { suppressed };
        }
        w.suppressed += 1;
        Admit::Suppress
    }
}

/// `log_limited!(LIMITER, Level::Warn, "format", args…)`: logs the line at that level if
/// `LIMITER` (a [`LogLimiter`]) admits it now, followed by how many similar lines were
/// left out before it.
#[macro_export]
macro_rules! log_limited {
    ($limiter:expr, $level:expr, $($arg:tt)+) => {{
        if log::log_enabled!($level) {
            if let $crate::util::log_limit::Admit::Log { suppressed } =
                $limiter.admit(std::time::Instant::now())
            {
                if suppressed > 0 {
                    log::log!(
                        $level,
                        "{} (… {} similar lines suppressed)",
                        format_args!($($arg)+),
                        suppressed
                    );
                } else {
                    log::log!($level, $($arg)+);
                }
            }
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn the_first_lines_of_an_interval_pass_then_the_rest_is_counted() {
        let t = Instant::now();
        let l = LogLimiter::new(3, Duration::from_secs(10));
        // 300 lines in 0.1 s (the flood): 3 logged
        let logged: Vec<Admit> = (0..300u32)
            .map(|i| l.admit(t + Duration::from_micros(u64::from(i) * 333)))
            .filter(|a| *a != Admit::Suppress)
            .collect();
        assert_eq!(logged, vec![Admit::Log { suppressed: 0 }; 3]);
        // still inside the interval
        assert_eq!(l.admit(t + 9 * S), Admit::Suppress);
        // the next interval: the first line tells how many were left out
        assert_eq!(l.admit(t + 10 * S), Admit::Log { suppressed: 298 });
        assert_eq!(l.admit(t + 10 * S), Admit::Log { suppressed: 0 });
        assert_eq!(l.admit(t + 10 * S), Admit::Log { suppressed: 0 });
        assert_eq!(l.admit(t + 11 * S), Admit::Suppress);
        assert_eq!(l.admit(t + 30 * S), Admit::Log { suppressed: 1 });
    }

    #[test]
    fn odd_settings_and_clocks() {
        let t = Instant::now();
        let l = LogLimiter::new(0, Duration::ZERO);
        assert_eq!(l.burst(), 1);
        // an interval of zero limits nothing
        for _ in 0..5 {
            assert_eq!(l.admit(t), Admit::Log { suppressed: 0 });
        }
        // a time before the window's start (threads race for the lock) is inside it
        let l = LogLimiter::new(1, S);
        assert_eq!(l.admit(t + S), Admit::Log { suppressed: 0 });
        assert_eq!(l.admit(t), Admit::Suppress);
    }

    #[test]
    fn limiters_are_shared_across_threads() {
        static KIND: LogLimiter = LogLimiter::new(4, Duration::from_secs(3_600));
        let logged: usize = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        (0..100)
                            .filter(|_| KIND.admit(Instant::now()) != Admit::Suppress)
                            .count()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(logged, 4, "four in all, not four per thread");
        crate::log_limited!(KIND, log::Level::Warn, "compiles with {} args", 1);
    }
}
