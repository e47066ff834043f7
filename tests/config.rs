//! Command-line validation: every mistake is an error that names the flag.

use std::time::Duration;

use rigweb::cli::{Cli, SubCommand};
use rigweb::config::{RadioTarget, ServeConfig, SimCliConfig};

fn cli(args: &[&str]) -> Cli {
    argh::FromArgs::from_args(&["rigweb"], args).expect("parses")
}

fn serve_err(args: &[&str], env: Option<&str>) -> String {
    ServeConfig::from_cli(&cli(args), env.map(str::to_string))
        .unwrap_err()
        .to_string()
}

#[test]
fn defaults_serve_the_simulator() {
    let c = ServeConfig::from_cli(&cli(&[]), None).unwrap();
    assert!(matches!(c.radio, RadioTarget::Simulated { .. }));
    assert_eq!(c.listen.to_string(), "0.0.0.0:8080");
    assert!(c.auth_token.is_none());
}

#[test]
fn a_real_radio_needs_user_and_password() {
    assert!(serve_err(&["--radio", "127.0.0.1"], None).contains("--radio-user"));
    let e = serve_err(&["--radio", "127.0.0.1", "--radio-user", "op"], None);
    assert!(e.contains("RIGWEB_RADIO_PASSWORD"), "{e}");
    let c = ServeConfig::from_cli(
        &cli(&["--radio", "127.0.0.1", "--radio-user", "op"]),
        Some("pw".into()),
    )
    .unwrap();
    assert!(matches!(c.radio, RadioTarget::Lan { ref password, .. } if password.expose() == "pw"));
    assert!(
        !format!("{c:?}").contains("pw\""),
        "secrets do not show in Debug"
    );
    let e = serve_err(
        &["--radio", "127.0.0.1", "--radio-user", "op"],
        Some("pass€word"),
    );
    assert!(e.contains("printable ASCII"), "{e}");
    let e = serve_err(
        &[
            "--radio",
            "127.0.0.1",
            "--radio-user",
            "a-very-long-user-name",
        ],
        Some("pw"),
    );
    assert!(e.contains("--radio-user"), "{e}");
}

#[test]
fn bad_flags_name_themselves() {
    assert!(serve_err(&["--profile", "ic999"], None).contains("--profile \"ic999\""));
    assert!(serve_err(&["--sim-model", "x"], None).contains("--sim-model"));
    assert!(serve_err(&["--listen", "nope"], None).contains("--listen"));
    assert!(serve_err(&["--auth-token", " "], None).contains("--auth-token"));
    assert!(
        serve_err(&["--auth-token-file", "/nonexistent/token"], None).contains("--auth-token-file")
    );
    assert!(serve_err(&["--tx-timeout", "0"], None).contains("--tx-timeout"));
    assert!(serve_err(&["--log-level", "loud"], None).contains("--log-level"));
    assert!(serve_err(&["--auth-token", "a", "--auth-token-file", "f"], None).contains("not both"));
}

/// `rigweb sim ARGS` as the simulator's configuration.
fn sim_config(args: &[&str]) -> Result<SimCliConfig, String> {
    let mut all = vec!["sim"];
    all.extend_from_slice(args);
    let c = cli(&all);
    let Some(SubCommand::Sim(a)) = &c.command else {
        panic!("`sim` parses as the sim command")
    };
    SimCliConfig::from_args(a).map_err(|e| e.to_string())
}

#[test]
fn sim_flags() {
    let s = sim_config(&["--model", "ic705", "--loss", "0.1", "--nak", "0.5"]).unwrap();
    assert_eq!(s.profile.id(), "ic705");
    assert_eq!((s.faults.loss, s.faults.nak), (0.1, 0.5));
    let err = sim_config(&["--loss", "1.5"]).unwrap_err();
    assert!(err.contains("--loss"), "{err}");
    let err = sim_config(&["--password", "€"]).unwrap_err();
    assert!(err.contains("printable ASCII"), "{err}");
    // a radio that starts switched off, and one that boots after 18 01
    let s = sim_config(&[]).unwrap();
    assert!(!s.standby);
    assert_eq!(s.boot, Duration::ZERO);
    let s = sim_config(&["--standby", "--boot-ms", "2500"]).unwrap();
    assert!(s.standby);
    assert_eq!(s.boot, Duration::from_millis(2_500));
    let err = sim_config(&["--boot-ms", "600001"]).unwrap_err();
    assert!(err.contains("--boot-ms"), "{err}");
    // audio faster than real time
    assert_eq!(s.audio_speed, 1);
    assert_eq!(sim_config(&["--audio-speed", "3"]).unwrap().audio_speed, 3);
    for bad in ["0", "11"] {
        let err = sim_config(&["--audio-speed", bad]).unwrap_err();
        assert!(err.contains("--audio-speed"), "{err}");
    }
}

#[test]
fn allowed_hosts_are_names_and_admit_their_pages() {
    let e = serve_err(&["--allowed-host", "http://rig.example.net"], None);
    assert!(e.contains("--allowed-host"), "{e}");
    let c = ServeConfig::from_cli(&cli(&["--allowed-host", "rig.example.net"]), None).unwrap();
    let (o, h) = ("http://rig.example.net:8080", "rig.example.net:8080");
    assert!(c.allowed_origins.allows(Some(o), Some(h), false));
    let d = ServeConfig::from_cli(&cli(&[]), None).unwrap();
    assert!(!d.allowed_origins.allows(Some(o), Some(h), false));
}

#[test]
fn rigctld_and_bridge_flags() {
    let c = ServeConfig::from_cli(&cli(&[]), None).unwrap();
    assert!(c.rigctld.is_none(), "rigctld is off by default");
    assert_eq!(
        (c.bridge.device.as_str(), c.bridge.start),
        ("hw:Loopback,0", false)
    );
    let c = ServeConfig::from_cli(&cli(&["--rigctld", "127.0.0.1:4532"]), None).unwrap();
    assert_eq!(c.rigctld.unwrap().listen.to_string(), "127.0.0.1:4532");
    // reachable from other machines: the networks must be named
    let e = serve_err(&["--rigctld", "0.0.0.0:4532"], None);
    assert!(
        e.contains("--rigctld-allow") && e.contains("authentication"),
        "{e}"
    );
    let c = ServeConfig::from_cli(
        &cli(&[
            "--rigctld",
            "0.0.0.0:4532",
            "--rigctld-allow",
            "192.168.1.0/24",
        ]),
        None,
    )
    .unwrap();
    let allow = c.rigctld.unwrap().allow;
    assert!(allow.allows("192.168.1.9".parse().unwrap()));
    assert!(!allow.allows("10.0.0.1".parse().unwrap()));
    let e = serve_err(
        &["--rigctld", "127.0.0.1:4532", "--rigctld-allow", "lan"],
        None,
    );
    assert!(e.starts_with("--rigctld-allow"), "{e}");
    assert!(serve_err(&["--rigctld-allow", "10.0.0.0/8"], None).contains("needs --rigctld"));
    assert!(serve_err(&["--rigctld", "nowhere"], None).starts_with("--rigctld"));
    let c = ServeConfig::from_cli(
        &cli(&[
            "--bridge-device",
            "plughw:CARD=Loopback,DEV=0",
            "--bridge-start",
        ]),
        None,
    )
    .unwrap();
    assert_eq!(
        (c.bridge.device.as_str(), c.bridge.start),
        ("plughw:CARD=Loopback,DEV=0", true)
    );
    assert!(serve_err(&["--bridge-device", " "], None).starts_with("--bridge-device"));
}

#[test]
fn rigctld_and_bridge_keys_of_the_config_file() {
    let d = temp_dir("rigctld");
    let f = d.join("rigweb.toml");
    std::fs::write(
        &f,
        "rigctld = \"0.0.0.0:4532\"\nrigctld-allow = [\"192.168.1.0/24\"]\nbridge-device = \"hw:Loopback,0,0\"\nbridge-start = true\n",
    )
    .unwrap();
    let (code, out, err) = rigweb(&["--config", f.to_str().unwrap(), "--check-config"], &[]);
    assert_eq!(code, 0, "{err}");
    for key in [
        "rigctld = \"0.0.0.0:4532\"",
        "rigctld-allow = [\"192.168.1.0/24\"]",
        "bridge-device = \"hw:Loopback,0,0\"",
        "bridge-start = true",
    ] {
        assert!(out.contains(key), "{key} in {out}");
    }
    std::fs::write(&f, "rigctld = \"0.0.0.0:4532\"\n").unwrap();
    let (code, _, err) = rigweb(&["--config", f.to_str().unwrap(), "--check-config"], &[]);
    assert_ne!(code, 0);
    assert!(err.contains("--rigctld-allow"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Runs the built binary with `args` and extra environment; (status, stdout, stderr).
fn rigweb(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rigweb"))
        .args(args)
        .env_remove("RIGWEB_RADIO_PASSWORD")
        .env_remove("CREDENTIALS_DIRECTORY")
        .envs(env.iter().copied())
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("rigweb-config-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_shipped_config_file_is_valid() {
    let (code, out, err) = rigweb(&["--config", "assets/rigweb.toml", "--check-config"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("listen"), "{out}");
    assert!(out.ends_with("# configuration OK\n"), "{out}");
}

#[test]
fn check_config_shows_the_file_under_the_flags_with_secrets_masked() {
    let d = temp_dir("check");
    let f = d.join("rigweb.toml");
    std::fs::write(
        &f,
        "max-clients = 8\ntx-timeout = 60\nauth-token = \"very-secret\"\nallowed-host = [\"a.example\", \"b.example\"]\n",
    )
    .unwrap();
    let (code, out, err) = rigweb(
        &[
            "--config",
            f.to_str().unwrap(),
            "--check-config",
            "--max-clients",
            "9",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("max-clients = 9\n"), "the flag wins: {out}");
    assert!(out.contains("tx-timeout = 60\n"), "{out}");
    assert!(
        out.contains("allowed-host = [\"a.example\", \"b.example\"]\n"),
        "{out}"
    );
    assert!(out.contains("auth-token = \"********\"\n"), "{out}");
    assert!(!out.contains("very-secret") && !err.contains("very-secret"));
    assert!(out.contains("# radio = (not set)\n"), "{out}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn config_file_mistakes_are_errors_that_name_them() {
    let d = temp_dir("bad");
    let f = d.join("rigweb.toml");
    let path = f.to_str().unwrap();
    for (text, want) in [
        (
            "max_clients = 3\n",
            "unknown key \"max_clients\"; did you mean \"max-clients\"?",
        ),
        ("tls-auto = 1\n", "tls-auto: use true or false"),
        ("max-clients = \"many\"\n", "--max-clients"),
        ("max-clients = 0\n", "--max-clients 0: use 1 to 4096"),
        ("radio = \n", "--config"),
    ] {
        std::fs::write(&f, text).unwrap();
        let (code, _, err) = rigweb(&["--config", path, "--check-config"], &[]);
        assert_eq!(code, 2, "{text}: {err}");
        assert!(err.contains(want), "{text}: {err}");
    }
    let (code, _, err) = rigweb(&["--config", "/nonexistent/rigweb.toml"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/rigweb.toml"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn secrets_come_from_systemd_credentials() {
    let d = temp_dir("creds");
    std::fs::write(d.join("radio-password"), "pw-credential\n").unwrap();
    std::fs::write(d.join("auth-token"), "").unwrap(); // empty: not set
    let creds = d.to_str().unwrap();
    let args = [
        "--radio",
        "127.0.0.1",
        "--radio-user",
        "op",
        "--check-config",
    ];
    let (code, out, err) = rigweb(&args, &[("CREDENTIALS_DIRECTORY", creds)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("radio-password-file = "), "{out}");
    assert!(out.contains("# auth-token-file = (not set)"), "{out}");
    std::fs::write(d.join("auth-token"), "tok\n").unwrap();
    let (code, out, _) = rigweb(&args, &[("CREDENTIALS_DIRECTORY", creds)]);
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!("auth-token-file = \"{creds}/auth-token\"")),
        "{out}"
    );
    // the DX cluster's password too, once a feed is configured
    std::fs::write(d.join("dx-cluster-password"), "dx\n").unwrap();
    let (_, out, _) = rigweb(&args, &[("CREDENTIALS_DIRECTORY", creds)]);
    assert!(
        out.contains("# dx-cluster-password-file = (not set)"),
        "{out}"
    );
    let dx: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--dx-cluster", "127.0.0.1:7300", "--callsign", "N0CALL"])
        .collect();
    let (code, out, err) = rigweb(&dx, &[("CREDENTIALS_DIRECTORY", creds)]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!(
            "dx-cluster-password-file = \"{creds}/dx-cluster-password\""
        )),
        "{out}"
    );
    // without a credential there is no password at all
    std::fs::remove_file(d.join("radio-password")).unwrap();
    let (code, _, err) = rigweb(&args, &[("CREDENTIALS_DIRECTORY", creds)]);
    assert_eq!(code, 2);
    assert!(err.contains("radio password is required"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}
