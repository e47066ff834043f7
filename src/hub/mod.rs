//! Fan-out primitives between the radio side and the clients: a bounded
//! latest-wins queue for stream frames ([`LatestWins`]), a publisher that hands each
//! frame to every subscriber ([`Fanout`]), and a client's numbered, filtered end of a
//! stream ([`Tap`]). A slow subscriber loses old frames, never delays the publisher or
//! anybody else.

mod fanout;
mod latest_wins;
mod tap;

pub use fanout::{Discard, Fanout, Subscriber, Subscription};
pub use latest_wins::LatestWins;
pub use tap::{Tap, TapFilter};
