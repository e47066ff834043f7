//! The loop of one WebSocket client's thread ([`run`]): a non-blocking socket driven by
//! `poll(2)` and tungstenite's `WebSocketContext`, woken by the client's queues, never
//! busy-polling (the lanes and the channel interface are in [`super::conn`]). Each pass
//! writes the queued messages and the stream frames the channel pulls (unless the socket
//! is backed up), waits for the socket, a wake or a timer, reads what arrived and runs
//! the timers (keep-alive, the channel's own). On a plain socket the thread holds the
//! [`Direct`] lock while awake and opens it to the stream producers while it sleeps with
//! nothing of its own to write.
//!
//! What one client can cost is bounded. tungstenite's write buffer holds at most
//! [`WRITE_BUFFER`]; messages that do not fit wait in the loop's queue, and while that
//! queue holds [`READ_STOP`] bytes or more, nothing more is read from the client (its
//! replies would only pile up: TCP makes it wait instead). Each pass reads at most
//! [`READS_PER_PASS`] messages, so that a client sending without pause cannot keep the
//! thread from writing, pinging and pulling its streams. Nothing is ever dropped from
//! the message lane: a client that lets it overflow is closed with 1008, and a close
//! frame waits until what was queued before it is out (at most [`CLOSE_WAIT`]). A client
//! that misses the pong timeout is cut at once (no close handshake, no waiting).

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tungstenite::error::{CapacityError, Error as WsError};
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::{CloseFrame, Role, WebSocketConfig, WebSocketContext};
use tungstenite::{Bytes, Message, Utf8Bytes};

use super::conn::{Channel, ClientHandle, ClientParts, Ctx, Opening, Outbound, WsLimits};
use super::direct::Direct;
use super::sockopt::{UnsentWatch, set_notsent_lowat, set_send_buffer};
use crate::net::poll::{Interest, poll};
use crate::net::transport::Transport;

/// Most bytes of frames tungstenite holds for the socket.
pub const WRITE_BUFFER: usize = 256 * 1024;
/// Bytes of messages waiting for room in the write buffer from which on the client is
/// not read.
pub const READ_STOP: usize = 64 * 1024;
/// Most messages read from the client per pass of the loop.
pub const READS_PER_PASS: usize = 64;
/// Longest wait of a close frame for room (a client that reads nothing is then cut).
pub const CLOSE_WAIT: Duration = Duration::from_secs(10);
/// How long a closed socket waits for the client's close frame.
const CLOSE_LINGER: Duration = Duration::from_secs(2);
/// Largest frame header (payload length on 8 bytes; the server does not mask).
const FRAME_HEADER: usize = 10;

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

/// What the loop keeps for the channel between passes: messages waiting to be written
/// (stream frames with when their data arrived), a close asked for, socket settings.
struct Pass {
    out: VecDeque<(Message, Option<Instant>)>,
    close: Option<(u16, String)>,
    send_buffer: Option<usize>,
    unsent_limit: Option<usize>,
}

impl Pass {
    fn ctx<'a>(
        &'a mut self,
        handle: &'a Arc<ClientHandle>,
        direct: Option<&'a Arc<Direct>>,
    ) -> Ctx<'a> {
        Ctx {
            handle,
            out: &mut self.out,
            close: &mut self.close,
            send_buffer: &mut self.send_buffer,
            unsent_limit: &mut self.unsent_limit,
            direct,
        }
    }

    /// Bytes of the messages waiting.
    fn queued_bytes(&self) -> usize {
        self.out.iter().map(|(m, _)| m.len()).sum()
    }
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
        .max_write_buffer_size(WRITE_BUFFER);
    let mut ws = WebSocketContext::from_partially_read(opening.leftover, Role::Server, Some(cfg));
    let mut p = Pass {
        out: VecDeque::new(),
        close: None,
        send_buffer: None,
        unsent_limit: None,
    };
    // stream frames written but not flushed yet: when their data arrived
    let mut unflushed: Vec<Instant> = Vec::new();
    let mut unsent: Option<UnsentWatch> = None;
    let mut backed_up = false;
    // when the client last answered a ping, and since when a ping waits for its answer
    let mut last_pong = Instant::now();
    let mut awaiting_pong: Option<Instant> = None;
    let mut next_ping = Instant::now() + limits.ping_interval;
    // the close frame went out at; a close waits for room since
    let mut closing_since: Option<Instant> = None;
    let mut close_asked: Option<Instant> = None;
    // input may wait where polling the socket does not show it (what TLS or tungstenite
    // hold: on the first pass, after a pass that stopped at its limit, after a pause)
    let mut more_input = true;
    // a read error left tungstenite's reader unusable
    let mut read_broken = false;
    let mut channel_timer;
    // stream producers may write to a plain socket while this thread sleeps; it holds
    // the lock while awake
    let direct = (!stream.is_tls()).then(|| Direct::new(stream.fd(), handle.waker()));
    let mut held = direct.as_deref().map(Direct::lock);
    {
        let mut ctx = p.ctx(&handle, direct.as_ref());
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
        // 1. take queued messages and due stream frames, unless backed up or closing
        let intake = !backed_up && !partial && p.close.is_none() && closing_since.is_none();
        if intake {
            for _ in 0..256 {
                let Ok(msg) = rx.try_recv() else { break };
                handle.queued.fetch_sub(1, Ordering::AcqRel);
                match msg {
                    Outbound::Text(t) => p.out.push_back((Message::Text(Utf8Bytes::from(t)), None)),
                    Outbound::Close(code, reason) => {
                        p.close = Some((code, reason));
                        break;
                    }
                }
            }
            if handle.overflowed.load(Ordering::Acquire) && p.close.is_none() {
                p.close = Some((
                    1008,
                    "too slow: the message queue overflowed; reconnect and subscribe again".into(),
                ));
            }
            if p.close.is_none() {
                channel.pull(Instant::now(), 8, &mut p.ctx(&handle, direct.as_ref()));
            }
        }
        if let Some(bytes) = p.send_buffer.take() {
            set_send_buffer(stream.fd(), bytes);
        }
        if let Some(bytes) = p.unsent_limit.take() {
            set_notsent_lowat(stream.fd(), bytes);
            unsent = Some(UnsentWatch::new(bytes));
            if let Some(g) = held.as_mut() {
                g.unsent = Some(UnsentWatch::new(bytes));
            }
        }
        // 2. write into tungstenite's bounded buffer; what does not fit waits (and
        //    nothing may go between the parts of a producer's frame)
        while !partial && closing_since.is_none() {
            let Some((m, since)) = p.out.pop_front() else {
                break;
            };
            if m.len() + FRAME_HEADER > WRITE_BUFFER {
                log::error!(
                    "ws client {}: a message of {} bytes does not fit the write buffer",
                    handle.id,
                    m.len()
                );
                p.close = Some((1011, "a message was too large to send".into()));
                continue;
            }
            match ws.write(&mut stream, m) {
                Ok(()) => {}
                Err(e) if io_kind(&e) == Some(io::ErrorKind::WouldBlock) => {}
                Err(WsError::WriteBufferFull(m)) => {
                    p.out.push_front((*m, since));
                    break;
                }
                Err(e) => {
                    log::debug!("ws client {}: write failed: {e}", handle.id);
                    break 'conn;
                }
            }
            unflushed.extend(since);
        }
        // (a flush may leave behind a pong tungstenite could not fit: a second one sends
        // it before producers may write again; nothing is flushed into a producer's
        // half-written frame)
        let flushed =
            match (!partial).then(|| ws.flush(&mut stream).and_then(|()| ws.flush(&mut stream))) {
                None => false,
                Some(Ok(())) => true,
                Some(Err(e)) if io_kind(&e) == Some(io::ErrorKind::WouldBlock) => false,
                Some(Err(WsError::ConnectionClosed)) | Some(Err(WsError::AlreadyClosed)) => break,
                Some(Err(e)) => {
                    log::debug!("ws client {}: flush failed: {e}", handle.id);
                    break;
                }
            };
        if flushed {
            // written; a stream client is backed up while the kernel holds its limit
            let now = Instant::now();
            for since in unflushed.drain(..) {
                channel.written(since, now);
            }
            backed_up = !p.out.is_empty()
                || unsent
                    .as_mut()
                    .is_some_and(|u| u.backed_up(stream.fd(), now));
        } else {
            backed_up = true;
        }
        // 3. a close frame goes out once everything before it has (so that it fits)
        if p.close.is_some() && closing_since.is_none() {
            let now = Instant::now();
            if !backed_up {
                let (code, reason) = p.close.take().unwrap_or_default();
                log::debug!("ws client {}: closing ({code} {reason})", handle.id);
                let frame = CloseFrame {
                    code: CloseCode::from(code),
                    reason: Utf8Bytes::from(reason),
                };
                if let Err(e) = ws.close(&mut stream, Some(frame))
                    && io_kind(&e) == Some(io::ErrorKind::WouldBlock)
                {
                    backed_up = true; // the close frame waits in tungstenite's buffer
                }
                closing_since = Some(now);
                // nothing may follow a close frame
                p.out.clear();
            } else if now >= *close_asked.get_or_insert(now) + CLOSE_WAIT {
                log::debug!(
                    "ws client {}: reads nothing; cut without a close frame",
                    handle.id
                );
                break;
            }
        }
        // 4. wait for the socket, a wake, or a timer
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
            deadline = deadline.min(t + CLOSE_LINGER);
        }
        if let Some(t) = close_asked.filter(|_| closing_since.is_none()) {
            deadline = deadline.min(t + CLOSE_WAIT);
        }
        // the client's replies would only pile up while this much waits; and while a
        // producer's frame is half written nothing else may be written, and reading may
        // write (tungstenite answers pings): no reading until it is out
        let partial = held.as_ref().is_some_and(|g| !g.pending.is_empty());
        let may_read = (read_broken || p.queued_bytes() < READ_STOP) && !partial;
        let interests = [
            Interest {
                fd: stream.fd(),
                read: may_read,
                write: backed_up,
            },
            Interest::read(wake.fd()),
        ];
        // messages that came while this pass could not take them (it started backed up,
        // or more than it takes at once) are taken at once, not at the next wake
        let more_to_take = !backed_up
            && !partial
            && p.close.is_none()
            && closing_since.is_none()
            && (!intake || !rx.is_empty());
        let wait_until = if (more_input && may_read) || more_to_take {
            now
        } else {
            deadline.max(now)
        };
        if let Some(mut g) = held.take() {
            // producers may write while this thread sleeps if nothing of its own waits
            g.open = !backed_up
                && g.pending.is_empty()
                && p.out.is_empty()
                && p.close.is_none()
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
        if !may_read {
            if ready[0].readable || ready[0].error {
                // not asked to read: a hang-up or an error
                break;
            }
            more_input = true;
        }
        // 5. read what is there, at most READS_PER_PASS messages (a producer may have
        //    left a frame half written while this thread slept)
        let partial = held.as_ref().is_some_and(|g| !g.pending.is_empty());
        let read_now = may_read
            && !partial
            && (ready[0].readable || ready[0].error || std::mem::take(&mut more_input));
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
            let mut n = 0;
            loop {
                if n == READS_PER_PASS || p.queued_bytes() >= READ_STOP {
                    more_input = true;
                    break;
                }
                match ws.read(&mut stream) {
                    Ok(msg) => {
                        n += 1;
                        let open = p.close.is_none() && closing_since.is_none();
                        match msg {
                            Message::Text(t) if open => {
                                channel.text(t.as_str(), &mut p.ctx(&handle, direct.as_ref()));
                            }
                            Message::Binary(b) if open => {
                                channel.binary(&b, &mut p.ctx(&handle, direct.as_ref()));
                            }
                            Message::Pong(_) | Message::Ping(_) => {
                                awaiting_pong = None;
                                last_pong = Instant::now();
                            }
                            _ => {}
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
                        p.close = Some((1009, reason));
                        read_broken = true;
                        break;
                    }
                    Err(WsError::Utf8(_)) => {
                        p.close = Some((1007, "text message is not valid UTF-8".into()));
                        read_broken = true;
                        break;
                    }
                    Err(WsError::Protocol(e)) => {
                        log::debug!("ws client {}: protocol error: {e}", handle.id);
                        p.close = Some((1002, format!("protocol error: {e}")));
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
        // 6. timers
        let now = Instant::now();
        if closing_since.is_some_and(|t| now >= t + CLOSE_LINGER) {
            break;
        }
        let (ping_interval, pong_timeout) = channel
            .keepalive()
            .unwrap_or((limits.ping_interval, limits.pong_timeout));
        if awaiting_pong
            .is_some_and(|t| now >= pong_deadline(last_pong, t, ping_interval, pong_timeout))
            && closing_since.is_none()
        {
            // a client that answers nothing is gone: no close handshake to wait for
            // (CLOSE_LINGER) and no backlog to wait behind (CLOSE_WAIT), so that what it
            // holds (PTT) is released the moment the pong timeout ends (RFC 6455 §7.1.7)
            log::debug!("ws client {}: no pong for {pong_timeout:?}; cut", handle.id);
            let partial = held.as_ref().is_some_and(|g| !g.pending.is_empty());
            if !backed_up && !partial {
                // a courtesy close frame, if it fits at once
                let frame = CloseFrame {
                    code: CloseCode::from(1001),
                    reason: Utf8Bytes::from_static("pong timeout"),
                };
                let _ = ws.close(&mut stream, Some(frame));
            }
            break;
        } else if now >= next_ping && closing_since.is_none() {
            p.out
                .push_back((Message::Ping(Bytes::from_static(b"ka")), None));
            awaiting_pong.get_or_insert(now);
            next_ping = now + ping_interval;
        }
        channel_timer = channel.tick(now, &mut p.ctx(&handle, direct.as_ref()));
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
