//! The radio: typed state with a revision counter, the single-owner command
//! executor, scope sweep assembly, meters and audio codec conversion.

mod actions;
pub mod apply;
pub mod audio;
pub mod audio_dsp;
pub mod audio_pump;
pub mod command;
pub mod command_table;
pub mod error;
pub mod executor;
mod fetch;
pub mod meter_pump;
pub mod meters;
pub mod request;
pub mod scope;
pub mod scope_pump;
pub mod service;
pub mod state;
