//! Acting on what a session asks for: answers, refusals, requests for tiny_http and
//! WebSocket upgrades.

use std::time::Instant;

use super::{Loop, OUT_HIGH};
use crate::web::front::PortRole;
use crate::web::front::backend::{self, Job, ResponseReader};
use crate::web::front::reply::{self, Refusal};
use crate::web::front::session::{Event, Request};
use crate::web::origin::OriginPolicy;
use crate::web::ws::{self, WsRoute};

impl Loop {
    /// Acts on the session's events, writes, and lets a held request start (or a
    /// paused response go on) once the client has read enough.
    pub(super) fn process(&mut self, i: usize, now: Instant) {
        loop {
            self.take_events(i, now);
            self.flush(i);
            let Some(c) = self.clients[i].as_mut() else {
                return;
            };
            if c.session.held() && c.unsent() < OUT_HIGH {
                c.session.hold(false, now);
                continue;
            }
            break;
        }
        self.resume_response(i, now);
    }

    fn take_events(&mut self, i: usize, now: Instant) {
        loop {
            let Some(c) = self.clients[i].as_mut() else {
                return;
            };
            let Some(ev) = c.session.poll_event() else {
                return;
            };
            match ev {
                Event::Continue => c.out.extend_from_slice(reply::CONTINUE),
                Event::Refuse(r) => {
                    log::debug!("{} refused: {} {}", c.peer, r.status, r.message);
                    c.out.extend_from_slice(&r.to_bytes(true));
                    self.start_closing(i, now);
                }
                Event::Close => self.start_closing(i, now),
                Event::Request(req) => self.serve(i, req, now),
            }
        }
    }

    /// The answer to client `i`'s request is complete in its output: the session goes
    /// on to the next request, which waits while too much is unsent.
    pub(super) fn response_sent(&mut self, i: usize, keep_alive: bool, now: Instant) {
        let Some(c) = self.clients[i].as_mut() else {
            return;
        };
        if c.unsent() >= OUT_HIGH {
            c.session.hold(true, now);
        }
        c.session.response_done(keep_alive, now);
    }

    pub(super) fn serve(&mut self, i: usize, req: Request, now: Instant) {
        let Some(c) = self.clients[i].as_mut() else {
            return;
        };
        c.keep_alive = req.head.keep_alive();
        let local = self.ports[c.port].local;
        if c.plain_on_tls {
            let location = format!(
                "https://{}{}",
                req.head.header("Host").unwrap_or("localhost"),
                req.head.target
            );
            let r = Refusal::new(
                308,
                "https_required",
                format!("this port speaks HTTPS: {location}"),
            )
            .with_header("Location", location);
            c.out.extend_from_slice(&r.to_bytes(true));
            c.session.response_done(false, now);
            return;
        }
        if let PortRole::Onboarding(o) = &self.ports[c.port].role {
            let bytes = o.respond(&req.head, local, !c.keep_alive);
            c.out.extend_from_slice(&bytes);
            let keep = c.keep_alive;
            return self.response_sent(i, keep, now);
        }
        if let Some(route) = WsRoute::from_path(req.head.path()) {
            return self.upgrade(i, req, route, now);
        }
        // a page elsewhere (or a rebound name) gets no further than a WebSocket would
        let origin = req.head.header("Origin");
        let secure = c.transport.is_tls();
        if let Err(denied) = self
            .app
            .cfg
            .origins
            .check(origin, req.head.header("Host"), secure)
        {
            let r = OriginPolicy::refusal(origin.unwrap_or_default(), &denied, "requests");
            log::debug!("{} refused: {}", c.peer, r.message);
            let keep = c.keep_alive;
            c.out.extend_from_slice(&r.to_bytes(!keep));
            return self.response_sent(i, keep, now);
        }
        let job = Job {
            client: Some((i, c.generation)),
            bytes: backend::encode_request(&req, &self.backend.secret, c.peer),
            reader: ResponseReader::new(req.head.method == "HEAD", !c.keep_alive),
        };
        self.backend.queue.push_back(job);
    }

    pub(super) fn upgrade(&mut self, i: usize, req: Request, route: WsRoute, now: Instant) {
        let Some(c) = self.clients[i].as_mut() else {
            return;
        };
        let secure = c.transport.is_tls();
        let accepted = match ws::check(&req.head, route, &self.app, secure) {
            Ok(a) => a,
            Err(r) => {
                log::debug!(
                    "upgrade from {} to {} refused: {} {}",
                    c.peer,
                    route.path(),
                    r.status,
                    r.message
                );
                c.out.extend_from_slice(&r.to_bytes(true));
                c.session.response_done(false, now);
                return;
            }
        };
        let Some(mut c) = self.clients[i].take() else {
            return;
        };
        let leftover = c.session.take_buffer();
        // answers to earlier pipelined requests go out before the 101
        let pending = c.out.split_off(c.written);
        match ws::spawn(accepted, c.transport, pending, leftover, c.slot, &self.app) {
            Ok(()) => self.free.push(i),
            Err(failed) => {
                // the client stays here for a 503 (nothing was written to it)
                log::error!(
                    "cannot start a thread for a WebSocket client: {}",
                    failed.error
                );
                c.transport = failed.stream;
                c.slot = failed.keep;
                c.out = failed.pending;
                c.written = 0;
                let r = Refusal::new(
                    503,
                    "server_busy",
                    "the server cannot take another WebSocket client now; try again shortly",
                )
                .with_header("Retry-After", "5");
                c.out.extend_from_slice(&r.to_bytes(true));
                c.session.response_done(false, now);
                self.clients[i] = Some(c);
                self.process(i, now);
            }
        }
    }
}
