//! Answers as bytes, in the formats Hamlib 4.5's `rigctld` writes them (checked against
//! it, `rigctld -m 1`): a get answers its bare values one per line, a set `RPRT 0`, an
//! error `RPRT -n`; the extended formats (`+`, `;`, `|`) answer `name: args`, then
//! `Label: value` records, then `RPRT n`, the records separated by newlines or by the
//! prefix character (the line then ends with the `RPRT` record's newline).

use super::hamlib::RigError;
use super::parse::{Format, Request};

/// What a command answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Values of a get: `(label, value)`; an empty label prints the value alone in the
    /// extended format (as `get_level` does).
    Values(Vec<(&'static str, String)>),
    /// A set that succeeded.
    Done,
    /// A failure.
    Failed(RigError),
    /// `\chk_vfo`'s answer (its own shape: `0`, or `ChkVFO: 0`).
    ChkVfo(u8),
    /// Text sent as it is (`\dump_state`).
    Text(String),
}

impl Reply {
    /// One value with `label`.
    pub fn value(label: &'static str, v: impl ToString) -> Reply {
        Reply::Values(vec![(label, v.to_string())])
    }

    /// The status of the reply.
    pub fn status(&self) -> i32 {
        match self {
            Reply::Failed(e) => e.code(),
            _ => 0,
        }
    }
}

impl From<Result<Reply, RigError>> for Reply {
    fn from(r: Result<Reply, RigError>) -> Reply {
        r.unwrap_or_else(Reply::Failed)
    }
}

/// Writes the answer to `req` into `out`.
pub fn render(req: &Request, reply: &Reply, out: &mut String) {
    use std::fmt::Write;
    if req.name.is_empty() {
        // an unknown command: nothing to name in a header
        let _ = writeln!(out, "RPRT {}", reply.status());
        return;
    }
    match req.format {
        Format::Plain => match reply {
            Reply::Values(v) => {
                for (_, value) in v {
                    out.push_str(value);
                    out.push('\n');
                }
            }
            Reply::Done | Reply::Failed(_) => {
                let _ = writeln!(out, "RPRT {}", reply.status());
            }
            Reply::ChkVfo(n) => {
                let _ = writeln!(out, "{n}");
            }
            Reply::Text(t) => out.push_str(t),
        },
        Format::Extended(sep) => {
            let sep = char::from(sep);
            if let Reply::ChkVfo(n) = reply {
                let _ = writeln!(out, "ChkVFO: {n}");
                return;
            }
            out.push_str(req.name);
            out.push(':');
            for a in &req.args {
                out.push(' ');
                out.push_str(a);
            }
            out.push(sep);
            match reply {
                Reply::Values(v) => {
                    for (label, value) in v {
                        if !label.is_empty() {
                            out.push_str(label);
                            out.push_str(": ");
                        }
                        out.push_str(value);
                        out.push(sep);
                    }
                }
                Reply::Text(t) if sep == '\n' => out.push_str(t),
                Reply::Text(t) => {
                    for line in t.lines() {
                        out.push_str(line);
                        out.push(sep);
                    }
                }
                _ => {}
            }
            let _ = writeln!(out, "RPRT {}", reply.status());
        }
    }
}

/// A frequency as Hamlib prints it (whole hertz).
pub fn hz(f: u64) -> String {
    f.to_string()
}

/// A float level as Hamlib prints it (`%f`).
pub fn float(v: f64) -> String {
    format!("{v:.6}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigctld::parse::parse_line;

    fn answer(line: &str, reply: Reply) -> String {
        let req = &parse_line(line.as_bytes())[0];
        let mut out = String::new();
        render(req, &reply, &mut out);
        out
    }

    fn freq() -> Reply {
        Reply::value("Frequency", hz(14_074_000))
    }

    #[test]
    fn plain_answers() {
        assert_eq!(answer("f", freq()), "14074000\n");
        let mode = Reply::Values(vec![("Mode", "USB".into()), ("Passband", "2400".into())]);
        assert_eq!(answer("m", mode), "USB\n2400\n");
        assert_eq!(answer("F 7074000", Reply::Done), "RPRT 0\n");
        assert_eq!(
            answer("F 7074000", Reply::Failed(RigError::Rejected)),
            "RPRT -9\n"
        );
        assert_eq!(answer("\\chk_vfo", Reply::ChkVfo(0)), "0\n");
        assert_eq!(
            answer("zz", Reply::Failed(RigError::NotImplemented)),
            "RPRT -4\n"
        );
    }

    #[test]
    fn extended_answers_as_hamlib_writes_them() {
        assert_eq!(
            answer("+f", freq()),
            "get_freq:\nFrequency: 14074000\nRPRT 0\n"
        );
        assert_eq!(
            answer(";f", freq()),
            "get_freq:;Frequency: 14074000;RPRT 0\n"
        );
        assert_eq!(
            answer("|f", freq()),
            "get_freq:|Frequency: 14074000|RPRT 0\n"
        );
        assert_eq!(
            answer("+F 14074000", Reply::Done),
            "set_freq: 14074000\nRPRT 0\n"
        );
        assert_eq!(
            answer("+F abc", Reply::Failed(RigError::InvalidParam)),
            "set_freq: abc\nRPRT -1\n"
        );
        assert_eq!(
            answer("+l STRENGTH", Reply::value("", -45)),
            "get_level: STRENGTH\n-45\nRPRT 0\n"
        );
        assert_eq!(answer("+\\chk_vfo", Reply::ChkVfo(0)), "ChkVFO: 0\n");
        assert_eq!(
            answer(";\\dump_state", Reply::Text("1\n2\n".into())),
            "dump_state:;1;2;RPRT 0\n"
        );
    }

    #[test]
    fn numbers_as_hamlib_prints_them() {
        assert_eq!(float(0.5), "0.500000");
        assert_eq!(float(23.4375), "23.437500");
    }
}
