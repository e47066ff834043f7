//! Small helpers without a better home: time formatting, JSON diffs and strict JSON
//! parsing of untrusted input.

pub mod json_diff;
pub mod random;
mod secret;
pub mod strict_json;
pub mod time;

pub use secret::Secret;
