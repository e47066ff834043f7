//! One WebSocket client on its own thread: a non-blocking socket driven by `poll(2)`
//! and tungstenite's `WebSocketContext`, woken by its queues, never busy-polling. Each
//! pass writes the queued messages and the stream frames the channel pulls (unless the
//! socket is backed up), waits for the socket, a wake or a timer, reads what arrived and
//! runs the timers (keep-alive, the channel's own). On a plain socket the thread holds
//! the [`Direct`] lock while awake and opens it to the stream producers while it sleeps
//! with nothing of its own to write.

use std::io::{self, Write};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tungstenite::error::{CapacityError, Error as WsError};
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::{CloseFrame, Role, WebSocketConfig, WebSocketContext};
use tungstenite::{Bytes, Message, Utf8Bytes};

use super::conn::{Channel, ClientParts, Ctx, Outbound, WsLimits};
use super::direct::Direct;
use super::sockopt::{UnsentWatch, set_notsent_lowat, set_send_buffer};
use crate::net::poll::{Interest, poll};
use crate::net::transport::Transport;

/// Writes what it can of `bytes` to the non-blocking `stream`, removing what was
/// written.
fn write_some(stream: &mut Transport, bytes: &mut Vec<u8>) -> io::Result<()> {
    while !bytes.is_empty() {
        match stream.write(bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                bytes.drain(..n);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    Ok(())
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
    let mut out: Vec<(Message, Option<Instant>)> = Vec::new();
    // stream frames written but not flushed yet: when their data arrived
    let mut unflushed: Vec<Instant> = Vec::new();
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
    let mut unsent: Option<UnsentWatch> = None;
    let mut first_pass = true;
    // a read error left tungstenite's reader unusable
    let mut read_broken = false;
    let mut channel_timer;
    // stream producers may write to a plain socket while this thread sleeps; it holds
    // the lock while awake
    let direct = (!stream.is_tls()).then(|| Direct::new(stream.fd(), handle.waker()));
    let mut held = direct.as_deref().map(Direct::lock);
    {
        let mut ctx = Ctx {
            handle: &handle,
            out: &mut out,
            close: &mut close,
            send_buffer: &mut send_buffer,
            unsent_limit: &mut unsent_limit,
            direct: direct.as_ref(),
        };
        channel.open(&mut ctx);
        channel_timer = channel.tick(Instant::now(), &mut ctx);
    }
    'conn: loop {
        // 0. the rest of a frame a producer wrote in part goes first
        if let Some(g) = held.as_mut()
            && !g.pending.is_empty()
        {
            match write_some(&mut stream, &mut g.pending) {
                Ok(()) => backed_up |= !g.pending.is_empty(),
                Err(e) => {
                    log::debug!("ws client {}: write failed: {e}", handle.id);
                    break 'conn;
                }
            }
        }
        let partial = held.as_ref().is_some_and(|g| !g.pending.is_empty());
        // 1. write what is queued, unless the socket is backed up
        if !backed_up && !partial && closing_since.is_none() {
            for _ in 0..256 {
                let Ok(msg) = rx.try_recv() else { break };
                handle.queued.fetch_sub(1, Ordering::AcqRel);
                match msg {
                    Outbound::Text(t) => out.push((Message::Text(Utf8Bytes::from(t)), None)),
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
                    direct: direct.as_ref(),
                };
                channel.pull(Instant::now(), 8, &mut ctx);
            }
        }
        if let Some(bytes) = send_buffer.take() {
            set_send_buffer(stream.fd(), bytes);
        }
        if let Some(bytes) = unsent_limit.take() {
            set_notsent_lowat(stream.fd(), bytes);
            unsent = Some(UnsentWatch::new(bytes));
            if let Some(g) = held.as_mut() {
                g.unsent = Some(UnsentWatch::new(bytes));
            }
        }
        if partial {
            // nothing may go between the parts of that frame
        } else {
            for (m, since) in out.drain(..) {
                if let Err(e) = ws.write(&mut stream, m)
                    && io_kind(&e) != Some(io::ErrorKind::WouldBlock)
                {
                    log::debug!("ws client {}: write failed: {e}", handle.id);
                    break 'conn;
                }
                unflushed.extend(since);
            }
        }
        if let Some((code, reason)) = close.take_if(|_| !partial)
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
        match ws.flush(&mut stream).and_then(|()| match partial {
            true => Err(WsError::Io(io::ErrorKind::WouldBlock.into())),
            false => Ok(()),
        }) {
            // written; a stream client is backed up while the kernel holds its limit
            Ok(()) => {
                let now = Instant::now();
                backed_up = unsent
                    .as_mut()
                    .is_some_and(|u| u.backed_up(stream.fd(), now));
                for since in unflushed.drain(..) {
                    channel.written(since, now);
                }
            }
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
        // while a producer's frame is half written nothing else may be written, and
        // reading may write (tungstenite answers pings): no reading until it is out
        let partial = held.as_ref().is_some_and(|g| !g.pending.is_empty());
        let interests = [
            Interest {
                fd: stream.fd(),
                read: !partial,
                write: backed_up,
            },
            Interest::read(wake.fd()),
        ];
        let wait_until = if first_pass { now } else { deadline.max(now) };
        if let Some(mut g) = held.take() {
            // producers may write while this thread sleeps if nothing of its own waits
            g.open = !backed_up
                && g.pending.is_empty()
                && out.is_empty()
                && close.is_none()
                && closing_since.is_none()
                && !read_broken;
        }
        let ready = poll(&interests, Some(wait_until));
        held = direct.as_deref().map(Direct::lock);
        let ready = match ready {
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
        // (a producer may have left a frame half written while this thread slept)
        let partial = held.as_ref().is_some_and(|g| !g.pending.is_empty());
        let read_now =
            (ready[0].readable || ready[0].error || std::mem::take(&mut first_pass)) && !partial;
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
                            direct: direct.as_ref(),
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
            out.push((Message::Ping(Bytes::from_static(b"ka")), None));
            awaiting_pong.get_or_insert(now);
            next_ping = now + ping_interval;
        }
        let mut ctx = Ctx {
            handle: &handle,
            out: &mut out,
            close: &mut close,
            send_buffer: &mut send_buffer,
            unsent_limit: &mut unsent_limit,
            direct: direct.as_ref(),
        };
        channel_timer = channel.tick(now, &mut ctx);
    }
    if let Some(d) = &direct {
        let mut g = held.take().unwrap_or_else(|| d.lock());
        g.open = false;
        g.fd = -1;
    }
    drop(held);
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
