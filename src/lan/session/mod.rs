//! The link's sans-IO machines: the sessions of the control, CI-V and audio ports,
//! discovery, the stream and its receive window, the link's vocabulary and the
//! supervisor's policy. No socket, thread or clock in here.

pub mod audio_client;
pub mod civ_client;
pub mod control;
pub mod discovery;
pub mod link_policy;
pub mod link_state;
pub mod port;
pub mod recovery;
pub mod rx_window;
pub mod stream;
