//! Our client (`Radio`) against the anchor project's fake radio (`anchor_mock.py`).

use std::net::SocketAddr;
use std::thread;
use std::time::{Duration, Instant};

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

use crate::common::*;
use crate::{Peer, READY};

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
