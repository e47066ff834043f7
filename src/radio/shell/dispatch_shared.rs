//! The [`Dispatcher`] shared by the threads that submit commands and the executor that
//! takes them: a lock around it and a doorbell that wakes the executor. Answers the
//! dispatcher gives at once (throttled, cancelled keys, a closed queue) are delivered
//! after the lock is released.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::net::waker::Waker;
use crate::radio::dispatch::{Answers, ClientId, Dispatcher, FailureSink};
use crate::radio::engine::{Job, Reply};
use crate::radio::table::command::{Command, RateClass};
use crate::radio::table::error::CommandError;

/// See the module docs.
pub struct SharedQueue {
    dispatcher: Mutex<Dispatcher>,
    doorbell: Waker,
    next_client: AtomicU64,
}

fn deliver(answers: Answers) {
    for (reply, result) in answers {
        reply(result);
    }
}

impl SharedQueue {
    /// A queue with a rate-limit `window` and at most `capacity` commands per client;
    /// `doorbell` is woken when a command was queued.
    pub fn new(window: Duration, capacity: usize, doorbell: Waker) -> SharedQueue {
        SharedQueue {
            dispatcher: Mutex::new(Dispatcher::new(window, capacity)),
            doorbell,
            next_client: AtomicU64::new(ClientId::SERVER.0 + 1),
        }
    }

    /// A new client whose throttled commands' failures go to `failures`.
    pub fn join(&self, failures: FailureSink) -> ClientId {
        let id = ClientId(self.next_client.fetch_add(1, Ordering::Relaxed));
        self.dispatcher.lock().join(id, failures);
        id
    }

    /// Client `id` left (what it queued is still sent).
    pub fn leave(&self, id: ClientId) {
        self.dispatcher.lock().leave(id);
    }

    /// Queues `cmd` of client `from` (see [`Dispatcher::offer`]); `reply` is called
    /// exactly once unless this returns an error.
    pub fn submit(
        &self,
        from: ClientId,
        name: &'static str,
        class: RateClass,
        cmd: Command,
        reply: Reply,
    ) -> Result<(), CommandError> {
        let answers =
            self.dispatcher
                .lock()
                .offer(from, name, class, cmd, reply, Instant::now())?;
        self.doorbell.wake();
        deliver(answers);
        Ok(())
    }

    /// Queues a command of the server itself (not rate limited).
    pub fn submit_server(&self, cmd: Command, reply: Reply) -> Result<(), CommandError> {
        self.submit(ClientId::SERVER, "server", RateClass::Action, cmd, reply)
    }

    /// The next command for the engine at `now`.
    pub fn next(&self, now: Instant) -> Option<Job> {
        self.dispatcher.lock().next(now)
    }

    /// When a waiting command may go.
    pub fn poll_timeout(&self, now: Instant) -> Option<Instant> {
        self.dispatcher.lock().poll_timeout(now)
    }

    /// Wakes the executor (what its background polls ask changed).
    pub fn ring(&self) {
        self.doorbell.wake();
    }

    /// Refuses everything from now on; what waits is answered "shutting down".
    pub fn close(&self) {
        let answers = self.dispatcher.lock().close();
        deliver(answers);
    }
}
