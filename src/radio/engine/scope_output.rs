//! When the radio's scope output is switched, sans-IO: on when the scope stream gets its
//! first subscriber, off [`OFF_GRACE`] after the last one left (a viewer who reloads the
//! page keeps the sweeps coming), never for a scope the server computes itself (the
//! audio-FFT scope needs no wave data from the radio). Fed subscriber counts and the
//! current time; says which switch to ask for. The `scope-output` thread
//! (`radio/shell/scope_pump.rs`) is its shell.

use std::time::{Duration, Instant};

/// How long the radio keeps sending after the last subscriber left.
pub const OFF_GRACE: Duration = Duration::from_secs(2);

/// See the module docs.
#[derive(Debug, Default)]
pub struct ScopeOutputSwitch {
    on: bool,
    off_at: Option<Instant>,
}

impl ScopeOutputSwitch {
    /// The scope stream has `subscribers` now; `hardware`: the scope is the radio's
    /// (else the server computes it). Returns the switch to ask for, if any.
    pub fn subscribers(
        &mut self,
        subscribers: usize,
        hardware: bool,
        now: Instant,
    ) -> Option<bool> {
        if subscribers > 0 {
            self.off_at = None;
            if hardware && !self.on {
                self.on = true;
                return Some(true);
            }
        } else if self.on && self.off_at.is_none() {
            self.off_at = Some(now + OFF_GRACE);
        }
        None
    }

    /// When [`ScopeOutputSwitch::handle_timeout`] has work (`None`: only a change of
    /// subscribers does).
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.off_at
    }

    /// Time passed to `now`: returns `Some(false)` when the output is to go off.
    pub fn handle_timeout(&mut self, now: Instant) -> Option<bool> {
        match self.off_at {
            Some(t) if now >= t => {
                self.off_at = None;
                self.on = false;
                Some(false)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_with_the_first_subscriber_off_two_seconds_after_the_last() {
        let t0 = Instant::now();
        let s = |ms: u64| t0 + Duration::from_millis(ms);
        let mut sw = ScopeOutputSwitch::default();
        assert_eq!(sw.poll_timeout(), None);
        assert_eq!(sw.subscribers(1, true, t0), Some(true));
        assert_eq!(sw.subscribers(3, true, s(10)), None, "already on");
        assert_eq!(sw.subscribers(0, true, s(100)), None);
        assert_eq!(sw.poll_timeout(), Some(s(2_100)));
        assert_eq!(sw.handle_timeout(s(2_099)), None);
        // a second zero count does not push the switch-off later
        assert_eq!(sw.subscribers(0, true, s(1_000)), None);
        assert_eq!(sw.poll_timeout(), Some(s(2_100)));
        assert_eq!(sw.handle_timeout(s(2_100)), Some(false));
        assert_eq!(sw.poll_timeout(), None);
        assert_eq!(sw.handle_timeout(s(5_000)), None, "off once");
        assert_eq!(sw.subscribers(1, true, s(6_000)), Some(true), "on again");
    }

    #[test]
    fn a_viewer_back_within_the_grace_keeps_the_output_on() {
        let t0 = Instant::now();
        let s = |ms: u64| t0 + Duration::from_millis(ms);
        let mut sw = ScopeOutputSwitch::default();
        assert_eq!(sw.subscribers(1, true, t0), Some(true));
        assert_eq!(sw.subscribers(0, true, s(500)), None);
        assert_eq!(
            sw.subscribers(1, true, s(1_500)),
            None,
            "still on: nothing asked"
        );
        assert_eq!(sw.poll_timeout(), None);
        assert_eq!(sw.handle_timeout(s(10_000)), None);
    }

    #[test]
    fn a_scope_the_server_computes_never_switches_the_radio() {
        let t0 = Instant::now();
        let mut sw = ScopeOutputSwitch::default();
        assert_eq!(sw.subscribers(2, false, t0), None);
        assert_eq!(sw.subscribers(0, false, t0), None);
        assert_eq!(sw.poll_timeout(), None);
    }
}
