//! `/api/v1/ws`, the control channel: `hello` on connect; `subscribe` / `unsubscribe`
//! (streams `events`, `scope`, `meters`); the snapshot (`state` + `state_update` full)
//! after every subscribe, then deltas; `event`s; `cmd` -> `response` with the same id,
//! validated by the command table, queued for the radio as this client's (its own queue
//! and rate limits, `radio/dispatch`), with PTT ownership.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde_json::{Map, Value, json};

use super::conn::{Channel, ClientHandle, Ctx};
use super::control_messages::{self, SubscribeAsk};
use super::feed::StateFeed;
use super::messages;
use super::pacer::Pacer;
use super::registry::WsRoute;
use crate::hub::{LatestWins, Subscription};
use crate::radio::command::Command;
use crate::radio::error::{CommandError, ErrorCode};
use crate::radio::meter_pump::MeterReading;
use crate::radio::scope_pump::ScopeOut;
use crate::radio::service::RadioClient;
use crate::radio::table;
use crate::station::dx::buffer::Spot;
use crate::web::answer;
use crate::web::context::AppCtx;
use crate::web::ptt::Claim;
use crate::wire::civ::Receiver;
use crate::wire::meter::MeterKind;
use crate::wire::web::MeterFrame;

/// Ping interval of a client while it owns PTT.
pub const OWNER_PING_INTERVAL: Duration = Duration::from_secs(1);
/// Pong timeout of a client while it owns PTT: a PTT owner that answers nothing for this
/// long after its last pong is cut at once and its PTT released (docs/API.md, *PTT*).
pub const OWNER_PONG_TIMEOUT: Duration = Duration::from_secs(3);
/// Told whether a command succeeded once it ended (or could not be queued).
type Done = Box<dyn FnOnce(bool) + Send>;
/// S-meter events at most this often.
const SMETER_EVENT_GAP: Duration = Duration::from_millis(200);

struct ScopeTap {
    _sub: Subscription<ScopeOut>,
    queue: Arc<LatestWins<Arc<ScopeOut>>>,
    receiver: Receiver,
    pacer: Pacer,
}

struct MeterTap {
    _sub: Subscription<MeterReading>,
    queue: Arc<LatestWins<Arc<MeterReading>>>,
    last_smeter: [Option<u16>; 2],
    last_event: Option<Instant>,
}

/// The control channel of one client.
pub struct ControlChannel {
    app: Arc<AppCtx>,
    id: u64,
    handle: Option<Arc<ClientHandle>>,
    feed: Option<(u64, Arc<StateFeed>)>,
    /// New DX spots for the feed (while it exists and the server has DX feeds).
    dx_spots: Option<Subscription<Spot>>,
    streams: BTreeSet<&'static str>,
    scope: Option<ScopeTap>,
    meters: Option<MeterTap>,
    /// This client's queue at the radio (from `open` until `closed`).
    radio: Option<RadioClient>,
}

impl ControlChannel {
    /// A channel for client `id`.
    pub fn new(app: Arc<AppCtx>, id: u64) -> ControlChannel {
        ControlChannel {
            app,
            id,
            handle: None,
            feed: None,
            dx_spots: None,
            streams: BTreeSet::new(),
            scope: None,
            meters: None,
            radio: None,
        }
    }

    fn reply_error(&self, id: Option<&Value>, e: &CommandError, ctx: &mut Ctx) {
        match id {
            Some(id) => ctx.text(messages::fail(id, e)),
            None => ctx.text(
                json!({"type": "error", "error": e.code.as_str(), "message": e.message})
                    .to_string(),
            ),
        }
    }

    fn on_message(&mut self, msg: &Map<String, Value>, ctx: &mut Ctx) {
        let id = msg.get("id").filter(|v| !v.is_null());
        if let Some(v) = id
            && !(v.is_string() || v.is_number())
        {
            let e = CommandError::param("id", "must be a string (or a number)");
            self.reply_error(None, &e, ctx);
            return;
        }
        if let Err(e) = control_messages::check_fields(msg) {
            self.reply_error(id, &e, ctx);
            return;
        }
        match msg.get("type").and_then(Value::as_str) {
            Some("cmd") => self.on_cmd(msg, id, ctx),
            Some("subscribe") => self.on_subscribe(msg, id, ctx),
            Some("unsubscribe") => self.on_unsubscribe(msg, id, ctx),
            Some(other) => {
                let e = CommandError::param(
                    "type",
                    format!("unknown message type {other:?}; allowed: cmd, subscribe, unsubscribe"),
                );
                self.reply_error(id, &e, ctx);
            }
            None => {
                let e = CommandError::param(
                    "type",
                    "required (a string: cmd, subscribe or unsubscribe)",
                );
                self.reply_error(id, &e, ctx);
            }
        }
    }

    /// Queues `cmd` (row `spec`) for the radio as this client's; its `response` carries
    /// `id` (`{"throttled":true}` at once when the rate limit holds it back). `done`
    /// learns whether it succeeded, whether it ran or could not even be queued.
    fn submit(
        &self,
        spec: &'static table::CommandSpec,
        cmd: Command,
        id: Value,
        ctx: &mut Ctx,
        done: Option<Done>,
    ) {
        let Some(radio) = self.radio.as_ref() else {
            // not open yet, or closing: nothing is queued for it any more
            let e = CommandError::new(ErrorCode::RadioUnavailable, "the connection is closing");
            if let Some(f) = done {
                f(false);
            }
            self.reply_error(Some(&id), &e, ctx);
            return;
        };
        let handle = ctx.handle.clone();
        let done = Arc::new(Mutex::new(done));
        let on_end = done.clone();
        let reply_id = id.clone();
        // an answer given at once (throttled) is written like this thread's own replies,
        // so that it counts towards the replies that hold further reading; a later one
        // is queued from the executor (on the link's CI-V thread)
        let at_once: Arc<Mutex<Option<Vec<String>>>> = Arc::new(Mutex::new(Some(Vec::new())));
        let now = at_once.clone();
        let r = radio.submit(spec.name, spec.rate, cmd, move |r| {
            if let Some(f) = on_end.lock().take() {
                f(r.is_ok());
            }
            let text = match r {
                Ok(v) => messages::ok(&reply_id, &answer::result_json(&v)),
                Err(e) => messages::fail(&reply_id, &e),
            };
            match now.lock().as_mut() {
                Some(texts) => texts.push(text),
                None => handle.send_text(text),
            }
        });
        for text in at_once.lock().take().unwrap_or_default() {
            ctx.text(text);
        }
        if let Err(e) = r {
            if let Some(f) = done.lock().take() {
                f(false);
            }
            self.reply_error(Some(&id), &e, ctx);
        }
    }

    fn on_cmd(&mut self, msg: &Map<String, Value>, id: Option<&Value>, ctx: &mut Ctx) {
        let Some(id) = id.cloned() else {
            self.reply_error(
                None,
                &CommandError::param("id", "required (a correlation string)"),
                ctx,
            );
            return;
        };
        let Some(name) = msg.get("name").and_then(Value::as_str) else {
            self.reply_error(
                Some(&id),
                &CommandError::param("name", "required (a string)"),
                ctx,
            );
            return;
        };
        let profile = self.app.radio.profile();
        let (cmd, spec) = match table::parse(name, msg.get("params"), &profile) {
            Ok(p) => (p.command, p.spec),
            Err(e) => {
                self.reply_error(Some(&id), &e, ctx);
                return;
            }
        };
        // what depends on the radio's state is checked before the rate limit too: an
        // invalid command is always answered with its error
        if let Err(e) = self
            .app
            .radio
            .store()
            .read(|c| crate::radio::state::check_against(&cmd, &c.radio))
        {
            self.reply_error(Some(&id), &e, ctx);
            return;
        }
        if let (Command::SendCw(_), Some(other)) = (&cmd, self.app.ptt.owner())
            && other != self.id
        {
            // CW keys the transmitter: not in another client's transmission
            let e = CommandError::new(
                ErrorCode::PttBusy,
                format!("client {other} is transmitting; send CW when it has unkeyed"),
            );
            self.reply_error(Some(&id), &e, ctx);
            return;
        }
        if cmd == Command::Ptt(true) {
            self.key(spec, cmd, id, ctx);
        } else {
            if cmd == Command::Ptt(false) {
                // TX audio stops now, not when the radio confirms
                self.app.ptt.unkeying();
            }
            self.submit(spec, cmd, id, ctx, None);
        }
    }

    /// `ptt true`: only when no other client transmits or is keying; this client then
    /// owns PTT until the radio unkeys.
    fn key(&self, spec: &'static table::CommandSpec, cmd: Command, id: Value, ctx: &mut Ctx) {
        let transmitting = self.app.radio.store().read(|c| c.radio.transmitting());
        match self.app.ptt.claim(self.id, transmitting) {
            Claim::Busy(other) => {
                let e = CommandError::new(
                    ErrorCode::PttBusy,
                    format!("client {other} is transmitting; wait until it unkeys"),
                );
                self.reply_error(Some(&id), &e, ctx);
            }
            Claim::Closed => {
                let e = CommandError::new(
                    ErrorCode::RadioUnavailable,
                    "the server is shutting down: keying is closed",
                );
                self.reply_error(Some(&id), &e, ctx);
            }
            Claim::Granted => {
                let (app, me) = (self.app.clone(), self.id);
                let done: Done = Box::new(move |ok| {
                    let keyed = app.radio.store().read(|c| c.radio.transmitting());
                    app.ptt.key_done(me, ok, keyed);
                    if keyed && app.ptt.is_closed() {
                        // keyed after the server began to stop (a key that was queued):
                        // off again at once
                        crate::web::ptt_watch::release(&app, "a key that ran during shutdown");
                    }
                });
                self.submit(spec, cmd, id, ctx, Some(done));
            }
        }
    }

    fn on_subscribe(&mut self, msg: &Map<String, Value>, id: Option<&Value>, ctx: &mut Ctx) {
        let profile = self.app.radio.profile();
        let parsed = control_messages::parse_subscribe(msg, &profile);
        let SubscribeAsk {
            streams,
            fps,
            receiver,
        } = match parsed {
            Ok(v) => v,
            Err(e) => {
                self.reply_error(id, &e, ctx);
                return;
            }
        };
        self.streams = streams.iter().copied().collect();
        self.resubscribe_feed(ctx);
        self.scope = None;
        if self.streams.contains("scope") {
            if receiver == Receiver::Sub {
                ensure_dual_scope(&self.app);
            }
            let queue = Arc::new(
                LatestWins::new(5, Some(ctx.handle.waker()))
                    .counting_drops(self.app.stream_stats.scope_dropped.clone()),
            );
            let sub = self.app.radio.scope().subscribe(queue.clone());
            self.scope = Some(ScopeTap {
                _sub: sub,
                queue,
                receiver,
                pacer: Pacer::new(fps),
            });
        }
        self.sync_meters(ctx);
        if let Some(id) = id {
            let result = json!({"streams": streams, "scope_fps": fps, "scope_receiver": receiver});
            ctx.handle.send_text(messages::ok(id, &result));
        }
    }

    fn resubscribe_feed(&mut self, ctx: &mut Ctx) {
        if let Some((sid, _)) = self.feed.take() {
            self.app.radio.store().unsubscribe(sid);
        }
        let feed = Arc::new(StateFeed::new(
            ctx.handle.clone(),
            self.streams.contains("events"),
        ));
        let (sid, _) = self.app.radio.store().subscribe(feed.clone());
        self.dx_spots = None;
        self.dx_spots = self
            .app
            .station
            .dx
            .as_ref()
            .map(|dx| dx.subscribe(feed.clone()));
        self.feed = Some((sid, feed));
    }

    fn sync_meters(&mut self, ctx: &mut Ctx) {
        let events = self.streams.contains("events");
        let frames = self.streams.contains("meters");
        if !events && !frames {
            self.meters = None;
            self.app.meters.withdraw(self.id);
            return;
        }
        let profile = self.app.radio.profile();
        let mut kinds: Vec<MeterKind> =
            vec![MeterKind::Smeter, MeterKind::SmeterSub, MeterKind::Swr];
        if frames {
            kinds = MeterKind::ALL.to_vec();
        }
        kinds.retain(|k| profile.has_meter(*k));
        self.app
            .meters
            .demand(self.id, kinds, if frames { 10 } else { 5 });
        if self.meters.is_none() {
            let queue = Arc::new(
                LatestWins::new(5, Some(ctx.handle.waker()))
                    .counting_drops(self.app.stream_stats.meters_dropped.clone()),
            );
            let sub = self.app.meters.readings().subscribe(queue.clone());
            self.meters = Some(MeterTap {
                _sub: sub,
                queue,
                last_smeter: [None, None],
                last_event: None,
            });
        }
    }

    fn on_unsubscribe(&mut self, msg: &Map<String, Value>, id: Option<&Value>, ctx: &mut Ctx) {
        let streams = match control_messages::parse_streams(msg, true) {
            Ok(s) => s,
            Err(e) => {
                self.reply_error(id, &e, ctx);
                return;
            }
        };
        for s in &streams {
            self.streams.remove(s);
        }
        if !self.streams.contains("scope") {
            self.scope = None;
        }
        match &self.feed {
            Some((sid, _)) if self.streams.is_empty() => {
                self.app.radio.store().unsubscribe(*sid);
                self.feed = None;
                self.dx_spots = None;
            }
            Some((_, feed)) => feed.events.store(
                self.streams.contains("events"),
                std::sync::atomic::Ordering::Relaxed,
            ),
            None => {}
        }
        self.sync_meters(ctx);
        if let Some(id) = id {
            let left: Vec<&str> = self.streams.iter().copied().collect();
            ctx.text(messages::ok(id, &json!({"streams": left})));
        }
    }

    fn pull_meters(&mut self, now: Instant, ctx: &mut Ctx) {
        let Some(tap) = self.meters.as_mut() else {
            return;
        };
        let events = self.streams.contains("events");
        let frames = self.streams.contains("meters");
        while let Some(r) = tap.queue.pop() {
            let smeter = |k| r.values.iter().find(|(m, _)| *m == k).map(|(_, v)| *v);
            if let Some((_, feed)) = &self.feed {
                if let Some(v) = smeter(MeterKind::Smeter) {
                    feed.smeter.store(v, std::sync::atomic::Ordering::Relaxed);
                }
                if let Some(v) = smeter(MeterKind::Swr) {
                    feed.swr.store(v, std::sync::atomic::Ordering::Relaxed);
                }
            }
            if frames {
                let frame = MeterFrame {
                    sequence: r.sequence,
                    readings: r.values.iter().map(|(k, v)| (k.web_id(), *v)).collect(),
                };
                ctx.binary(frame.emit());
            }
            if events && tap.last_event.is_none_or(|t| now >= t + SMETER_EVENT_GAP) {
                let mut sent = false;
                for (i, kind) in [MeterKind::Smeter, MeterKind::SmeterSub]
                    .into_iter()
                    .enumerate()
                {
                    let receiver = Receiver::ALL[i];
                    if let Some(v) = smeter(kind)
                        && tap.last_smeter[i] != Some(v)
                    {
                        tap.last_smeter[i] = Some(v);
                        ctx.text(messages::event(
                            "smeter",
                            &json!({"value": v, "receiver": receiver}),
                        ));
                        sent = true;
                    }
                }
                if sent {
                    tap.last_event = Some(now);
                }
            }
        }
    }
}

impl Channel for ControlChannel {
    fn open(&mut self, ctx: &mut Ctx) {
        self.handle = Some(ctx.handle.clone());
        // a throttled command that fails later is told as a `command_failed` event
        let handle = ctx.handle.clone();
        self.radio = Some(self.app.radio.client(Arc::new(move |name, e| {
            let data = json!({"name": name, "error": e.code.as_str(), "message": e.message, "throttled": true});
            handle.send_text(messages::event("command_failed", &data));
        })));
        let session = match self.app.sessions.open(self.id) {
            Ok(s) => s,
            Err(e) => {
                log::error!("ws client {}: no session secret: {e}", self.id);
                ctx.close(1011, "the server cannot create a session secret");
                String::new()
            }
        };
        ctx.text(messages::hello(&self.app.radio.profile(), &session));
        self.app.radio.store().modify_clients(|w| w.control += 1);
    }

    fn text(&mut self, text: &str, ctx: &mut Ctx) {
        match messages::parse_message(text) {
            Ok(m) => self.on_message(&m, ctx),
            Err(e) => self.reply_error(None, &e, ctx),
        }
    }

    fn binary(&mut self, data: &[u8], ctx: &mut Ctx) {
        let e = messages::binary_refused(WsRoute::Control, data.len());
        self.reply_error(None, &e, ctx);
    }

    fn pull(&mut self, now: Instant, budget: usize, ctx: &mut Ctx) {
        self.pull_meters(now, ctx);
        let Some(tap) = self.scope.as_mut() else {
            return;
        };
        let mut sent = 0;
        while sent < budget {
            let Some(s) = tap.queue.pop() else { break };
            if s.frame.receiver != tap.receiver.code() {
                continue;
            }
            if !tap.pacer.take(now) {
                continue;
            }
            ctx.binary(s.bytes.clone());
            sent += 1;
        }
    }

    fn tick(&mut self, _now: Instant, _ctx: &mut Ctx) -> Option<Instant> {
        None
    }

    fn keepalive(&self) -> Option<(Duration, Duration)> {
        // while this client transmits, notice quickly if it vanishes without closing
        (self.app.ptt.owner() == Some(self.id)).then_some((OWNER_PING_INTERVAL, OWNER_PONG_TIMEOUT))
    }

    fn closed(&mut self) {
        self.app.sessions.close(self.id);
        if let Some((sid, _)) = self.feed.take() {
            self.app.radio.store().unsubscribe(sid);
        }
        self.dx_spots = None;
        self.scope = None;
        self.meters = None;
        self.app.meters.withdraw(self.id);
        // what the client asked for is still applied (each command in its window), even
        // if it is no longer there to see it
        self.radio = None;
        // the owner may be transmitting, or have a key command still queued (the release
        // goes to the radio first, and a key queued before it is not sent)
        if self.app.ptt.owner() == Some(self.id) {
            log::warn!("ws client {} left while owning PTT: releasing PTT", self.id);
            self.app.ptt.unkeying();
            let (app, me) = (self.app.clone(), self.id);
            // the release is retried until the radio confirms it
            let r = self.app.radio.submit(Command::Release, move |r| {
                if let Err(e) = r {
                    log::error!("releasing PTT after the owner left: {e}");
                }
                app.ptt.release_if_owner(me);
            });
            if let Err(e) = r {
                log::error!("releasing PTT after the owner left could not be queued: {e}");
            }
        }
        self.app
            .radio
            .store()
            .modify_clients(|w| w.control = w.control.saturating_sub(1));
    }
}

/// SUB sweeps flow only while the scope shows both receivers: switches the dual scope on
/// (`27 13 01`) for a client that asks for receiver 1.
pub fn ensure_dual_scope(app: &AppCtx) {
    if app.radio.store().read(|c| c.radio.scope.dual) {
        return;
    }
    let r = app.radio.submit(Command::ScopeDual(true), |r| {
        if let Err(e) = r {
            log::warn!("dual scope for a SUB subscriber: {e}");
        }
    });
    if let Err(e) = r {
        log::warn!("dual scope for a SUB subscriber not queued: {e}");
    }
}
