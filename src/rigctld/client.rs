//! One rigctld client, apart from its socket: lines in, answer bytes out. Reads are
//! answered from the state store; every set goes the way of a WebSocket `cmd`: the
//! command table parses and validates it (`table::parse`, `table::check_against`), the
//! client's rate limiter lets it through or holds it (a held set is acknowledged at once
//! and shows in the client's reads until it ends, see `overlay`), and the radio's
//! executor runs it (`Radio::submit`); the client waits for the result before answering.
//! PTT follows the web's ownership rules (see `web_rules`).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use serde_json::{Value, json};

use super::hamlib::RigError;
use super::meter_tap::MeterTap;
use super::overlay::Overlay;
use super::parse::{RigCmd, parse_line};
use super::reply::{Reply, render};
use super::respond::{Plan, Step, meter_reply, plan};
use super::view::View;
use super::web_rules::{Claim, RateLimiter, Station, Verdict};
use crate::radio::command::Command;
use crate::radio::error::{CommandError, ErrorCode};
use crate::radio::table;

/// Longest wait for the radio's answer to one command.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(15);

/// A command the limiter held, ended: `(command, succeeded)`.
type Ended = (Command, bool);

/// See the module docs.
pub struct Client {
    station: Station,
    id: u64,
    who: String,
    limiter: RateLimiter,
    overlay: Overlay,
    /// The VFO chosen with `V` (`None`: the radio's selected one).
    current: Option<u8>,
    ended_tx: Sender<Ended>,
    ended_rx: Receiver<Ended>,
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
        let (ended_tx, ended_rx) = crossbeam_channel::unbounded();
        let meters = MeterTap::new(station.meters().clone(), id);
        Client {
            limiter: station.limiter(),
            station,
            id,
            who: format!("rigctld client {id} ({peer})"),
            overlay: Overlay::default(),
            current: None,
            ended_tx,
            ended_rx,
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
            self.settle_ended();
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
                let raw = if kind.is_tx() != transmitting {
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

    /// Runs `cmd` and waits for its result.
    fn execute(&self, cmd: Command) -> Result<Value, RigError> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.station
            .radio()
            .submit(cmd, move |r| {
                let _ = tx.send(r);
            })
            .map_err(|e| self.error(&e))?;
        match rx.recv_timeout(COMMAND_TIMEOUT) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(self.error(&e)),
            Err(_) => Err(RigError::Timeout),
        }
    }

    /// Sends commands the limiter held, without waiting; their end is reported on the
    /// `ended` channel (the overlay lets go of their values then).
    fn send_held(&self, held: Vec<(String, Command)>) {
        for (name, cmd) in held {
            let tx = self.ended_tx.clone();
            let who = self.who.clone();
            let sent = cmd.clone();
            let r = self.station.radio().submit(cmd.clone(), move |r| {
                if let Err(e) = &r {
                    log::warn!("{who}: held {name} failed: {e}");
                }
                let _ = tx.send((sent, r.is_ok()));
            });
            if let Err(e) = r {
                log::warn!("{}: held command not queued: {e}", self.who);
                let _ = self.ended_tx.send((cmd, false));
            }
        }
    }

    fn settle_ended(&mut self) {
        while let Ok((cmd, _)) = self.ended_rx.try_recv() {
            let radio = self.station.radio().clone();
            radio.store().read(|c| self.overlay.settle(&cmd, &c.radio));
        }
    }

    fn hold(&mut self, cmd: &Command) {
        let radio = self.station.radio().clone();
        radio.store().read(|c| self.overlay.hold(cmd, &c.radio));
    }

    fn settle(&mut self, cmd: &Command) {
        let radio = self.station.radio().clone();
        radio.store().read(|c| self.overlay.settle(cmd, &c.radio));
    }

    /// Parses and validates a command-table command as the WebSocket control channel
    /// does.
    fn parse(&self, name: &str, params: &Value) -> Result<(Command, bool), RigError> {
        let radio = self.station.radio();
        let profile = radio.profile();
        let parsed = table::parse(name, Some(params), &profile).map_err(|e| self.error(&e))?;
        radio
            .store()
            .read(|c| table::check_against(&parsed.command, &c.radio))
            .map_err(|e| self.error(&e))?;
        Ok((parsed.command, parsed.spec.rate_limited))
    }

    fn run_steps(&mut self, steps: Vec<Step>) -> Result<Reply, RigError> {
        for Step { name, params } in steps {
            let (cmd, limited) = self.parse(name, &params)?;
            let now = Instant::now();
            if !limited {
                let before = self.limiter.before_unlimited(now);
                self.send_held(before);
                self.execute(cmd)?;
                continue;
            }
            match self.limiter.offer(name, &cmd, now) {
                Verdict::Send { before, cmd } => {
                    self.send_held(before);
                    self.hold(&cmd);
                    let r = self.execute(cmd.clone());
                    self.settle(&cmd);
                    r?;
                }
                Verdict::Throttled => self.hold(&cmd),
            }
        }
        Ok(Reply::Done)
    }

    fn ptt(&mut self, on: bool) -> Result<Reply, RigError> {
        let (cmd, _) = self.parse("ptt", &json!({ "state": on }))?;
        let before = self.limiter.before_unlimited(Instant::now());
        self.send_held(before);
        if !on {
            self.station.unkeying();
            self.execute(cmd)?;
            return Ok(Reply::Done);
        }
        if let Claim::Busy(other) = self.station.claim_ptt(self.id) {
            log::warn!("{}: PTT refused: client {other} is transmitting", self.who);
            return Err(RigError::InvalidParam);
        }
        let r = self.execute(cmd);
        self.station.key_done(self.id, r.is_ok());
        r.map(|_| Reply::Done)
    }

    fn power(&mut self, on: bool) -> Result<Reply, RigError> {
        if !on {
            // as POST /api/v1/radio/power: TX audio stops now; the engine unkeys before
            // it switches off
            self.station.unkeying();
        }
        self.execute(Command::Power(on)).map(|_| Reply::Done)
    }

    /// Sends held commands whose window has ended; lets an unused meter ask lapse.
    pub fn tick(&mut self, now: Instant) {
        let due = self.limiter.due(now);
        self.send_held(due);
        self.meters.tick(now);
    }

    /// When [`Client::tick`] has something to do.
    pub fn poll_timeout(&self) -> Option<Instant> {
        [self.limiter.poll_timeout(), self.meters.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    /// The client is gone: what it set is applied, PTT it owns is released, its meter
    /// ask withdrawn.
    pub fn close(mut self) {
        let held = self.limiter.drain(Instant::now());
        self.send_held(held);
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
