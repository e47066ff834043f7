//! A Hamlib NET rigctl server ("rigctld", Hamlib model 2), so that WSJT-X, JS8Call,
//! fldigi and loggers control the radio beside the web clients.
//!
//! ```text
//!   socket ─► conn (thread per client) ─► client ─► parse ─► respond::plan(View) ─► reply
//!                                            │                    │
//!                                            │      Steps: command-table names + params
//!                                            ▼
//!     table::parse + check_against ─► RadioClient (the client's queue, rate limits) ─► engine
//!                                     web_rules: PTT ownership
//! ```
//!
//! The protocol core is sans-IO: [`parse`] turns a line into typed requests, [`respond`]
//! answers a request from a [`view::View`] of the state (reads) or plans the
//! command-table commands of a set, [`reply`] renders answers in Hamlib's formats. The
//! threads ([`server`], [`conn`]) are thin shells; [`client`] runs a client's sets the
//! way the WebSocket control channel runs a `cmd` (its own queue and rate limits at the
//! radio), and [`web_rules`] is the one file that reaches into the web layer (PTT
//! ownership).

pub mod allow;
pub mod client;
pub mod conn;
pub mod dump_state;
pub mod hamlib;
pub mod levels;
pub mod meter_tap;
pub mod overlay;
pub mod parse;
pub mod reply;
pub mod respond;
pub mod server;
pub mod view;
pub mod web_rules;

use std::net::SocketAddr;

pub use allow::AllowList;
pub use server::RigctldServer;

/// Where rigctld listens and who may connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RigctldConfig {
    /// `--rigctld ADDR:PORT`.
    pub listen: SocketAddr,
    /// `--rigctld-allow CIDR` (loopback is always allowed).
    pub allow: AllowList,
}
