//! The thread of one feed: a thin shell that connects, reads and writes for the
//! [`Session`] and files what it learns. It blocks only in a connect, a read with the
//! session's timeout, or (disconnected) a wait for the stop signal with that timeout.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant, SystemTime};

use super::session::{Action, Event, Session};
use super::{DxConfig, FeedConfig, Shared};

/// Runs feed `index` until the service stops.
pub(super) fn run(shared: &Shared, index: usize, feed: &FeedConfig, cfg: &DxConfig) {
    let mut session = Session::new(cfg.session.clone(), Instant::now());
    let mut stream: Option<TcpStream> = None;
    let mut buf = vec![0u8; 16 * 1024];
    log::info!(
        "DX feed {} ({}): starting",
        feed.address,
        feed.source.as_str()
    );
    while !shared.stopping() {
        let now = Instant::now();
        while let Some(action) = session.poll_action(now) {
            match action {
                Action::Connect => match connect(&feed.address, cfg.connect_timeout) {
                    Ok(s) => {
                        *shared.sockets[index].lock() = s.try_clone().ok();
                        stream = Some(s);
                        session.on_connected(Instant::now());
                        log::info!("DX feed {}: connected", feed.address);
                    }
                    Err(e) => {
                        log::debug!("DX feed {}: {e}", feed.address);
                        session.on_connect_failed(Instant::now(), &e);
                    }
                },
                Action::Write(bytes) => {
                    let r = stream.as_mut().map(|s| s.write_all(&bytes));
                    if let Some(Err(e)) = r {
                        close(shared, index, &mut stream);
                        session.on_closed(Instant::now(), &format!("writing failed: {e}"));
                    }
                }
                Action::Close => {
                    close(shared, index, &mut stream);
                    session.on_closed(Instant::now(), "closed by rigweb");
                }
            }
        }
        file_events(shared, index, &mut session);
        if shared.stopping() {
            // a socket stored after stop() shut the others is closed here
            break;
        }
        let wait = session
            .poll_timeout()
            .map_or(Duration::from_secs(60), |t| {
                t.saturating_duration_since(Instant::now())
            })
            .max(Duration::from_millis(1));
        match stream.as_mut() {
            Some(s) => {
                let _ = s.set_read_timeout(Some(wait));
                match s.read(&mut buf) {
                    Ok(0) => {
                        close(shared, index, &mut stream);
                        session.on_closed(Instant::now(), "the node closed the connection");
                    }
                    Ok(n) => session.on_data(&buf[..n], Instant::now()),
                    Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) => {
                        close(shared, index, &mut stream);
                        session.on_closed(Instant::now(), &format!("reading failed: {e}"));
                    }
                }
            }
            None => {
                if shared
                    .stop_rx
                    .recv_timeout(wait)
                    .is_err_and(|e| e.is_disconnected())
                {
                    break;
                }
            }
        }
        file_events(shared, index, &mut session);
    }
    close(shared, index, &mut stream);
    log::debug!("DX feed {}: stopped", feed.address);
}

/// Takes the session's events and state into the shared status and buffer.
fn file_events(shared: &Shared, index: usize, session: &mut Session) {
    while let Some(e) = session.poll_event() {
        match e {
            Event::Spot(line) => shared.take_spot(index, line, now_in_micros()),
            Event::LoggedIn => {
                log::info!("DX feed {}: logged in", shared.feeds[index].lock().address)
            }
            Event::Node(n) => shared.feeds[index].lock().node = Some(n),
        }
    }
    let mut f = shared.feeds[index].lock();
    f.connected = session.logged_in();
    f.error = session.error().map(str::to_string);
    f.dropped_lines = session.dropped_lines();
}

/// Now, to the microsecond: what `received_at` shows is exactly the spot's time, so a
/// client's `since` (a `received_at` it saw) excludes that very spot.
fn now_in_micros() -> SystemTime {
    let t = SystemTime::now();
    let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    SystemTime::UNIX_EPOCH + Duration::from_micros(d.as_micros() as u64)
}

fn close(shared: &Shared, index: usize, stream: &mut Option<TcpStream>) {
    if let Some(s) = stream.take() {
        let _ = s.shutdown(std::net::Shutdown::Both);
    }
    *shared.sockets[index].lock() = None;
}

/// Resolves `address` and connects to the first address that answers.
fn connect(address: &str, timeout: Duration) -> Result<TcpStream, String> {
    let addrs: Vec<_> = address
        .to_socket_addrs()
        .map_err(|e| format!("{address}: {e}"))?
        .collect();
    let mut last = format!("{address}: no address");
    for a in addrs {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(s) => {
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Err(e) => last = format!("{a}: {e}"),
        }
    }
    Err(last)
}
