//! Logging setup: level from `--log-level`, our own modules at the chosen level and the
//! chatty dependencies left out. Secrets are never passed to the logger (see
//! `web::auth::redact`).
//!
//! Three sinks, chosen by where stderr goes:
//! * journald (`$JOURNAL_STREAM` names stderr): one line per record with the level as a
//!   syslog priority prefix (`<3>` error … `<7>` debug), no timestamp (the journal has it);
//! * a terminal: simplelog with colours and RFC 3339 timestamps;
//! * anything else (a file, a pipe): the same without ANSI colour codes.

use std::io::{IsTerminal, Write};
use std::os::fd::AsRawFd;

use log::{Level, LevelFilter, Log, Metadata, Record};
use simplelog::{ColorChoice, ConfigBuilder, TermLogger, TerminalMode};

/// Dependencies whose records are left out.
const IGNORED: &[&str] = &["tiny_http", "tungstenite"];

/// Installs the logger; a second call is ignored.
pub fn init(level: LevelFilter) {
    if stderr_is_journal(std::env::var("JOURNAL_STREAM").ok().as_deref()) {
        if log::set_boxed_logger(Box::new(JournalLogger { level })).is_ok() {
            log::set_max_level(level);
        }
        return;
    }
    let mut b = ConfigBuilder::new();
    b.set_target_level(LevelFilter::Off)
        .set_thread_level(LevelFilter::Off)
        .set_time_format_rfc3339();
    for dep in IGNORED {
        b.add_filter_ignore_str(dep);
    }
    let color = if std::io::stderr().is_terminal() {
        ColorChoice::Auto
    } else {
        ColorChoice::Never
    };
    let _ = TermLogger::init(level, b.build(), TerminalMode::Stderr, color);
}

/// True when `journal_stream` (`$JOURNAL_STREAM`, "DEVICE:INODE") is the file stderr
/// is: systemd sets it for a service's output, and a child whose stderr was redirected
/// inherits the variable but not the stream.
pub fn stderr_is_journal(journal_stream: Option<&str>) -> bool {
    let Some((dev, ino)) = journal_stream.and_then(|v| v.split_once(':')) else {
        return false;
    };
    let (Ok(dev), Ok(ino)) = (dev.parse::<u64>(), ino.parse::<u64>()) else {
        return false;
    };
    // SAFETY: fstat on our own stderr descriptor into a zeroed stat buffer.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(std::io::stderr().as_raw_fd(), &mut st) } != 0 {
        return false;
    }
    st.st_dev as u64 == dev && st.st_ino as u64 == ino
}

/// The syslog priority journald reads from a `<N>` line prefix.
pub fn priority(level: Level) -> u8 {
    match level {
        Level::Error => 3,
        Level::Warn => 4,
        Level::Info => 6,
        Level::Debug | Level::Trace => 7,
    }
}

/// Writes `<N>message` lines to stderr for journald.
struct JournalLogger {
    level: LevelFilter,
}

impl Log for JournalLogger {
    fn enabled(&self, m: &Metadata) -> bool {
        m.level() <= self.level && !IGNORED.iter().any(|d| m.target().starts_with(d))
    }

    fn log(&self, r: &Record) {
        if self.enabled(r.metadata()) {
            // one write per record, so that lines of two threads never interleave
            let line = format!("<{}>{}\n", priority(r.level()), r.args());
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
        }
    }

    fn flush(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_follow_syslog() {
        assert_eq!(priority(Level::Error), 3);
        assert_eq!(priority(Level::Warn), 4);
        assert_eq!(priority(Level::Info), 6);
        assert_eq!(priority(Level::Trace), 7);
    }

    #[test]
    fn journal_stream_must_name_stderr() {
        assert!(!stderr_is_journal(None));
        assert!(!stderr_is_journal(Some("garbage")));
        assert!(!stderr_is_journal(Some("1:x")));
        // SAFETY: fstat on our own stderr into a zeroed buffer.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::fstat(2, &mut st) }, 0);
        let me = format!("{}:{}", st.st_dev, st.st_ino);
        assert!(stderr_is_journal(Some(&me)));
        let other = format!("{}:{}", st.st_dev, st.st_ino + 1);
        assert!(!stderr_is_journal(Some(&other)));
    }
}
