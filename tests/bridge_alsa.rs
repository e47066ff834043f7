//! The audio bridge against a real ALSA: libasound's `file` plugin over a `null` slave,
//! set up by an `.asoundrc` this test writes into a temporary `$HOME` (snd-aloop cannot
//! be loaded on machines without sound support in the kernel). Needs `libasound2`
//! (Debian; `.ci/run` installs it with `alsa-utils`).
//!
//! The file plugin does not run in real time (the bridge's TX side keeps to the clock
//! itself), pads playback with trailing silence when it closes, and reading past the end
//! of its `infile` returns stale data (the TX input here is long enough never to end).
//!
//! A test binary of its own without the test harness: `$HOME` is set in `main` before
//! any thread exists (libasound reads `~/.asoundrc`). `cargo test --test bridge_alsa --
//! NAME` runs the scenarios whose name contains NAME.

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use common::audio::peak_hz;
use common::rigctl::{Rigctl, rigctld_addr, rigctld_config, start};
use common::wait_for;
use common::web::{Ws, get, http};
use rigweb::app::Running;
use rigweb::radio::audio_pump::PcmBlock;
use serde_json::{Value, json};

const T: Duration = Duration::from_secs(10);

/// Seconds of TX input (never read to its end).
const INFILE_S: usize = 60;

fn dir() -> &'static Path {
    static D: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    D.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("rigweb-bridge-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    })
}

/// `.asoundrc`: `bridge_<name>` plays into `<name>.raw` and records from `tone.raw`.
fn write_asoundrc(names: &[&str]) {
    let d = dir();
    let tone: Vec<u8> = common::audio::tone(1_000.0, 48_000, 0, 48_000 * INFILE_S)
        .iter()
        .flat_map(|s| s.to_le_bytes())
        .collect();
    std::fs::write(d.join("tone.raw"), tone).unwrap();
    let mut rc = String::new();
    for n in names {
        rc.push_str(&format!(
            r#"pcm.bridge_{n} {{
    type asym
    playback.pcm {{
        type file
        slave.pcm "null"
        file "{out}"
        format "raw"
    }}
    capture.pcm {{
        type file
        slave.pcm "null"
        file "/dev/null"
        infile "{tone}"
        format "raw"
    }}
}}
"#,
            out = d.join(format!("{n}.raw")).display(),
            tone = d.join("tone.raw").display(),
        ));
    }
    std::fs::write(d.join(".asoundrc"), rc).unwrap();
}

fn server(model: &str, device: &str) -> Running {
    let mut cfg = rigctld_config(model);
    cfg.bridge.device = device.to_string();
    start(cfg)
}

fn bridge(addr: SocketAddr, method: &str) -> (u16, Value) {
    let r = http(addr, method, "/api/v1/bridge", &[], None);
    (r.status, r.json())
}

fn samples(path: &Path) -> Vec<i16> {
    std::fs::read(path)
        .unwrap()
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect()
}

/// Records the radio's audio as it arrives (what the simulator sent, decoded).
fn record(
    srv: &Running,
) -> (
    rigweb::hub::Subscription<PcmBlock>,
    crossbeam_channel::Receiver<Arc<PcmBlock>>,
) {
    let (tx, rx) = crossbeam_channel::unbounded();
    (srv.app.radio.audio().subscribe_with(Arc::new(tx)), rx)
}

/// Checks that `played` (48 kHz mono) is a stretch of the recorded radio audio
/// (channel 0 of `channels`).
fn assert_played_is_the_radio_audio(played: &[i16], recorded: &[i16], what: &str) {
    assert!(
        played.len() > 48_000,
        "{what}: {} samples played",
        played.len()
    );
    let rms =
        (played.iter().map(|&s| f64::from(s).powi(2)).sum::<f64>() / played.len() as f64).sqrt();
    assert!(
        rms > 10.0,
        "{what}: the radio's audio is not silence (rms {rms})"
    );
    let key = &played[..64];
    let start = recorded
        .windows(64)
        .position(|w| w == key)
        .unwrap_or_else(|| panic!("{what}: the first samples played are not in the radio's audio"));
    let end = (start + played.len()).min(recorded.len());
    let n = end - start;
    assert!(n > 48_000, "{what}: {n} samples to compare");
    let first_diff = (0..n).find(|&i| played[i] != recorded[start + i]);
    assert_eq!(
        first_diff, None,
        "{what}: the PCM written differs from the radio's audio"
    );
}

fn rx_pcm_written_equals_the_radio_audio(model: &str) {
    let name = format!("rx_{model}");
    let srv = server(model, &format!("bridge_{name}"));
    let (sub, blocks) = record(&srv);
    let (status, s) = bridge(srv.addr(), "POST");
    assert_eq!((status, &s["state"]), (200, &json!("running")), "{s}");
    assert!(
        wait_for(T, || bridge(srv.addr(), "GET").1["rx_frames"].as_u64()
            >= Some(150)),
        "RX frames are played"
    );
    let (status, s) = bridge(srv.addr(), "DELETE");
    assert_eq!((status, &s["state"]), (200, &json!("stopped")), "{s}");
    assert_eq!(s["rx_drops"], 0, "{s}");
    drop(sub);
    let mut recorded = Vec::new();
    let mut channels = 1;
    for b in blocks.try_iter() {
        channels = usize::from(b.channels);
        // the bridge plays MAIN: channel 0
        recorded.extend(b.samples.iter().step_by(channels));
    }
    assert_eq!(
        channels,
        if model == "ic7610" { 2 } else { 1 },
        "{model}'s audio"
    );
    let played = samples(&dir().join(format!("{name}.raw")));
    let written = s["rx_frames"].as_u64().unwrap() as usize * 960;
    assert!(
        played.len() >= written,
        "the file holds what was played (and padding)"
    );
    assert_played_is_the_radio_audio(&played[..written], &recorded, model);
    srv.shutdown();
}

fn sim_tx(srv: &Running) -> (u64, u64, u64, bool) {
    let s = srv.sim.as_ref().unwrap().snapshot().unwrap();
    (
        s.tx_audio_samples,
        s.tx_audio_muted,
        s.tx_audio_dropped,
        s.ptt,
    )
}

fn tx_reaches_the_radio_only_while_keyed() {
    let srv = server("ic7610", "bridge_tx");
    assert_eq!(bridge(srv.addr(), "POST").0, 200);
    // a second of a 1 kHz tone from the sound card, nobody keyed: nothing reaches the
    // radio and the bridge does not key
    std::thread::sleep(Duration::from_secs(1));
    let (samples, muted, dropped, ptt) = sim_tx(&srv);
    assert_eq!((samples, muted, dropped, ptt), (0, 0, 0, false));
    assert_eq!(bridge(srv.addr(), "GET").1["tx_frames"], 0);
    // a rigctld client keys (WSJT-X's data PTT): the tone reaches the radio
    let mut c = Rigctl::connect(rigctld_addr(&srv));
    assert_eq!(c.one("T 3"), "RPRT 0");
    assert!(
        wait_for(T, || sim_tx(&srv).0 >= 48_000),
        "TX audio while keyed: {:?}",
        sim_tx(&srv)
    );
    let tail = srv.sim.as_ref().unwrap().snapshot().unwrap().tx_audio_tail;
    let hz = peak_hz(&tail[tail.len() - 4800..]);
    assert!((hz - 1_000.0).abs() < 50.0, "the tone arrives: {hz} Hz");
    assert_eq!(c.one("T 0"), "RPRT 0");
    assert!(wait_for(T, || !sim_tx(&srv).3));
    std::thread::sleep(Duration::from_millis(300)); // what was on its way has arrived
    let after = sim_tx(&srv);
    std::thread::sleep(Duration::from_secs(1));
    let later = sim_tx(&srv);
    assert_eq!(
        later.0, after.0,
        "nothing reaches the radio after the unkey"
    );
    assert!(
        later.2 <= 960,
        "{} samples reached an unkeyed radio",
        later.2
    );
    // keyed from the web: the bridge's audio goes out too
    let mut w = Ws::control(srv.addr());
    assert_eq!(w.cmd("k", "ptt", json!({"state": true}))["ok"], true);
    assert!(wait_for(T, || sim_tx(&srv).0 >= later.0 + 24_000));
    assert_eq!(w.cmd("u", "ptt", json!({"state": false}))["ok"], true);
    let s = bridge(srv.addr(), "DELETE").1;
    assert!(s["tx_frames"].as_u64().unwrap() >= 75, "{s}");
    srv.shutdown();
}

fn start_and_stop_are_idempotent() {
    let srv = server("ic705", "bridge_twice");
    let (status, s) = bridge(srv.addr(), "GET");
    assert_eq!(status, 200);
    let mut keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "device",
            "error",
            "running",
            "rx_drops",
            "rx_frames",
            "state",
            "tx_frames",
            "uptime_s"
        ]
    );
    assert_eq!(
        (&s["running"], &s["device"]),
        (&json!(false), &json!("bridge_twice"))
    );
    for _ in 0..2 {
        let (status, s) = bridge(srv.addr(), "POST");
        assert_eq!((status, &s["running"]), (200, &json!(true)), "{s}");
    }
    assert!(wait_for(T, || bridge(srv.addr(), "GET").1["uptime_s"]
        .as_u64()
        >= Some(1)));
    for _ in 0..2 {
        let (status, s) = bridge(srv.addr(), "DELETE");
        assert_eq!((status, &s["state"]), (200, &json!("stopped")), "{s}");
    }
    // and again
    assert_eq!(bridge(srv.addr(), "POST").0, 200);
    assert_eq!(bridge(srv.addr(), "DELETE").0, 200);
    srv.shutdown();
}

fn a_missing_device_is_a_clear_error() {
    for device in ["hw:Loopback,0", "bridge_no_such_device"] {
        let srv = server("ic705", device);
        let (status, e) = bridge(srv.addr(), "POST");
        assert_eq!(status, 503, "{e}");
        assert_eq!(e["error"], "device_not_found", "{e}");
        let msg = e["message"].as_str().unwrap();
        assert!(msg.contains(device), "{msg}");
        if device.contains("Loopback") {
            assert!(msg.contains("modprobe snd-aloop"), "{msg}");
        }
        let s = bridge(srv.addr(), "GET").1;
        assert_eq!(
            (&s["state"], &s["running"]),
            (&json!("failed"), &json!(false))
        );
        assert!(s["error"].as_str().unwrap().contains(device), "{s}");
        // the radio goes on; stop clears the failure
        assert_eq!(get(srv.addr(), "/api/v1/info").status, 200);
        let (status, s) = bridge(srv.addr(), "DELETE");
        assert_eq!(
            (status, &s["state"], &s["error"]),
            (200, &json!("stopped"), &Value::Null)
        );
        srv.shutdown();
    }
}

fn the_bridge_starts_at_launch_and_stops_with_the_server() {
    let mut cfg = rigctld_config("ic705");
    cfg.bridge.device = "bridge_launch".into();
    cfg.bridge.start = true;
    let srv = start(cfg);
    assert_eq!(bridge(srv.addr(), "GET").1["running"], true);
    let b = srv.bridge().unwrap().clone();
    srv.shutdown();
    assert_eq!(b.status().state.as_str(), "stopped");
}

fn main() {
    let names = ["rx_ic705", "rx_ic7610", "tx", "twice", "launch"];
    write_asoundrc(&names);
    // SAFETY: no other thread exists yet (this binary has no test harness); libasound
    // reads the variable when the bridge first opens a device.
    unsafe {
        std::env::set_var("HOME", dir());
        std::env::remove_var("XDG_CONFIG_HOME");
    }
    let scenarios: &[(&str, fn())] = &[
        ("rx_pcm_written_equals_the_radio_audio_ic705", || {
            rx_pcm_written_equals_the_radio_audio("ic705")
        }),
        ("rx_pcm_written_equals_the_radio_audio_ic7610_main", || {
            rx_pcm_written_equals_the_radio_audio("ic7610")
        }),
        (
            "tx_reaches_the_radio_only_while_keyed",
            tx_reaches_the_radio_only_while_keyed,
        ),
        (
            "start_and_stop_are_idempotent",
            start_and_stop_are_idempotent,
        ),
        (
            "a_missing_device_is_a_clear_error",
            a_missing_device_is_a_clear_error,
        ),
        (
            "the_bridge_starts_at_launch_and_stops_with_the_server",
            the_bridge_starts_at_launch_and_stops_with_the_server,
        ),
    ];
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let chosen: Vec<_> = scenarios
        .iter()
        .filter(|(n, _)| filters.is_empty() || filters.iter().any(|f| n.contains(f.as_str())))
        .collect();
    println!("\nrunning {} bridge scenarios", chosen.len());
    for (name, f) in &chosen {
        println!("test {name} ...");
        f();
        println!("test {name} ... ok");
    }
    println!("\ntest result: ok. {} passed", chosen.len());
    let _ = std::fs::remove_dir_all(dir());
}
