//! The radio: typed state with a revision counter, the command table, the sans-IO
//! command engine and its executor thread, scope sweep assembly, meters and audio codec
//! conversion.

pub mod apply;
pub mod audio;
pub mod audio_dsp;
pub mod audio_pump;
pub mod audio_rx;
pub mod command;
pub mod dispatch;
pub mod engine;
pub mod error;
pub mod events;
pub mod executor;
pub mod meter_pump;
pub mod meters;
pub mod request;
pub mod scope;
pub mod scope_pump;
pub mod service;
pub mod state;
pub mod table;
