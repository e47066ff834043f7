//! Who goes next to the radio: the per-client rate limit and the fair queue in front of
//! the engine (decisions.md "Rate limit"; issue 15 item 3), a sans-IO state machine fed
//! submissions and time.
//!
//! * Every client (each WebSocket, the server itself, later a rigctld connection) has its
//!   own queue of at most `capacity` commands. A full queue refuses *that* client's next
//!   command with `radio_busy`; the others are not affected.
//! * Clients are served in turn (round robin): the next command handed to the engine is
//!   the head of the next client's queue that may go now.
//! * Rate classes ([`RateClass`]): a setting (`set_*`) goes at most once per window per
//!   client, command name and target; one that comes sooner is answered at once with
//!   `{"throttled":true}` and merged into the one waiting for that slot, which is sent
//!   when the window ends (the radio ends at the last value asked for). An action
//!   (`vfo_swap`, `vfo_equalize`, `send_cw`, `ptt true`) also goes at most once per window
//!   and name; every one counts, so one that comes sooner waits in the queue and is
//!   answered when it ran.
//! * A client's commands reach the radio in the order it sent them: a command that may
//!   go waits behind an earlier one that may not yet; nothing is sent before its own
//!   window ends (a later command never flushes a waiting one early). A value merged into
//!   a waiting one moves to the end of the queue, where it was sent.
//! * An unkey ([`Command::is_urgent`]: `ptt false`, the release, power off, `stop_cw`) goes
//!   before everything else (identical ones waiting are sent once); keys queued before it
//!   (`ptt true`, `send_cw`, of any client) are not sent but answered `ptt_busy`. A
//!   client's next unkey within the window queues like an action, so that a flood of
//!   unkeys cannot hold the others out either.
//! * The server's own commands (scope output, MOD input, power and unkey from HTTP) are
//!   not rate limited but queue like a client's.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::radio::engine::{CommandResult, Job, Reply};
use crate::radio::table::answer::Answer;
use crate::radio::table::command::{Command, RateClass};
use crate::radio::table::error::{CommandError, ErrorCode};

#[cfg(test)]
mod tests;

/// Who sent a command: each client has its own queue and rate limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClientId(pub u64);

impl ClientId {
    /// The server itself (not rate limited).
    pub const SERVER: ClientId = ClientId(0);
}

/// Where a failure of a throttled command goes (its submission was answered
/// `throttled` already): `(command name, error)`.
pub type FailureSink = Arc<dyn Fn(&str, &CommandError) + Send + Sync>;

/// Answers to deliver now, outside any lock: `(reply, result)`.
pub type Answers = Vec<(Reply, CommandResult)>;

/// One command waiting in a client's queue.
struct Entry {
    /// The rate-limit slot (name and target); `None`: not limited.
    slot: Option<String>,
    /// The name, for failure reports.
    name: &'static str,
    cmd: Command,
    /// Who waits for the result; `None` when every submission merged into it was
    /// answered `throttled` (a failure goes to the client's [`FailureSink`]).
    reply: Option<Reply>,
}

/// The queue and rate limits of one client.
struct ClientQueue {
    entries: VecDeque<Entry>,
    /// When each slot last went to the engine.
    sent: HashMap<String, Instant>,
    /// Where failures of throttled commands go (`None`: the log).
    failures: Option<FailureSink>,
    /// When its last unkey went ahead of everything.
    last_urgent: Option<Instant>,
    /// The client left: removed once its queue is empty.
    leaving: bool,
}

impl ClientQueue {
    fn new(failures: Option<FailureSink>) -> ClientQueue {
        ClientQueue {
            entries: VecDeque::new(),
            sent: HashMap::new(),
            failures,
            last_urgent: None,
            leaving: false,
        }
    }

    /// When `slot` may go again (`None`: now).
    fn free_at(&self, slot: Option<&String>, window: Duration) -> Option<Instant> {
        slot.and_then(|s| self.sent.get(s)).map(|t| *t + window)
    }

    /// When the head of the queue may go (`None` if the queue is empty).
    fn head_at(&self, window: Duration, now: Instant) -> Option<Instant> {
        let head = self.entries.front()?;
        Some(self.free_at(head.slot.as_ref(), window).unwrap_or(now))
    }
}

/// The slot of a limited command: its name and, for commands aimed at one receiver or
/// VFO, that target (tuning MAIN and SUB are limited separately).
fn slot_key(name: &str, cmd: &Command) -> String {
    match cmd.slot() {
        Some(target) => format!("{name}/{target}"),
        None => name.to_string(),
    }
}

fn busy() -> CommandError {
    CommandError::new(
        ErrorCode::RadioBusy,
        "too many of your commands wait for the radio; try again when they are answered",
    )
}

fn shutting_down() -> CommandError {
    CommandError::new(ErrorCode::RadioUnavailable, "the server is shutting down")
}

fn superseded() -> CommandError {
    CommandError::new(
        ErrorCode::PttBusy,
        "an unkey was asked for before this command reached the radio: it was not sent",
    )
}

/// See the module docs.
pub struct Dispatcher {
    window: Duration,
    capacity: usize,
    urgent: VecDeque<Job>,
    clients: BTreeMap<ClientId, ClientQueue>,
    /// The client served last (round robin goes on after it).
    last_served: Option<ClientId>,
    closed: bool,
}

impl Dispatcher {
    /// A dispatcher with a rate-limit `window` and at most `capacity` commands queued
    /// per client.
    pub fn new(window: Duration, capacity: usize) -> Dispatcher {
        Dispatcher {
            window,
            capacity: capacity.max(1),
            urgent: VecDeque::new(),
            clients: BTreeMap::new(),
            last_served: None,
            closed: false,
        }
    }

    /// Client `id` arrives; failures of its throttled commands go to `failures`.
    pub fn join(&mut self, id: ClientId, failures: FailureSink) {
        self.clients.insert(id, ClientQueue::new(Some(failures)));
    }

    /// Client `id` left: what it queued is still sent (each in its window, so the radio
    /// ends at what it asked for), then it is forgotten.
    pub fn leave(&mut self, id: ClientId) {
        if let Some(q) = self.clients.get_mut(&id) {
            q.leaving = true;
            q.failures = None;
            if q.entries.is_empty() {
                self.clients.remove(&id);
            }
        }
    }

    /// Commands waiting (urgent ones included).
    pub fn len(&self) -> usize {
        self.urgent.len()
            + self
                .clients
                .values()
                .map(|q| q.entries.len())
                .sum::<usize>()
    }

    /// True when no command waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes command `cmd` (row `name` of class `class`) of client `from`. `Err`: refused
    /// (the reply is dropped unanswered); `Ok`: answers to deliver now — the reply itself
    /// when the command was throttled, and keys cancelled by an unkey.
    pub fn offer(
        &mut self,
        from: ClientId,
        name: &'static str,
        class: RateClass,
        cmd: Command,
        reply: Reply,
        now: Instant,
    ) -> Result<Answers, CommandError> {
        if self.closed {
            return Err(shutting_down());
        }
        let window = self.window;
        let capacity = self.capacity;
        let limited = from != ClientId::SERVER;
        let mut answers = Answers::new();
        let mut class = class;
        if cmd.is_urgent() || class == RateClass::Urgent {
            answers = self.cancel_keys();
            let q = self
                .clients
                .entry(from)
                .or_insert_with(|| ClientQueue::new(None));
            let again = q.last_urgent.is_some_and(|t| now < t + window);
            if !(limited && again) {
                q.last_urgent = Some(now);
                if limited {
                    // the next one of its name waits for the window like an action
                    q.sent.insert(slot_key(name, &cmd), now);
                }
                self.push_urgent(cmd, reply);
                return Ok(answers);
            }
            class = RateClass::Action;
        }
        let q = self
            .clients
            .entry(from)
            .or_insert_with(|| ClientQueue::new(None));
        let slot = limited.then(|| slot_key(name, &cmd));
        if limited && class == RateClass::Setting {
            let slot = slot.expect("limited");
            if let Some(i) = q
                .entries
                .iter()
                .position(|e| e.slot.as_ref() == Some(&slot))
            {
                // merged into the value waiting for this slot, which moves to the end
                // (the order the client sent them in)
                let old = q.entries.remove(i).expect("found");
                q.entries.push_back(Entry {
                    cmd: cmd.merged_onto(old.cmd),
                    ..old
                });
                answers.push((reply, Ok(Answer::Throttled)));
                return Ok(answers);
            }
            if q.entries.len() >= capacity {
                return Err(busy());
            }
            let early = q.free_at(Some(&slot), window).is_some_and(|t| now < t);
            let reply = if early {
                answers.push((reply, Ok(Answer::Throttled)));
                None
            } else {
                Some(reply)
            };
            q.entries.push_back(Entry {
                slot: Some(slot),
                name,
                cmd,
                reply,
            });
            return Ok(answers);
        }
        if q.entries.len() >= capacity {
            return Err(busy());
        }
        q.entries.push_back(Entry {
            slot,
            name,
            cmd,
            reply: Some(reply),
        });
        Ok(answers)
    }

    /// An unkey ahead of everything; one identical to it that still waits is sent once
    /// and both are answered.
    fn push_urgent(&mut self, cmd: Command, reply: Reply) {
        match self.urgent.iter_mut().find(|j| j.cmd == cmd) {
            Some(job) => {
                let first = std::mem::replace(&mut job.reply, Box::new(|_| {}));
                job.reply = Box::new(move |r: CommandResult| {
                    first(r.clone());
                    reply(r);
                });
            }
            None => self.urgent.push_back(Job { cmd, reply }),
        }
    }

    /// Keys (`ptt true`, `send_cw`) still queued when an unkey comes: not sent.
    fn cancel_keys(&mut self) -> Answers {
        let mut answers = Answers::new();
        for q in self.clients.values_mut() {
            let mut kept = VecDeque::with_capacity(q.entries.len());
            for e in q.entries.drain(..) {
                if e.cmd.keys() {
                    if let Some(r) = e.reply {
                        answers.push((r, Err(superseded())));
                    }
                } else {
                    kept.push_back(e);
                }
            }
            q.entries = kept;
        }
        self.clients
            .retain(|_, q| !(q.leaving && q.entries.is_empty()));
        answers
    }

    /// The next command for the engine at `now`: an unkey first, else the head of the
    /// next client's queue (in turn) whose window has ended.
    pub fn next(&mut self, now: Instant) -> Option<Job> {
        if let Some(job) = self.urgent.pop_front() {
            return Some(job);
        }
        let window = self.window;
        let after = self.last_served.map_or(Bound::Unbounded, Bound::Excluded);
        let id = self
            .clients
            .range((after, Bound::Unbounded))
            .chain(self.clients.range(..))
            .find(|(_, q)| q.head_at(window, now).is_some_and(|t| t <= now))
            .map(|(id, _)| *id)?;
        let q = self.clients.get_mut(&id).expect("found");
        let e = q.entries.pop_front().expect("a head");
        if let Some(slot) = &e.slot {
            q.sent.insert(slot.clone(), now);
        }
        let failures = q.failures.clone();
        if q.leaving && q.entries.is_empty() {
            self.clients.remove(&id);
        }
        self.last_served = Some(id);
        let reply = e.reply.unwrap_or_else(|| {
            let name = e.name;
            Box::new(move |r: CommandResult| {
                if let Err(err) = r {
                    match failures {
                        Some(f) => f(name, &err),
                        None => log::warn!("throttled {name} of a client that left failed: {err}"),
                    }
                }
            })
        });
        Some(Job { cmd: e.cmd, reply })
    }

    /// When a command that waits for its window may go (`None`: none waits for one).
    pub fn poll_timeout(&self, now: Instant) -> Option<Instant> {
        if !self.urgent.is_empty() {
            return Some(now);
        }
        self.clients
            .values()
            .filter_map(|q| q.head_at(self.window, now))
            .min()
    }

    /// Refuses everything from now on and answers what waits.
    pub fn close(&mut self) -> Answers {
        self.closed = true;
        let mut answers: Answers = self
            .urgent
            .drain(..)
            .map(|j| (j.reply, Err(shutting_down())))
            .collect();
        for q in std::mem::take(&mut self.clients).into_values() {
            answers.extend(
                q.entries
                    .into_iter()
                    .filter_map(|e| e.reply)
                    .map(|r| (r, Err(shutting_down()))),
            );
        }
        answers
    }
}
