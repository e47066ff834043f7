//! `/api/v1/meters`: nothing flows before `meters_start`; then binary meter frames
//! (`0x20`, a wrapping per-client `sequence`, `(id, value)` triples of the asked meters
//! read this round) at the asked rate (1..20 per second, slower when the radio answers
//! slower) until `meters_stop`. The radio is polled only for meters somebody asked for,
//! at the highest rate asked (the meter pump).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Map, Value, json};

use super::conn::{Channel, Ctx};
use super::direct::Sent;
use super::messages;
use super::pacer::Pacer;
use super::registry::WsRoute;
use crate::hub::{Subscription, Tap};
use crate::profile::Profile;
use crate::radio::error::CommandError;
use crate::radio::meter_pump::{MAX_FPS, MeterReading};
use crate::web::context::AppCtx;
use crate::wire::meter::MeterKind;
use crate::wire::web::MeterFrame;

/// Rate when `meters_start` names none.
pub const DEFAULT_FPS: u32 = 10;
/// Frames queued per client before the newest replaces them.
pub const HIGH_WATERMARK: usize = 5;
/// Kernel send buffer of a meters socket (the smallest Linux allows is about this).
pub const SEND_BUFFER: usize = 4 * 1024;
/// Unsent bytes the kernel may hold for a meters client (about [`HIGH_WATERMARK`] frames
/// of a few meters): a meter frame is so small that a send buffer holds tens of seconds
/// of them.
pub const UNSENT_LIMIT: usize = 256;

/// A validated `meters_start`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetersAsk {
    /// The asked meters the profile has, in id order.
    pub kinds: Vec<MeterKind>,
    /// Frames per second, 1..20.
    pub fps: u32,
}

/// Validates a `meters_start` message against `profile`.
pub fn parse_start(msg: &Map<String, Value>, profile: &Profile) -> Result<MetersAsk, CommandError> {
    messages::check_fields(msg, "meters_start", &["meters", "fps"])?;
    let names = MeterKind::known;
    let asked: BTreeSet<MeterKind> = match msg.get("meters") {
        None | Some(Value::Null) => MeterKind::ALL.iter().copied().collect(),
        Some(Value::Array(a)) => {
            let mut set = BTreeSet::new();
            let mut unknown = Vec::new();
            for v in a {
                match v.as_str().and_then(MeterKind::from_name) {
                    Some(k) => {
                        set.insert(k);
                    }
                    None => unknown.push(v.to_string()),
                }
            }
            if !unknown.is_empty() {
                return Err(CommandError::param(
                    "meters",
                    format!("unknown {}; allowed: {}", unknown.join(", "), names()),
                ));
            }
            set
        }
        Some(_) => {
            return Err(CommandError::param(
                "meters",
                format!("must be an array of names: {}", names()),
            ));
        }
    };
    let fps = match msg.get("fps") {
        None | Some(Value::Null) => DEFAULT_FPS,
        Some(v) => match v.as_u64() {
            Some(f) if f > 0 => f.min(u64::from(MAX_FPS)) as u32,
            _ => {
                return Err(CommandError::param(
                    "fps",
                    format!("{v} is not a positive whole number (1..{MAX_FPS}; more is clamped)"),
                ));
            }
        },
    };
    let kinds = asked
        .into_iter()
        .filter(|k| profile.has_meter(*k))
        .collect();
    Ok(MetersAsk { kinds, fps })
}

/// The meter frame of a client asking for `kinds`: in id order, those read this round.
fn frame(kinds: &[MeterKind], r: &MeterReading, sequence: u16) -> Vec<u8> {
    let readings = kinds
        .iter()
        .filter_map(|k| {
            let (_, v) = r.values.iter().find(|(m, _)| m == k)?;
            Some((k.web_id(), *v))
        })
        .collect();
    MeterFrame { sequence, readings }.emit()
}

struct Running {
    kinds: Vec<MeterKind>,
    _sub: Subscription<MeterReading>,
    tap: Arc<Tap<MeterReading>>,
}

/// The channel of one client.
pub struct MetersChannel {
    app: Arc<AppCtx>,
    id: u64,
    running: Option<Running>,
}

impl MetersChannel {
    /// A channel for client `id`.
    pub fn new(app: Arc<AppCtx>, id: u64) -> MetersChannel {
        MetersChannel {
            app,
            id,
            running: None,
        }
    }

    fn fail(&self, id: Option<&Value>, e: &CommandError, ctx: &mut Ctx) {
        ctx.text(messages::error(e, id));
    }

    fn start(&mut self, ask: MetersAsk, ctx: &mut Ctx) {
        self.running = None;
        let wanted: BTreeSet<MeterKind> = ask.kinds.iter().copied().collect();
        let mut pacer = Pacer::new(ask.fps);
        let tap = Arc::new(
            Tap::new(
                HIGH_WATERMARK,
                self.app.cfg.first_sequence,
                Some(ctx.handle.waker()),
                Box::new(move |r: &MeterReading| {
                    r.values.iter().any(|(k, _)| wanted.contains(k)) && pacer.take(Instant::now())
                }),
            )
            .counting_drops(self.app.stream_stats.meters_dropped.clone()),
        );
        if let Some(d) = ctx.direct() {
            let kinds = ask.kinds.clone();
            tap.set_direct(Box::new(move |seq, r: &Arc<MeterReading>| {
                d.send(&[&frame(&kinds, r, seq)]) != Sent::No
            }));
        }
        let sub = self.app.meters.readings().subscribe_with(tap.clone());
        self.app
            .meters
            .demand(self.id, ask.kinds.iter().copied(), ask.fps);
        self.running = Some(Running {
            kinds: ask.kinds,
            _sub: sub,
            tap,
        });
    }

    fn stop(&mut self) {
        if self.running.take().is_some() {
            self.app.meters.withdraw(self.id);
        }
    }
}

impl Channel for MetersChannel {
    fn open(&mut self, ctx: &mut Ctx) {
        self.app.radio.store().modify_clients(|w| w.meters += 1);
        ctx.set_send_buffer(SEND_BUFFER);
        ctx.set_unsent_limit(UNSENT_LIMIT);
    }

    fn text(&mut self, text: &str, ctx: &mut Ctx) {
        let msg = match messages::parse_message(text) {
            Ok(m) => m,
            Err(e) => return self.fail(None, &e, ctx),
        };
        let id = messages::echoed_id(&msg);
        match msg.get("type").and_then(Value::as_str) {
            Some("meters_start") => {
                let profile = self.app.radio.profile();
                match parse_start(&msg, &profile) {
                    Ok(ask) => {
                        let names: Vec<&str> = ask.kinds.iter().map(|k| k.name()).collect();
                        ctx.text(messages::reply(
                            json!({"type": "meters_started", "meters": names, "fps": ask.fps}),
                            id,
                        ));
                        self.start(ask, ctx);
                    }
                    Err(e) => self.fail(id, &e, ctx),
                }
            }
            Some("meters_stop") => {
                if let Err(e) = messages::check_fields(&msg, "meters_stop", &[]) {
                    return self.fail(id, &e, ctx);
                }
                self.stop();
                ctx.text(messages::reply(json!({"type": "meters_stopped"}), id));
            }
            other => {
                let e = messages::unknown_type(
                    WsRoute::Meters,
                    other,
                    &["meters_start", "meters_stop"],
                );
                self.fail(id, &e, ctx);
            }
        }
    }

    fn binary(&mut self, data: &[u8], ctx: &mut Ctx) {
        self.fail(
            None,
            &messages::binary_refused(WsRoute::Meters, data.len()),
            ctx,
        );
    }

    fn pull(&mut self, _now: Instant, budget: usize, ctx: &mut Ctx) {
        let Some(run) = &self.running else { return };
        for _ in 0..budget {
            let Some((seq, r)) = run.tap.pop() else { break };
            ctx.binary(frame(&run.kinds, &r, seq));
        }
    }

    fn tick(&mut self, _now: Instant, _ctx: &mut Ctx) -> Option<Instant> {
        None
    }

    fn closed(&mut self) {
        self.stop();
        self.app
            .radio
            .store()
            .modify_clients(|w| w.meters = w.meters.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ProfileRegistry;
    use crate::radio::error::ErrorCode;

    #[test]
    fn meters_start_is_checked() {
        let reg = ProfileRegistry::embedded();
        let p = reg.get("ic7610").unwrap();
        let m = |v: Value| v.as_object().unwrap().clone();
        let ask = parse_start(
            &m(json!({"meters": ["swr", "smeter", "temp"], "fps": 50})),
            &p,
        )
        .unwrap();
        assert_eq!(
            ask.kinds,
            vec![MeterKind::Smeter, MeterKind::Swr],
            "id order, profile's only"
        );
        assert_eq!(ask.fps, 20, "clamped");
        let all = parse_start(&m(json!({"type": "meters_start"})), &p).unwrap();
        assert_eq!(all.fps, 10);
        assert_eq!(all.kinds.len(), p.meters.list.len());
        for bad in [
            json!({"meters": ["smeter", "volts"]}),
            json!({"meters": "smeter"}),
            json!({"meters": [1]}),
            json!({"fps": 0}),
            json!({"fps": -3}),
            json!({"fps": 2.5}),
            json!({"fps": "10"}),
        ] {
            let e = parse_start(&m(bad.clone()), &p).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidParam, "{bad}");
        }
    }
}
