//! Fan-out primitives between the radio side and the clients: a bounded
//! latest-wins queue for stream frames ([`LatestWins`]) and a publisher that copies
//! each frame to every subscriber's queue ([`Fanout`]). A slow subscriber loses old
//! frames, never delays the publisher or anybody else.

mod fanout;
mod latest_wins;

pub use fanout::{Fanout, Subscription};
pub use latest_wins::LatestWins;
