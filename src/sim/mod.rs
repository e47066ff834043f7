//! The simulated radio: a pure, deterministic, sans-IO model of an Icom transceiver.
//!
//! * [`rig`]: the CI-V brain ([`SimRig`]): per-model state from a
//!   [`Profile`](crate::profile::Profile), command handling with ACK/NAK semantics,
//!   command 29, band stacking registers, meters, PTT, power standby, transceive
//!   broadcasts, scope control and `27 00` sweep generation.
//! * [`band`]: the synthetic band (CW, SSB, AM broadcast, FT8, FM, beacons, noise),
//!   deterministic from a seed and the time; the one source of the scope, the S-meter
//!   and the RX audio.
//! * [`spectrum`]: scope pixels from the band.
//! * [`audio_synth`]: RX audio from the band, through each receiver's mode and filter.
//! * [`frontend`]: attenuator, preamp, receiver noise and the S-meter scale.
//! * [`rng`]: the deterministic randomness everything above uses.
//!
//! The LAN side of the radio:
//! * [`server`]: the three UDP ports on one `poll(2)` thread, commands from the handle;
//!   [`config`]: its settings, addresses and counters;
//! * [`protocol`] and `streams`: the radio side of the LAN protocol for every client,
//!   sans-IO (login and credential check, token kinds, GUID echo, held sessions, codec
//!   rules, CI-V and audio ports);
//! * [`client`]: what the radio keeps per client;
//! * [`faults`]: loss, duplication, reordering, delay and silence.
//!
//! The LAN server feeds [`SimRig::handle`] with CI-V frames, forwards what
//! [`SimRig::poll`] produces and streams [`SimRig::render_audio`].

pub mod audio_synth;
pub mod band;
pub mod client;
pub mod config;
mod control_port;
pub mod faults;
pub mod frontend;
pub mod protocol;
pub mod rig;
pub mod rng;
pub mod server;
pub mod spectrum;
mod streams;

#[cfg(test)]
pub(crate) mod testutil;

pub use rig::{PanelAction, RigSnapshot, SimRig, SimRigConfig};
