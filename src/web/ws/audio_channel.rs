//! `/api/v1/audio`: `audio_start` / `audio_stop` per direction.
//!
//! * RX: 48 kHz frames of 20 ms, Opus or PCM16, mono or stereo, from the stream shared by
//!   every listener of that format (one encoder per stream); `sequence` counts this
//!   client's frames, gaps are frames its queue dropped.
//! * TX: frames `0x11` (Opus, or PCM16 mono at 8/16/24/48 kHz) from the client whose
//!   `session` (its control socket's `hello.session`) owns a confirmed PTT are decoded,
//!   resampled to the radio's rate and sent in the radio's codec; anybody else's frames
//!   are dropped with one `ptt_required` error. They stop reaching the radio the moment
//!   an unkey is asked for or PTT drops, whatever the cause. What reaches the radio is
//!   capped at real time plus [`super::tx_gate::BURST`] per owner, across all the audio
//!   sockets started with its session.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::conn::{Channel, Ctx};
use super::direct::deliver;
use super::messages;
use super::registry::WsRoute;
use super::tx_gate::{TxGate, TxVerdict};
use crate::dsp::WEB_RATE;
use crate::dsp::opus_codec::OpusDecoder;
use crate::dsp::resample::Resampler;
use crate::hub::{Subscription, Tap};
use crate::radio::audio_dsp::AudioOut;
use crate::radio::audio_pump::PcmBlock;
use crate::radio::error::{CommandError, ErrorCode};
use crate::web::context::AppCtx;
use crate::wire::lan::audio_codec::FRAME_MS;
use crate::wire::web::{AUDIO_TX_FRAME, AudioCodec, AudioFrame};

/// Frames queued per RX client before the newest replaces them.
pub const HIGH_WATERMARK: usize = 5;
/// Audio a socket's kernel send buffer holds, about.
pub const SEND_BUFFER_AUDIO: Duration = Duration::from_millis(200);

/// Kernel send buffer for an RX stream: [`SEND_BUFFER_AUDIO`] of it, at least 4 KiB.
pub fn rx_send_buffer(codec: AudioCodec, channels: u8) -> usize {
    (bytes_per_second(codec, channels) * SEND_BUFFER_AUDIO.as_millis() as usize / 1_000)
        .max(4 * 1024)
}

fn bytes_per_second(codec: AudioCodec, channels: u8) -> usize {
    match codec {
        AudioCodec::Opus => {
            crate::dsp::opus_codec::BITRATE_PER_CHANNEL as usize / 8 * usize::from(channels)
        }
        AudioCodec::Pcm16 => WEB_RATE as usize * 2 * usize::from(channels),
    }
}

/// Unsent bytes the kernel may hold for an RX stream: [`HIGH_WATERMARK`] frames of it
/// (100 ms), at least 512 bytes.
pub fn rx_unsent_limit(codec: AudioCodec, channels: u8) -> usize {
    let per_frame = bytes_per_second(codec, channels) * FRAME_MS as usize / 1_000;
    (per_frame * HIGH_WATERMARK).max(512)
}

/// Sample rates a client may send PCM16 TX audio at.
pub const TX_PCM_RATES: [u32; 4] = [8_000, 16_000, 24_000, 48_000];

/// Direction of an `audio_start` / `audio_stop`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Radio to client.
    Rx,
    /// Client to radio.
    Tx,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::Rx => "rx",
            Direction::Tx => "tx",
        }
    }
}

/// A validated `audio_start`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AudioAsk {
    /// Direction.
    pub direction: Direction,
    /// Codec.
    pub codec: AudioCodec,
    /// Sample rate, Hz.
    pub sample_rate: u32,
    /// Channels.
    pub channels: u8,
    /// `hello.session` (TX).
    pub session: Option<String>,
}

fn direction(msg: &Map<String, Value>) -> Result<Direction, CommandError> {
    match msg.get("direction").and_then(Value::as_str) {
        Some("rx") => Ok(Direction::Rx),
        Some("tx") => Ok(Direction::Tx),
        _ => Err(CommandError::param(
            "direction",
            "required: \"rx\" or \"tx\"",
        )),
    }
}

/// Validates an `audio_start`; `rx_channels` is what the radio sends.
pub fn parse_start(msg: &Map<String, Value>, rx_channels: u8) -> Result<AudioAsk, CommandError> {
    messages::check_fields(
        msg,
        "audio_start",
        &["direction", "codec", "sample_rate", "channels", "session"],
    )?;
    let direction = direction(msg)?;
    let codec = match msg.get("codec") {
        None | Some(Value::Null) => AudioCodec::Opus,
        Some(v) => v.as_str().and_then(AudioCodec::from_name).ok_or_else(|| {
            CommandError::param("codec", format!("{v} is not allowed; allowed: opus, pcm16"))
        })?,
    };
    let channels = match msg.get("channels") {
        None | Some(Value::Null) => match direction {
            Direction::Rx => rx_channels,
            Direction::Tx => 1,
        },
        Some(v) => match (direction, v.as_u64()) {
            (Direction::Rx, Some(c @ (1 | 2))) => c as u8,
            (Direction::Tx, Some(1)) => 1,
            (Direction::Rx, _) => {
                return Err(CommandError::param(
                    "channels",
                    format!("{v}: allowed 1 or 2"),
                ));
            }
            (Direction::Tx, _) => {
                return Err(CommandError::param(
                    "channels",
                    format!("{v}: TX audio is mono (1)"),
                ));
            }
        },
    };
    let sample_rate = match msg.get("sample_rate") {
        None | Some(Value::Null) => WEB_RATE,
        Some(v) => {
            let r = v.as_u64().unwrap_or(0);
            let ok = match (direction, codec) {
                (Direction::Tx, AudioCodec::Pcm16) => TX_PCM_RATES.contains(&(r as u32)),
                _ => r == u64::from(WEB_RATE),
            };
            if !ok {
                let allowed = if (direction, codec) == (Direction::Tx, AudioCodec::Pcm16) {
                    "8000, 16000, 24000 or 48000"
                } else {
                    "48000"
                };
                return Err(CommandError::param(
                    "sample_rate",
                    format!("{v} is not allowed; allowed {allowed}"),
                ));
            }
            r as u32
        }
    };
    let session = match (direction, msg.get("session")) {
        (Direction::Rx, _) => None,
        (Direction::Tx, Some(Value::String(s))) => Some(s.clone()),
        (Direction::Tx, _) => {
            return Err(CommandError::param(
                "session",
                "required for TX: the hello.session of your control socket (/api/v1/ws)",
            ));
        }
    };
    Ok(AudioAsk {
        direction,
        codec,
        sample_rate,
        channels,
        session,
    })
}

/// Checks a TX frame's header against what `audio_start` started (`0x11`, the codec,
/// the sample rate, mono, 20 ms) and, for PCM16, that the payload is 20 ms of it.
pub fn check_tx_header(
    f: &AudioFrame,
    codec: AudioCodec,
    sample_rate: u32,
) -> Result<(), CommandError> {
    if f.msg_type != AUDIO_TX_FRAME
        || f.codec != codec.byte()
        || f.channels != 1
        || f.sample_rate != sample_rate
        || u32::from(f.frame_ms) != FRAME_MS
    {
        return Err(CommandError::param(
            "frame",
            format!(
                "expected msg_type 0x11, codec {:#04x}, sample_rate {sample_rate}, channels 1, \
                 frame_ms {FRAME_MS} (as started); got msg_type {:#04x}, codec {:#04x}, \
                 sample_rate {}, channels {}, frame_ms {}",
                codec.byte(),
                f.msg_type,
                f.codec,
                f.sample_rate,
                f.channels,
                f.frame_ms
            ),
        ));
    }
    let want = (sample_rate * FRAME_MS / 1_000) as usize * 2;
    if codec == AudioCodec::Pcm16 && f.payload.len() != want {
        return Err(CommandError::param(
            "frame",
            format!(
                "a PCM16 payload of {} bytes is not {FRAME_MS} ms at {sample_rate} Hz ({want} bytes)",
                f.payload.len()
            ),
        ));
    }
    Ok(())
}

struct RxState {
    _sub: Subscription<AudioOut>,
    tap: Arc<Tap<AudioOut>>,
}

struct TxState {
    codec: AudioCodec,
    sample_rate: u32,
    /// The control client whose PTT the frames need.
    control: u64,
    decoder: Option<OpusDecoder>,
    resampler: Option<Resampler>,
    gate: TxGate,
    samples: Vec<i16>,
    resampled: Vec<i16>,
    _hold: Subscription<PcmBlock>,
}

/// The channel of one client.
pub struct AudioChannel {
    app: Arc<AppCtx>,
    rx: Option<RxState>,
    tx: Option<TxState>,
}

impl AudioChannel {
    /// A channel.
    pub fn new(app: Arc<AppCtx>) -> AudioChannel {
        AudioChannel {
            app,
            rx: None,
            tx: None,
        }
    }

    fn fail(&self, id: Option<&Value>, e: &CommandError, ctx: &mut Ctx) {
        ctx.text(messages::error(e, id));
    }

    fn start(&mut self, ask: AudioAsk, id: Option<&Value>, ctx: &mut Ctx) {
        match ask.direction {
            Direction::Rx => {
                self.rx = None;
                let Some(fanout) = self.app.radio.rx_audio(ask.codec, ask.channels) else {
                    let e = CommandError::param("channels", "allowed 1 or 2");
                    return self.fail(id, &e, ctx);
                };
                let tap = Arc::new(
                    Tap::new(
                        HIGH_WATERMARK,
                        self.app.cfg.first_sequence,
                        Some(ctx.handle.waker()),
                        Box::new(|_| true),
                    )
                    .counting_drops(self.app.stream_stats.audio_dropped.clone()),
                );
                if let Some(d) = ctx.direct() {
                    let stats = self.app.stream_stats.clone();
                    tap.set_direct(Box::new(move |seq, f: &Arc<AudioOut>| {
                        deliver(&d, &[&f.header(seq), &f.payload], f.at, &stats.audio)
                    }));
                }
                let sub = fanout.subscribe_with(tap.clone());
                self.rx = Some(RxState { _sub: sub, tap });
                ctx.set_send_buffer(rx_send_buffer(ask.codec, ask.channels));
                ctx.set_unsent_limit(rx_unsent_limit(ask.codec, ask.channels));
            }
            Direction::Tx => {
                let session = ask.session.as_deref().unwrap_or_default();
                let Some(control) = self.app.sessions.client_of(session) else {
                    let e = CommandError::new(
                        ErrorCode::Forbidden,
                        "session: not the hello.session of a connected control client",
                    );
                    return self.fail(id, &e, ctx);
                };
                let decoder = match ask.codec {
                    AudioCodec::Opus => match OpusDecoder::new() {
                        Ok(d) => Some(d),
                        Err(e) => {
                            let e = CommandError::new(
                                ErrorCode::RadioUnavailable,
                                format!("no Opus decoder: {e}"),
                            );
                            return self.fail(id, &e, ctx);
                        }
                    },
                    AudioCodec::Pcm16 => None,
                };
                let from = ask.sample_rate;
                let to = self.app.radio.tx_sample_rate();
                self.tx = Some(TxState {
                    codec: ask.codec,
                    sample_rate: ask.sample_rate,
                    control,
                    decoder,
                    resampler: Resampler::new(from, to, 1),
                    // the owner's real-time budget, shared by all its audio sockets
                    gate: TxGate::new(self.app.tx_credits.for_owner(control)),
                    samples: Vec::new(),
                    resampled: Vec::new(),
                    _hold: self.app.radio.hold_audio(),
                });
                if self.app.ptt.tx_allowed(control) && self.app.radio.tx_audio_open() {
                    // the owner of a confirmed PTT starts TX audio: the MOD input goes to
                    // LAN now, before its first frame (else that frame's round trip of
                    // audio would be muted)
                    crate::web::ptt_watch::mod_input_tx_started(&self.app);
                }
            }
        }
        let reply = json!({
            "type": "audio_started",
            "direction": ask.direction.name(),
            "codec": ask.codec.name(),
            "sample_rate": ask.sample_rate,
            "channels": ask.channels,
            "frame_ms": FRAME_MS,
        });
        ctx.text(messages::reply(reply, id));
    }

    /// One TX frame from the client.
    fn tx_frame(&mut self, data: &[u8], ctx: &mut Ctx) -> Result<(), CommandError> {
        let Some(tx) = self.tx.as_mut() else {
            return Err(CommandError::param(
                "audio_start",
                "send {\"type\":\"audio_start\",\"direction\":\"tx\",...} before TX frames",
            ));
        };
        let f = AudioFrame::parse(data)
            .map_err(|e| CommandError::param("frame", format!("not an audio frame: {e}")))?;
        check_tx_header(&f, tx.codec, tx.sample_rate)?;
        tx.samples.clear();
        match tx.decoder.as_mut() {
            Some(d) => tx.samples.extend_from_slice(
                d.decode(&f.payload)
                    .map_err(|e| CommandError::param("frame", format!("bad Opus packet: {e}")))?,
            ),
            None => {
                tx.samples.extend(
                    f.payload
                        .chunks_exact(2)
                        .map(|c| i16::from_le_bytes([c[0], c[1]])),
                );
            }
        }
        let rate = if tx.decoder.is_some() {
            WEB_RATE
        } else {
            tx.sample_rate
        };
        let duration = Duration::from_micros(tx.samples.len() as u64 * 1_000_000 / u64::from(rate));
        // the owner's PTT with no unkey asked for, here (web) and at the radio (a
        // release of the engine: the transmit timeout, PTT in doubt)
        let allowed = self.app.ptt.tx_allowed(tx.control) && self.app.radio.tx_audio_open();
        match tx.gate.offer(allowed, duration, Instant::now()) {
            TxVerdict::Refuse { tell } => {
                if tell {
                    let e = CommandError::new(
                        ErrorCode::PttRequired,
                        "TX audio reaches the radio only while your control client owns a confirmed PTT; frames dropped",
                    );
                    ctx.text(messages::error(&e, None));
                }
                return Ok(());
            }
            TxVerdict::TooFast => return Ok(()),
            TxVerdict::Send { starts } => {
                if starts {
                    self.app.radio.start_tx_audio();
                    crate::web::ptt_watch::mod_input_tx_started(&self.app);
                }
            }
        }
        tx.resampled.clear();
        match tx.resampler.as_mut() {
            Some(r) => r.process(&tx.samples, &mut tx.resampled),
            None => tx.resampled.extend_from_slice(&tx.samples),
        }
        if let Err(e) = self.app.radio.send_tx_audio(&tx.resampled) {
            log::debug!("TX audio not sent: {e}");
        }
        Ok(())
    }

    fn closed_count(&self) {
        self.app
            .radio
            .store()
            .modify_clients(|w| w.audio = w.audio.saturating_sub(1));
    }
}

impl Channel for AudioChannel {
    fn open(&mut self, _ctx: &mut Ctx) {
        self.app.radio.store().modify_clients(|w| w.audio += 1);
    }

    fn text(&mut self, text: &str, ctx: &mut Ctx) {
        let msg = match messages::parse_message(text) {
            Ok(m) => m,
            Err(e) => return self.fail(None, &e, ctx),
        };
        let id = messages::echoed_id(&msg);
        match msg.get("type").and_then(Value::as_str) {
            Some("audio_start") => match parse_start(&msg, self.app.radio.rx_channels()) {
                Ok(ask) => self.start(ask, id, ctx),
                Err(e) => self.fail(id, &e, ctx),
            },
            Some("audio_stop") => match messages::check_fields(&msg, "audio_stop", &["direction"])
                .and_then(|()| direction(&msg))
            {
                Ok(d) => {
                    match d {
                        Direction::Rx => self.rx = None,
                        Direction::Tx => self.tx = None,
                    }
                    let reply = json!({"type": "audio_stopped", "direction": d.name()});
                    ctx.text(messages::reply(reply, id));
                }
                Err(e) => self.fail(id, &e, ctx),
            },
            other => {
                let e =
                    messages::unknown_type(WsRoute::Audio, other, &["audio_start", "audio_stop"]);
                self.fail(id, &e, ctx);
            }
        }
    }

    fn binary(&mut self, data: &[u8], ctx: &mut Ctx) {
        if let Err(e) = self.tx_frame(data, ctx) {
            self.fail(None, &e, ctx);
        }
    }

    fn pull(&mut self, _now: Instant, budget: usize, ctx: &mut Ctx) {
        let Some(rx) = &self.rx else { return };
        for _ in 0..budget {
            let Some((seq, f)) = rx.tap.pop() else { break };
            ctx.stream_frame(f.frame_bytes(seq), f.at);
        }
    }

    fn written(&mut self, since: Instant, now: Instant) {
        self.app
            .stream_stats
            .audio
            .record(now.saturating_duration_since(since));
    }

    fn tick(&mut self, _now: Instant, _ctx: &mut Ctx) -> Option<Instant> {
        None
    }

    fn closed(&mut self) {
        self.rx = None;
        self.tx = None;
        self.closed_count();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn tx_headers_must_match_the_start_and_pcm16_be_20_ms() {
        // review: frame_ms and the PCM16 payload's duration were not checked
        let frame = |bytes: &[u8]| AudioFrame::parse(bytes).unwrap();
        // 0x11, PCM16, seq 7, 16000 / 100 = 160, mono, 20 ms; 320 samples
        let mut good = vec![0x11, 0x02, 0x07, 0x00, 0xA0, 0x00, 0x01, 0x14];
        good.extend(vec![0u8; 640]);
        assert!(check_tx_header(&frame(&good), AudioCodec::Pcm16, 16_000).is_ok());
        let mut ms10 = good.clone();
        ms10[7] = 10;
        let mut short = good.clone();
        short.truncate(8 + 320);
        let mut odd = good.clone();
        odd.push(0);
        let mut rate = good.clone();
        rate[4] = 0xE0;
        rate[5] = 0x01;
        let mut rx = good.clone();
        rx[0] = 0x10;
        for (name, bad) in [
            ("frame_ms 10", &ms10),
            ("10 ms of payload", &short),
            ("odd length", &odd),
            ("48 kHz", &rate),
            ("msg_type 0x10", &rx),
        ] {
            let e = check_tx_header(&frame(bad), AudioCodec::Pcm16, 16_000).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidParam, "{name}");
        }
        // Opus: one packet of any length, the header as started
        let opus = [
            0x11, 0x01, 0x00, 0x00, 0xE0, 0x01, 0x01, 0x14, 0xF8, 0xFF, 0xFE,
        ];
        assert!(check_tx_header(&frame(&opus), AudioCodec::Opus, 48_000).is_ok());
        let mut opus40 = opus;
        opus40[7] = 40;
        assert!(check_tx_header(&frame(&opus40), AudioCodec::Opus, 48_000).is_err());
    }

    #[test]
    fn audio_start_is_checked() {
        let rx = parse_start(&m(json!({"direction": "rx"})), 2).unwrap();
        assert_eq!(
            (rx.codec, rx.channels, rx.sample_rate),
            (AudioCodec::Opus, 2, 48_000)
        );
        let tx = parse_start(
            &m(json!({"direction": "tx", "codec": "pcm16", "sample_rate": 16000, "session": "ab"})),
            2,
        )
        .unwrap();
        assert_eq!(
            (tx.codec, tx.channels, tx.sample_rate, tx.session.as_deref()),
            (AudioCodec::Pcm16, 1, 16_000, Some("ab"))
        );
        for bad in [
            json!({}),
            json!({"direction": "up"}),
            json!({"direction": "rx", "codec": "mp3"}),
            json!({"direction": "rx", "channels": 3}),
            json!({"direction": "rx", "sample_rate": 16000}),
            json!({"direction": "tx", "session": "ab", "channels": 2}),
            json!({"direction": "tx", "session": "ab", "sample_rate": 16000}),
            json!({"direction": "tx", "codec": "pcm16", "session": "ab", "sample_rate": 11025}),
            json!({"direction": "tx"}),
            json!({"direction": "tx", "session": 5}),
        ] {
            let e = parse_start(&m(bad.clone()), 1).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidParam, "{bad}");
        }
    }
}
