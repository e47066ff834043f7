//! The radio's state: the typed content ([`content`]) and the store that holds it with
//! its revision, deltas and subscribers ([`store`]).

mod content;
mod store;

pub use content::{
    Agc, Connection, RadioDetail, RadioState, RadioStatus, ReceiverState, ScopeSpeed, ScopeState,
    Selected, StateContent, Tuner, VfoState, WsClients,
};
pub use store::{Snapshot, StateChange, StateSink, StateStore};
