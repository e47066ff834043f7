//! The radio's state: the typed content ([`content`]) and the store that holds it with
//! its revision, deltas and subscribers ([`store`]).

mod content;
mod store;

pub use content::{
    Connection, RadioDetail, RadioState, RadioStatus, ReceiverState, ScopeState, Selected,
    StateContent, VfoState, WsClients,
};
pub use store::{Snapshot, StateChange, StateSink, StateStore};
