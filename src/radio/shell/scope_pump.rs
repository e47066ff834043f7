//! The scope stream. [`SweepPublisher`] is the link's scope sink: on the link's CI-V
//! thread, as the datagrams arrive (no hand-over to another thread, no wake-up per
//! sweep), it assembles `27 00` frames into sweeps, rescales them to the web's 0..160,
//! numbers them per receiver, encodes the binary scope frame once, keeps the state's
//! scope edges current and hands the frame to every subscriber. The `scope-output`
//! thread ([`run`]) asks the radio for wave data only while somebody listens (off again
//! 2 s after the last one leaves: the policy is the pure [`ScopeOutputSwitch`]).

use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Receiver;
use parking_lot::{Mutex, RwLock};

use crate::hub::Fanout;
use crate::lan::link::Sink;
use crate::net::waker::WakingSender;
use crate::profile::{Profile, ScopeSourceKind};
use crate::radio::engine::scope::{ScopeAssembler, SweepEdges, to_web_scale};
use crate::radio::engine::scope_output::ScopeOutputSwitch;
use crate::radio::shell::dispatch_shared::SharedQueue;
use crate::radio::shell::state_store::StateStore;
use crate::radio::table::command::Command;
use crate::wire::civ::Frame;
use crate::wire::web::ScopeFrame;

/// One sweep ready for clients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeOut {
    /// The frame.
    pub frame: ScopeFrame,
    /// Its binary encoding (interface.md §2.5).
    pub bytes: Vec<u8>,
    /// When the datagram that completed it arrived at the LAN socket (or, for the
    /// audio-FFT scope, the RX audio block that completed its sweep): latency figures
    /// and pacing start there.
    pub at: Instant,
}

/// Sweeps in assembly and the numbering of the published ones.
#[derive(Default)]
struct Assembly {
    asm: ScopeAssembler,
    seq: [u16; 2],
    last_edges: Option<SweepEdges>,
}

/// See the module docs.
pub struct SweepPublisher {
    profile: Arc<RwLock<Arc<Profile>>>,
    store: Arc<StateStore>,
    edges: WakingSender<SweepEdges>,
    fanout: Arc<Fanout<ScopeOut>>,
    assembly: Mutex<Assembly>,
}

impl SweepPublisher {
    /// A publisher into `fanout`, rescaling by the current `profile`, sending the scope
    /// edges of the receiver `store` shows to the engine (`edges`).
    pub fn new(
        profile: Arc<RwLock<Arc<Profile>>>,
        store: Arc<StateStore>,
        edges: WakingSender<SweepEdges>,
        fanout: Arc<Fanout<ScopeOut>>,
    ) -> SweepPublisher {
        SweepPublisher {
            profile,
            store,
            edges,
            fanout,
            assembly: Mutex::new(Assembly::default()),
        }
    }
}

impl Sink<(Frame, Instant)> for SweepPublisher {
    /// One `27 00` frame, with when its datagram arrived.
    fn deliver(&self, (f, now): (Frame, Instant)) {
        let mut a = self.assembly.lock();
        let sweep = match a.asm.push(&f, now) {
            Ok(Some(sweep)) => sweep,
            Ok(None) => return,
            Err(e) => {
                log::debug!("scope: frame rejected: {e}");
                return;
            }
        };
        let amp_max = self.profile.read().scope.amp_max;
        let r = sweep.receiver.index();
        let frame = ScopeFrame {
            receiver: sweep.receiver.code(),
            mode: sweep.mode,
            start_freq: sweep.start_hz.min(u64::from(u32::MAX)) as u32,
            end_freq: sweep.end_hz.min(u64::from(u32::MAX)) as u32,
            sequence: a.seq[r],
            out_of_range: sweep.out_of_range,
            pixels: to_web_scale(&sweep.pixels, amp_max),
        };
        a.seq[r] = a.seq[r].wrapping_add(1);
        let edges = sweep.edges();
        if a.last_edges != Some(edges)
            && self.store.read(|c| c.radio.scope.receiver) == sweep.receiver
        {
            a.last_edges = Some(edges);
            let _ = self.edges.send(edges);
        }
        // published outside the lock (the next sweep is 30 ms away anyway)
        drop(a);
        let bytes = frame.emit();
        self.fanout.publish(ScopeOut {
            frame,
            bytes,
            at: now,
        });
    }
}

/// Runs the `scope-output` thread until `stop` closes: the shell of the
/// [`ScopeOutputSwitch`], fed the scope fan-out's subscriber counts (`count_changed`,
/// from [`count_channel`]; hardware scopes only: the audio DSP serves the viewers of an
/// audio-FFT scope) and its timer.
pub fn run(
    profile: Arc<RwLock<Arc<Profile>>>,
    jobs: Arc<SharedQueue>,
    count_changed: Receiver<usize>,
    stop: Receiver<()>,
) {
    let mut switch = ScopeOutputSwitch::default();
    loop {
        let timeout = switch
            .poll_timeout()
            .map_or_else(crossbeam_channel::never, crossbeam_channel::at);
        let ask = crossbeam_channel::select! {
            recv(count_changed) -> n => match n {
                Ok(n) => {
                    // the latest count is what matters
                    let n = count_changed.try_iter().last().unwrap_or(n);
                    let hardware = profile.read().scope.source == ScopeSourceKind::Hardware;
                    switch.subscribers(n, hardware, Instant::now())
                }
                Err(_) => return,
            },
            recv(timeout) -> _ => switch.handle_timeout(Instant::now()),
            recv(stop) -> _ => return,
        };
        if let Some(on) = ask {
            submit(&jobs, on);
        }
    }
}

fn submit(jobs: &SharedQueue, on: bool) {
    let reply = Box::new(move |r: crate::radio::engine::CommandResult| {
        if let Err(e) = r {
            log::debug!("scope output {}: {e}", if on { "on" } else { "off" });
        }
    });
    if let Err(e) = jobs.submit_server(Command::ScopeOutput(on), reply) {
        log::warn!("scope: scope output not switched: {e}");
    }
}

/// Forwards subscriber counts of `fanout` to a channel the `scope-output` thread
/// listens on.
pub fn count_channel(fanout: &Fanout<ScopeOut>) -> Receiver<usize> {
    let (tx, rx) = crossbeam_channel::unbounded();
    fanout.on_count_change(move |n| {
        let _ = tx.send(n);
    });
    rx
}
