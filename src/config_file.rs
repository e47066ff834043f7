//! The configuration file (`--config FILE`): a TOML table whose keys are the long flags
//! of `rigweb` (serve) without their dashes — `radio-port = 50001`, `tls-auto = true`,
//! `allowed-origin = ["https://a", "https://b"]`. There is no second list of settings:
//! the keys are read from the flag definitions in `cli.rs` (argh's `ArgsInfo`), each
//! key is turned back into its flag and parsed by argh like the command line, so a flag
//! added to `Cli` is a key of the file at once. Flags given on the command line
//! override the file (a repeatable flag given there replaces the file's list).
//!
//! Systemd credentials (`$CREDENTIALS_DIRECTORY`) fill the secret-file flags nobody set:
//! see [`fill_from_credentials`].

use std::path::Path;

use argh::{ArgsInfo, FlagInfoKind, FromArgs, Optionality};
use serde_json::Value;

use crate::cli::Cli;
use crate::config::ConfigError;

/// Flags that are no settings: they say what to do with the settings.
const NOT_SETTINGS: &[&str] = &["help", "config", "check-config"];

/// Credentials (`LoadCredential=NAME:...` in the unit) and the flag each one fills.
pub const CREDENTIALS: &[(&str, &str)] = &[
    ("radio-password", "radio-password-file"),
    ("auth-token", "auth-token-file"),
    ("dx-cluster-password", "dx-cluster-password-file"),
];

/// One setting: a long flag of `rigweb` (serve).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The key, which is the flag without `--`.
    pub key: String,
    /// Takes no value (`--tls-auto`): the key takes `true` or `false`.
    pub switch: bool,
    /// May be given more than once: the key takes a list.
    pub repeating: bool,
}

/// Every setting of the file, in the order of `--help`.
pub fn settings() -> Vec<Setting> {
    let info = Cli::get_args_info();
    info.flags
        .iter()
        .map(|f| Setting {
            key: f.long.trim_start_matches('-').to_string(),
            switch: matches!(f.kind, FlagInfoKind::Switch),
            repeating: matches!(f.optionality, Optionality::Repeating),
        })
        .filter(|s| !NOT_SETTINGS.contains(&s.key.as_str()))
        .collect()
}

/// True when a setting holds a secret (its value is masked when printed).
pub fn is_secret(key: &str) -> bool {
    !key.ends_with("-file") && (key.ends_with("token") || key.ends_with("password"))
}

/// The command-line arguments (without the program name) with those of the
/// configuration file put in front, when `--config FILE` is among them; unchanged
/// otherwise. Only the serve command reads a file.
pub fn merge_args(args: &[String]) -> Result<Vec<String>, ConfigError> {
    let settings = settings();
    let given = given_flags(args, &settings);
    let Some(path) = config_path(args) else {
        return Ok(args.to_vec());
    };
    let text =
        std::fs::read_to_string(&path).map_err(|e| ConfigError(format!("--config {path}: {e}")))?;
    let from_file =
        file_args(&text, &settings).map_err(|e| ConfigError(format!("--config {path}: {e}")))?;
    // the file alone must parse, so that its mistakes are reported as its own
    if let Err(e) = Cli::from_args(&["rigweb"], &as_strs(&from_file)) {
        return Err(ConfigError(format!(
            "--config {path}: {}",
            e.output.trim_end()
        )));
    }
    let mut merged = Vec::new();
    let mut i = 0;
    while i < from_file.len() {
        let flag = from_file[i].trim_start_matches('-');
        let switch = settings.iter().any(|s| s.key == flag && s.switch);
        let n = if switch { 1 } else { 2 };
        if !given.contains(&flag.to_string()) {
            merged.extend_from_slice(&from_file[i..i + n]);
        }
        i += n;
    }
    merged.extend_from_slice(args);
    Ok(merged)
}

fn as_strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The value of `--config` on the serve command line.
fn config_path(args: &[String]) -> Option<String> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--config" {
            return it.next().cloned();
        }
        if a == "--" || !a.starts_with('-') {
            return None; // a subcommand or a positional: not the serve command
        }
    }
    None
}

/// The settings given on the command line (flag names without `--`).
fn given_flags(args: &[String], settings: &[Setting]) -> Vec<String> {
    let mut given = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let Some(name) = a.strip_prefix("--") else {
            break;
        };
        match settings.iter().find(|s| s.key == name) {
            Some(s) => {
                given.push(name.to_string());
                if !s.switch {
                    it.next();
                }
            }
            None if name == "config" => {
                it.next();
            }
            None => {}
        }
    }
    given
}

/// The file's settings as command-line arguments.
fn file_args(text: &str, settings: &[Setting]) -> Result<Vec<String>, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    let mut args = Vec::new();
    for (key, value) in &table {
        let Some(s) = settings.iter().find(|s| s.key == *key) else {
            return Err(unknown_key(key, settings));
        };
        let flag = format!("--{key}");
        match (value, s.switch, s.repeating) {
            (toml::Value::Boolean(true), true, _) => args.push(flag),
            (toml::Value::Boolean(false), true, _) => {}
            (_, true, _) => return Err(format!("{key}: use true or false")),
            (toml::Value::Array(items), false, true) => {
                for item in items {
                    args.push(flag.clone());
                    args.push(scalar(key, item)?);
                }
            }
            (v, false, _) => {
                args.push(flag);
                args.push(scalar(key, v)?);
            }
        }
    }
    Ok(args)
}

fn scalar(key: &str, v: &toml::Value) -> Result<String, String> {
    match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        _ => Err(format!(
            "{key}: expected a string or a number, found {}",
            v.type_str()
        )),
    }
}

fn unknown_key(key: &str, settings: &[Setting]) -> String {
    let nearest = settings
        .iter()
        .map(|s| (edit_distance(key, &s.key), &s.key))
        .min()
        .map_or("radio", |(_, k)| k.as_str());
    format!(
        "unknown key {key:?}; did you mean {nearest:?}? (the keys are the long flags of `rigweb --help`)"
    )
}

/// Levenshtein distance (keys are short: a plain two-row table).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Points the secret-file flags nobody set at systemd's credentials of the same name
/// (`$CREDENTIALS_DIRECTORY/radio-password`, `.../auth-token`,
/// `.../dx-cluster-password` when a DX feed is configured), when they exist and
/// are not empty. An explicit flag and `--auth-token` win; so does a radio password in
/// `RIGWEB_RADIO_PASSWORD` (`env_password`).
pub fn fill_from_credentials(cli: &mut Cli, dir: Option<&Path>, env_password: bool) {
    let Some(dir) = dir else { return };
    let present = |name: &str| {
        let p = dir.join(name);
        std::fs::read_to_string(&p)
            .ok()
            .filter(|s| !s.trim().is_empty())
            .map(|_| p)
    };
    if cli.radio_password_file.is_none() && !env_password {
        cli.radio_password_file = present(CREDENTIALS[0].0);
    }
    if cli.auth_token.is_none() && cli.auth_token_file.is_none() {
        cli.auth_token_file = present(CREDENTIALS[1].0);
    }
    if cli.dx_cluster_password_file.is_none() && !(cli.dx_cluster.is_empty() && cli.rbn.is_empty())
    {
        cli.dx_cluster_password_file = present(CREDENTIALS[2].0);
    }
}

/// The effective settings as a configuration file: every key with its value (defaults
/// included; unset ones commented out), secrets masked.
pub fn effective(cli: &Cli) -> String {
    let values = serde_json::to_value(cli).unwrap_or(Value::Null);
    let mut out = String::new();
    for s in settings() {
        let v = values.get(&s.key).cloned().unwrap_or(Value::Null);
        let shown = match v {
            Value::Null => {
                out.push_str(&format!("# {} = (not set)\n", s.key));
                continue;
            }
            Value::String(_) if is_secret(&s.key) => "\"********\"".to_string(),
            Value::String(text) => toml::Value::String(text).to_string(),
            Value::Array(items) => {
                let items: Vec<String> = items
                    .into_iter()
                    .map(|i| match i {
                        Value::String(t) => toml::Value::String(t).to_string(),
                        other => other.to_string(),
                    })
                    .collect();
                format!("[{}]", items.join(", "))
            }
            other => other.to_string(),
        };
        out.push_str(&format!("{} = {shown}\n", s.key));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_flag_is_a_key() {
        let all = settings();
        let keys: Vec<&str> = all.iter().map(|s| s.key.as_str()).collect();
        for k in [
            "radio",
            "radio-port",
            "tls-auto",
            "allowed-origin",
            "log-level",
        ] {
            assert!(keys.contains(&k), "{k} missing from {keys:?}");
        }
        assert!(!keys.contains(&"config") && !keys.contains(&"help"));
        let origin = settings()
            .into_iter()
            .find(|s| s.key == "allowed-origin")
            .unwrap();
        assert!(origin.repeating && !origin.switch);
    }

    #[test]
    fn file_values_become_flags() {
        let args = file_args(
            "radio-port = 50002\ntls-auto = true\nallowed-origin = [\"https://a:1\", \"https://b:2\"]\n",
            &settings(),
        )
        .unwrap();
        assert_eq!(
            args,
            strings(&[
                "--allowed-origin",
                "https://a:1",
                "--allowed-origin",
                "https://b:2",
                "--radio-port",
                "50002",
                "--tls-auto"
            ])
        );
        assert!(
            file_args("tls-auto = false", &settings())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn unknown_keys_name_the_nearest() {
        let e = file_args("radio_port = 1", &settings()).unwrap_err();
        assert!(
            e.contains("\"radio_port\"") && e.contains("\"radio-port\""),
            "{e}"
        );
        let e = file_args("tls-atuo = true", &settings()).unwrap_err();
        assert!(e.contains("\"tls-auto\""), "{e}");
    }

    #[test]
    fn wrong_types_are_named() {
        let e = file_args("tls-auto = \"yes\"", &settings()).unwrap_err();
        assert!(e.contains("tls-auto: use true or false"), "{e}");
        let e = file_args("radio = { a = 1 }", &settings()).unwrap_err();
        assert!(e.contains("radio: expected a string or a number"), "{e}");
        assert!(file_args("radio = ", &settings()).is_err());
    }

    #[test]
    fn the_command_line_names_what_it_gives() {
        let g = given_flags(
            &strings(&[
                "--radio",
                "h",
                "--tls-auto",
                "--config",
                "f",
                "--max-clients",
                "3",
            ]),
            &settings(),
        );
        assert_eq!(g, strings(&["radio", "tls-auto", "max-clients"]));
        assert_eq!(
            config_path(&strings(&["--tls-auto", "--config", "f"])).as_deref(),
            Some("f")
        );
        assert_eq!(config_path(&strings(&["sim", "--config", "f"])), None);
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("radio", "radio"), 0);
        assert_eq!(edit_distance("radio_port", "radio-port"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn secrets_by_name() {
        assert!(is_secret("auth-token"));
        assert!(!is_secret("auth-token-file"));
        assert!(!is_secret("radio-password-file"));
    }
}
