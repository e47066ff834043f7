//! The systemd notification protocol (`Type=notify`, `WatchdogSec=`), written directly:
//! one datagram per message to the unix socket `$NOTIFY_SOCKET` names (a path, or an
//! abstract name after `@`). Outside systemd (no variable) every call does nothing.

use std::io;
use std::os::unix::net::UnixDatagram;
use std::time::Duration;

/// Where notifications go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotifySocket {
    /// A socket file.
    Path(std::path::PathBuf),
    /// An abstract socket (`@name` in the variable).
    Abstract(Vec<u8>),
}

impl NotifySocket {
    /// The socket `$NOTIFY_SOCKET` names (`value`), if any.
    pub fn parse(value: Option<&str>) -> Option<NotifySocket> {
        match value? {
            "" => None,
            v if v.starts_with('@') => Some(NotifySocket::Abstract(v.as_bytes()[1..].to_vec())),
            v if v.starts_with('/') => Some(NotifySocket::Path(v.into())),
            _ => None,
        }
    }

    /// Sends one notification (`READY=1`, `WATCHDOG=1`, `STATUS=...`, newline-separated).
    pub fn send(&self, message: &str) -> io::Result<()> {
        let sock = UnixDatagram::unbound()?;
        match self {
            NotifySocket::Path(p) => sock.send_to(message.as_bytes(), p)?,
            NotifySocket::Abstract(name) => {
                use std::os::linux::net::SocketAddrExt;
                let addr = std::os::unix::net::SocketAddr::from_abstract_name(name)?;
                sock.send_to_addr(message.as_bytes(), &addr)?
            }
        };
        Ok(())
    }
}

/// Sends `message` to systemd if the process runs under it with a notify socket.
pub fn notify(message: &str) {
    let var = std::env::var("NOTIFY_SOCKET").ok();
    if let Some(sock) = NotifySocket::parse(var.as_deref())
        && let Err(e) = sock.send(message)
    {
        log::warn!("telling systemd {message:?} failed: {e}");
    }
}

/// How often systemd wants a `WATCHDOG=1` keep-alive: half of `$WATCHDOG_USEC` (when
/// `$WATCHDOG_PID` is unset or names this process), as sd_watchdog_enabled(3) advises.
pub fn watchdog_interval(usec: Option<&str>, pid: Option<&str>) -> Option<Duration> {
    if let Some(pid) = pid
        && pid.parse::<u32>().ok() != Some(std::process::id())
    {
        return None;
    }
    let usec: u64 = usec?.parse().ok().filter(|u| *u > 0)?;
    Some(Duration::from_micros(usec / 2))
}

/// [`watchdog_interval`] from this process's environment.
pub fn watchdog_interval_from_env() -> Option<Duration> {
    let usec = std::env::var("WATCHDOG_USEC").ok();
    let pid = std::env::var("WATCHDOG_PID").ok();
    watchdog_interval(usec.as_deref(), pid.as_deref())
}

/// Sends `WATCHDOG=1` every `every` after `check` returned (a `check` that hangs stops
/// the keep-alives, and systemd restarts the service). Stops when dropped.
pub struct Watchdog {
    stop: Option<crossbeam_channel::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    /// Starts the keep-alive thread.
    pub fn start(every: Duration, check: impl Fn() + Send + 'static) -> io::Result<Watchdog> {
        let (stop, stopped) = crossbeam_channel::bounded::<()>(0);
        let thread = std::thread::Builder::new()
            .name("watchdog".into())
            .spawn(move || {
                while let Err(crossbeam_channel::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(every)
                {
                    check();
                    notify("WATCHDOG=1");
                }
            })?;
        Ok(Watchdog {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_names() {
        assert_eq!(NotifySocket::parse(None), None);
        assert_eq!(NotifySocket::parse(Some("")), None);
        assert_eq!(NotifySocket::parse(Some("relative")), None);
        assert_eq!(
            NotifySocket::parse(Some("/run/systemd/notify")),
            Some(NotifySocket::Path("/run/systemd/notify".into()))
        );
        assert_eq!(
            NotifySocket::parse(Some("@abc")),
            Some(NotifySocket::Abstract(b"abc".to_vec()))
        );
    }

    #[test]
    fn notifications_reach_a_real_socket() {
        let dir = std::env::temp_dir().join(format!("rigweb-notify-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("notify");
        let _ = std::fs::remove_file(&path);
        let listener = UnixDatagram::bind(&path).unwrap();
        let sock = NotifySocket::parse(path.to_str()).unwrap();
        sock.send("READY=1\nSTATUS=serving").unwrap();
        let mut buf = [0u8; 64];
        let n = listener.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"READY=1\nSTATUS=serving");
        std::fs::remove_dir_all(&dir).unwrap();

        let name = format!("rigweb-notify-test-{}", std::process::id());
        use std::os::linux::net::SocketAddrExt;
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
        let abstract_listener = UnixDatagram::bind_addr(&addr).unwrap();
        NotifySocket::parse(Some(&format!("@{name}")))
            .unwrap()
            .send("WATCHDOG=1")
            .unwrap();
        let n = abstract_listener.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"WATCHDOG=1");
    }

    #[test]
    fn watchdog_interval_is_half_and_ours() {
        let me = std::process::id().to_string();
        assert_eq!(
            watchdog_interval(Some("30000000"), None),
            Some(Duration::from_secs(15))
        );
        assert_eq!(
            watchdog_interval(Some("30000000"), Some(&me)),
            Some(Duration::from_secs(15))
        );
        assert_eq!(watchdog_interval(Some("30000000"), Some("1")), None);
        assert_eq!(watchdog_interval(Some("0"), None), None);
        assert_eq!(watchdog_interval(Some("x"), None), None);
        assert_eq!(watchdog_interval(None, None), None);
    }
}
