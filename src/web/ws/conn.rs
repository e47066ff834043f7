//! What a WebSocket client's channel and the rest of the server see of it: the
//! [`Channel`] trait a route implements, the [`Ctx`] it is called with, the thread-safe
//! [`ClientHandle`] other threads queue messages through, and the limits. The thread
//! that runs a client is `driver.rs`.
//!
//! Outbound traffic has two lanes: *messages* (responses, events, state updates), in a
//! bounded queue that is never dropped from (a client that lets it overflow is closed
//! with 1008 so it can reconnect to a fresh snapshot), and *stream frames*, which the
//! channel pulls from its latest-wins queues only while the socket is not backed up
//! (or which their producer writes itself while the client's thread is idle:
//! `direct.rs`). Keep-alive: a ping every 20 s; no pong for 60 s closes the socket.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use tungstenite::{Bytes, Message, Utf8Bytes};

use super::direct::Direct;
use crate::net::waker::{WakeReceiver, Waker};
use crate::util::log_limit::{DEFAULT_BURST, DEFAULT_INTERVAL, LogLimiter};

/// "Message queue overflowed" (once per client, but a flood of clients), limited.
static QUEUE_OVERFLOWED: LogLimiter = LogLimiter::new(DEFAULT_BURST, DEFAULT_INTERVAL);

/// Limits of every WebSocket.
#[derive(Debug, Clone)]
pub struct WsLimits {
    /// Largest incoming message.
    pub max_message: usize,
    /// Period of server pings.
    pub ping_interval: Duration,
    /// Close when no pong came for this long.
    pub pong_timeout: Duration,
    /// Capacity of the message lane.
    pub queue: usize,
    /// Stack of each client's thread (strict JSON keeps the deepest recursion small).
    pub thread_stack: usize,
    /// Kernel send buffer of each socket: small enough that a slow client backs up
    /// here (where stream frames are replaced by newer ones) instead of in the kernel.
    pub send_buffer: usize,
}

impl Default for WsLimits {
    fn default() -> Self {
        WsLimits {
            max_message: 64 * 1024,
            ping_interval: Duration::from_secs(20),
            pong_timeout: Duration::from_secs(60),
            queue: 4096,
            send_buffer: 64 * 1024,
            thread_stack: 256 * 1024,
        }
    }
}

/// A message for the client.
#[derive(Debug, Clone)]
pub enum Outbound {
    /// A JSON text message.
    Text(String),
    /// Close the socket with this code and reason.
    Close(u16, String),
}

/// The thread-safe side of a client: other threads queue messages here.
///
/// The queue is a growable channel with the capacity enforced by a counter, so that
/// an idle client costs no preallocated slots.
pub struct ClientHandle {
    /// Client id (unique per process).
    pub id: u64,
    tx: Sender<Outbound>,
    pub(super) queued: AtomicUsize,
    capacity: usize,
    waker: Waker,
    pub(super) overflowed: AtomicBool,
}

impl ClientHandle {
    /// Queues a message; a full queue marks the client for closing (1008).
    pub fn send(&self, msg: Outbound) {
        if self.queued.fetch_add(1, Ordering::AcqRel) >= self.capacity {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            if !self.overflowed.swap(true, Ordering::AcqRel) {
                crate::log_limited!(
                    QUEUE_OVERFLOWED,
                    log::Level::Warn,
                    "ws client {}: message queue overflowed; closing it",
                    self.id
                );
            }
        } else if self.tx.send(msg).is_err() {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        self.waker.wake();
    }

    /// Queues a JSON text message.
    pub fn send_text(&self, text: String) {
        self.send(Outbound::Text(text));
    }

    /// Wakes the client's thread (stream frames are waiting).
    pub fn wake(&self) {
        self.waker.wake();
    }

    /// A waker for the client's thread (for stream queues).
    pub fn waker(&self) -> Waker {
        self.waker.clone()
    }
}

/// What the connection loop offers a channel.
pub struct Ctx<'a> {
    /// The client's handle (clone it for replies that arrive later).
    pub handle: &'a Arc<ClientHandle>,
    pub(super) out: &'a mut VecDeque<(Message, Option<Instant>)>,
    pub(super) close: &'a mut Option<(u16, String)>,
    pub(super) send_buffer: &'a mut Option<usize>,
    pub(super) unsent_limit: &'a mut Option<usize>,
    pub(super) direct: Option<&'a Arc<Direct>>,
}

impl Ctx<'_> {
    /// Sends a text message now (ahead of queued ones).
    pub fn text(&mut self, s: String) {
        self.out
            .push_back((Message::Text(Utf8Bytes::from(s)), None));
    }

    /// Sends a binary message now.
    pub fn binary(&mut self, b: Vec<u8>) {
        self.out.push_back((Message::Binary(Bytes::from(b)), None));
    }

    /// Sends a stream frame made of data that arrived at `since`; once it has been
    /// written to the socket the channel is told ([`Channel::written`]).
    pub fn stream_frame(&mut self, b: Vec<u8>, since: Instant) {
        self.out
            .push_back((Message::Binary(Bytes::from(b)), Some(since)));
    }

    /// Closes the socket with `code` and `reason`.
    pub fn close(&mut self, code: u16, reason: &str) {
        *self.close = Some((code, reason.to_string()));
    }

    /// Sizes the socket's kernel send buffer for this channel's stream: about what the
    /// client may fall behind by before the stream's latest-wins queue starts replacing
    /// frames (a stream channel wants little, so that a stalled client gets the newest
    /// frames when it resumes, not seconds of old ones).
    pub fn set_send_buffer(&mut self, bytes: usize) {
        *self.send_buffer = Some(bytes);
    }

    /// Limits what the kernel may hold unsent for this client (about a stream's
    /// high watermark of frames): at or above it the socket counts as backed up
    /// (`TCP_NOTSENT_LOWAT` then wakes the thread when it drained below), so a stalled
    /// client's frames are replaced in its latest-wins queue instead of piling up in
    /// the send buffer (which holds tens of seconds of tiny meter frames).
    pub fn set_unsent_limit(&mut self, bytes: usize) {
        *self.unsent_limit = Some(bytes);
    }

    /// Writing stream frames from the producer's thread ([`Direct`]); none on TLS.
    pub fn direct(&self) -> Option<Arc<Direct>> {
        self.direct.cloned()
    }
}

/// The protocol of one WebSocket route.
pub trait Channel: Send {
    /// The socket is open.
    fn open(&mut self, ctx: &mut Ctx);
    /// A text message arrived.
    fn text(&mut self, text: &str, ctx: &mut Ctx);
    /// A binary message arrived.
    fn binary(&mut self, data: &[u8], ctx: &mut Ctx);
    /// The socket can take more: send due stream frames (at most `budget`).
    fn pull(&mut self, now: Instant, budget: usize, ctx: &mut Ctx);
    /// Timers; returns when the channel next wants to run.
    fn tick(&mut self, now: Instant, ctx: &mut Ctx) -> Option<Instant>;
    /// The socket is gone (release what the client held).
    fn closed(&mut self);
    /// A stream frame of data that arrived at `since` was written to the socket at `now`
    /// ([`Ctx::stream_frame`]).
    fn written(&mut self, _since: Instant, _now: Instant) {}
    /// A tighter keep-alive `(ping interval, pong timeout)` while the channel needs to
    /// notice a vanished client quickly (e.g. while it holds PTT).
    fn keepalive(&self) -> Option<(Duration, Duration)> {
        None
    }
}

/// A client ready to run: its handle for other threads, its queue and its waker.
pub struct ClientParts {
    /// Shared handle.
    pub handle: Arc<ClientHandle>,
    pub(super) rx: Receiver<Outbound>,
    pub(super) wake: WakeReceiver,
}

/// Creates the queue and waker of a new client.
pub fn client_parts(id: u64, limits: &WsLimits) -> io::Result<ClientParts> {
    let (tx, rx) = crossbeam_channel::unbounded();
    let (waker, wake) = crate::net::waker::pair()?;
    Ok(ClientParts {
        handle: Arc::new(ClientHandle {
            id,
            tx,
            queued: AtomicUsize::new(0),
            capacity: limits.queue.max(1),
            waker,
            overflowed: AtomicBool::new(false),
        }),
        rx,
        wake,
    })
}

/// How a connection starts: what to write before the first frame (the `101`) and what
/// was read past the upgrade request (the first frames of an eager client).
#[derive(Debug, Default)]
pub struct Opening {
    /// Bytes to send first.
    pub prelude: Vec<u8>,
    /// Bytes already read from the client.
    pub leftover: Vec<u8>,
}
