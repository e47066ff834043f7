//! `rigweb` binary: parse the command line, validate it, run.

use rigweb::cli::{Cli, SubCommand};
use rigweb::config::{ServeConfig, SimCliConfig};

fn main() {
    let cli: Cli = argh::from_env();
    let result =
        match &cli.command {
            Some(SubCommand::Sim(args)) => SimCliConfig::from_args(args)
                .map_err(Into::into)
                .and_then(|cfg| {
                    rigweb::logging::init(cfg.log_level);
                    rigweb::app::sim(cfg)
                }),
            None => ServeConfig::from_cli(&cli, std::env::var("RIGWEB_RADIO_PASSWORD").ok())
                .map_err(Into::into)
                .and_then(|cfg| {
                    rigweb::logging::init(cfg.log_level);
                    rigweb::app::serve(cfg)
                }),
        };
    if let Err(e) = result {
        eprintln!("rigweb: {e}");
        std::process::exit(2);
    }
}
