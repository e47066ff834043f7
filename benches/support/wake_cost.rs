//! What one wake-up costs the woken thread on this machine, by what wakes it: a
//! datagram from another process (how the radio's traffic wakes the link threads) or
//! the thread's own timer (a `poll` timeout: how a meter round or a keep-alive that
//! rides on nothing wakes them). Both sleep in `poll` 10 ms at a time; the figure is the
//! thread's own CPU time (`CLOCK_THREAD_CPUTIME_ID`) per wake-up, the socket case with
//! its `recv`. The station load's floor is mostly such wake-ups and the writes after
//! them (`--only station`).

use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rigweb::net::poll::{Interest, poll};

/// The argument that makes this bench binary the sending child.
pub const CHILD_ARG: &str = "--wake-cost-sender";
/// Wake-ups measured per case and run.
const WAKES: u32 = 300;
/// Time between wake-ups.
const PERIOD: Duration = Duration::from_millis(10);

/// The sending child: a 100-byte datagram to the address after [`CHILD_ARG`] every
/// [`PERIOD`], a little longer than the parent measures.
pub fn child() {
    let args: Vec<String> = std::env::args().collect();
    let Some(to) = args
        .iter()
        .position(|a| a == CHILD_ARG)
        .and_then(|i| args.get(i + 1))
        .and_then(|a| a.parse::<SocketAddr>().ok())
    else {
        eprintln!("{CHILD_ARG} <address>");
        return;
    };
    let sock = UdpSocket::bind("127.0.0.1:0").expect("bind the sender");
    for _ in 0..WAKES + 100 {
        std::thread::sleep(PERIOD);
        let _ = sock.send_to(&[0u8; 100], to);
    }
}

/// This thread's CPU time.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// CPU per wake-up when another process's datagrams wake the thread.
fn socket_driven() -> Duration {
    let sock = UdpSocket::bind("127.0.0.1:0").expect("bind");
    let addr = sock.local_addr().unwrap().to_string();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([CHILD_ARG, &addr])
        .stdout(Stdio::null())
        .spawn()
        .expect("start the sender");
    let mut buf = [0u8; 1500];
    let wait = |buf: &mut [u8]| {
        poll(&[Interest::read(sock.as_raw_fd())], None).unwrap();
        sock.recv(buf).unwrap();
    };
    wait(&mut buf);
    let t0 = thread_cpu();
    for _ in 0..WAKES {
        wait(&mut buf);
    }
    let used = thread_cpu() - t0;
    let _ = child.kill();
    let _ = child.wait();
    used / WAKES
}

/// CPU per wake-up when the thread's own `poll` timeout wakes it.
fn timer_driven() -> Duration {
    let sock = UdpSocket::bind("127.0.0.1:0").expect("bind");
    let t0 = thread_cpu();
    for _ in 0..WAKES {
        let ready = poll(
            &[Interest::read(sock.as_raw_fd())],
            Some(Instant::now() + PERIOD),
        )
        .unwrap();
        assert!(!ready[0].readable, "nothing is sent to this socket");
    }
    (thread_cpu() - t0) / WAKES
}

/// Prints both costs, three runs each.
pub fn wake_cost() {
    println!(
        "== wake-up cost: CPU of the woken thread per wake-up ({WAKES} wake-ups {} ms apart, 3 runs) ==",
        PERIOD.as_millis()
    );
    for _ in 0..3 {
        let socket = socket_driven();
        let timer = timer_driven();
        println!(
            "woken by another process's datagram {:5.1} µs    woken by its own timer {:5.1} µs",
            socket.as_secs_f64() * 1e6,
            timer.as_secs_f64() * 1e6
        );
    }
}
