//! What the server calls itself: name and versions in `hello` and `/api/v1/info`.

/// Server name in `hello` and `/api/v1/info`.
pub const SERVER_NAME: &str = "rigweb";
/// Server version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// Protocol version (interface.md §9).
pub const PROTO: u32 = 1;
