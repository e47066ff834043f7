//! One WebSocket client on its own thread: a non-blocking socket driven by `poll(2)`
//! and tungstenite's `WebSocketContext`, woken by its queues, never busy-polling.
//!
//! Outbound traffic has two lanes: *messages* (responses, events, state updates), in a
//! bounded queue that is never dropped from (a client that lets it overflow is closed
//! with 1008 so it can reconnect to a fresh snapshot), and *stream frames*, which the
//! channel pulls from its latest-wins queues only while the socket is not backed up.
//! Keep-alive: a ping every 20 s; no pong for 60 s closes the socket.

use std::io::{self, Write};
use std::os::fd::RawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use tungstenite::error::{CapacityError, Error as WsError};
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::{CloseFrame, Role, WebSocketConfig, WebSocketContext};
use tungstenite::{Bytes, Message, Utf8Bytes};

use crate::net::poll::{Interest, poll};
use crate::net::transport::Transport;
use crate::net::waker::{WakeReceiver, Waker};

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
    queued: AtomicUsize,
    capacity: usize,
    waker: Waker,
    overflowed: AtomicBool,
}

impl ClientHandle {
    /// Queues a message; a full queue marks the client for closing (1008).
    pub fn send(&self, msg: Outbound) {
        if self.queued.fetch_add(1, Ordering::AcqRel) >= self.capacity {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            if !self.overflowed.swap(true, Ordering::AcqRel) {
                log::warn!(
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
    out: &'a mut Vec<Message>,
    close: &'a mut Option<(u16, String)>,
    send_buffer: &'a mut Option<usize>,
    unsent_limit: &'a mut Option<usize>,
}

impl Ctx<'_> {
    /// Sends a text message now (ahead of queued ones).
    pub fn text(&mut self, s: String) {
        self.out.push(Message::Text(Utf8Bytes::from(s)));
    }

    /// Sends a binary message now.
    pub fn binary(&mut self, b: Vec<u8>) {
        self.out.push(Message::Binary(Bytes::from(b)));
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
    rx: Receiver<Outbound>,
    wake: WakeReceiver,
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

fn set_send_buffer(fd: RawFd, bytes: usize) {
    let v = bytes.min(i32::MAX as usize) as libc::c_int;
    // SAFETY: `v` is a valid c_int and its size is passed; the fd is open.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_SNDBUF,
            &v as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        log::debug!("SO_SNDBUF: {}", io::Error::last_os_error());
    }
}

fn set_notsent_lowat(fd: RawFd, bytes: usize) {
    let v = bytes.min(i32::MAX as usize) as libc::c_int;
    // SAFETY: `v` is a valid c_int and its size is passed; the fd is open.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_NOTSENT_LOWAT,
            &v as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        log::debug!("TCP_NOTSENT_LOWAT: {}", io::Error::last_os_error());
    }
}

/// Bytes written to the socket that the kernel has not sent yet.
fn unsent_bytes(fd: RawFd) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: SIOCOUTQNSD writes one c_int through the pointer; the fd is open.
    let rc = unsafe { libc::ioctl(fd, libc::SIOCOUTQNSD, &mut n as *mut libc::c_int) };
    if rc != 0 { 0 } else { n.max(0) as usize }
}

fn io_kind(e: &WsError) -> Option<io::ErrorKind> {
    match e {
        WsError::Io(e) => Some(e.kind()),
        _ => None,
    }
}

/// Writes `bytes` whole to the non-blocking `stream`, waiting for the socket at most
/// until `deadline`.
fn write_all_before(stream: &mut Transport, bytes: &[u8], deadline: Instant) -> io::Result<()> {
    let mut done = 0;
    loop {
        while done < bytes.len() {
            match stream.write(&bytes[done..]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
        let flushed = match stream.flush() {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => false,
            Err(e) => return Err(e),
        };
        if done == bytes.len() && flushed {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(io::ErrorKind::TimedOut.into());
        }
        let interest = Interest {
            fd: stream.fd(),
            read: false,
            write: true,
        };
        poll(&[interest], Some(deadline))?;
    }
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

/// When a client that owes the answer to a ping sent at `ping_sent` is given up: the
/// pong timeout counts from its last pong, but it always gets the time between two pings
/// less the timeout to answer (so a keep-alive that tightens, as while owning PTT, does
/// not close a client at once for a pong that was not due yet).
fn pong_deadline(
    last_pong: Instant,
    ping_sent: Instant,
    ping_interval: Duration,
    pong_timeout: Duration,
) -> Instant {
    (last_pong + pong_timeout).max(ping_sent + pong_timeout.saturating_sub(ping_interval))
}

/// Runs the connection until it ends. `stream` is non-blocking with `TCP_NODELAY`;
/// `keep_alive` (e.g. the connection's place under the caps) is dropped last.
pub fn run<K>(
    stream: Transport,
    opening: Opening,
    keep_alive: K,
    mut channel: Box<dyn Channel>,
    parts: ClientParts,
    limits: WsLimits,
) {
    let ClientParts {
        handle,
        rx,
        mut wake,
    } = parts;
    let mut stream = stream;
    set_send_buffer(stream.fd(), limits.send_buffer);
    if let Err(e) = write_all_before(
        &mut stream,
        &opening.prelude,
        Instant::now() + Duration::from_secs(10),
    ) {
        log::debug!("ws client {}: the upgrade response: {e}", handle.id);
        channel.closed();
        return;
    }
    let cfg = WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0)
        .max_message_size(Some(limits.max_message))
        .max_frame_size(Some(limits.max_message))
        .max_write_buffer_size(8 * 1024 * 1024);
    let mut ws = WebSocketContext::from_partially_read(opening.leftover, Role::Server, Some(cfg));
    let mut out: Vec<Message> = Vec::new();
    let mut close: Option<(u16, String)> = None;
    let mut backed_up = false;
    // when the oldest unanswered ping was sent
    // when the client last answered a ping, and since when a ping waits for its answer
    let mut last_pong = Instant::now();
    let mut awaiting_pong: Option<Instant> = None;
    let mut next_ping = Instant::now() + limits.ping_interval;
    let mut closing_since: Option<Instant> = None;
    let mut send_buffer: Option<usize> = None;
    let mut unsent_limit: Option<usize> = None;
    let mut limit: Option<usize> = None;
    let mut first_pass = true;
    // a read error left tungstenite's reader unusable
    let mut read_broken = false;
    let mut channel_timer;
    {
        let mut ctx = Ctx {
            handle: &handle,
            out: &mut out,
            close: &mut close,
            send_buffer: &mut send_buffer,
            unsent_limit: &mut unsent_limit,
        };
        channel.open(&mut ctx);
        channel_timer = channel.tick(Instant::now(), &mut ctx);
    }
    'conn: loop {
        // 1. write what is queued, unless the socket is backed up
        if !backed_up && closing_since.is_none() {
            for _ in 0..256 {
                let Ok(msg) = rx.try_recv() else { break };
                handle.queued.fetch_sub(1, Ordering::AcqRel);
                match msg {
                    Outbound::Text(t) => out.push(Message::Text(Utf8Bytes::from(t))),
                    Outbound::Close(code, reason) => {
                        close = Some((code, reason));
                        break;
                    }
                }
            }
            if handle.overflowed.load(Ordering::Acquire) && close.is_none() {
                close = Some((
                    1008,
                    "too slow: the message queue overflowed; reconnect and subscribe again".into(),
                ));
            }
            if close.is_none() {
                let mut ctx = Ctx {
                    handle: &handle,
                    out: &mut out,
                    close: &mut close,
                    send_buffer: &mut send_buffer,
                    unsent_limit: &mut unsent_limit,
                };
                channel.pull(Instant::now(), 8, &mut ctx);
            }
        }
        if let Some(bytes) = send_buffer.take() {
            set_send_buffer(stream.fd(), bytes);
        }
        if let Some(bytes) = unsent_limit.take() {
            set_notsent_lowat(stream.fd(), bytes);
            limit = Some(bytes);
        }
        for m in out.drain(..) {
            if let Err(e) = ws.write(&mut stream, m)
                && io_kind(&e) != Some(io::ErrorKind::WouldBlock)
            {
                log::debug!("ws client {}: write failed: {e}", handle.id);
                break 'conn;
            }
        }
        if let Some((code, reason)) = close.take()
            && closing_since.is_none()
        {
            log::debug!("ws client {}: closing ({code} {reason})", handle.id);
            let frame = CloseFrame {
                code: CloseCode::from(code),
                reason: Utf8Bytes::from(reason),
            };
            let _ = ws.close(&mut stream, Some(frame));
            closing_since = Some(Instant::now());
        }
        match ws.flush(&mut stream) {
            // written; a stream client is backed up while the kernel holds its limit
            Ok(()) => backed_up = limit.is_some_and(|l| unsent_bytes(stream.fd()) >= l),
            Err(e) if io_kind(&e) == Some(io::ErrorKind::WouldBlock) => backed_up = true,
            Err(WsError::ConnectionClosed) | Err(WsError::AlreadyClosed) => break,
            Err(e) => {
                log::debug!("ws client {}: flush failed: {e}", handle.id);
                break;
            }
        }
        // 2. wait for the socket, a wake, or a timer
        let now = Instant::now();
        let (ping_interval, pong_timeout) = channel
            .keepalive()
            .unwrap_or((limits.ping_interval, limits.pong_timeout));
        next_ping = next_ping.min(now + ping_interval);
        let mut deadline = next_ping;
        if let Some(t) = awaiting_pong {
            deadline = deadline.min(pong_deadline(last_pong, t, ping_interval, pong_timeout));
        }
        if let Some(t) = channel_timer {
            deadline = deadline.min(t);
        }
        if let Some(t) = closing_since {
            deadline = deadline.min(t + Duration::from_secs(2));
        }
        let interests = [
            Interest {
                fd: stream.fd(),
                read: true,
                write: backed_up,
            },
            Interest::read(wake.fd()),
        ];
        let wait_until = if first_pass { now } else { deadline.max(now) };
        let ready = match poll(&interests, Some(wait_until)) {
            Ok(r) => r,
            Err(e) => {
                log::warn!("ws client {}: poll failed: {e}", handle.id);
                break;
            }
        };
        if ready[1].readable {
            wake.clear();
        }
        // 3. read everything available (on the first pass also what TLS may hold already)
        let read_now = ready[0].readable || ready[0].error || std::mem::take(&mut first_pass);
        if read_now && read_broken {
            // tungstenite cannot go on after a frame it refused: drain the socket (the
            // close frame is out) until the client goes or the close timer ends it
            let mut scratch = [0u8; 4096];
            loop {
                match io::Read::read(&mut stream, &mut scratch) {
                    Ok(0) => break 'conn,
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(_) => break 'conn,
                }
            }
        } else if read_now {
            loop {
                match ws.read(&mut stream) {
                    Ok(msg) => {
                        let mut ctx = Ctx {
                            handle: &handle,
                            out: &mut out,
                            close: &mut close,
                            send_buffer: &mut send_buffer,
                            unsent_limit: &mut unsent_limit,
                        };
                        match msg {
                            Message::Text(t) => {
                                if closing_since.is_none() {
                                    channel.text(t.as_str(), &mut ctx);
                                }
                            }
                            Message::Binary(b) => {
                                if closing_since.is_none() {
                                    channel.binary(&b, &mut ctx);
                                }
                            }
                            Message::Pong(_) | Message::Ping(_) => {
                                awaiting_pong = None;
                                last_pong = Instant::now();
                            }
                            Message::Close(_) => {}
                            Message::Frame(_) => {}
                        }
                    }
                    Err(e) if io_kind(&e) == Some(io::ErrorKind::WouldBlock) => break,
                    Err(WsError::ConnectionClosed) | Err(WsError::AlreadyClosed) => break 'conn,
                    Err(WsError::Capacity(c)) => {
                        let reason = match c {
                            CapacityError::MessageTooLong { size, max_size } => {
                                format!(
                                    "message of {size} bytes is larger than the {max_size}-byte limit"
                                )
                            }
                            other => other.to_string(),
                        };
                        close = Some((1009, reason));
                        read_broken = true;
                        break;
                    }
                    Err(WsError::Utf8(_)) => {
                        close = Some((1007, "text message is not valid UTF-8".into()));
                        read_broken = true;
                        break;
                    }
                    Err(WsError::Protocol(p)) => {
                        log::debug!("ws client {}: protocol error: {p}", handle.id);
                        close = Some((1002, format!("protocol error: {p}")));
                        read_broken = true;
                        break;
                    }
                    Err(e) => {
                        log::debug!("ws client {}: read failed: {e}", handle.id);
                        break 'conn;
                    }
                }
            }
        }
        // 4. timers
        let now = Instant::now();
        if let Some(t) = closing_since
            && now >= t + Duration::from_secs(2)
        {
            break;
        }
        let (ping_interval, pong_timeout) = channel
            .keepalive()
            .unwrap_or((limits.ping_interval, limits.pong_timeout));
        if awaiting_pong
            .is_some_and(|t| now >= pong_deadline(last_pong, t, ping_interval, pong_timeout))
            && closing_since.is_none()
        {
            close = Some((1001, "pong timeout".into()));
            awaiting_pong = None;
        } else if now >= next_ping {
            out.push(Message::Ping(Bytes::from_static(b"ka")));
            awaiting_pong.get_or_insert(now);
            next_ping = now + ping_interval;
        }
        let mut ctx = Ctx {
            handle: &handle,
            out: &mut out,
            close: &mut close,
            send_buffer: &mut send_buffer,
            unsent_limit: &mut unsent_limit,
        };
        channel_timer = channel.tick(now, &mut ctx);
    }
    channel.closed();
    drop(stream);
    drop(keep_alive);
    log::debug!("ws client {}: gone", handle.id);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pong_timeout_counts_from_the_last_pong() {
        // review: it counted from the first unanswered ping, so a silent client was
        // closed about 80 s (20 s ping + 60 s) after its last pong instead of 60 s
        let t0 = Instant::now();
        let (ping, timeout) = (Duration::from_secs(20), Duration::from_secs(60));
        let d = pong_deadline(t0, t0 + ping, ping, timeout);
        assert_eq!(d, t0 + timeout);
        // a keep-alive tightened to 1 s / 3 s while the last pong is 15 s old: the client
        // still gets 2 s to answer the first fast ping
        let (ping, timeout) = (Duration::from_secs(1), Duration::from_secs(3));
        let sent = t0 + Duration::from_secs(15);
        assert_eq!(
            pong_deadline(t0, sent, ping, timeout),
            sent + Duration::from_secs(2)
        );
    }
}
