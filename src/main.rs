//! `rigweb` binary: parse the command line (with the `--config` file and systemd's
//! credentials under it), validate it, run.

use argh::FromArgs;
use rigweb::cli::{Cli, SubCommand};
use rigweb::config::{ServeConfig, SimCliConfig};
use rigweb::config_file;

fn main() {
    let raw: Vec<String> = std::env::args_os()
        .map(|a| a.into_string())
        .collect::<Result<_, _>>()
        .unwrap_or_else(|a| {
            eprintln!("rigweb: invalid UTF-8 in argument {}", a.to_string_lossy());
            std::process::exit(1);
        });
    let program = raw
        .first()
        .and_then(|p| std::path::Path::new(p).file_name()?.to_str())
        .unwrap_or("rigweb");
    let args = config_file::merge_args(&raw[1.min(raw.len())..]).unwrap_or_else(|e| {
        eprintln!("rigweb: {e}");
        std::process::exit(2);
    });
    let strs: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut cli = match Cli::from_args(&[program], &strs) {
        Ok(cli) => cli,
        Err(early) => {
            // --help prints to stdout and succeeds; a bad flag prints why and fails
            if early.status.is_ok() {
                println!("{}", early.output);
                return;
            }
            eprintln!(
                "{}\nRun {program} --help for more information.",
                early.output
            );
            std::process::exit(1);
        }
    };
    let env_password = std::env::var("RIGWEB_RADIO_PASSWORD")
        .ok()
        .filter(|p| !p.is_empty());
    let credentials = std::env::var_os("CREDENTIALS_DIRECTORY").map(std::path::PathBuf::from);
    config_file::fill_from_credentials(&mut cli, credentials.as_deref(), env_password.is_some());
    let result =
        match &cli.command {
            Some(SubCommand::Sim(args)) => SimCliConfig::from_args(args)
                .map_err(Into::into)
                .and_then(|cfg| {
                    rigweb::logging::init(cfg.log_level);
                    rigweb::app::sim(cfg)
                }),
            None => ServeConfig::from_cli(&cli, env_password)
                .map_err(Into::into)
                .and_then(|cfg| {
                    if cli.check_config {
                        print!("{}", config_file::effective(&cli));
                        println!("# configuration OK");
                        return Ok(());
                    }
                    rigweb::logging::init(cfg.log_level);
                    rigweb::app::serve(cfg)
                }),
        };
    if let Err(e) = result {
        eprintln!("rigweb: {e}");
        std::process::exit(2);
    }
}
