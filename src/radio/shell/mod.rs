//! The radio layer's threaded shell: the threads and locks around the sans-IO machines
//! (`engine`, `dispatch`, `state`, `table`). The executor drives the engine on the
//! link's CI-V thread and publishes its state; the pumps feed scope sweeps, meter polls
//! and audio between the link and their fan-outs; the service starts and stops them and
//! is what the rest of the server talks to.

pub mod audio_dsp;
pub mod audio_pump;
pub mod audio_rx;
pub mod dispatch_shared;
pub mod executor;
pub mod meter_pump;
pub mod scope_pump;
pub mod service;
pub mod state_store;
pub mod tx_audio_gate;
