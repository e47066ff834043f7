//! The one place rigctld meets the web layer: PTT ownership. A rigctld client owns PTT
//! under the web's `web::ptt::PttArbiter`, in the web's client-id space (another owner
//! is refused, the owner's leaving releases PTT, the radio's unkey clears the owner, a
//! key that ran while the server stops is released). Nothing else in `rigctld/` imports
//! `web/`, so that this file is all there is to re-point when those rules move. (Rate
//! limits and fairness are the radio's: each rigctld client has its own
//! `radio::service::RadioClient`.)

use std::sync::Arc;

pub use crate::web::ptt::Claim;

use crate::radio::command::Command;
use crate::radio::meter_pump::MeterPump;
use crate::radio::service::Radio;
use crate::web::context::AppCtx;

/// The shared server a rigctld client lives in.
#[derive(Clone)]
pub struct Station(Arc<AppCtx>);

impl Station {
    /// The station of the web server's context.
    pub fn new(app: Arc<AppCtx>) -> Station {
        Station(app)
    }

    /// The radio.
    pub fn radio(&self) -> &Arc<Radio> {
        &self.0.radio
    }

    /// The meter pump.
    pub fn meters(&self) -> &Arc<MeterPump> {
        &self.0.meters
    }

    /// A client id from the web's id space (PTT ownership and meter demand use it).
    pub fn client_id(&self) -> u64 {
        self.0.next_client_id()
    }

    /// Client `id` wants to key (`PttArbiter::claim` with the radio's PTT state now).
    pub fn claim_ptt(&self, id: u64) -> Claim {
        let transmitting = self.0.radio.store().read(|c| c.radio.transmitting());
        self.0.ptt.claim(id, transmitting)
    }

    /// Client `id`'s key command ended (`PttArbiter::key_done`); a key that ran after
    /// the server began to stop is released at once (`ptt_watch::release`), as the
    /// WebSocket control channel does.
    pub fn key_done(&self, id: u64, ok: bool) {
        let keyed = self.0.radio.store().read(|c| c.radio.transmitting());
        self.0.ptt.key_done(id, ok, keyed);
        if keyed && self.0.ptt.is_closed() {
            crate::web::ptt_watch::release(&self.0, "a rigctld key that ran during shutdown");
        }
    }

    /// An unkey is on its way (`PttArbiter::unkeying`): TX audio stops now.
    pub fn unkeying(&self) {
        self.0.ptt.unkeying();
    }

    /// Client `id` is gone: if it owns PTT, release it (`Command::Release`, retried by the
    /// engine until the radio confirms) and forget it as the owner, as a WebSocket
    /// control client's close does.
    pub fn release_if_owner(&self, id: u64, who: &str) {
        if self.0.ptt.owner() != Some(id) {
            return;
        }
        log::warn!("{who} left while owning PTT: releasing PTT");
        self.0.ptt.unkeying();
        let app = self.0.clone();
        let r = self.0.radio.submit(Command::Release, move |r| {
            if let Err(e) = r {
                log::error!("releasing PTT after the owner left: {e}");
            }
            app.ptt.release_if_owner(id);
        });
        if let Err(e) = r {
            log::error!("releasing PTT after the owner left could not be queued: {e}");
        }
    }
}
