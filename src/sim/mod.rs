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
//! No networking lives here: the LAN server feeds [`SimRig::handle`] with CI-V frames,
//! forwards what [`SimRig::poll`] produces and streams [`SimRig::render_audio`].

pub mod audio_synth;
pub mod band;
pub mod frontend;
pub mod rig;
pub mod rng;
pub mod spectrum;

#[cfg(test)]
pub(crate) mod testutil;

pub use rig::{PanelAction, RigSnapshot, SimRig, SimRigConfig};
