//! The dispatcher in virtual time: rate classes, order, fairness between clients,
//! unkeys first.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::*;
use crate::radio::table::command::{Target, Write};
use crate::radio::table::settings::SettingId;
use crate::wire::civ::Receiver;

const W: Duration = Duration::from_millis(50);
const A: ClientId = ClientId(1);
const B: ClientId = ClientId(2);

/// A dispatcher and what its replies received, by label.
struct Harness {
    d: Dispatcher,
    t0: Instant,
    answered: Arc<Mutex<Vec<(String, CommandResult)>>>,
    failed: Arc<Mutex<Vec<(String, String)>>>,
}

impl Harness {
    fn new(capacity: usize) -> Harness {
        let mut d = Dispatcher::new(W, capacity);
        let failed: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
        for id in [A, B] {
            let f = failed.clone();
            d.join(
                id,
                Arc::new(move |name, e| f.lock().push((name.to_string(), e.message.clone()))),
            );
        }
        Harness {
            d,
            t0: Instant::now(),
            answered: Arc::default(),
            failed,
        }
    }

    fn at(&self, ms: u64) -> Instant {
        self.t0 + Duration::from_millis(ms)
    }

    /// Offers `cmd` (row `name`, class from the name) as `label`; delivers what is
    /// answered at once.
    fn offer(
        &mut self,
        from: ClientId,
        label: &str,
        name: &'static str,
        cmd: Command,
        ms: u64,
    ) -> Result<(), CommandError> {
        let class = if name.starts_with("set_") {
            RateClass::Setting
        } else {
            RateClass::Action
        };
        let (log, label) = (self.answered.clone(), label.to_string());
        let reply: Reply = Box::new(move |r| log.lock().push((label, r)));
        let answers = self.d.offer(from, name, class, cmd, reply, self.at(ms))?;
        for (r, res) in answers {
            r(res);
        }
        Ok(())
    }

    /// Takes what may go at `ms`, answering each command with ok (the engine's part).
    fn take(&mut self, ms: u64) -> Vec<Command> {
        let mut out = Vec::new();
        while let Some(job) = self.d.next(self.at(ms)) {
            out.push(job.cmd.clone());
            (job.reply)(Ok(Answer::Done));
        }
        out
    }

    /// Runs the clock from `from` to `to` ms, taking what may go at each instant the
    /// dispatcher asks for; returns `(ms, command)` in order.
    fn run(&mut self, from: u64, to: u64) -> Vec<(u64, Command)> {
        let mut out = Vec::new();
        let mut ms = from;
        loop {
            out.extend(self.take(ms).into_iter().map(|c| (ms, c)));
            let Some(t) = self.d.poll_timeout(self.at(ms)) else {
                break;
            };
            let next = (t - self.t0).as_millis() as u64;
            assert!(
                next > ms,
                "poll_timeout {next} ms is not after now ({ms} ms)"
            );
            if next > to {
                break;
            }
            ms = next;
        }
        out
    }

    fn result(&self, label: &str) -> Option<CommandResult> {
        self.answered
            .lock()
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, r)| r.clone())
    }

    fn throttled(&self, label: &str) -> bool {
        self.result(label) == Some(Ok(Answer::Throttled))
    }
}

fn freq(receiver: Receiver, hz: u64) -> Command {
    Command::SetFreq {
        target: Target::Receiver(receiver),
        hz,
    }
}

fn f(hz: u64) -> Command {
    freq(Receiver::Main, hz)
}

fn scope(writes: &[(SettingId, i64)]) -> Command {
    Command::Write {
        vfo: None,
        writes: writes
            .iter()
            .map(|&(id, raw)| Write {
                id,
                receiver: None,
                raw,
            })
            .collect(),
        result: crate::radio::table::answer::Written::default(),
    }
}

fn af(level: i64) -> Command {
    Command::write(SettingId::AfGain, Receiver::Main, level)
}

#[test]
fn a_burst_of_settings_goes_once_per_window_and_ends_at_the_last_value() {
    let mut h = Harness::new(32);
    for i in 0..100u64 {
        h.offer(A, &format!("f{i}"), "set_freq", f(i), i / 4)
            .unwrap();
        if i == 0 {
            assert_eq!(h.take(0), vec![f(0)]);
        }
    }
    assert_eq!(h.result("f0"), Some(Ok(Answer::Done)), "the first one ran");
    assert!(
        (1..100).all(|i| h.throttled(&format!("f{i}"))),
        "the others answered at once"
    );
    assert!(h.take(49).is_empty(), "nothing before the window ends");
    assert_eq!(h.d.poll_timeout(h.at(30)), Some(h.at(50)));
    assert_eq!(
        h.take(50),
        vec![f(99)],
        "the last value when the window ends"
    );
    assert_eq!(h.d.poll_timeout(h.at(50)), None);
}

#[test]
fn values_superseded_before_they_were_sent_are_answered_throttled() {
    // a value queued behind other commands (its window was over) and then superseded:
    // its reply is kept for the merged command; the newer one is answered at once
    let mut h = Harness::new(32);
    h.offer(A, "s", "vfo_swap", Command::VfoSwap, 0).unwrap();
    h.offer(A, "f1", "set_freq", f(1), 0).unwrap();
    h.offer(A, "f2", "set_freq", f(2), 1).unwrap();
    assert!(h.throttled("f2"));
    assert_eq!(h.result("f1"), None);
    assert_eq!(h.take(2), vec![Command::VfoSwap, f(2)]);
    assert_eq!(h.result("f1"), Some(Ok(Answer::Done)));
}

#[test]
fn partial_settings_in_one_window_lose_no_parameter() {
    // review: `set_scope {span}` sent, `{speed}` throttled, then `{hold}` replaced it:
    // the speed was answered ok and never applied
    use SettingId::{ScopeHold, ScopeSpan, ScopeSpeed};
    let mut h = Harness::new(32);
    h.offer(A, "a", "set_scope", scope(&[(ScopeSpan, 5_000)]), 0)
        .unwrap();
    assert_eq!(h.take(0).len(), 1);
    h.offer(A, "b", "set_scope", scope(&[(ScopeSpeed, 2)]), 1)
        .unwrap();
    h.offer(
        A,
        "c",
        "set_scope",
        scope(&[(ScopeHold, 1), (ScopeSpeed, 1)]),
        2,
    )
    .unwrap();
    h.offer(A, "d", "set_scope", scope(&[(ScopeSpan, 2_500)]), 3)
        .unwrap();
    assert_eq!(
        h.take(50),
        vec![scope(&[
            (ScopeHold, 1),
            (ScopeSpeed, 1),
            (ScopeSpan, 2_500)
        ])]
    );
}

#[test]
fn receivers_are_limited_separately() {
    // review: MAIN and SUB shared one slot, so tuning MAIN dropped SUB's value
    let mut h = Harness::new(32);
    h.offer(A, "m1", "set_freq", freq(Receiver::Main, 1), 0)
        .unwrap();
    h.offer(A, "s1", "set_freq", freq(Receiver::Sub, 2), 1)
        .unwrap();
    assert_eq!(
        h.take(1),
        vec![freq(Receiver::Main, 1), freq(Receiver::Sub, 2)]
    );
    h.offer(A, "s2", "set_freq", freq(Receiver::Sub, 3), 2)
        .unwrap();
    h.offer(A, "m2", "set_freq", freq(Receiver::Main, 4), 3)
        .unwrap();
    assert_eq!(
        h.take(60),
        vec![freq(Receiver::Sub, 3), freq(Receiver::Main, 4)]
    );
}

#[test]
fn a_waiting_value_is_never_flushed_early_by_another_command() {
    // issue 15: 200 `set_freq` + `vfo_equalize` pairs put 401 frequency frames on the
    // wire in 0.26 s while 199 answers said `throttled`: every other command flushed the
    // waiting frequency out before its window ended
    let mut h = Harness::new(512);
    let mut sent = Vec::new();
    for i in 0..200u64 {
        let ms = i * 13 / 10; // 200 pairs in 0.26 s
        h.offer(A, &format!("f{i}"), "set_freq", f(i), ms).unwrap();
        h.offer(
            A,
            &format!("e{i}"),
            "vfo_equalize",
            Command::VfoEqualize,
            ms,
        )
        .unwrap();
        sent.extend(h.take(ms).into_iter().map(|c| (ms, c)));
    }
    sent.extend(h.run(260, 60_000));
    let freqs: Vec<(u64, u64)> = sent
        .iter()
        .filter_map(|(ms, c)| match c {
            Command::SetFreq { hz, .. } => Some((*ms, *hz)),
            _ => None,
        })
        .collect();
    for w in freqs.windows(2) {
        assert!(w[1].0 >= w[0].0 + 50, "frequencies at {freqs:?}");
    }
    assert_eq!(
        freqs.last().map(|x| x.1),
        Some(199),
        "ends at the last value"
    );
    let eqs: Vec<u64> = sent
        .iter()
        .filter(|(_, c)| *c == Command::VfoEqualize)
        .map(|(ms, _)| *ms)
        .collect();
    assert_eq!(eqs.len(), 200, "every action counts");
    for w in eqs.windows(2) {
        assert!(w[1] >= w[0] + 50, "one vfo_equalize per window: {eqs:?}");
    }
    // the client's order: every equalize follows the frequency sent before it
    let last_eq = sent
        .iter()
        .rposition(|(_, c)| *c == Command::VfoEqualize)
        .unwrap();
    let last_f = sent
        .iter()
        .rposition(|(_, c)| matches!(c, Command::SetFreq { .. }))
        .unwrap();
    assert!(
        last_f < last_eq,
        "the last equalize copies the last frequency"
    );
    assert!(h.failed.lock().is_empty());
}

#[test]
fn commands_reach_the_radio_in_the_order_they_were_sent() {
    // review: set_band 5, set_freq a, set_freq b (waits), set_band 7 (waits) ended at b
    // when the band's slot happened to come first
    let mut h = Harness::new(32);
    h.offer(A, "b5", "set_band", Command::SetBand(5), 0)
        .unwrap();
    h.offer(A, "f1", "set_freq", f(1), 5).unwrap();
    assert_eq!(h.take(5), vec![Command::SetBand(5), f(1)]);
    h.offer(A, "f2", "set_freq", f(2), 6).unwrap();
    h.offer(A, "b7", "set_band", Command::SetBand(7), 7)
        .unwrap();
    // the band's window ends first, but the frequency sent before it goes first, in its
    // own window
    assert!(h.take(50).is_empty());
    assert_eq!(
        h.run(50, 1_000),
        vec![(55, f(2)), (55, Command::SetBand(7))]
    );
}

#[test]
fn actions_each_count_and_go_once_per_window() {
    let mut h = Harness::new(32);
    for i in 0..3 {
        h.offer(A, &format!("s{i}"), "vfo_swap", Command::VfoSwap, 0)
            .unwrap();
    }
    let sent = h.run(0, 1_000);
    assert_eq!(
        sent,
        vec![
            (0, Command::VfoSwap),
            (50, Command::VfoSwap),
            (100, Command::VfoSwap)
        ]
    );
    assert!((0..3).all(|i| h.result(&format!("s{i}")) == Some(Ok(Answer::Done))));
}

#[test]
fn a_flooding_client_fills_only_its_own_queue() {
    // issue 15: 96,436 vfo_swap in 6 s from one client; another client's set_af_gain
    // got radio_busy
    let mut h = Harness::new(32);
    let mut busy = 0;
    for i in 0..1_000 {
        match h.offer(A, &format!("s{i}"), "vfo_swap", Command::VfoSwap, 0) {
            Ok(()) => {}
            Err(e) => {
                assert_eq!(e.code, ErrorCode::RadioBusy);
                busy += 1;
            }
        }
    }
    assert_eq!(busy, 1_000 - 32, "the flooder's own queue is full");
    assert_eq!(h.take(0), vec![Command::VfoSwap]);
    h.offer(B, "af", "set_af_gain", af(10), 1).unwrap();
    assert_eq!(h.take(1), vec![af(10)], "the other client goes at once");
    // in turn: while the flooder's next swap waits for its window, B's commands go
    h.offer(B, "af2", "set_af_gain", af(20), 60).unwrap();
    h.offer(B, "sw", "vfo_swap", Command::VfoSwap, 60).unwrap();
    let next: Vec<_> = std::iter::from_fn(|| h.d.next(h.at(60)).map(|j| j.cmd)).collect();
    assert_eq!(next, vec![Command::VfoSwap, af(20), Command::VfoSwap]);
}

#[test]
fn clients_are_served_in_turn() {
    let mut h = Harness::new(32);
    // three commands of each client, none of which merges with another (each names
    // another setting or receiver)
    let a = [
        ("set_af_gain", SettingId::AfGain, Receiver::Main),
        ("set_af_gain", SettingId::AfGain, Receiver::Sub),
        ("set_squelch", SettingId::Squelch, Receiver::Main),
    ];
    let b = [
        ("set_rf_gain", SettingId::RfGain, Receiver::Main),
        ("set_rf_gain", SettingId::RfGain, Receiver::Sub),
        ("set_nb_level", SettingId::NbLevel, Receiver::Main),
    ];
    let write = |(_, id, r): (&str, SettingId, Receiver)| Command::write(id, r, 1);
    for i in 0..3 {
        h.offer(A, &format!("a{i}"), a[i].0, write(a[i]), 0)
            .unwrap();
        h.offer(B, &format!("b{i}"), b[i].0, write(b[i]), 0)
            .unwrap();
    }
    let order: Vec<_> = std::iter::from_fn(|| h.d.next(h.at(0)).map(|j| j.cmd)).collect();
    let expected: Vec<_> = (0..3).flat_map(|i| [write(a[i]), write(b[i])]).collect();
    assert_eq!(order, expected);
}

#[test]
fn an_unkey_goes_first_and_cancels_the_keys_queued_before_it() {
    let mut h = Harness::new(32);
    for i in 0..5 {
        h.offer(A, &format!("s{i}"), "vfo_swap", Command::VfoSwap, 0)
            .unwrap();
    }
    h.offer(A, "key", "ptt", Command::Ptt(true), 0).unwrap();
    h.offer(B, "cw", "send_cw", Command::SendCw("TEST".into()), 0)
        .unwrap();
    h.offer(B, "unkey", "ptt", Command::Ptt(false), 1).unwrap();
    let e = h.result("key").unwrap().unwrap_err();
    assert_eq!(e.code, ErrorCode::PttBusy, "{e}");
    assert_eq!(
        h.result("cw").unwrap().unwrap_err().code,
        ErrorCode::PttBusy
    );
    assert_eq!(
        h.d.next(h.at(1)).map(|j| j.cmd),
        Some(Command::Ptt(false)),
        "the unkey goes first"
    );
    // the server's release too, and identical unkeys waiting are sent once
    h.offer(ClientId::SERVER, "r1", "server", Command::Release, 2)
        .unwrap();
    h.offer(ClientId::SERVER, "r2", "server", Command::Release, 2)
        .unwrap();
    assert_eq!(
        h.d.next(h.at(2)).map(|j| {
            (j.reply)(Ok(Answer::Done));
            j.cmd
        }),
        Some(Command::Release)
    );
    assert_eq!(h.result("r1"), Some(Ok(Answer::Done)));
    assert_eq!(h.result("r2"), Some(Ok(Answer::Done)));
    assert_eq!(h.d.next(h.at(2)).map(|j| j.cmd), Some(Command::VfoSwap));
}

#[test]
fn a_flood_of_unkeys_cannot_hold_the_others_out() {
    let mut h = Harness::new(32);
    for i in 0..100 {
        let _ = h.offer(A, &format!("u{i}"), "ptt", Command::Ptt(false), 0);
    }
    h.offer(B, "af", "set_af_gain", af(1), 0).unwrap();
    let order: Vec<_> = std::iter::from_fn(|| h.d.next(h.at(0)).map(|j| j.cmd)).collect();
    assert_eq!(
        order,
        vec![Command::Ptt(false), af(1)],
        "one unkey ahead, then in turn"
    );
}

#[test]
fn a_client_that_left_still_gets_what_it_asked_for_then_is_forgotten() {
    let mut h = Harness::new(32);
    h.offer(A, "f1", "set_freq", f(1), 0).unwrap();
    assert_eq!(h.take(0), vec![f(1)]);
    h.offer(A, "f2", "set_freq", f(2), 1).unwrap();
    h.d.leave(A);
    assert!(h.take(10).is_empty(), "not before its window");
    assert_eq!(h.take(50), vec![f(2)]);
    assert!(!h.d.clients.contains_key(&A));
    // a throttled command that fails after its client left is logged, not reported
    h.offer(B, "g1", "set_freq", f(3), 100).unwrap();
    h.take(100);
    h.offer(B, "g2", "set_freq", f(4), 101).unwrap();
    let job = h.d.next(h.at(150)).unwrap();
    (job.reply)(Err(CommandError::new(ErrorCode::RadioRejected, "NAK")));
    assert_eq!(
        h.failed.lock().as_slice(),
        &[("set_freq".to_string(), "NAK".to_string())]
    );
}

#[test]
fn the_servers_commands_are_not_limited_and_closing_answers_what_waits() {
    let mut h = Harness::new(4);
    for i in 0..3 {
        h.offer(
            ClientId::SERVER,
            &format!("s{i}"),
            "server",
            Command::ScopeOutput(true),
            0,
        )
        .unwrap();
    }
    assert_eq!(h.take(0).len(), 3, "no window for the server");
    h.offer(A, "f1", "set_freq", f(1), 1).unwrap();
    h.offer(A, "sw", "vfo_swap", Command::VfoSwap, 1).unwrap();
    for (reply, r) in h.d.close() {
        reply(r);
    }
    assert_eq!(
        h.result("f1").unwrap().unwrap_err().code,
        ErrorCode::RadioUnavailable
    );
    assert_eq!(
        h.result("sw").unwrap().unwrap_err().code,
        ErrorCode::RadioUnavailable
    );
    let e = h.offer(A, "f2", "set_freq", f(2), 2).unwrap_err();
    assert_eq!(e.code, ErrorCode::RadioUnavailable);
    assert!(h.d.is_empty());
}
