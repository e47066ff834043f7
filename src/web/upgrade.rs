//! The one place that solves the tiny_http WebSocket constraint (DESIGN.md §3).
//!
//! tiny_http's `Request::upgrade` writes the `101 Switching Protocols` and hands back a
//! boxed stream with no access to the socket: it cannot be polled, given a timeout or
//! written from one thread while another reads. Before upgrading we therefore find the
//! connection's own file descriptor (the socket whose peer address is the request's
//! remote address and whose local port is ours) and duplicate it. The duplicate is an
//! ordinary `TcpStream` that the client's thread drives non-blocking with `poll(2)`
//! and tungstenite's `WebSocketContext`. The boxed stream is kept alive alongside
//! (dropping it shuts the socket down), and nothing else ever reads or writes it.
//!
//! This keeps one public port for REST and every WebSocket route, adds no copy or
//! thread to plain HTTP requests, and gives each WebSocket exactly one writer thread.

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{FromRawFd, RawFd};

use tiny_http::{Request, Response};

/// A WebSocket connection taken over from tiny_http.
pub struct Upgraded {
    /// An independent handle on the connection's socket.
    pub stream: TcpStream,
    /// tiny_http's stream; kept alive until the WebSocket ends (its drop shuts the socket down).
    pub keep_alive: Box<dyn tiny_http::ReadWrite + Send>,
}

/// Upgrades `request` with `response` (a 101 carrying `Sec-WebSocket-Accept`) and returns
/// an independent handle on its socket. `local_port` is the server's listening port.
pub fn upgrade<R: io::Read>(
    request: Request,
    response: Response<R>,
    local_port: u16,
) -> io::Result<Upgraded> {
    let peer = *request.remote_addr().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::Unsupported,
            "WebSockets need a TCP peer address",
        )
    })?;
    let fd = find_socket(peer, local_port)?;
    // SAFETY: `fd` is a live socket descriptor of this process (found above, and held
    // open by `request`); `dup` returns a new descriptor that we own exclusively.
    let dup = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if dup < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `dup` is a fresh descriptor owned by nobody else.
    let stream = unsafe { TcpStream::from_raw_fd(dup) };
    if stream.peer_addr()? != peer {
        return Err(io::Error::other(
            "the duplicated socket is not the request's connection",
        ));
    }
    let keep_alive = request.upgrade("websocket", response);
    Ok(Upgraded { stream, keep_alive })
}

fn sockaddr_of(fd: RawFd, peer: bool) -> Option<SocketAddr> {
    // SAFETY: `storage` is large enough for any socket address; `len` tells the kernel so.
    unsafe {
        let mut storage: libc::sockaddr_storage = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        let p = &mut storage as *mut _ as *mut libc::sockaddr;
        let rc = if peer {
            libc::getpeername(fd, p, &mut len)
        } else {
            libc::getsockname(fd, p, &mut len)
        };
        if rc != 0 {
            return None;
        }
        match storage.ss_family as libc::c_int {
            libc::AF_INET => {
                let a = &*(p as *const libc::sockaddr_in);
                let ip = std::net::Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr));
                Some(SocketAddr::from((ip, u16::from_be(a.sin_port))))
            }
            libc::AF_INET6 => {
                let a = &*(p as *const libc::sockaddr_in6);
                let ip = std::net::Ipv6Addr::from(a.sin6_addr.s6_addr);
                Some(SocketAddr::from((ip, u16::from_be(a.sin6_port))))
            }
            _ => None,
        }
    }
}

/// The descriptor of the TCP connection from `peer` to our `local_port`.
fn find_socket(peer: SocketAddr, local_port: u16) -> io::Result<RawFd> {
    let candidates: Vec<RawFd> = match std::fs::read_dir("/proc/self/fd") {
        Ok(dir) => dir
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .collect(),
        Err(_) => (0..4096).collect(),
    };
    for fd in candidates {
        if sockaddr_of(fd, true) == Some(peer)
            && sockaddr_of(fd, false).is_some_and(|a| a.port() == local_port)
        {
            return Ok(fd);
        }
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!("no socket for {peer}"),
    ))
}
