//! The link's threads: one per UDP socket (control, CI-V, audio), each owning its
//! socket and the session of its port; the control thread carries out the link's
//! policy ([`crate::lan::session::link_policy`]).

pub mod link;
mod link_ports;
mod link_shared;
mod supervisor;
