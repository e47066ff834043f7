//! Small helpers without a better home: time formatting, JSON diffs, strict JSON
//! parsing of untrusted input, rate limiting of repeated log lines, integer socket
//! options, the timer table of sans-IO machines and the macro that declares closed
//! vocabularies.

mod ct;
pub mod json_diff;
pub mod log_limit;
pub mod random;
mod secret;
pub mod sockopt;
pub mod strict_json;
pub mod time;
pub mod timer_table;
pub mod vocabulary;

pub use ct::constant_time_eq;
pub use secret::Secret;
