//! The reference-style client (`anchor_client.py`) against our simulator.

use std::process::ExitStatus;
use std::time::Duration;

use serde_json::{Value, json};

use crate::Peer;
use crate::common::*;

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
