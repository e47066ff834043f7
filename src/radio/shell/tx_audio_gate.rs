//! The gate of web TX audio that its senders hold: the engine's decisions
//! ([`TxAudio`](crate::radio::engine::tx_audio::TxAudio)) applied by the executor, and
//! closed at once by the service when an unkey is submitted.

use parking_lot::{Mutex, MutexGuard};

use crate::radio::engine::tx_audio::TxFramer;

/// Whether TX audio may reach the radio, whatever sends it: closed the moment anything
/// asks for the transmitter to go off (`ptt false`, a release for any reason — an owner
/// gone, the transmit timeout, PTT in doubt, shutdown —, power off, disconnect), before
/// the radio confirms; opened again only when the engine sees the transmitter keyed
/// with no release outstanding. Sending holds the lock, so once [`TxAudioGate::close`]
/// returns no more TX audio is handed to the link.
#[derive(Debug, Default)]
pub struct TxAudioGate {
    state: Mutex<TxAudioState>,
}

/// What [`TxAudioGate`] guards.
#[derive(Debug, Default)]
pub struct TxAudioState {
    /// TX audio may be sent (while the radio transmits).
    pub open: bool,
    /// The current transmission's framer (none before its first samples).
    pub framer: Option<TxFramer>,
}

impl TxAudioGate {
    /// An unkey was asked for: no more TX audio.
    pub fn close(&self) {
        self.state.lock().open = false;
    }

    /// The transmitter was keyed (and no unkey is on its way).
    pub fn open(&self) {
        self.state.lock().open = true;
    }

    /// True unless an unkey was asked for since the transmitter was last keyed.
    pub fn is_open(&self) -> bool {
        self.state.lock().open
    }

    /// The gate's state, locked (sending happens under it).
    pub fn lock(&self) -> MutexGuard<'_, TxAudioState> {
        self.state.lock()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_opens_and_closes() {
        let g = TxAudioGate::default();
        assert!(!g.is_open(), "closed until the transmitter is keyed");
        g.open();
        assert!(g.lock().open);
        g.close();
        assert!(!g.is_open());
    }
}
