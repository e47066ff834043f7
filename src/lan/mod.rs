//! The Icom LAN link. `session/` holds what is pure: the sans-IO sessions of the
//! control, CI-V and audio ports (they take datagrams and the current time, and return
//! datagrams and events), the stream and receive window under them, and the link's
//! policy (when to connect, back off, give up). `shell/` holds the three socket threads
//! that drive them and what those threads share. The re-exports name the modules the
//! rest of the server uses where it finds them (`lan::link`, `lan::control`, ...).

pub mod session;
pub mod shell;

pub use session::{audio_client, civ_client, control, discovery, port, rx_window, stream};
pub use shell::link;
