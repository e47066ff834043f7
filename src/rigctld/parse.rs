//! Lines of the NET rigctl protocol into typed requests, as Hamlib's `rigctl_parse`
//! reads them: a line holds one or more commands (`f`, `fm`, `F 14074000 f`), each a
//! one-character name or a `\long_name`, optionally prefixed by `+` (extended answer,
//! records separated by newlines) or `;` / `|` (the same records on one line), followed
//! by as many whitespace-separated arguments as the command takes. An unknown command
//! ends the line (its arguments cannot be told from the next command); a missing or
//! malformed argument is `RPRT -1`. Nothing here is silent: every command read gets an
//! answer.

use super::hamlib::{RigError, VfoName};

/// How a command wants its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Bare values, or `RPRT n` for sets and errors.
    Plain,
    /// `name: args`, `Label: value` records and `RPRT n`, separated by this byte.
    Extended(u8),
}

/// A command with its checked arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum RigCmd {
    /// `f`.
    GetFreq,
    /// `F Hz`.
    SetFreq(u64),
    /// `m`.
    GetMode,
    /// `M mode passband`.
    SetMode(String, i64),
    /// `v`.
    GetVfo,
    /// `V vfo`.
    SetVfo(VfoName),
    /// `t`.
    GetPtt,
    /// `T 0|1|2|3` (keyed: true for 1, 2 and 3).
    SetPtt(bool),
    /// `s`.
    GetSplitVfo,
    /// `S split txvfo`.
    SetSplitVfo(bool, VfoName),
    /// `i`.
    GetSplitFreq,
    /// `I Hz`.
    SetSplitFreq(u64),
    /// `x`.
    GetSplitMode,
    /// `X mode passband`.
    SetSplitMode(String, i64),
    /// `l LEVEL`.
    GetLevel(String),
    /// `L LEVEL value`.
    SetLevel(String, f64),
    /// `u FUNC`.
    GetFunc(String),
    /// `U FUNC 0|1`.
    SetFunc(String, bool),
    /// `G op`.
    VfoOp(String),
    /// `\dump_state`.
    DumpState,
    /// `\chk_vfo`.
    ChkVfo,
    /// `\get_vfo_info vfo`.
    GetVfoInfo(VfoName),
    /// `\power2mW power freq mode`.
    Power2mW(f64),
    /// `\mW2power mW freq mode`.
    MW2Power(f64),
    /// `\get_powerstat`.
    GetPowerstat,
    /// `\set_powerstat 0|1|2|4`.
    SetPowerstat(bool),
    /// `\get_lock_mode`.
    GetLockMode,
    /// `\set_lock_mode n`.
    SetLockMode(bool),
    /// `q` / `Q`.
    Quit,
}

/// One command of a line.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// How to answer.
    pub format: Format,
    /// Hamlib's long name (`get_freq`), empty for an unknown command.
    pub name: &'static str,
    /// The arguments as sent (echoed in the extended answer's first record).
    pub args: Vec<String>,
    /// The command, or why it cannot run.
    pub cmd: Result<RigCmd, RigError>,
}

type Build = fn(&[&str]) -> Result<RigCmd, RigError>;

/// One command of the protocol: short name (if it has one), long name, argument count.
struct Def {
    short: Option<u8>,
    long: &'static str,
    args: usize,
    build: Build,
}

const fn def(short: Option<u8>, long: &'static str, args: usize, build: Build) -> Def {
    Def {
        short,
        long,
        args,
        build,
    }
}

fn hz(s: &str) -> Result<u64, RigError> {
    // Hamlib sends frequencies as floats ("14074000.000000"); "%lf" takes exponents too
    match s.parse::<f64>() {
        Ok(f) if f.is_finite() && (0.0..1e12).contains(&f) => Ok(f.round() as u64),
        _ => Err(RigError::InvalidParam),
    }
}

fn number(s: &str) -> Result<f64, RigError> {
    s.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .ok_or(RigError::InvalidParam)
}

fn int(s: &str) -> Result<i64, RigError> {
    s.parse::<i64>().map_err(|_| RigError::InvalidParam)
}

fn vfo(s: &str) -> Result<VfoName, RigError> {
    VfoName::parse(s).ok_or(RigError::InvalidVfo)
}

fn flag(s: &str) -> Result<bool, RigError> {
    match int(s)? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(RigError::InvalidParam),
    }
}

fn passband(s: &str) -> Result<i64, RigError> {
    // WSJT-X may send "None"-like words for "no change"
    Ok(s.parse::<f64>().map_or(-1, |p| p.round() as i64))
}

static DEFS: &[Def] = &[
    def(Some(b'f'), "get_freq", 0, |_| Ok(RigCmd::GetFreq)),
    def(Some(b'F'), "set_freq", 1, |a| {
        Ok(RigCmd::SetFreq(hz(a[0])?))
    }),
    def(Some(b'm'), "get_mode", 0, |_| Ok(RigCmd::GetMode)),
    def(Some(b'M'), "set_mode", 2, |a| {
        Ok(RigCmd::SetMode(a[0].to_string(), passband(a[1])?))
    }),
    def(Some(b'v'), "get_vfo", 0, |_| Ok(RigCmd::GetVfo)),
    def(Some(b'V'), "set_vfo", 1, |a| Ok(RigCmd::SetVfo(vfo(a[0])?))),
    def(Some(b't'), "get_ptt", 0, |_| Ok(RigCmd::GetPtt)),
    def(Some(b'T'), "set_ptt", 1, |a| match int(a[0])? {
        0 => Ok(RigCmd::SetPtt(false)),
        1..=3 => Ok(RigCmd::SetPtt(true)),
        _ => Err(RigError::InvalidParam),
    }),
    def(Some(b's'), "get_split_vfo", 0, |_| Ok(RigCmd::GetSplitVfo)),
    def(Some(b'S'), "set_split_vfo", 2, |a| {
        Ok(RigCmd::SetSplitVfo(flag(a[0])?, vfo(a[1])?))
    }),
    def(Some(b'i'), "get_split_freq", 0, |_| {
        Ok(RigCmd::GetSplitFreq)
    }),
    def(Some(b'I'), "set_split_freq", 1, |a| {
        Ok(RigCmd::SetSplitFreq(hz(a[0])?))
    }),
    def(Some(b'x'), "get_split_mode", 0, |_| {
        Ok(RigCmd::GetSplitMode)
    }),
    def(Some(b'X'), "set_split_mode", 2, |a| {
        Ok(RigCmd::SetSplitMode(a[0].to_string(), passband(a[1])?))
    }),
    def(Some(b'l'), "get_level", 1, |a| {
        Ok(RigCmd::GetLevel(a[0].to_string()))
    }),
    def(Some(b'L'), "set_level", 2, |a| {
        Ok(RigCmd::SetLevel(a[0].to_string(), number(a[1])?))
    }),
    def(Some(b'u'), "get_func", 1, |a| {
        Ok(RigCmd::GetFunc(a[0].to_string()))
    }),
    def(Some(b'U'), "set_func", 2, |a| {
        Ok(RigCmd::SetFunc(a[0].to_string(), int(a[1])? != 0))
    }),
    def(Some(b'G'), "vfo_op", 1, |a| {
        Ok(RigCmd::VfoOp(a[0].to_string()))
    }),
    def(Some(b'q'), "quit", 0, |_| Ok(RigCmd::Quit)),
    def(Some(b'Q'), "quit", 0, |_| Ok(RigCmd::Quit)),
    def(None, "dump_state", 0, |_| Ok(RigCmd::DumpState)),
    def(None, "chk_vfo", 0, |_| Ok(RigCmd::ChkVfo)),
    def(None, "get_vfo_info", 1, |a| {
        Ok(RigCmd::GetVfoInfo(vfo(a[0])?))
    }),
    def(None, "power2mW", 3, |a| Ok(RigCmd::Power2mW(number(a[0])?))),
    def(None, "mW2power", 3, |a| Ok(RigCmd::MW2Power(number(a[0])?))),
    def(None, "get_powerstat", 0, |_| Ok(RigCmd::GetPowerstat)),
    def(None, "set_powerstat", 1, |a| match int(a[0])? {
        0 | 2 => Ok(RigCmd::SetPowerstat(false)),
        1 | 4 => Ok(RigCmd::SetPowerstat(true)),
        _ => Err(RigError::InvalidParam),
    }),
    def(None, "get_lock_mode", 0, |_| Ok(RigCmd::GetLockMode)),
    def(None, "set_lock_mode", 1, |a| {
        Ok(RigCmd::SetLockMode(int(a[0])? != 0))
    }),
];

/// Long names of every command this server answers (the docs' table lists each).
pub fn long_names() -> impl Iterator<Item = &'static str> {
    DEFS.iter().map(|d| d.long)
}

/// C's `isspace`, as Hamlib's parser uses it (Rust's ASCII whitespace lacks `\v`).
fn is_space(b: u8) -> bool {
    b.is_ascii_whitespace() || b == 0x0b
}

/// A cursor over one line's bytes.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn skip_space(&mut self) {
        while self.at < self.bytes.len() && is_space(self.bytes[self.at]) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// The next whitespace-delimited token (empty at the end of the line).
    fn token(&mut self) -> &'a str {
        self.skip_space();
        let start = self.at;
        while self.at < self.bytes.len() && !is_space(self.bytes[self.at]) {
            self.at += 1;
        }
        std::str::from_utf8(&self.bytes[start..self.at]).unwrap_or("")
    }
}

/// Parses one line (without its newline) into the commands it holds, in order.
pub fn parse_line(line: &[u8]) -> Vec<Request> {
    let mut c = Cursor { bytes: line, at: 0 };
    let mut out = Vec::new();
    loop {
        c.skip_space();
        let Some(first) = c.peek() else { break };
        let format = match first {
            b'+' | b';' | b'|' => {
                c.at += 1;
                Format::Extended(if first == b'+' { b'\n' } else { first })
            }
            _ => Format::Plain,
        };
        let def = match c.peek() {
            Some(b'\\') => {
                c.at += 1;
                let name = c.token();
                DEFS.iter().find(|d| d.long == name)
            }
            Some(ch) if !is_space(ch) => {
                c.at += 1;
                DEFS.iter().find(|d| d.short == Some(ch))
            }
            // a prefix alone
            _ => None,
        };
        let Some(def) = def else {
            out.push(Request {
                format,
                name: "",
                args: Vec::new(),
                cmd: Err(RigError::NotImplemented),
            });
            break;
        };
        let args: Vec<&str> = (0..def.args)
            .map(|_| c.token())
            .take_while(|t| !t.is_empty())
            .collect();
        let cmd = if args.len() < def.args {
            Err(RigError::InvalidParam)
        } else {
            (def.build)(&args)
        };
        let missing = cmd.is_err() && args.len() < def.args;
        out.push(Request {
            format,
            name: def.long,
            args: args.iter().map(|s| s.to_string()).collect(),
            cmd,
        });
        if missing {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmds(line: &str) -> Vec<Result<RigCmd, RigError>> {
        parse_line(line.as_bytes())
            .into_iter()
            .map(|r| r.cmd)
            .collect()
    }

    #[test]
    fn every_command_answered_is_in_the_docs_table() {
        let docs = include_str!("../../docs/RIGCTLD.md");
        let missing: Vec<&str> = long_names()
            .filter(|long| {
                // a row names it in its long-name column: `set_freq`, or `\chk_vfo`
                // and `\power2mW power freq mode` for those without a short name
                let named = |l: &str| {
                    [
                        format!("`{long}`"),
                        format!("`\\{long}`"),
                        format!("`\\{long} "),
                    ]
                    .iter()
                    .any(|n| l.contains(n.as_str()))
                };
                !docs.lines().any(|l| l.starts_with('|') && named(l))
            })
            .collect();
        assert!(long_names().count() >= 30);
        assert!(missing.is_empty(), "not in docs/RIGCTLD.md: {missing:?}");
    }

    #[test]
    fn short_and_long_names() {
        assert_eq!(cmds("f"), vec![Ok(RigCmd::GetFreq)]);
        assert_eq!(cmds("\\get_freq"), vec![Ok(RigCmd::GetFreq)]);
        assert_eq!(
            cmds("F 14074000.000000"),
            vec![Ok(RigCmd::SetFreq(14_074_000))]
        );
        assert_eq!(
            cmds("\\set_freq 1.4074e7"),
            vec![Ok(RigCmd::SetFreq(14_074_000))]
        );
        assert_eq!(
            cmds("M PKTUSB 0"),
            vec![Ok(RigCmd::SetMode("PKTUSB".into(), 0))]
        );
        assert_eq!(cmds("\\chk_vfo"), vec![Ok(RigCmd::ChkVfo)]);
        assert_eq!(cmds("\\dump_state"), vec![Ok(RigCmd::DumpState)]);
        assert_eq!(
            cmds("\\get_vfo_info VFOA"),
            vec![Ok(RigCmd::GetVfoInfo(VfoName::First))]
        );
        assert_eq!(
            cmds("\\power2mW 0.5 14074000 USB"),
            vec![Ok(RigCmd::Power2mW(0.5))]
        );
        assert_eq!(
            cmds("S 1 VFOB"),
            vec![Ok(RigCmd::SetSplitVfo(true, VfoName::Second))]
        );
        assert_eq!(cmds("q"), vec![Ok(RigCmd::Quit)]);
    }

    #[test]
    fn every_ptt_kind_keys() {
        for (arg, on) in [("0", false), ("1", true), ("2", true), ("3", true)] {
            assert_eq!(cmds(&format!("T {arg}")), vec![Ok(RigCmd::SetPtt(on))]);
        }
        assert_eq!(cmds("T 4"), vec![Err(RigError::InvalidParam)]);
    }

    #[test]
    fn several_commands_on_a_line() {
        assert_eq!(cmds("fm"), vec![Ok(RigCmd::GetFreq), Ok(RigCmd::GetMode)]);
        assert_eq!(
            cmds("F 14074000 f"),
            vec![Ok(RigCmd::SetFreq(14_074_000)), Ok(RigCmd::GetFreq)]
        );
        assert_eq!(
            cmds("  v  s\r"),
            vec![Ok(RigCmd::GetVfo), Ok(RigCmd::GetSplitVfo)]
        );
    }

    #[test]
    fn prefixes_choose_the_answer_format() {
        let r = parse_line(b"+f ;m |\\get_ptt f");
        let formats: Vec<Format> = r.iter().map(|r| r.format).collect();
        assert_eq!(
            formats,
            vec![
                Format::Extended(b'\n'),
                Format::Extended(b';'),
                Format::Extended(b'|'),
                Format::Plain
            ]
        );
        assert_eq!(r[2].name, "get_ptt");
        let set = &parse_line(b"+F 7074000")[0];
        assert_eq!(set.args, vec!["7074000".to_string()]);
    }

    #[test]
    fn unknown_commands_and_bad_arguments_are_answered() {
        assert_eq!(cmds("k"), vec![Err(RigError::NotImplemented)]);
        assert_eq!(
            cmds("\\no_such_thing 1 2 3"),
            vec![Err(RigError::NotImplemented)]
        );
        assert_eq!(
            cmds("f \\foo f"),
            vec![Ok(RigCmd::GetFreq), Err(RigError::NotImplemented)],
            "an unknown command ends the line"
        );
        assert_eq!(cmds("+"), vec![Err(RigError::NotImplemented)]);
        assert_eq!(cmds("F"), vec![Err(RigError::InvalidParam)]);
        assert_eq!(cmds("F abc"), vec![Err(RigError::InvalidParam)]);
        assert_eq!(cmds("F -5"), vec![Err(RigError::InvalidParam)]);
        assert_eq!(cmds("F 1e400"), vec![Err(RigError::InvalidParam)]);
        assert_eq!(cmds("V VFOX"), vec![Err(RigError::InvalidVfo)]);
        assert_eq!(cmds("S 2 VFOB"), vec![Err(RigError::InvalidParam)]);
        assert_eq!(
            cmds("\\get_vfo_info"),
            vec![Err(RigError::InvalidParam)],
            "a missing argument is an error, not a wait"
        );
        assert_eq!(cmds(""), vec![]);
        assert_eq!(
            cmds("F\x0b7074000\x0bf"),
            vec![Ok(RigCmd::SetFreq(7_074_000)), Ok(RigCmd::GetFreq)],
            "vertical tabs separate as in C (fuzz)"
        );
        assert_eq!(cmds("\u{0}\u{ff}"), vec![Err(RigError::NotImplemented)]);
    }

    #[test]
    fn parse_never_panics_on_any_bytes() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 24) as usize;
            let alphabet = b"fFmMvVtTsSiIxXlLuUqG\\+;| 01.-_abcdeVFOB\xff\x00";
            let line: Vec<u8> = (0..len)
                .map(|i| alphabet[((seed >> (i % 8 * 8)) as usize + i) % alphabet.len()])
                .collect();
            for r in parse_line(&line) {
                assert!(r.args.len() <= 3);
            }
        }
    }
}
