//! Moving the engine along: starting the next procedure (internal work, then user
//! commands, then background polls), stepping it, sending its requests when allowed,
//! and what a finished procedure and its effects change.

use std::time::Instant;

use crate::lan::session::link_state::LinkState;
use crate::radio::engine::proc::{self, Cx, Effect, Procedure, Step};
use crate::radio::engine::request::CivRequest;
use crate::radio::engine::timers::Timer;
use crate::radio::engine::{
    CommandResult, Engine, Internal, Job, Origin, Running, commands, fetch, safety, tuning,
};
use crate::radio::table::answer::Answer;
use crate::radio::table::command::Command;
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::radio::table::settings::{Setting, SettingId};
use crate::wire::civ::{Receiver, cmd};

impl Engine {
    /// Starts the next procedure: internal work first, then user commands, then
    /// background polls.
    pub(super) fn start_next(&mut self, now: Instant) -> bool {
        let (proc, origin): (Box<dyn Procedure>, Origin) = if let Some(i) =
            self.internal.pop_front()
        {
            let proc: Box<dyn Procedure> = match i {
                Internal::Fetch => Box::new(fetch::Fetch::new()),
                Internal::ScopeRestore => {
                    let mut effects = Vec::new();
                    let mut cx = Cx {
                        profile: &self.profile,
                        state: &mut self.state,
                        effects: &mut effects,
                        transceive: &[],
                    };
                    commands::procedure(&mut cx, &Command::ScopeOutput(true))
                }
                Internal::WidthRefresh(rx) => {
                    let mut cx = Cx {
                        profile: &self.profile,
                        state: &mut self.state,
                        effects: &mut Vec::new(),
                        transceive: &[],
                    };
                    Box::new(tuning::width_refresh(&mut cx, rx))
                }
                Internal::ScopeRefresh => {
                    let rx = self.state.read(|c| c.radio.scope.receiver);
                    let cx = Cx {
                        profile: &self.profile,
                        state: &mut self.state,
                        effects: &mut Vec::new(),
                        transceive: &[],
                    };
                    let reads = fetch::scope_reads(&cx, rx);
                    let items = reads
                        .into_iter()
                        .map(|r| proc::Item::read(r, None))
                        .collect();
                    Box::new(proc::Script::new(items, Answer::Done))
                }
                Internal::Probe => Box::new(proc::Script::new(
                    vec![
                        proc::Item::read(
                            CivRequest::read(self.profile.radio.civ_addr, cmd::POWER, &[]),
                            None,
                        )
                        .once(),
                    ],
                    Answer::Done,
                )),
            };
            (proc, Origin::Internal(i))
        } else if let Some(job) = self
            .user
            .pop_front()
            .or_else(|| self.background.pop_front())
        {
            if self.link != LinkState::Ready {
                let e = CommandError::new(ErrorCode::RadioUnavailable, "the radio link went down");
                self.complete(job.reply, Err(e));
                return true;
            }
            let mut effects = Vec::new();
            let proc = {
                let mut cx = Cx {
                    profile: &self.profile,
                    state: &mut self.state,
                    effects: &mut effects,
                    transceive: &[],
                };
                commands::procedure(&mut cx, &job.cmd)
            };
            self.effects(effects, now);
            (proc, Origin::Client(Some(job.reply)))
        } else {
            return false;
        };
        self.transceive.clear();
        self.running = Some(Running {
            proc,
            origin,
            pending: None,
            last: None,
        });
        self.timers.stop(Timer::Sleep);
        true
    }

    /// Moves everything along as far as it can go at `now`.
    pub(super) fn drive(&mut self, now: Instant) {
        loop {
            if self.inflight.is_some() {
                break;
            }
            if self.release_due(now) {
                if self.may_send(now) {
                    self.send_release(now);
                }
                break;
            }
            if self.running.is_none() {
                if self.link != LinkState::Ready || !self.start_next(now) {
                    // commands that cannot run are answered by `start_next` / `admit`
                    self.fail_queued_if_down();
                    break;
                }
                continue;
            }
            let Some(r) = self.running.as_mut() else {
                break;
            };
            if self.timers.is_set(Timer::Sleep) && !self.timers.expire(Timer::Sleep, now) {
                break;
            }
            if r.pending.is_none() {
                let last = r.last.take();
                let mut effects = Vec::new();
                let step = {
                    let mut cx = Cx {
                        profile: &self.profile,
                        state: &mut self.state,
                        effects: &mut effects,
                        transceive: &self.transceive,
                    };
                    r.proc.step(&mut cx, last)
                };
                match step {
                    Step::Send { req, retry } => r.pending = Some((req, retry)),
                    Step::Sleep(d) => self.timers.set(Timer::Sleep, now + d),
                    Step::Done(result) => {
                        let done = self.running.take().expect("running");
                        self.effects(effects, now);
                        self.finished(done.origin, result, now);
                        self.track_ptt(now);
                        continue;
                    }
                }
                self.effects(effects, now);
                self.track_ptt(now);
                continue;
            }
            if !self.may_send(now) {
                break;
            }
            let Some((req, retry)) = self.running.as_mut().and_then(|r| r.pending.clone()) else {
                break;
            };
            self.send(req, retry, false, now);
            break;
        }
    }

    /// Answers every queued command when the link is down.
    pub(super) fn fail_queued_if_down(&mut self) {
        if self.link == LinkState::Ready {
            return;
        }
        let jobs: Vec<Job> = self
            .user
            .drain(..)
            .chain(self.background.drain(..))
            .collect();
        for job in jobs {
            let e = CommandError::new(ErrorCode::RadioUnavailable, "the radio link went down");
            self.complete(job.reply, Err(e));
        }
        self.internal.clear();
    }

    /// A procedure ended.
    pub(super) fn finished(&mut self, origin: Origin, result: CommandResult, now: Instant) {
        match origin {
            Origin::Client(Some(reply)) => self.complete(reply, result),
            Origin::Client(None) => {}
            Origin::Internal(i) => self.internal_done(i, result, now),
        }
    }

    pub(super) fn effects(&mut self, effects: Vec<Effect>, now: Instant) {
        for e in effects {
            match e {
                Effect::PoweredOff => {
                    self.fetched = false;
                    self.after_power_report(now);
                }
                Effect::PoweredOn => {
                    self.standby = false;
                    self.after_power_report(now);
                }
                Effect::Release => self.start_release(safety::Reason::InDoubt, None, now),
                Effect::ScopeOutput(on) => self.scope_output = on,
                Effect::WidthStale(rx) => self.width_stale(rx),
            }
        }
    }

    /// Queues a read of receiver `rx`'s filter width (once), when the profile has one.
    pub(super) fn width_stale(&mut self, rx: Receiver) {
        let kept = Setting::of(SettingId::FilterWidth).supported(&self.profile);
        let job = Internal::WidthRefresh(rx);
        if kept && (self.fetched || self.fetch_running()) && !self.internal.contains(&job) {
            self.internal.push_back(job);
        }
    }
}
