//! The radio's state: the typed content ([`content`]) and as its one writer holds it
//! ([`tracked`]: each change recorded with its events). The store that publishes it
//! with its revision, deltas and subscribers is the shell's (`state_store`).

pub mod apply;
mod check;
mod content;
pub mod events;
mod tracked;

pub use check::{check_against, cw_mode_allows, encode_write, tx_vfo};
pub use content::{
    Connection, RadioDetail, RadioState, RadioStatus, ReceiverState, ScopeState, Selected,
    StateContent, VfoState, WsClients,
};
pub use tracked::{StateUpdate, TrackedState};
