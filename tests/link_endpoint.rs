//! The link's CI-V thread runs the owner of CI-V traffic (a `CivEndpoint`) beside its
//! session, against the simulated radio over real UDP on 127.0.0.1: every call reaches
//! the endpoint on `lan-civ`, the link's events arrive in order there, input from another
//! thread wakes it, what it sends reaches the radio and the reply comes back to it
//! without another thread; it turns only for input or its own timer, not for the radio's
//! keep-alives; bytes sent while the CI-V stream is down are dropped, and a reconnect
//! brings requests back.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use crossbeam_channel::Receiver;
use parking_lot::Mutex;
use rigweb::lan::audio_client::AudioBlock;
use rigweb::lan::link::{CivEndpoint, LinkEvent, LinkSinks, LinkState, RadioLink, Sink};
use rigweb::net::waker::{self, WakingSender, waking_channel};
use rigweb::wire::civ::{CONTROLLER, Frame, cmd};

/// What the endpoint saw.
#[derive(Default)]
struct Seen {
    /// Names of the threads its calls ran on.
    threads: Vec<String>,
    events: Vec<LinkEvent>,
    /// Frequency replies (`03`) from the radio.
    freq_replies: usize,
    turns: usize,
    /// The endpoint's timer: a turn this long after each turn (`None`: no timer).
    every: Option<Duration>,
}

/// An endpoint that records what it is handed and sends what the test queues.
struct Recorder {
    seen: Arc<Mutex<Seen>>,
    requests: Receiver<Vec<u8>>,
    next: Option<Instant>,
}

impl Recorder {
    fn note_thread(&self) {
        let name = std::thread::current().name().unwrap_or("?").to_string();
        let mut seen = self.seen.lock();
        if !seen.threads.contains(&name) {
            seen.threads.push(name);
        }
    }
}

impl CivEndpoint for Recorder {
    fn frame(&mut self, frame: Frame, _now: Instant) {
        self.note_thread();
        if frame.cmd == cmd::READ_FREQ {
            self.seen.lock().freq_replies += 1;
        }
    }

    fn link(&mut self, event: LinkEvent, _now: Instant) {
        self.note_thread();
        self.seen.lock().events.push(event);
    }

    fn turn(&mut self, now: Instant, send: &mut Vec<Vec<u8>>) {
        self.note_thread();
        let mut seen = self.seen.lock();
        seen.turns += 1;
        self.next = seen.every.map(|d| now + d);
        // an empty request only rings the thread
        send.extend(self.requests.try_iter().filter(|r| !r.is_empty()));
    }

    fn poll_timeout(&self, _now: Instant) -> Option<Instant> {
        self.next
    }
}

struct Nowhere;

impl Sink<(Frame, Instant)> for Nowhere {
    fn deliver(&self, _: (Frame, Instant)) {}
}

impl Sink<Vec<AudioBlock>> for Nowhere {
    fn deliver(&self, _: Vec<AudioBlock>) {}
}

struct Rig {
    link: RadioLink,
    seen: Arc<Mutex<Seen>>,
    requests: WakingSender<Vec<u8>>,
    read_freq: Vec<u8>,
}

fn start(sim: &rigweb::sim::server::SimHandle) -> Rig {
    let cfg = radio_config("ic7610", sim.addrs().control, "s3cret");
    let (waker, wake) = waker::pair().unwrap();
    let (requests, queued) = waking_channel(waker.clone());
    let seen = Arc::new(Mutex::new(Seen::default()));
    let endpoint = Recorder {
        seen: seen.clone(),
        requests: queued,
        next: None,
    };
    let sinks = LinkSinks {
        scope: Arc::new(Nowhere),
        audio: Arc::new(Nowhere),
    };
    let link = RadioLink::start(cfg.link, sinks, Box::new(endpoint), (waker, wake)).unwrap();
    let to = profile("ic7610").radio.civ_addr;
    Rig {
        link,
        seen,
        requests,
        read_freq: Frame::new(to, CONTROLLER, cmd::READ_FREQ, &[]).emit(),
    }
}

fn wait_for(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let end = Instant::now() + timeout;
    while !ok() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn ready_count(seen: &Seen) -> usize {
    seen.events
        .iter()
        .filter(|e| **e == LinkEvent::State(LinkState::Ready))
        .count()
}

/// Waits until the endpoint has been told the link is ready for the `n`-th time.
fn wait_ready(rig: &Rig, n: usize) {
    wait_for("the link ready", Duration::from_secs(10), || {
        ready_count(&rig.seen.lock()) == n
    });
}

#[test]
fn the_endpoint_runs_on_the_civ_thread_and_its_requests_reach_the_radio() {
    let sim = start_sim("ic7610");
    let rig = start(&sim);
    wait_ready(&rig, 1);
    {
        let seen = rig.seen.lock();
        let states: Vec<_> = seen
            .events
            .iter()
            .filter_map(|e| match e {
                LinkEvent::State(s) => Some(s.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(
            states,
            [
                LinkState::Connecting,
                LinkState::Connected,
                LinkState::Ready
            ],
            "the link's states, in order"
        );
        assert!(
            seen.events
                .iter()
                .any(|e| matches!(e, LinkEvent::RadioInfo { name, .. } if name == "IC-7610")),
            "the radio's identity reaches the endpoint: {:?}",
            seen.events
        );
    }
    for n in 1..=5 {
        assert!(rig.requests.send(rig.read_freq.clone()));
        wait_for("the radio's answer", Duration::from_secs(3), || {
            rig.seen.lock().freq_replies >= n
        });
    }
    let seen = rig.seen.lock();
    assert_eq!(seen.threads, ["lan-civ"], "every call on the CI-V thread");
    // woken by the test's input (not only by the radio's traffic and the link's events)
    assert!(seen.turns >= 5);
}

#[test]
fn bytes_sent_while_the_stream_is_down_are_dropped_and_a_reconnect_brings_requests_back() {
    let sim = start_sim("ic7610");
    let rig = start(&sim);
    wait_ready(&rig, 1);
    rig.link.disconnect();
    wait_for("the link idle", Duration::from_secs(5), || {
        rig.seen
            .lock()
            .events
            .contains(&LinkEvent::State(LinkState::Idle))
    });
    let replies = rig.seen.lock().freq_replies;
    assert!(rig.requests.send(rig.read_freq.clone()));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        rig.seen.lock().freq_replies,
        replies,
        "nothing goes to the radio while the stream is down"
    );
    let sent_down = sim.stats().civ_frames_in;
    rig.link.connect();
    wait_ready(&rig, 2);
    assert!(rig.requests.send(rig.read_freq.clone()));
    wait_for("the radio's answer", Duration::from_secs(3), || {
        rig.seen.lock().freq_replies > replies
    });
    assert!(sim.stats().civ_frames_in > sent_down);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        rig.seen.lock().freq_replies,
        replies + 1,
        "the request sent while down was dropped, not held for later"
    );
    assert_eq!(rig.seen.lock().threads, ["lan-civ"]);
}

#[test]
fn the_endpoint_turns_for_input_or_its_timer_not_for_the_radios_keep_alives() {
    let sim = start_sim("ic7610");
    let rig = start(&sim);
    wait_ready(&rig, 1);
    std::thread::sleep(Duration::from_millis(300));
    let turns = rig.seen.lock().turns;
    let frames = sim.stats().civ_frames_out;
    // a second of the radio's pings and idles (every 100 ms on the CI-V port)
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(
        sim.stats().civ_frames_out,
        frames,
        "the radio sent no frame"
    );
    assert_eq!(rig.link.status().state, LinkState::Ready);
    assert_eq!(
        rig.seen.lock().turns,
        turns,
        "no input, no timer: its pings and idles alone do not turn the endpoint"
    );
    // a timer every 100 ms: about ten turns a second (a loaded machine may run late,
    // never early)
    rig.seen.lock().every = Some(Duration::from_millis(100));
    assert!(rig.requests.send(Vec::new()), "a ring starts the timer");
    std::thread::sleep(Duration::from_millis(50));
    let turns = rig.seen.lock().turns;
    std::thread::sleep(Duration::from_secs(1));
    let timed = rig.seen.lock().turns - turns;
    assert!((3..=11).contains(&timed), "{timed} turns in a second");
}
