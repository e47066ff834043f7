//! Small helpers without a better home: time formatting and JSON diffs.

pub mod json_diff;
mod secret;
pub mod time;

pub use secret::Secret;
