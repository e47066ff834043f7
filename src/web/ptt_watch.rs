//! Follows the radio's transmit state for the web layer: clears the PTT owner whenever
//! the radio stops transmitting, whoever unkeyed it (a command, the transmit timeout, the
//! front panel or a reconnect), and drives the MOD-input switch ([`ModInputSwitch`]) of
//! web TX audio: LAN as soon as the owner of a confirmed PTT starts TX audio (or its
//! first frame is accepted), the operator's setting back when PTT drops (after a link
//! loss: when the reconnected radio reports PTT off). It also ends transmissions for the
//! web layer: [`release`] (an unkey the radio must confirm) and [`unkey_for_shutdown`],
//! the first step of stopping the server.
//!
//! [`ModInputSwitch`]: crate::web::mod_input::ModInputSwitch

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use crate::radio::answer::Answer;
use crate::radio::command::Command;
use crate::radio::events::RadioEvent;
use crate::radio::executor::EventWatcher;
use crate::web::context::AppCtx;

/// Watches the radio's events for PTT (registered by `app.rs`): it runs in the
/// executor (on the link's CI-V thread), before the change is published, so that
/// nobody sees PTT off while the owner is still set.
pub struct PttWatcher(pub Weak<AppCtx>);

impl EventWatcher for PttWatcher {
    fn on_events(&self, events: &[RadioEvent]) {
        let unkeyed = events.contains(&RadioEvent::Ptt(Some(false)));
        if unkeyed && let Some(app) = self.0.upgrade() {
            app.ptt.clear();
            mod_input_unkeyed(&app);
        }
    }
}

fn submit(app: &Arc<AppCtx>, cmd: Command, then: impl FnOnce(Option<(u8, u8)>) + Send + 'static) {
    let what = format!("{cmd:?}");
    let r = app.radio.submit(cmd, move |r| match r {
        Ok(Answer::ModInput { data_mode, value }) => then(Some((data_mode, value))),
        Ok(other) => {
            log::warn!("MOD input: {what} answered {other:?}");
            then(None);
        }
        Err(e) => {
            log::warn!("MOD input: {what} failed: {e}");
            then(None);
        }
    });
    if let Err(e) = r {
        log::warn!("MOD input: command not queued: {e}");
    }
}

/// A web client's TX audio starts: `audio_start` tx by the owner of a confirmed PTT, or
/// its first frame accepted (once per transmission either way).
pub fn mod_input_tx_started(app: &Arc<AppCtx>) {
    let Some(lan) = app.radio.profile().mod_input.as_ref().map(|m| m.lan) else {
        return;
    };
    let Some(cmd) = app.mod_input.lock().tx_started() else {
        return;
    };
    let a = app.clone();
    submit(app, cmd, move |read| {
        let next = a.mod_input.lock().read_done(read, lan);
        if let Some(set) = next {
            log::info!("MOD input set to LAN for web TX audio");
            submit(&a, set, |_| {});
        }
    });
}

/// PTT dropped: put the operator's MOD input back.
pub fn mod_input_unkeyed(app: &Arc<AppCtx>) {
    let cmd = app.mod_input.lock().unkeyed();
    if let Some(cmd) = cmd {
        log::info!("MOD input restored after web TX audio");
        submit(app, cmd, |_| {});
    }
}

/// Releases PTT (an unkey retried until the radio confirms it); `why` is for the log.
pub fn release(app: &Arc<AppCtx>, why: &'static str) {
    app.ptt.unkeying();
    let r = app.radio.submit(Command::Release, move |r| {
        if let Err(e) = r {
            log::error!("releasing PTT ({why}): {e}");
        }
    });
    if let Err(e) = r {
        log::error!("releasing PTT ({why}) could not be queued: {e}");
    }
}

/// The first step of stopping the server, before any WebSocket is closed: keying is
/// closed for good, TX audio stops, and a transmitter that may be keyed (or is about to
/// be, by a key still on its way) is released; the radio's confirmation is waited for,
/// at most `wait`. A client that does not answer its close frame thus no longer holds
/// the carrier for the close wait.
pub fn unkey_for_shutdown(app: &AppCtx, wait: Duration) {
    let owner = app.ptt.close();
    let (ptt, linked) = app
        .radio
        .store()
        .read(|c| (c.radio.ptt, c.connection.rig_connected));
    if ptt == Some(false) && owner.is_none() {
        return;
    }
    if !linked {
        // nothing can reach the radio now; the engine unkeys first thing if the link
        // comes back before the executor stops
        log::warn!("stopping while PTT may be keyed and the radio link is down");
        return;
    }
    log::info!("stopping: unkeying the transmitter before closing the clients");
    let t = Instant::now();
    let (tx, rx) = crossbeam_channel::bounded(1);
    if let Err(e) = app.radio.submit(Command::Release, move |r| {
        let _ = tx.send(r);
    }) {
        log::error!("stopping: the unkey could not be queued: {e}");
        return;
    }
    match rx.recv_timeout(wait) {
        Ok(Ok(_)) => log::info!("stopping: PTT released in {:?}", t.elapsed()),
        Ok(Err(e)) => log::error!("stopping: releasing PTT failed: {e}"),
        Err(_) => log::error!(
            "stopping: the radio has not confirmed the unkey within {wait:?}; it is retried until the radio link closes"
        ),
    }
}
