//! The I/O floor of the station load: a child process that does only the input and
//! output the station load needs of any server, with no logic between, so that its CPU
//! is a lower bound for the server's on the same machine at the same time.
//!
//! The bench process plays the radio and the clients. Per second it sends the child 50
//! RX audio blocks (three datagrams of 1,388, 1,388 and 1,136 bytes, as the simulator
//! sends the IC-7610's stereo 16-bit audio at 48 kHz; the samples are the simulator's
//! own, recorded through a server by the caller), 30 scope sweeps (one
//! datagram of 732 bytes) and pings (10 to each of the three ports, each answered), and
//! answers each request datagram at once. The child (three threads, one per port, as
//! the link has): encodes each block as one stereo Opus frame (the server's encoder and
//! settings, 8 kHz band) and writes it to the Opus client; writes each sweep (705 bytes)
//! to 4 scope clients; every 50 ms reads two meters (two request/answer round trips, as
//! MAIN's and SUB's S-meters are read) and writes a 12-byte meter frame; and for each
//! command the control client sends (one every 200 ms) sends a request and writes an
//! 80-byte response when it is answered. Frames go out as the server's do: one `writev`
//! of a WebSocket header and the payload per frame and client.
//!
//! Not in the floor: the LAN protocol (sequence numbers, retransmission), the command
//! engine, state, JSON and the scope's rescaling.

use std::io::{IoSlice, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rigweb::dsp::opus_codec::{CodedBand, OpusEncoder};
use rigweb::net::poll::{Interest, poll};

/// The argument that makes the bench binary the floor's child.
pub const CHILD_ARG: &str = "--io-floor-child";

const AUDIO_DATAGRAMS: [usize; 3] = [1_388, 1_388, 1_136];
/// The bytes of the datagrams of one block.
const DATAGRAM_BYTES: usize = 1_388 + 1_388 + 1_136;
/// 20 ms of 48 kHz stereo i16 samples (the datagrams carry these and their headers).
const BLOCK_BYTES: usize = 960 * 2 * 2;
const SWEEP_BYTES: usize = 732;
const SCOPE_FRAME: usize = 705;
const PING_BYTES: usize = 21;
const REQUEST_BYTES: usize = 11;
const ANSWER_BYTES: usize = 32;
const SCOPE_CLIENTS: usize = 4;
/// Tags of the child's requests (the answer's first byte echoes them).
const METER_MAIN: u8 = 1;
const METER_SUB: u8 = 2;
const COMMAND: u8 = 3;

/// Writes one frame as a WebSocket header and the payload, in one `writev`.
fn write_frame(to: &mut TcpStream, opcode: u8, payload: &[u8]) {
    let mut head = vec![0x80 | opcode];
    if payload.len() < 126 {
        head.push(payload.len() as u8);
    } else {
        head.push(126);
        head.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    }
    let _ = to.write_vectored(&[IoSlice::new(&head), IoSlice::new(payload)]);
}

/// The child: binds its three UDP ports and a TCP listener, says where on stdout, takes
/// the 7 clients (4 scope, meters, Opus, control, in that order) and serves until the
/// bench kills it.
pub fn child() {
    let udp = || UdpSocket::bind("127.0.0.1:0").unwrap();
    let (control, civ, audio) = (udp(), udp(), udp());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = |s: &UdpSocket| s.local_addr().unwrap().port();
    println!(
        "{} {} {} {}",
        port(&control),
        port(&civ),
        port(&audio),
        listener.local_addr().unwrap().port()
    );
    let mut clients: Vec<TcpStream> = (0..SCOPE_CLIENTS + 3)
        .map(|_| {
            let s = listener.accept().unwrap().0;
            s.set_nodelay(true).unwrap();
            s
        })
        .collect();
    let control_client = clients.pop().unwrap();
    let opus_client = clients.pop().unwrap();
    let meter_client = clients.pop().unwrap();
    let name = |n: &str| std::thread::Builder::new().name(n.into());
    name("floor-control")
        .spawn(move || pong_only(control))
        .unwrap();
    name("floor-audio")
        .spawn(move || audio_port(audio, opus_client))
        .unwrap();
    let civ = name("floor-civ")
        .spawn(move || civ_port(civ, clients, meter_client, control_client))
        .unwrap();
    let _ = civ.join();
}

/// Answers pings (10 a second: one blocking read each).
fn pong_only(sock: UdpSocket) {
    let mut buf = [0u8; 2048];
    while let Ok((n, from)) = sock.recv_from(&mut buf) {
        let _ = sock.send_to(&buf[..n], from);
    }
}

/// Encodes each block (waking when datagrams are there and reading all there are, so
/// that a block's three datagrams are one wake-up when they come together).
fn audio_port(sock: UdpSocket, mut client: TcpStream) {
    sock.set_nonblocking(true).unwrap();
    let mut enc = OpusEncoder::new(2).unwrap();
    enc.set_band(CodedBand::Wideband).unwrap();
    let mut block = Vec::with_capacity(4_000);
    let mut datagrams = 0;
    let mut buf = [0u8; 2048];
    while poll(&[Interest::read(sock.as_raw_fd())], None).is_ok() {
        while let Ok((n, from)) = sock.recv_from(&mut buf) {
            if n == PING_BYTES {
                let _ = sock.send_to(&buf[..n], from);
                continue;
            }
            block.extend_from_slice(&buf[..n]);
            datagrams += 1;
            if datagrams == AUDIO_DATAGRAMS.len() {
                let samples: Vec<i16> = block
                    .chunks_exact(2)
                    .take(BLOCK_BYTES / 2)
                    .map(|b| i16::from_le_bytes([b[0], b[1]]))
                    .collect();
                let packet = enc.encode(&samples).unwrap();
                write_frame(&mut client, 2, &packet);
                block.clear();
                datagrams = 0;
            }
        }
    }
}

fn civ_port(
    sock: UdpSocket,
    mut scope: Vec<TcpStream>,
    mut meters: TcpStream,
    mut control: TcpStream,
) {
    sock.set_nonblocking(true).unwrap();
    control.set_nonblocking(true).unwrap();
    let mut radio: Option<SocketAddr> = None;
    let mut next_round = Instant::now();
    let mut round_open = false;
    let mut buf = [0u8; 2048];
    let request = |sock: &UdpSocket, to: Option<SocketAddr>, tag: u8| {
        if let Some(to) = to {
            let mut req = [0u8; REQUEST_BYTES];
            req[0] = tag;
            let _ = sock.send_to(&req, to);
        }
    };
    loop {
        let deadline = (!round_open).then_some(next_round);
        let interests = [
            Interest::read(sock.as_raw_fd()),
            Interest::read(control.as_raw_fd()),
        ];
        let Ok(ready) = poll(&interests, deadline) else {
            return;
        };
        if ready[1].readable {
            match control.read(&mut buf) {
                Ok(0) => return,
                Ok(_) => request(&sock, radio, COMMAND),
                Err(_) => {}
            }
        }
        while let Ok((n, from)) = sock.recv_from(&mut buf) {
            radio = Some(from);
            match n {
                SWEEP_BYTES => {
                    for c in scope.iter_mut() {
                        write_frame(c, 2, &buf[..SCOPE_FRAME]);
                    }
                }
                PING_BYTES => {
                    let _ = sock.send_to(&buf[..n], from);
                }
                _ => match buf[0] {
                    METER_MAIN => request(&sock, radio, METER_SUB),
                    METER_SUB => {
                        write_frame(&mut meters, 2, &buf[..12]);
                        round_open = false;
                    }
                    COMMAND => write_frame(&mut control, 1, &[b' '; 80]),
                    _ => {}
                },
            }
        }
        let now = Instant::now();
        if !round_open && now >= next_round && radio.is_some() {
            request(&sock, radio, METER_MAIN);
            round_open = true;
            next_round += Duration::from_millis(50);
            if next_round < now {
                next_round = now + Duration::from_millis(50);
            }
        }
    }
}

/// A running floor: the child, the bench's radio and clients.
pub struct Floor {
    child: Child,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Floor {
    /// Starts the child and drives it, its radio sending `pcm` (stereo i16 LE samples
    /// at 48 kHz, looped).
    pub fn start(pcm: Vec<u8>) -> Floor {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .arg(CHILD_ARG)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        let mut out = child.stdout.take().unwrap();
        let mut byte = [0u8; 1];
        while out.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
            line.push(byte[0] as char);
        }
        let ports: Vec<u16> = line.split(' ').map(|p| p.parse().unwrap()).collect();
        let to = |p: u16| SocketAddr::from(([127, 0, 0, 1], p));
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        for i in 0..SCOPE_CLIENTS + 3 {
            let mut s = TcpStream::connect(to(ports[3])).unwrap();
            s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
            let stop = stop.clone();
            let commands = i == SCOPE_CLIENTS + 2;
            threads.push(std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                let mut next = Instant::now();
                while !stop.load(Ordering::Relaxed) {
                    if commands && Instant::now() >= next {
                        let _ = s.write_all(&[b'c'; 120]);
                        next += Duration::from_millis(200);
                    }
                    if let Ok(0) = s.read(&mut buf) {
                        return;
                    }
                }
            }));
        }
        let (stop_radio, ports) = (stop.clone(), [ports[0], ports[1], ports[2]]);
        threads.push(std::thread::spawn(move || {
            radio(ports.map(to), &pcm, &stop_radio)
        }));
        Floor {
            child,
            stop,
            threads,
        }
    }

    /// The child's process id.
    pub fn pid(&self) -> String {
        self.child.id().to_string()
    }
}

impl Drop for Floor {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.child.kill();
        let _ = self.child.wait();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// The bench's radio: audio blocks every 20 ms, a sweep every 33 ms, pings every 100 ms
/// to each port, and an answer to every request.
fn radio([control, civ, audio]: [SocketAddr; 3], pcm: &[u8], stop: &AtomicBool) {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut offset = 0;
    let start = Instant::now();
    let (mut blocks, mut sweeps, mut pings) = (0u32, 0u32, 0u32);
    let at = |n: u32, period_us: u64| start + Duration::from_micros(n as u64 * period_us);
    let mut buf = [0u8; 2048];
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= at(blocks, 20_000) {
            // a block's samples (and, standing for the datagrams' headers, a few more)
            if offset + DATAGRAM_BYTES > pcm.len() {
                offset = 0;
            }
            let mut at = offset;
            for size in AUDIO_DATAGRAMS {
                let _ = sock.send_to(&pcm[at..at + size], audio);
                at += size;
            }
            offset += BLOCK_BYTES;
            blocks += 1;
        }
        if now >= at(sweeps, 33_333) {
            let _ = sock.send_to(&[0x27; SWEEP_BYTES], civ);
            sweeps += 1;
        }
        if now >= at(pings, 100_000) {
            for to in [control, civ, audio] {
                let _ = sock.send_to(&[0u8; PING_BYTES], to);
            }
            pings += 1;
        }
        let next = [at(blocks, 20_000), at(sweeps, 33_333), at(pings, 100_000)]
            .into_iter()
            .min()
            .unwrap();
        let wait = next.saturating_duration_since(Instant::now());
        sock.set_read_timeout(Some(wait.max(Duration::from_micros(100))))
            .unwrap();
        if let Ok((n, from)) = sock.recv_from(&mut buf)
            && n == REQUEST_BYTES
        {
            let mut answer = [0u8; ANSWER_BYTES];
            answer[0] = buf[0];
            let _ = sock.send_to(&answer, from);
        }
    }
}
