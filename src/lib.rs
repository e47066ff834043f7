//! rigweb: a small, fast web server for Icom transceivers over their LAN protocol.
//!
//! The crate is laid out as `docs/ARCHITECTURE.md` describes: pure byte layouts in
//! [`wire`], sans-IO LAN sessions and their socket threads in [`lan`], the typed
//! radio state and the single-owner command executor in [`radio`], rig profiles in
//! [`profile`] and the simulated radio in [`sim`].

pub mod profile;
pub mod radio;
pub mod sim;
pub mod wire;
