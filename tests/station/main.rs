//! Station data against real counterparts on 127.0.0.1 that the tests start themselves:
//! DX-cluster nodes replaying transcripts (`cluster.rs`), an HTTP server with EiBi
//! season files (`http.rs`); the band plans against the profiles; and the routes of
//! the whole server.

#[path = "../common/mod.rs"]
mod common;

mod band_plan;
mod cluster;
mod dx;
mod eibi;
mod http;
mod routes;
