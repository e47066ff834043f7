//! The refresh schedule in virtual (calendar) time.

use super::*;
use crate::util::time::parse_iso8601;

const TEMPLATE: &str = "http://127.0.0.1:9/sked-{season}.csv";

fn t(iso: &str) -> SystemTime {
    parse_iso8601(iso).unwrap()
}

fn v(etag: &str) -> Validators {
    Validators {
        etag: Some(etag.into()),
        last_modified: Some("Sun, 01 Jun 2025 10:00:00 GMT".into()),
    }
}

#[test]
fn without_a_cache_the_file_is_fetched_at_once_then_weekly_and_conditionally() {
    let now = t("2025-06-01T12:00:00Z");
    let mut r = Refresh::new(TEMPLATE, Intervals::default(), None, now);
    let req = r.poll_fetch(now).unwrap();
    assert_eq!(req.url, "http://127.0.0.1:9/sked-a25.csv");
    assert_eq!(req.validators, None);
    assert!(r.fetching());
    assert_eq!(r.poll_fetch(now), None, "one at a time");
    assert_eq!(r.poll_timeout(now), None);
    r.on_outcome(now, Outcome::Updated(v("\"1\"")));
    let week = now + Duration::from_secs(7 * 86_400);
    assert_eq!(r.poll_timeout(now), Some(week));
    assert_eq!(r.poll_fetch(week - Duration::from_secs(1)), None);
    let req = r.poll_fetch(week).unwrap();
    assert_eq!(req.validators, Some(v("\"1\"")), "conditional");
    r.on_outcome(week, Outcome::NotModified);
    assert_eq!(r.loaded().unwrap().checked_at, week);
    assert_eq!(
        r.poll_timeout(week),
        Some(week + Duration::from_secs(7 * 86_400))
    );
}

#[test]
fn a_fresh_cache_of_this_season_waits_and_a_stale_or_other_one_does_not() {
    let now = t("2025-06-01T12:00:00Z");
    let cached = |url: &str, days_ago: u64| Loaded {
        url: url.into(),
        checked_at: now - Duration::from_secs(days_ago * 86_400),
        validators: v("\"c\""),
    };
    let mut r = Refresh::new(
        TEMPLATE,
        Intervals::default(),
        Some(cached("http://127.0.0.1:9/sked-a25.csv", 2)),
        now,
    );
    assert_eq!(r.poll_fetch(now), None);
    assert_eq!(
        r.poll_timeout(now),
        Some(now + Duration::from_secs(5 * 86_400))
    );
    let mut r = Refresh::new(
        TEMPLATE,
        Intervals::default(),
        Some(cached("http://127.0.0.1:9/sked-a25.csv", 8)),
        now,
    );
    assert_eq!(r.poll_fetch(now).unwrap().validators, Some(v("\"c\"")));
    let mut r = Refresh::new(
        TEMPLATE,
        Intervals::default(),
        Some(cached("http://127.0.0.1:9/sked-b24.csv", 1)),
        now,
    );
    let req = r.poll_fetch(now).unwrap();
    assert_eq!(
        (req.url.as_str(), req.validators.clone()),
        ("http://127.0.0.1:9/sked-a25.csv", None)
    );
}

#[test]
fn failures_back_off_from_a_minute_to_six_hours_and_keep_the_data() {
    let now = t("2025-06-01T12:00:00Z");
    let mut r = Refresh::new(TEMPLATE, Intervals::default(), None, now);
    let mut at = now;
    let mut delays = Vec::new();
    for _ in 0..12 {
        r.poll_fetch(at).expect("due");
        r.on_outcome(at, Outcome::Failed);
        let next = r.poll_timeout(at).unwrap();
        delays.push(next.duration_since(at).unwrap().as_secs() / 60);
        assert_eq!(r.poll_fetch(next - Duration::from_secs(1)), None);
        at = next;
    }
    assert_eq!(delays, [1, 2, 4, 8, 16, 32, 64, 128, 256, 360, 360, 360]);
    r.poll_fetch(at).unwrap();
    r.on_outcome(at, Outcome::Updated(Validators::default()));
    assert_eq!(
        r.poll_timeout(at),
        Some(at + Duration::from_secs(7 * 86_400)),
        "reset"
    );
}

#[test]
fn the_season_change_fetches_the_new_file_and_a_missing_one_is_retried_later() {
    let now = t("2025-10-20T12:00:00Z");
    let mut r = Refresh::new(TEMPLATE, Intervals::default(), None, now);
    r.poll_fetch(now).unwrap();
    r.on_outcome(now, Outcome::Updated(v("\"a\"")));
    let change = t("2025-10-26T01:00:00Z");
    assert_eq!(
        r.poll_timeout(now),
        Some(change),
        "the season ends before the week does"
    );
    let req = r.poll_fetch(change).unwrap();
    assert_eq!(
        (req.url.as_str(), req.validators.clone()),
        ("http://127.0.0.1:9/sked-b25.csv", None)
    );
    // not published yet: the A data stays, and the B file is asked for again in a minute
    r.on_outcome(change, Outcome::Failed);
    assert_eq!(r.loaded().unwrap().url, "http://127.0.0.1:9/sked-a25.csv");
    assert_eq!(r.poll_fetch(change + Duration::from_secs(30)), None);
    assert!(r.poll_fetch(change + Duration::from_secs(60)).is_some());
}

#[test]
fn asking_fetches_now_conditionally_or_forced() {
    let now = t("2025-06-01T12:00:00Z");
    let mut r = Refresh::new(TEMPLATE, Intervals::default(), None, now);
    r.poll_fetch(now).unwrap();
    r.on_outcome(now, Outcome::Updated(v("\"1\"")));
    r.ask(false);
    assert_eq!(r.poll_timeout(now), Some(now));
    assert_eq!(r.poll_fetch(now).unwrap().validators, Some(v("\"1\"")));
    r.on_outcome(now, Outcome::NotModified);
    r.ask(false);
    r.ask(true);
    assert_eq!(r.poll_fetch(now).unwrap().validators, None, "force wins");
    // asked while running: once more afterwards
    r.ask(true);
    r.on_outcome(now, Outcome::Updated(v("\"2\"")));
    assert!(r.poll_fetch(now).is_some());
    // an outcome without a fetch is ignored
    r.on_outcome(now, Outcome::Failed);
    r.on_outcome(now, Outcome::Failed);
    assert_eq!(r.loaded().unwrap().validators, v("\"2\""));
}
