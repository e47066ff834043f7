//! The simulated radio: a pure, deterministic, sans-IO model of an Icom transceiver.
//!
//! * [`band`]: the synthetic band (CW, SSB, AM broadcast, FT8, FM, beacons, noise),
//!   deterministic from a seed and the time; the one source of the scope, the S-meter
//!   and the RX audio.
//! * [`spectrum`]: scope pixels from the band.
//! * [`audio_synth`]: RX audio from the band, through each receiver's mode and filter.
//! * [`frontend`]: attenuator, preamp, receiver noise and the S-meter scale.
//! * [`rng`]: the deterministic randomness everything above uses.

pub mod audio_synth;
pub mod band;
pub mod frontend;
pub mod rng;
pub mod spectrum;

#[cfg(test)]
pub(crate) mod testutil;
