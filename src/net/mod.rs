//! Small OS helpers shared by the socket-owning threads: waiting on several file
//! descriptors at once ([`poll`]), waking a thread that waits ([`waker`]) and a client
//! stream that is plain TCP or TLS ([`transport`]).

pub mod poll;
pub mod transport;
pub mod waker;
