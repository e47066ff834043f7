//! Independent peers: Python programs written straight from the protocol specification
//! (`tests/peers/*.py`, standard library only, none of rigweb's wire code), run as child
//! processes against our client and our simulator.
//!
//! * `anchor_mock.py` is the anchor project's fake radio (spec §7.1) with its quirks:
//!   replies with outer seq 0, no idles or pings, a malformed frame after OpenClose,
//!   NAK for almost everything.  Our client (`Radio`) has to work against it.
//! * `anchor_client.py` goes through a whole session the way the reference client does
//!   (spec §1–§4) against our simulator and prints a JSON summary of what it found.
//!
//! A peer's stderr is printed when a test fails, or always with `PEERS_VERBOSE=1`.
//! See `tests/peers/README.md`.

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command as Process, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use rigweb::lan::link::LinkState;
use rigweb::radio::answer::Answer;
use rigweb::radio::command::{Command, Target};
use rigweb::radio::error::ErrorCode;
use rigweb::radio::service::Radio;
use rigweb::radio::table::settings::SettingId;
use rigweb::wire::civ;
use rigweb::wire::civ::Mode;
use rigweb::wire::meter::MeterKind;
use serde_json::{Value, json};

const READY: Duration = Duration::from_secs(10);

/// A Python peer running as a child process; killed when dropped.
struct Peer {
    name: String,
    child: Child,
    /// Every stdout line that parsed as JSON, in order.
    lines: Arc<Mutex<Vec<Value>>>,
    /// Notified for every such line.
    events: Receiver<Value>,
    /// Everything the peer wrote to stderr (printed if the test fails).
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Peer {
    fn spawn(script: &str, args: &[&str]) -> Peer {
        let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "peers", script]
            .iter()
            .collect();
        let mut child = Process::new("python3")
            .arg(&path)
            .args(args)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (tx, events) = channel();
        let out = child.stdout.take().expect("stdout");
        let sink = lines.clone();
        thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    sink.lock().unwrap().push(v.clone());
                    let _ = tx.send(v);
                }
            }
        });
        let err = child.stderr.take().expect("stderr");
        let sink = stderr.clone();
        thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Peer {
            name: script.into(),
            child,
            lines,
            events,
            stderr,
        }
    }

    /// The next JSON line, waiting at most `timeout`.
    fn next_line(&self, timeout: Duration) -> Option<Value> {
        self.events.recv_timeout(timeout).ok()
    }

    /// Waits for the peer to exit (killing it after `timeout`); its status and last JSON line.
    fn finish(&mut self, timeout: Duration) -> (ExitStatus, Value) {
        let end = Instant::now() + timeout;
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                break s;
            }
            if Instant::now() >= end {
                let _ = self.child.kill();
                panic!(
                    "{} did not finish within {timeout:?}:\n{}",
                    self.name,
                    self.stderr_text()
                );
            }
            thread::sleep(Duration::from_millis(20));
        };
        // the reader thread may still be reading the last line
        let mut summary = Value::Null;
        let _ = wait_for(Duration::from_secs(2), || {
            summary = self
                .lines
                .lock()
                .unwrap()
                .last()
                .cloned()
                .unwrap_or(Value::Null);
            !summary.is_null()
        });
        (status, summary)
    }

    fn stderr_text(&self) -> String {
        self.stderr.lock().unwrap().join("\n")
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if thread::panicking() || std::env::var_os("PEERS_VERBOSE").is_some() {
            eprintln!("---- {} stderr ----\n{}", self.name, self.stderr_text());
        }
    }
}

// ---------------------------------------------------------------------------------------
// Our client against the anchor's fake radio
// ---------------------------------------------------------------------------------------

/// The mock radio and what it reported.
struct Mock {
    peer: Peer,
    control: SocketAddr,
}

impl Mock {
    fn start(extra: &[&str]) -> Mock {
        let mut args = vec!["--lifetime", "60"];
        args.extend_from_slice(extra);
        let peer = Peer::spawn("anchor_mock.py", &args);
        let ports = peer
            .next_line(Duration::from_secs(5))
            .expect("the mock prints its ports");
        let port = ports["control"].as_u64().expect("control port") as u16;
        Mock {
            peer,
            control: SocketAddr::from(([127, 0, 0, 1], port)),
        }
    }

    /// The mock's latest radio state.
    fn state(&self) -> Value {
        let lines = self.peer.lines.lock().unwrap();
        lines
            .iter()
            .rev()
            .find(|v| v["event"] == "state")
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// Waits until `field` of the mock's state equals `want`.
    fn wait_state(&self, field: &str, want: Value) -> bool {
        wait_for(Duration::from_secs(3), || self.state()[field] == want)
    }

    /// What the mock found wrong with our client's packets.
    fn deviations(&self) -> Vec<String> {
        let lines = self.peer.lines.lock().unwrap();
        lines
            .iter()
            .filter(|v| v["event"] == "deviation")
            .map(|v| v["what"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// Datagrams the mock could not classify.
    fn unclassified(&self) -> Vec<String> {
        self.peer
            .stderr
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains("unclassified"))
            .cloned()
            .collect()
    }

    /// The datagram counters the mock reported when the control DISCONNECT arrived.
    fn stats(&self) -> Value {
        let lines = self.peer.lines.lock().unwrap();
        let last = lines.iter().rev().find(|v| v["event"] == "stats");
        last.cloned().unwrap_or(Value::Null)
    }

    /// Asserts that the mock found nothing wrong with our client's packets.
    fn assert_clean(&self) {
        assert_eq!(self.deviations(), Vec::<String>::new(), "spec deviations");
        assert_eq!(
            self.unclassified(),
            Vec::<String>::new(),
            "unknown datagrams"
        );
    }

    /// Our client for the IC-7610 profile, pointed at the mock (any credentials do).
    fn radio(&self) -> Radio {
        Radio::start(radio_config("ic7610", self.control, "anything")).expect("radio starts")
    }
}

fn ready(radio: &Radio) -> bool {
    radio.store().read(|c| c.connection.radio_ready)
}

#[test]
fn mock_login_ready_and_initial_state() {
    let mock = Mock::start(&[]);
    let radio = mock.radio();
    wait_ready(&radio, READY);
    assert!(wait_for(Duration::from_secs(3), || radio
        .store()
        .read(|c| c.radio.main.freq_hz == Some(14_074_000)
            && c.radio.main.mode.map(Mode::name) == Some("USB"))));
    let main = radio.store().read(|c| c.radio.main.clone());
    assert_eq!(
        (main.freq_hz, main.mode.map(Mode::name), main.filter),
        (Some(14_074_000), Some("USB"), Some(1))
    );
    assert_eq!(radio.link_status().state, LinkState::Ready);
    mock.assert_clean();
    radio.shutdown();
}

#[test]
fn mock_sets_reach_the_radio() {
    let mock = Mock::start(&[]);
    let radio = mock.radio();
    wait_ready(&radio, READY);
    radio
        .execute(Command::SetFreq {
            target: Target::Receiver(civ::Receiver::Main),
            hz: 7_074_000,
        })
        .expect("set freq");
    assert!(
        mock.wait_state("freq", json!(7_074_000)),
        "{}",
        mock.state()
    );
    radio
        .execute(Command::SetMode {
            target: Target::Receiver(civ::Receiver::Main),
            mode: Mode::Cw,
            filter: Some(2),
        })
        .expect("set mode");
    assert!(mock.wait_state("mode", json!(3)), "{}", mock.state());
    assert_eq!(mock.state()["filter"], 2);
    radio
        .execute(Command::write(
            SettingId::Power,
            civ::Receiver::Main,
            i64::from(128),
        ))
        .expect("set power");
    assert!(mock.wait_state("power", json!(128)), "{}", mock.state());
    radio
        .execute(Command::write(SettingId::Att, civ::Receiver::Main, 6))
        .expect("set att (29 00 11)");
    assert!(mock.wait_state("att", json!(6)), "{}", mock.state());
    radio
        .execute(Command::write(SettingId::Att, civ::Receiver::Main, 0))
        .expect("att off");
    assert!(mock.wait_state("att", json!(0)));
    radio
        .execute(Command::write(SettingId::Preamp, civ::Receiver::Main, 1))
        .expect("set preamp (29 00 16 02)");
    assert!(mock.wait_state("preamp", json!(1)), "{}", mock.state());
    let st = radio.store().read(|c| c.radio.clone());
    assert_eq!(
        (
            st.main.freq_hz,
            st.main.mode.map(Mode::name),
            st.main.filter
        ),
        (Some(7_074_000), Some("CW"), Some(2))
    );
    assert_eq!(
        (
            st.settings.power,
            st.main.settings.att,
            st.main.settings.preamp
        ),
        (Some(128), Some(0), Some(1))
    );
    mock.assert_clean();
    radio.shutdown();
}

#[test]
fn mock_nak_is_radio_rejected_and_meters_read() {
    let mock = Mock::start(&[]);
    let radio = mock.radio();
    wait_ready(&radio, READY);
    // the mock NAKs `1C 00 01` (everything it does not know)
    let e = radio.execute(Command::Ptt(true)).unwrap_err();
    assert_eq!(e.code, ErrorCode::RadioRejected, "{e}");
    let m = radio
        .execute(Command::ReadMeters(vec![MeterKind::Smeter, MeterKind::Swr]))
        .expect("meters");
    assert_eq!(
        m,
        Answer::Meters(vec![(MeterKind::Smeter, 120), (MeterKind::Swr, 10)]),
        "the mock's S-meter and SWR"
    );
    assert!(ready(&radio), "a NAK does not cost readiness");
    mock.assert_clean();
    radio.shutdown();
}

#[test]
fn mock_slow_radio_answers_after_300_ms() {
    // the mock's `response_delay` knob (§7.1): every reply, control and CI-V, is late
    let mock = Mock::start(&["--response-delay", "0.3"]);
    let radio = mock.radio();
    // the state fetch reads every setting: about 70 answers, each 300 ms late
    wait_ready(&radio, Duration::from_secs(40));
    radio
        .execute(Command::SetFreq {
            target: Target::Receiver(civ::Receiver::Main),
            hz: 21_074_000,
        })
        .expect("set freq");
    assert!(
        mock.wait_state("freq", json!(21_074_000)),
        "{}",
        mock.state()
    );
    let m = radio
        .execute(Command::ReadMeters(vec![MeterKind::Smeter]))
        .expect("meters");
    assert_eq!(m, Answer::Meters(vec![(MeterKind::Smeter, 120)]));
    mock.assert_clean();
    radio.shutdown();
}

#[test]
fn mock_idle_link_stays_ready() {
    let mock = Mock::start(&[]);
    let radio = mock.radio();
    wait_ready(&radio, READY);
    // The mock sends nothing unsolicited: no idles, no pings.
    let end = Instant::now() + Duration::from_secs(8);
    let mut samples = 0;
    let mut not_ready = Vec::new();
    while Instant::now() < end {
        samples += 1;
        if !ready(&radio) {
            not_ready.push(samples);
        }
        thread::sleep(Duration::from_millis(50));
    }
    assert!(
        not_ready.is_empty(),
        "radio_ready went false in {} of {samples} samples (first at sample {:?}); link {:?}",
        not_ready.len(),
        not_ready.first(),
        radio.link_status()
    );
    assert_eq!(radio.link_status().connects, 1, "no reconnect");
    mock.assert_clean();
    radio.shutdown();
    // §1.10 / §10 client item 1, as the mock counted it: a ping every 500 ms on each
    // port, a tracked idle every 100 ms on CI-V when nothing else was sent
    assert!(wait_for(Duration::from_secs(2), || !mock.stats().is_null()));
    let stats = mock.stats();
    let secs = stats["elapsed_s"].as_f64().unwrap();
    let count = |k: &str| stats["datagrams"][k].as_f64().unwrap_or(0.0);
    for port in ["control", "civ"] {
        let per_s = count(&format!("{port}:ping")) / secs;
        assert!(
            (1.5..=2.5).contains(&per_s),
            "{port} pings/s {per_s}: {stats}"
        );
    }
    let civ_quiet = count("civ:idle") + count("civ:data") + count("civ:openclose");
    assert!(civ_quiet / secs >= 8.0, "CI-V tracked packets/s: {stats}");
}

/// Logs our client in at the mock, shuts it down and returns the logout steps the mock
/// received, in order of arrival (kernel receive timestamps).
fn logout_steps_at_the_mock() -> Vec<String> {
    let mock = Mock::start(&[]);
    let radio = mock.radio();
    wait_ready(&radio, READY);
    radio.shutdown();
    let steps = || {
        let mut steps: Vec<(u64, String)> = mock
            .peer
            .lines
            .lock()
            .unwrap()
            .iter()
            .filter(|v| v["event"] == "goodbye")
            .map(|v| {
                let what = v["what"].as_str().unwrap_or_default().to_string();
                (v["t_ns"].as_u64().unwrap_or(0), what)
            })
            .collect();
        steps.sort();
        steps.into_iter().map(|(_, w)| w).collect::<Vec<_>>()
    };
    wait_for(Duration::from_secs(2), || steps().len() >= 4);
    steps()
}

#[test]
fn mock_sees_a_complete_logout() {
    // §2.11 / §10 client item 4: OpenClose(close) and DISCONNECT on CI-V, token remove
    // and DISCONNECT on control (the mock has no audio port).
    let mut steps = logout_steps_at_the_mock();
    steps.sort();
    assert_eq!(
        steps,
        [
            "civ:disconnect",
            "civ:openclose_close",
            "control:disconnect",
            "control:token_remove"
        ]
    );
}

#[test]
fn mock_sees_the_logout_in_the_reference_order() {
    // run it a few times: the order is a race
    for _ in 0..5 {
        assert_eq!(
            logout_steps_at_the_mock(),
            [
                "civ:openclose_close",
                "civ:disconnect",
                "control:token_remove",
                "control:disconnect"
            ],
            "order of arrival at the radio"
        );
    }
}

#[test]
fn mock_auth_fail_is_permanent() {
    let mock = Mock::start(&["--auth-fail"]);
    let radio = mock.radio();
    assert!(
        wait_for(Duration::from_secs(5), || radio.link_status().state
            == LinkState::Failed),
        "{:?}",
        radio.link_status()
    );
    assert!(!ready(&radio));
    let logins = || {
        mock.peer
            .stderr
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains("login refused"))
            .count()
    };
    thread::sleep(Duration::from_millis(1500));
    assert_eq!(logins(), 1, "no retry after a permanent failure");
    radio.shutdown();
}

// ---------------------------------------------------------------------------------------
// The reference-style client against our simulator
// ---------------------------------------------------------------------------------------

/// Runs `anchor_client.py` against a fresh IC-7610 simulator; (exit status, summary, sim).
fn run_client(
    password: &str,
    extra: &[&str],
) -> (ExitStatus, Value, rigweb::sim::server::SimHandle) {
    let sim = start_sim("ic7610");
    let port = sim.addrs().control.port().to_string();
    let mut args = vec![port.as_str(), "tester", password, "--timeout", "20"];
    args.extend_from_slice(extra);
    let mut peer = Peer::spawn("anchor_client.py", &args);
    let (status, summary) = peer.finish(Duration::from_secs(30));
    (status, summary, sim)
}

/// The checks every successful session must pass.
fn assert_conforming_session(status: ExitStatus, s: &Value, sim: &rigweb::sim::server::SimHandle) {
    assert!(status.success(), "exit {status}: {s:#}");
    assert_eq!(s["anomalies"], json!([]), "{s:#}");
    assert_eq!(s["failures"], json!([]), "{s:#}");
    assert_eq!(s["login"]["error"], "0x00000000");
    assert_eq!(s["status"]["civ_port"], sim.addrs().civ.port());
    assert_eq!(s["values"]["freq_after_set"], 7_074_000);
    assert_eq!(s["values"]["set_freq_reply"], "fb");
    assert_eq!(
        s["values"]["id_via_broadcast"], "19 00 98",
        "§4.1 request to 0x00"
    );
    assert_eq!(sim_vfo(&sim.snapshot().unwrap(), 0).freq_hz, 7_074_000);
    let audio = &s["audio"];
    assert!(audio["max_payload"].as_u64().unwrap() <= 1364, "{audio}");
    assert_eq!(audio["pattern_ok"], true, "{audio}");
    assert_eq!(audio["inner_seq_ok"], true, "{audio}");
    assert!(audio["packets"].as_u64().unwrap() >= 100, "{audio}");
    assert_eq!(
        s["logout"],
        json!([
            "audio:openclose_close",
            "audio:disconnect",
            "civ:openclose_close",
            "civ:disconnect",
            "control:token_remove",
            "control:disconnect"
        ])
    );
    assert!(
        wait_for(Duration::from_secs(2), || sim.stats().clean_logouts == 1),
        "{:?}",
        sim.stats()
    );
    let st = sim.stats();
    assert_eq!(
        (
            st.logins_ok,
            st.streams_granted,
            st.streams_held,
            st.guid_mismatches
        ),
        (1, 1, 0, 0),
        "{st:?}"
    );
    assert_eq!(
        st.malformed, 0,
        "the simulator rejected a reference packet: {st:?}"
    );
}

#[test]
fn python_wire_helpers_match_the_spec_vectors() {
    let mut peer = Peer::spawn("icom_wire.py", &[]);
    let (status, _) = peer.finish(Duration::from_secs(10));
    assert!(status.success(), "{}", peer.stderr_text());
}

#[test]
fn reference_client_session_against_the_simulator() {
    let (status, s, sim) = run_client("s3cret", &[]);
    assert_conforming_session(status, &s, &sim);
    assert_eq!(s["controller"], "0xe0");
    assert_eq!(s["resends"], 0, "{s:#}");
    assert_eq!(s["get_retries"], 0, "{s:#}");
    assert_eq!(s["values"]["power_on"], 1);
    assert_eq!(s["login"]["conn_type"], "FTTH");
    assert_eq!(s["status"]["error"], "0x00000000");
    assert_eq!(s["capabilities"]["civ_addr"], "0x98", "{s:#}");
    // §1.4: unknown seqs are answered with a "don't have it" filler idle
    let probe = &s["retransmit_probe"];
    assert_eq!(probe["known_resent"], 1, "{probe}");
    assert_eq!(
        probe["known_identical"], true,
        "§1.9 byte-identical: {probe}"
    );
    assert_eq!(probe["filler_single"], true, "{probe}");
    assert_eq!(probe["filler_multi"], json!([true, true]), "{probe}");
    // §2.6: token renewal and token remove are answered, response 0 (innerseq 2 and 3, [A])
    for (key, kind, inner) in [("token_renewal_reply", 5, 2), ("token_remove_reply", 1, 3)] {
        let r = &s[key];
        assert_eq!(
            (&r["requestreply"], &r["requesttype"], &r["innerseq"]),
            (&json!(2), &json!(kind), &json!(inner)),
            "{key}: {s:#}"
        );
        assert_eq!(r["response"], "0x00000000", "{key}: {s:#}");
    }
}

#[test]
fn reference_client_as_wfview_controller_e1() {
    let (status, s, sim) = run_client("s3cret", &["--controller", "0xE1"]);
    assert_conforming_session(status, &s, &sim);
    assert_eq!(s["controller"], "0xe1");
    assert_eq!(s["get_retries"], 0, "{s:#}");
    assert_eq!(s["retransmit_probe"]["known_identical"], true, "{s:#}");
}

#[test]
fn reference_client_at_five_percent_loss() {
    // one AYR per port, as [A] sends: a lost one must not stall the session
    let (status, s, sim) = run_client("s3cret", &["--loss", "0.05", "--seed", "11"]);
    assert_conforming_session(status, &s, &sim);
    let t = &s["transport_totals"];
    let n = |k: &str| t[k].as_u64().unwrap_or(0);
    assert!(n("rx_lost") + n("tx_lost") > 0, "loss was applied: {t}");
    assert!(
        n("retransmit_requests_sent") > 0 && n("gaps_filled") > 0,
        "the simulator answered our retransmit requests: {t}"
    );
    assert!(
        n("tracked_lost_recoverable") == 0 || n("retransmits_answered") > 0,
        "the simulator asked for what it missed: {t}"
    );
}

#[test]
fn reference_client_survives_a_lost_ayr_on_control() {
    // [A] goes on without I-am-ready (§1.4); our first control AYR is lost
    let (status, s, sim) = run_client("s3cret", &["--drop-ayr", "control"]);
    assert_conforming_session(status, &s, &sim);
}

#[test]
fn reference_client_survives_a_lost_ayr_on_civ_and_audio() {
    let (status, s, sim) = run_client("s3cret", &["--drop-ayr", "civ", "--drop-ayr", "audio"]);
    assert_conforming_session(status, &s, &sim);
}

#[test]
fn reference_client_with_a_wrong_password() {
    let (status, s, sim) = run_client("not-the-password", &[]);
    assert_eq!(status.code(), Some(2), "{s:#}");
    assert_eq!(s["login"]["error"], "0xfeffffff", "{s:#}");
    assert_eq!(sim.stats().logins_rejected, 1);
    assert_eq!(sim.stats().logins_ok, 0);
}
