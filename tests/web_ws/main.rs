//! The control WebSocket against the running server: hello, subscribe and snapshots,
//! deltas that rebuild the state, events, every command, validation, rate limiting,
//! PTT ownership and release, several clients, front-panel changes, streams.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod commands;
mod ptt;
mod state;

use std::time::Duration;

use rigweb::app::Tuning;
use serde_json::{Map, Value};

use common::web::*;

fn server(model: &str) -> rigweb::app::Running {
    start_server(serve_config(model, None), Tuning::default())
}

/// Whether the simulated radio transmits.
fn sim_ptt(srv: &rigweb::app::Running) -> bool {
    srv.sim.as_ref().unwrap().snapshot().unwrap().ptt
}

/// The simulated radio's frequency of receiver `r` (its active VFO).
fn sim_freq(srv: &rigweb::app::Running, r: usize) -> u64 {
    let snap = srv.sim.as_ref().unwrap().snapshot().unwrap();
    let rx = &snap.receivers[r];
    rx.vfo[usize::from(rx.active_vfo)].freq_hz
}

/// Reads responses until every id in `ids` has one; returns them by id.
fn responses(ws: &mut Ws, ids: &[&str]) -> Map<String, Value> {
    let mut got = Map::new();
    while got.len() < ids.len() {
        let r = ws
            .until(Duration::from_secs(10), |v| v["type"] == "response")
            .expect("a response per command");
        got.insert(r["id"].as_str().unwrap().to_string(), r);
    }
    got
}
