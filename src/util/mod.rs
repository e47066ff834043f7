//! Small helpers without a better home: time formatting and JSON diffs.

pub mod json_diff;
pub mod time;
