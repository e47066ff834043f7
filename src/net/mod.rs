//! Small OS helpers shared by the socket-owning threads: waiting on several file
//! descriptors at once ([`poll`]) and waking a thread that waits ([`waker`]).

pub mod poll;
pub mod waker;
