//! `/api/v1/scope`: binary scope frames (interface.md §2.5) from connect on, of one
//! receiver at a chosen rate (`?fps=&receiver=` or a `subscribe` message with
//! `scope_fps` / `scope_receiver`; 15..30 fps, never faster than the radio sweeps).
//! Hardware and audio-FFT sweeps look the same. `sequence` counts this client's frames;
//! frames its queue dropped (backpressure) show up as gaps.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Map, Value, json};

use super::conn::{Channel, Ctx};
use super::direct::deliver;
use super::messages;
use super::pacer::Pacer;
use super::registry::WsRoute;
use crate::hub::{Subscription, Tap, TapFilter};
use crate::profile::{Profile, ScopeSourceKind};
use crate::radio::error::{CommandError, ErrorCode};
use crate::radio::scope_pump::ScopeOut;
use crate::web::context::AppCtx;
use crate::wire::civ::Receiver;

/// Slowest rate a client may ask for.
pub const MIN_FPS: u32 = 15;
/// Fastest rate a client may ask for.
pub const MAX_FPS: u32 = 30;
/// Frames queued per client before the newest replaces them (interface.md §8).
pub const HIGH_WATERMARK: usize = 5;
/// Where a scope frame's `sequence` is (interface.md §2.5).
const SEQ_AT: usize = 11;
/// Kernel send buffer of a scope socket (about ten 689-pixel frames; Linux doubles it).
pub const SEND_BUFFER: usize = 8 * 1024;
/// Unsent bytes the kernel may hold for a scope client (about [`HIGH_WATERMARK`] frames
/// of 475..689 pixels).
pub const UNSENT_LIMIT: usize = 4 * 1024;

/// What a client asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScopeAsk {
    /// Frames per second.
    pub fps: u32,
    /// The receiver shown.
    pub receiver: Receiver,
}

impl Default for ScopeAsk {
    fn default() -> Self {
        ScopeAsk {
            fps: MAX_FPS,
            receiver: Receiver::Main,
        }
    }
}

fn check_fps(v: u64) -> Result<u32, CommandError> {
    if (u64::from(MIN_FPS)..=u64::from(MAX_FPS)).contains(&v) {
        Ok(v as u32)
    } else {
        Err(CommandError::param(
            "scope_fps",
            format!("{v} is not allowed; allowed {MIN_FPS}..{MAX_FPS}"),
        ))
    }
}

fn check_receiver(v: u64, profile: &Profile) -> Result<Receiver, CommandError> {
    let max = u64::from(profile.is_dual());
    match u8::try_from(v).ok().and_then(Receiver::from_code) {
        Some(r) if v <= max => Ok(r),
        _ => Err(CommandError::param(
            "scope_receiver",
            format!("{v} is not allowed; allowed 0..{max}"),
        )),
    }
}

/// The ask in a URL's query (`fps`, `receiver`; other parameters are ignored).
pub fn parse_query(url: &str, profile: &Profile) -> Result<ScopeAsk, CommandError> {
    let mut ask = ScopeAsk::default();
    let Some((_, query)) = url.split_once('?') else {
        return Ok(ask);
    };
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let number = || {
            v.parse::<u64>()
                .map_err(|_| CommandError::param(k, format!("{v:?} is not a whole number")))
        };
        match k {
            "fps" => ask.fps = check_fps(number()?).map_err(|e| rename(e, "fps"))?,
            "receiver" => {
                ask.receiver =
                    check_receiver(number()?, profile).map_err(|e| rename(e, "receiver"))?
            }
            _ => {}
        }
    }
    Ok(ask)
}

fn rename(e: CommandError, field: &str) -> CommandError {
    let msg = e
        .message
        .split_once(": ")
        .map_or(e.message.clone(), |(_, m)| m.to_string());
    CommandError::param(field, msg)
}

/// The ask in a `subscribe` message (fields left out keep their value).
fn parse_subscribe(
    msg: &Map<String, Value>,
    now: ScopeAsk,
    profile: &Profile,
) -> Result<ScopeAsk, CommandError> {
    messages::check_fields(msg, "subscribe", &["scope_fps", "scope_receiver"])?;
    let mut ask = now;
    match msg.get("scope_fps") {
        None | Some(Value::Null) => {}
        Some(v) => {
            ask.fps = check_fps(v.as_u64().ok_or_else(|| {
                CommandError::param(
                    "scope_fps",
                    format!("{v} is not allowed; allowed {MIN_FPS}..{MAX_FPS}"),
                )
            })?)?
        }
    }
    match msg.get("scope_receiver") {
        None | Some(Value::Null) => {}
        Some(v) => {
            ask.receiver = check_receiver(
                v.as_u64()
                    .ok_or_else(|| CommandError::param("scope_receiver", "must be 0 or 1"))?,
                profile,
            )?
        }
    }
    Ok(ask)
}

fn filter(ask: ScopeAsk) -> TapFilter<ScopeOut> {
    let mut pacer = Pacer::new(ask.fps);
    Box::new(move |s: &ScopeOut| s.frame.receiver == ask.receiver.code() && pacer.take(s.at))
}

/// The channel of one client.
pub struct ScopeChannel {
    app: Arc<AppCtx>,
    ask: ScopeAsk,
    tap: Option<(Subscription<ScopeOut>, Arc<Tap<ScopeOut>>)>,
    counted: bool,
}

impl ScopeChannel {
    /// A channel for a client that asked for `ask` in its URL.
    pub fn new(app: Arc<AppCtx>, ask: ScopeAsk) -> ScopeChannel {
        ScopeChannel {
            app,
            ask,
            tap: None,
            counted: false,
        }
    }

    fn fail(&self, id: Option<&Value>, e: &CommandError, ctx: &mut Ctx) {
        match id {
            Some(id) => ctx.text(messages::fail(id, e)),
            None => ctx.text(messages::error(e, None)),
        }
    }

    fn apply(&mut self) {
        if self.ask.receiver == Receiver::Sub {
            super::control::ensure_dual_scope(&self.app);
        }
        if let Some((_, tap)) = &self.tap {
            tap.set_filter(filter(self.ask));
        }
    }
}

impl Channel for ScopeChannel {
    fn open(&mut self, ctx: &mut Ctx) {
        let profile = self.app.radio.profile();
        if profile.scope.source == ScopeSourceKind::None {
            let e = CommandError::new(
                ErrorCode::NotSupported,
                format!("the {} has no scope", profile.model()),
            );
            ctx.text(messages::error(&e, None));
            ctx.close(1008, "this radio has no scope");
            return;
        }
        self.app.radio.store().modify_clients(|w| w.scope += 1);
        self.counted = true;
        ctx.set_send_buffer(SEND_BUFFER);
        ctx.set_unsent_limit(UNSENT_LIMIT);
        let tap = Arc::new(
            Tap::new(
                HIGH_WATERMARK,
                self.app.cfg.first_sequence,
                Some(ctx.handle.waker()),
                filter(self.ask),
            )
            .counting_drops(self.app.stream_stats.scope_dropped.clone()),
        );
        if let Some(d) = ctx.direct() {
            let stats = self.app.stream_stats.clone();
            tap.set_direct(Box::new(move |seq, s: &Arc<ScopeOut>| {
                // the shared frame around this client's sequence: no copy
                let (b, seq) = (&s.bytes, seq.to_le_bytes());
                b.len() >= SEQ_AT + 2
                    && deliver(
                        &d,
                        &[&b[..SEQ_AT], &seq, &b[SEQ_AT + 2..]],
                        s.at,
                        &stats.scope,
                    )
            }));
        }
        let sub = self.app.radio.scope().subscribe_with(tap.clone());
        self.tap = Some((sub, tap));
        self.apply();
    }

    fn text(&mut self, text: &str, ctx: &mut Ctx) {
        let msg = match messages::parse_message(text) {
            Ok(m) => m,
            Err(e) => return self.fail(None, &e, ctx),
        };
        let id = messages::echoed_id(&msg);
        match msg.get("type").and_then(Value::as_str) {
            Some("subscribe") => {
                let profile = self.app.radio.profile();
                match parse_subscribe(&msg, self.ask, &profile) {
                    Ok(ask) => {
                        self.ask = ask;
                        self.apply();
                        if let Some(id) = id {
                            let result =
                                json!({"scope_fps": ask.fps, "scope_receiver": ask.receiver});
                            ctx.text(messages::ok(id, &result));
                        }
                    }
                    Err(e) => self.fail(id, &e, ctx),
                }
            }
            other => {
                let e = messages::unknown_type(WsRoute::Scope, other, &["subscribe"]);
                self.fail(id, &e, ctx);
            }
        }
    }

    fn binary(&mut self, data: &[u8], ctx: &mut Ctx) {
        self.fail(
            None,
            &messages::binary_refused(WsRoute::Scope, data.len()),
            ctx,
        );
    }

    fn pull(&mut self, _now: Instant, budget: usize, ctx: &mut Ctx) {
        let Some((_, tap)) = &self.tap else { return };
        for _ in 0..budget {
            let Some((seq, s)) = tap.pop() else { break };
            let mut bytes = s.bytes.clone();
            if let Some(b) = bytes.get_mut(SEQ_AT..SEQ_AT + 2) {
                b.copy_from_slice(&seq.to_le_bytes());
            }
            ctx.stream_frame(bytes, s.at);
        }
    }

    fn written(&mut self, since: Instant, now: Instant) {
        self.app
            .stream_stats
            .scope
            .record(now.saturating_duration_since(since));
    }

    fn tick(&mut self, _now: Instant, _ctx: &mut Ctx) -> Option<Instant> {
        None
    }

    fn closed(&mut self) {
        self.tap = None;
        if self.counted {
            self.app
                .radio
                .store()
                .modify_clients(|w| w.scope = w.scope.saturating_sub(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ProfileRegistry;

    #[test]
    fn query_and_subscribe_are_checked() {
        let reg = ProfileRegistry::embedded();
        let dual = reg.get("ic7610").unwrap();
        let single = reg.get("ic7100").unwrap();
        assert_eq!(
            parse_query("/api/v1/scope", &dual).unwrap(),
            ScopeAsk::default()
        );
        assert_eq!(
            parse_query("/api/v1/scope?token=x&fps=20&receiver=1", &dual).unwrap(),
            ScopeAsk {
                fps: 20,
                receiver: Receiver::Sub
            }
        );
        for bad in ["?fps=60", "?fps=14", "?fps=abc", "?fps=", "?receiver=2"] {
            let e = parse_query(&format!("/api/v1/scope{bad}"), &dual).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidParam, "{bad}");
        }
        assert!(parse_query("/x?receiver=1", &single).is_err());
        let m = |v: Value| v.as_object().unwrap().clone();
        let now = ScopeAsk::default();
        assert_eq!(
            parse_subscribe(&m(json!({"scope_fps": 15})), now, &dual).unwrap(),
            ScopeAsk {
                fps: 15,
                receiver: Receiver::Main
            }
        );
        for bad in [
            json!({"scope_fps": 31}),
            json!({"scope_fps": "20"}),
            json!({"scope_fps": 20.5}),
            json!({"scope_receiver": -1}),
            json!({"scope_receiver": 2}),
        ] {
            assert!(
                parse_subscribe(&m(bad.clone()), now, &dual).is_err(),
                "{bad}"
            );
        }
    }
}
