//! rigctld helpers: the server with `--rigctld 127.0.0.1:0` against its built-in
//! simulator, a raw NET rigctl client (lines in, lines out), and Hamlib's own `rigctl`
//! (`-m 2`, the NET rigctl backend) as a real counterpart.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::Duration;

use rigweb::app::{Running, Tuning};
use rigweb::config::ServeConfig;
use rigweb::rigctld::RigctldConfig;

use super::web::{serve_config, start_server};

/// A configuration with rigctld on an ephemeral loopback port.
pub fn rigctld_config(model: &str) -> ServeConfig {
    let mut cfg = serve_config(model, None);
    cfg.rigctld = Some(RigctldConfig {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        allow: Default::default(),
    });
    cfg
}

/// Starts the server with rigctld (radio ready).
pub fn start(cfg: ServeConfig) -> Running {
    start_server(cfg, Tuning::default())
}

/// Where rigctld listens.
pub fn rigctld_addr(srv: &Running) -> SocketAddr {
    srv.rigctld.as_ref().expect("rigctld runs").addr()
}

/// A raw NET rigctl client.
pub struct Rigctl {
    reader: BufReader<TcpStream>,
    stream: TcpStream,
}

impl Rigctl {
    /// Connects to `addr`.
    pub fn connect(addr: SocketAddr) -> Rigctl {
        let stream = TcpStream::connect(addr).expect("rigctld accepts");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        Rigctl {
            reader: BufReader::new(stream.try_clone().unwrap()),
            stream,
        }
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        self.stream
            .write_all(format!("{line}\n").as_bytes())
            .expect("send");
    }

    /// Reads one line (without its newline); `None` at the end of the stream.
    pub fn line(&mut self) -> Option<String> {
        let mut s = String::new();
        match self.reader.read_line(&mut s) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(s.trim_end_matches('\n').to_string()),
        }
    }

    /// Sends `line` and reads `n` answer lines.
    pub fn ask(&mut self, line: &str, n: usize) -> Vec<String> {
        self.send(line);
        (0..n)
            .map(|_| {
                self.line()
                    .unwrap_or_else(|| panic!("no answer to {line:?}"))
            })
            .collect()
    }

    /// Sends `line` and reads one answer line.
    pub fn one(&mut self, line: &str) -> String {
        self.ask(line, 1).remove(0)
    }

    /// Closes the connection (both ways).
    pub fn close(self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

/// Runs Hamlib's `rigctl -m 2 -r ADDR` with `commands`; its standard output lines.
pub fn hamlib_rigctl(addr: SocketAddr, commands: &[&str]) -> Vec<String> {
    let out = Command::new("rigctl")
        .args(["-m", "2", "-r", &addr.to_string()])
        .args(commands)
        .output()
        .expect("Hamlib's rigctl (Debian: apt-get install libhamlib-utils; .ci/run installs it)");
    assert!(
        out.status.success(),
        "rigctl {commands:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}
