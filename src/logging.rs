//! Logging setup (simplelog): level from `--log-level`, timestamps in UTC, our own
//! modules at the chosen level and chatty dependencies one level quieter. Secrets are
//! never passed to the logger (see `web::auth::redact`).

use simplelog::{ColorChoice, ConfigBuilder, LevelFilter, TermLogger, TerminalMode};

/// Installs the logger; a second call is ignored.
pub fn init(level: LevelFilter) {
    let mut b = ConfigBuilder::new();
    b.set_target_level(LevelFilter::Off)
        .set_thread_level(LevelFilter::Off)
        .set_time_format_rfc3339()
        .add_filter_ignore_str("tiny_http")
        .add_filter_ignore_str("tungstenite");
    let _ = TermLogger::init(level, b.build(), TerminalMode::Stderr, ColorChoice::Auto);
}
