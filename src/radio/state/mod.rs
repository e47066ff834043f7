//! The radio's state: the typed content ([`content`]), as its one writer holds it
//! ([`tracked`]: each change recorded with its events) and as the store publishes it
//! with its revision, deltas and subscribers ([`store`]).

pub mod apply;
mod check;
mod content;
pub mod events;
mod store;
mod tracked;

pub use check::{check_against, cw_mode_allows, encode_write, tx_vfo};
pub use content::{
    Connection, RadioDetail, RadioState, RadioStatus, ReceiverState, ScopeState, Selected,
    StateContent, VfoState, WsClients,
};
pub use store::{Snapshot, StateChange, StateSink, StateStore};
pub use tracked::{StateUpdate, TrackedState};
