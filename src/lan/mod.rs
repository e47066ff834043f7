//! The Icom LAN link: sans-IO sessions (this module's state machines take datagrams
//! and the current time, and return datagrams and events) and the socket threads
//! that drive them.

pub mod audio_client;
pub mod civ_client;
pub mod control;
pub mod discovery;
pub mod link;
mod link_policy;
mod link_ports;
mod link_state;
pub mod port;
pub mod rx_window;
pub mod stream;
mod supervisor;
