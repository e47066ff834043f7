//! The front door's side of tiny_http: driving the internal connections, relaying
//! responses to their clients, and the JSON answers when tiny_http fails or is late.

use std::time::Instant;

use log::Level;

use super::{Loop, OUT_MAX};
use crate::util::log_limit::{DEFAULT_BURST, DEFAULT_INTERVAL, LogLimiter};
use crate::web::front::backend::{ClientRef, Progress};
use crate::web::front::reply::Refusal;

/// The per-request warnings of the front door, each limited server-wide (a client
/// repeating a request that fails must not fill the log).
static BACKEND_FAILED: LogLimiter = LogLimiter::new(DEFAULT_BURST, DEFAULT_INTERVAL);
static DISPATCH_FAILED: LogLimiter = LogLimiter::new(DEFAULT_BURST, DEFAULT_INTERVAL);

impl Loop {
    pub(super) fn client_of(&self, r: Option<ClientRef>) -> Option<usize> {
        let (i, generation) = r?;
        self.clients
            .get(i)?
            .as_ref()
            .filter(|c| c.generation == generation)
            .map(|_| i)
    }

    /// Drives the connection to tiny_http with id `id` (if it is still there).
    pub(super) fn backend_ready(&mut self, id: u64, now: Instant) {
        let Some(b) = self.backend.position(id) else {
            return;
        };
        let conn = &self.backend.conns[b];
        let target = conn.busy.as_ref().and_then(|f| f.job.client);
        let owner = self.client_of(target);
        let mut scratch = Vec::new();
        // the response is read while its client has less than OUT_MAX unsent
        let (out, limit) = match owner.and_then(|i| self.clients[i].as_mut()) {
            Some(c) => {
                let limit = c.written + OUT_MAX;
                (&mut c.out, limit)
            }
            None => (&mut scratch, usize::MAX),
        };
        match self.backend.conns[b].drive(out, limit) {
            Progress::Pending => {}
            Progress::Done(_) => {
                if let Some(i) = owner
                    && let Some(c) = self.clients[i].as_ref()
                {
                    let keep = c.keep_alive;
                    self.response_sent(i, keep, now);
                    self.process(i, now);
                }
            }
            Progress::Failed(job, why) => {
                self.backend.conns.remove(b);
                if let Some(job) = job {
                    crate::log_limited!(
                        BACKEND_FAILED,
                        Level::Warn,
                        "the REST backend failed a request: {why}"
                    );
                    self.backend_failed(owner, !job.reader.started(), 502, now);
                } else {
                    log::debug!("a REST backend connection closed: {why}");
                }
            }
        }
    }

    /// The backend could not answer `owner`'s request: a `status` JSON answer if
    /// nothing of the response went out yet, otherwise the connection is cut.
    pub(super) fn backend_failed(
        &mut self,
        owner: Option<usize>,
        clean: bool,
        status: u16,
        now: Instant,
    ) {
        let Some(i) = owner else { return };
        if !clean {
            return self.drop_client(i);
        }
        let r = match status {
            504 => Refusal::new(
                504,
                "gateway_timeout",
                "the request took too long to serve; try again",
            ),
            503 => Refusal::new(
                503,
                "server_busy",
                "the REST server cannot take the request now; try again shortly",
            ),
            _ => Refusal::new(502, "bad_gateway", "the REST server failed the request"),
        };
        if let Some(c) = self.clients[i].as_mut() {
            c.out.extend_from_slice(&r.to_bytes(true));
            c.session.response_done(false, now);
        }
        self.process(i, now);
    }

    /// Goes on reading the response for client `i` if it was paused (its client had
    /// too much unsent) and now has room.
    pub(super) fn resume_response(&mut self, i: usize, now: Instant) {
        let Some(c) = self.clients[i].as_ref() else {
            return;
        };
        if c.unsent() >= OUT_MAX {
            return;
        }
        let me = Some((i, c.generation));
        let serving = self
            .backend
            .conns
            .iter()
            .find(|b| b.busy.as_ref().is_some_and(|f| f.job.client == me))
            .map(|b| b.id);
        if let Some(id) = serving {
            self.backend_ready(id, now);
        }
    }

    /// Starts waiting requests on free connections to tiny_http and writes them.
    pub(super) fn dispatch(&mut self, now: Instant) {
        loop {
            let failed = self.backend.dispatch(now);
            for (job, why) in failed {
                crate::log_limited!(DISPATCH_FAILED, Level::Warn, "{why}");
                let owner = self.client_of(job.client);
                self.backend_failed(owner, true, 503, now);
            }
            // write the new requests at once; driving one connection may remove others
            // (a failed one, or one whose client's answer ended it), so they go by id
            for id in self.backend.writers() {
                self.backend_ready(id, now);
            }
            // a response that came at once may have let the client's next (pipelined)
            // request in: it must not wait in the queue for a wake-up that never comes
            if self.backend.queue.is_empty() || !self.backend.has_room() {
                return;
            }
        }
    }
}
