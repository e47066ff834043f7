//! One rigctld client, apart from its socket: lines in, answer bytes out. Reads are
//! answered from the state store; every set goes the way of a WebSocket `cmd`: the
//! command table parses and validates it (`table::parse`, `state::check_against`), and
//! it is queued as this client's (`RadioClient`: its own queue and rate limits, served in
//! turn with every other client, `radio/dispatch`). The client waits for the radio's
//! result before answering; a setting inside its rate-limit window is answered
//! throttled at once by the queue (its value goes when the window ends), and shows in
//! the client's reads until the radio has it (`overlay`), so a read after a set answers
//! the set value. PTT follows the web's ownership rules (see `web_rules`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::hamlib::RigError;
use super::meter_tap::MeterTap;
use super::overlay::Overlay;
use super::parse::{RigCmd, parse_line};
use super::reply::{Reply, render};
use super::respond::{Plan, Step, meter_reply, plan};
use super::view::View;
use super::web_rules::{Claim, Station};
use crate::radio::answer::Answer;
use crate::radio::command::{Command, RateClass};
use crate::radio::error::{CommandError, ErrorCode};
use crate::radio::service::RadioClient;
use crate::radio::table;

/// Longest wait for the radio's answer to one command.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(15);

/// See the module docs.
pub struct Client {
    station: Station,
    id: u64,
    who: String,
    /// This client's queue at the radio.
    queue: RadioClient,
    /// Settings answered throttled, shown until the radio has them.
    overlay: Overlay,
    /// A throttled setting failed (told by the queue): the overlay is dropped.
    held_failed: Arc<AtomicBool>,
    /// The VFO chosen with `V` (`None`: the radio's selected one).
    current: Option<u8>,
    meters: MeterTap,
}

/// The Hamlib error of a command-table error (`state_off`: the radio is switched off).
pub fn rig_error(e: &CommandError, state_off: bool) -> RigError {
    match e.code {
        ErrorCode::InvalidJson | ErrorCode::InvalidParam | ErrorCode::PttRequired => {
            RigError::InvalidParam
        }
        // another client transmits: Hamlib's EINVAL, as the issue asks
        ErrorCode::PttBusy => RigError::InvalidParam,
        ErrorCode::UnknownCommand => RigError::NotImplemented,
        ErrorCode::NotSupported => RigError::NotAvailable,
        ErrorCode::RadioUnavailable if state_off => RigError::PowerOff,
        ErrorCode::RadioUnavailable => RigError::Io,
        ErrorCode::RadioRejected => RigError::Rejected,
        ErrorCode::RadioTimeout => RigError::Timeout,
        ErrorCode::RadioBusy => RigError::BusBusy,
        ErrorCode::Forbidden => RigError::Security,
    }
}

impl Client {
    /// A client connected from `peer`.
    pub fn new(station: Station, peer: SocketAddr) -> Client {
        let id = station.client_id();
        let who = format!("rigctld client {id} ({peer})");
        let meters = MeterTap::new(station.meters().clone(), id);
        // a setting answered throttled that failed when it went to the radio
        let (w, failed) = (who.clone(), Arc::new(AtomicBool::new(false)));
        let flag = failed.clone();
        let queue = station
            .radio()
            .client(Arc::new(move |name: &str, e: &CommandError| {
                log::warn!("{w}: throttled {name} failed: {e}");
                flag.store(true, Ordering::Relaxed);
            }));
        Client {
            station,
            id,
            who,
            queue,
            overlay: Overlay::default(),
            held_failed: failed,
            current: None,
            meters,
        }
    }

    /// The client's id (in the web's id space).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Answers one line (every command on it); true in the second place when the client
    /// asked to close.
    pub fn handle_line(&mut self, line: &[u8]) -> (String, bool) {
        let mut out = String::new();
        for req in parse_line(line) {
            let reply = match &req.cmd {
                Ok(RigCmd::Quit) => return (out, true),
                Ok(cmd) => self.answer(cmd),
                Err(e) => Reply::Failed(*e),
            };
            if let Reply::Failed(e) = &reply {
                log::debug!("{}: {:?} -> RPRT {}", self.who, req.cmd, e.code());
            }
            render(&req, &reply, &mut out);
        }
        (out, false)
    }

    fn answer(&mut self, cmd: &RigCmd) -> Reply {
        let radio = self.station.radio().clone();
        let profile = radio.profile();
        if self.held_failed.swap(false, Ordering::Relaxed) {
            self.overlay.clear();
        }
        if !self.overlay.is_empty() {
            let now = Instant::now();
            radio.store().read(|c| self.overlay.refresh(&c.radio, now));
        }
        let planned = radio.store().read(|c| {
            plan(
                cmd,
                &View {
                    profile: &profile,
                    radio: &c.radio,
                    overlay: &self.overlay,
                    current: self.current,
                },
            )
        });
        match planned {
            Plan::Reply(r) => r,
            Plan::Steps(steps) => self.run_steps(steps).into(),
            Plan::Current { index, steps } => {
                let r = self.run_steps(steps);
                if r.is_ok() {
                    let selected = radio.store().read(|c| {
                        View {
                            profile: &profile,
                            radio: &c.radio,
                            overlay: &self.overlay,
                            current: None,
                        }
                        .rx()
                    });
                    self.current = (index != selected).then_some(index);
                }
                r.into()
            }
            Plan::Ptt(on) => self.ptt(on).into(),
            Plan::Power(on) => self.power(on).into(),
            Plan::Meter(level, kind) => {
                let transmitting = radio.store().read(|c| c.radio.transmitting());
                let now = Instant::now();
                let raw = if !kind.phase().applies(transmitting) {
                    // TX meters are read only while transmitting, RX meters only while
                    // receiving: the last reading (or 0) at once, no wait
                    Some(self.meters.last(kind).unwrap_or(0))
                } else {
                    self.meters.read(kind, now)
                };
                radio.store().read(|c| {
                    let v = View {
                        profile: &profile,
                        radio: &c.radio,
                        overlay: &self.overlay,
                        current: self.current,
                    };
                    meter_reply(level, raw, &v)
                })
            }
            // answered by the caller
            Plan::Quit => Reply::Done,
        }
    }

    fn error(&self, e: &CommandError) -> RigError {
        let off = self
            .station
            .radio()
            .store()
            .read(|c| c.radio.power_on == Some(false));
        rig_error(e, off)
    }

    /// Waits for the result that `submit` promised to deliver through its sender.
    fn wait(
        &self,
        submit: impl FnOnce(
            Box<dyn FnOnce(Result<Answer, CommandError>) + Send>,
        ) -> Result<(), CommandError>,
    ) -> Result<Answer, RigError> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        submit(Box::new(move |r| {
            let _ = tx.send(r);
        }))
        .map_err(|e| self.error(&e))?;
        match rx.recv_timeout(COMMAND_TIMEOUT) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(self.error(&e)),
            Err(_) => Err(RigError::Timeout),
        }
    }

    /// Queues command-table command `name` as this client's and waits for its result
    /// (a setting inside its rate-limit window waits for the window's end).
    fn run(&self, name: &'static str, class: RateClass, cmd: Command) -> Result<Answer, RigError> {
        self.wait(|reply| self.queue.submit(name, class, cmd, reply))
    }

    /// Runs a command of the server itself (as the HTTP routes do) and waits for it.
    fn run_as_server(&self, cmd: Command) -> Result<Answer, RigError> {
        self.wait(|reply| self.station.radio().submit(cmd, reply))
    }

    /// Parses and validates a command-table command as the WebSocket control channel
    /// does.
    fn parse(
        &self,
        name: &str,
        params: &Value,
    ) -> Result<(Command, &'static table::CommandSpec), RigError> {
        let radio = self.station.radio();
        let profile = radio.profile();
        let parsed = table::parse(name, Some(params), &profile).map_err(|e| self.error(&e))?;
        radio
            .store()
            .read(|c| crate::radio::state::check_against(&parsed.command, &c.radio))
            .map_err(|e| self.error(&e))?;
        Ok((parsed.command, parsed.spec))
    }

    fn run_steps(&mut self, steps: Vec<Step>) -> Result<Reply, RigError> {
        for Step { name, params } in steps {
            let (cmd, spec) = self.parse(name, &params)?;
            let result = self.run(spec.name, spec.rate, cmd.clone())?;
            if result == Answer::Throttled {
                let radio = self.station.radio().clone();
                let now = Instant::now();
                radio
                    .store()
                    .read(|c| self.overlay.hold(&cmd, &c.radio, now));
            }
        }
        Ok(Reply::Done)
    }

    fn ptt(&mut self, on: bool) -> Result<Reply, RigError> {
        let (cmd, spec) = self.parse("ptt", &json!({ "state": on }))?;
        if !on {
            self.station.unkeying();
            self.run(spec.name, spec.rate, cmd)?;
            return Ok(Reply::Done);
        }
        if let Claim::Busy(other) = self.station.claim_ptt(self.id) {
            log::warn!("{}: PTT refused: client {other} is transmitting", self.who);
            return Err(RigError::InvalidParam);
        }
        let r = self.run(spec.name, spec.rate, cmd);
        self.station.key_done(self.id, r.is_ok());
        r.map(|_| Reply::Done)
    }

    fn power(&mut self, on: bool) -> Result<Reply, RigError> {
        if !on {
            // as POST /api/v1/radio/power: TX audio stops now; the engine unkeys before
            // it switches off
            self.station.unkeying();
        }
        self.run_as_server(Command::Power(on)).map(|_| Reply::Done)
    }

    /// Lets an unused meter ask lapse.
    pub fn tick(&mut self, now: Instant) {
        self.meters.tick(now);
    }

    /// When [`Client::tick`] has something to do.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.meters.poll_timeout()
    }

    /// The client is gone: what it queued is still applied (its queue leaves when
    /// empty), PTT it owns is released, its meter ask withdrawn.
    pub fn close(mut self) {
        self.station.release_if_owner(self.id, &self.who);
        self.meters.stop();
        log::info!("{} disconnected", self.who);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_errors_map_to_hamlib_codes() {
        let e = |code| CommandError::new(code, "x");
        assert_eq!(
            rig_error(&e(ErrorCode::InvalidParam), false),
            RigError::InvalidParam
        );
        assert_eq!(
            rig_error(&e(ErrorCode::PttBusy), false),
            RigError::InvalidParam
        );
        assert_eq!(
            rig_error(&e(ErrorCode::NotSupported), false),
            RigError::NotAvailable
        );
        assert_eq!(
            rig_error(&e(ErrorCode::RadioUnavailable), true),
            RigError::PowerOff
        );
        assert_eq!(
            rig_error(&e(ErrorCode::RadioUnavailable), false),
            RigError::Io
        );
        assert_eq!(
            rig_error(&e(ErrorCode::RadioRejected), false),
            RigError::Rejected
        );
        assert_eq!(
            rig_error(&e(ErrorCode::RadioTimeout), false),
            RigError::Timeout
        );
        assert_eq!(
            rig_error(&e(ErrorCode::RadioBusy), false),
            RigError::BusBusy
        );
    }
}
