//! The radio's state: the typed content ([`content`]), as its one writer holds it
//! ([`tracked`]: each change recorded with its events) and as the store publishes it
//! with its revision, deltas and subscribers ([`store`]).

mod content;
mod store;
mod tracked;

pub use content::{
    Connection, RadioDetail, RadioState, RadioStatus, ReceiverState, ScopeState, Selected,
    StateContent, VfoState, WsClients,
};
pub use store::{Snapshot, StateChange, StateSink, StateStore};
pub use tracked::{StateUpdate, TrackedState};
