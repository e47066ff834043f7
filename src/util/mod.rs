//! Small helpers without a better home: time formatting, JSON diffs and strict JSON
//! parsing of untrusted input.

mod ct;
pub mod json_diff;
pub mod random;
mod secret;
pub mod strict_json;
pub mod time;

pub use ct::constant_time_eq;
pub use secret::Secret;
