//! rigweb: a small, fast web server for Icom transceivers over their LAN protocol.
//!
//! The crate is laid out as `docs/ARCHITECTURE.md` describes: pure byte layouts in
//! [`wire`], sans-IO LAN sessions and their socket threads in [`lan`], the typed
//! radio state and the single-owner command executor in [`radio`], fan-out primitives
//! in [`hub`], the HTTP/WebSocket server in [`web`], the Hamlib NET rigctl server in
//! [`rigctld`], the ALSA audio bridge in [`bridge`], rig profiles in [`profile`] and the
//! simulated radio in [`sim`]; station data for the waterfall (DX spots, band plans, the
//! EiBi schedule) in [`station`].

pub mod app;
pub mod bridge;
pub mod cli;
pub mod config;
pub mod config_file;
pub mod dsp;
pub mod hub;
pub mod lan;
pub mod logging;
pub mod metrics;
pub mod net;
pub mod profile;
pub mod radio;
pub mod rigctld;
pub mod sd_notify;
pub mod signals;
pub mod sim;
pub mod station;
pub mod util;
pub mod web;
pub mod wire;
