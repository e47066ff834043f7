//! The simulated radio: a pure, deterministic, sans-IO model of an Icom transceiver.
//!
//! * [`band`]: the synthetic band (CW, SSB, AM broadcast, FT8, FM, beacons, noise),
//!   deterministic from a seed and the time.
//! * [`spectrum`]: scope pixels from the band.
//! * [`frontend`]: attenuator, preamp, receiver noise and the S-meter scale.
//! * [`rng`]: the deterministic randomness everything above uses.

pub mod band;
pub mod frontend;
pub mod rng;
pub mod spectrum;
