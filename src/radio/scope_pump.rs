//! The scope pump: assembles `27 00` frames into sweeps, rescales them to the web's
//! 0..160, numbers them per receiver, encodes the binary scope frame once and hands it
//! to every subscriber. It keeps the state's scope edges current and asks the radio for
//! wave data only while somebody listens (off again 2 s after the last one leaves).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use parking_lot::RwLock;

use super::command::Command;
use super::dispatch::SharedQueue;
use super::scope::{ScopeAssembler, to_web_scale};
use super::state::StateStore;
use crate::hub::Fanout;
use crate::profile::{Profile, ScopeSourceKind};
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

/// How long the radio keeps sending after the last subscriber left.
const OFF_GRACE: Duration = Duration::from_secs(2);

/// Runs the pump until `frames` closes.
pub fn run(
    frames: Receiver<(Frame, Instant)>,
    profile: Arc<RwLock<Arc<Profile>>>,
    store: Arc<StateStore>,
    fanout: Arc<Fanout<ScopeOut>>,
    jobs: Arc<SharedQueue>,
    count_changed: Receiver<usize>,
) {
    let mut asm = ScopeAssembler::default();
    let mut seq = [0u16; 2];
    let mut last_meta = None;
    let mut output_on = false;
    let mut off_at: Option<Instant> = None;
    loop {
        let timeout = off_at
            .map(|t| t.saturating_duration_since(Instant::now()))
            .unwrap_or(Duration::from_secs(3600));
        crossbeam_channel::select! {
            recv(frames) -> f => match f {
                Ok((f, now)) => {
                    match asm.push(&f, now) {
                        Ok(Some(sweep)) => {
                            let amp_max = profile.read().scope.amp_max;
                            let r = usize::from(sweep.receiver);
                            let frame = ScopeFrame {
                                receiver: sweep.receiver,
                                mode: sweep.mode,
                                start_freq: sweep.start_hz.min(u64::from(u32::MAX)) as u32,
                                end_freq: sweep.end_hz.min(u64::from(u32::MAX)) as u32,
                                sequence: seq[r],
                                out_of_range: sweep.out_of_range,
                                pixels: to_web_scale(&sweep.pixels, amp_max),
                            };
                            seq[r] = seq[r].wrapping_add(1);
                            let meta = (sweep.receiver, sweep.mode, sweep.start_hz, sweep.end_hz, sweep.out_of_range);
                            if last_meta != Some(meta) && store.read(|c| c.radio.scope.receiver) == sweep.receiver {
                                last_meta = Some(meta);
                                store.modify(|c| {
                                    let s = &mut c.radio.scope;
                                    s.settings.mode = Some(sweep.mode);
                                    s.start_freq = sweep.start_hz;
                                    s.end_freq = sweep.end_hz;
                                    s.out_of_range = sweep.out_of_range;
                                });
                            }
                            let bytes = frame.emit();
                            fanout.publish(ScopeOut { frame, bytes, at: now });
                        }
                        Ok(None) => {}
                        Err(e) => log::debug!("scope: frame rejected: {e}"),
                    }
                }
                Err(_) => return,
            },
            recv(count_changed) -> n => match n {
                Ok(n) => {
                    // the latest count is what matters
                    let n = count_changed.try_iter().last().unwrap_or(n);
                    // audio-FFT profiles have no scope output to switch (the audio DSP
                    // thread serves their viewers)
                    let hardware = profile.read().scope.source == ScopeSourceKind::Hardware;
                    if n > 0 && !hardware {
                        off_at = None;
                    } else if n > 0 {
                        off_at = None;
                        if !output_on {
                            output_on = true;
                            submit(&jobs, true);
                        }
                    } else if output_on {
                        off_at = Some(Instant::now() + OFF_GRACE);
                    }
                }
                Err(_) => return,
            },
            default(timeout) => {}
        }
        if off_at.is_some_and(|t| Instant::now() >= t) {
            off_at = None;
            output_on = false;
            submit(&jobs, false);
        }
    }
}

fn submit(jobs: &SharedQueue, on: bool) {
    let reply = Box::new(move |r: super::engine::CommandResult| {
        if let Err(e) = r {
            log::debug!("scope output {}: {e}", if on { "on" } else { "off" });
        }
    });
    if let Err(e) = jobs.submit_server(Command::ScopeOutput(on), reply) {
        log::warn!("scope: scope output not switched: {e}");
    }
}

/// Forwards subscriber counts of `fanout` to a channel the pump listens on.
pub fn count_channel(fanout: &Fanout<ScopeOut>) -> Receiver<usize> {
    let (tx, rx) = crossbeam_channel::unbounded();
    fanout.on_count_change(move |n| {
        let _ = tx.send(n);
    });
    rx
}
