//! The rigctld server against real counterparts on loopback: Hamlib's own `rigctl -m 2`
//! (the NET rigctl backend WSJT-X, fldigi and loggers use) reading and setting frequency,
//! mode, PTT, split and levels, parsing `\dump_state`; WSJT-X's start-up, resolution
//! probe and poll replayed from tests/transcripts/wsjtx_rigctld.txt; two clients at once;
//! PTT ownership (another owner refused, a vanished owner released, the TX timeout);
//! every set checked in the simulated radio itself.

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::rigctl::*;
use common::web::Ws;
use common::{sim_vfo, wait_for};
use rigweb::app::Running;
use serde_json::json;

const T: Duration = Duration::from_secs(10);

fn sim_ptt(srv: &Running) -> bool {
    srv.sim.as_ref().unwrap().snapshot().unwrap().ptt
}

#[test]
fn hamlib_rigctl_reads_and_sets_an_ic7610() {
    let srv = start(rigctld_config("ic7610"));
    let addr = rigctld_addr(&srv);
    let out = hamlib_rigctl(
        addr,
        &[
            "F", "14074000", "f", "M", "PKTUSB", "0", "m", "S", "1", "Sub", "s", "I", "14075500",
            "i", "X", "USB", "0", "x", "L", "RFPOWER", "0.5", "l", "RFPOWER", "U", "NB", "1", "u",
            "NB", "L", "AF", "0.25", "l", "AF", "L", "RF", "0.75", "l", "RF", "L", "SQL", "0.1",
            "l", "SQL", "v",
        ],
    );
    assert_eq!(
        out,
        [
            "14074000", "PKTUSB", "3000", "1", "Sub", "14075500", "USB", "3000", "0.501961", "1",
            "0.250980", "0.749020", "0.101961", "Main",
        ],
        "{out:?}"
    );
    let s = srv.sim.as_ref().unwrap().snapshot().unwrap();
    let (main, sub) = (sim_vfo(&s, 0), sim_vfo(&s, 1));
    assert_eq!(main.freq_hz, 14_074_000);
    assert_eq!((main.mode, main.data), (0x01, 1), "USB with DATA on");
    assert_eq!(sub.freq_hz, 14_075_500, "split TX frequency on SUB");
    assert_eq!((sub.mode, sub.data), (0x01, 0));
    assert!(s.split, "split really on");
    assert_eq!(s.selected_rx, 0, "MAIN stays selected");
    assert_eq!(common::sim_rf_power(&s), 128);
    let levels = &s.receivers[0].levels;
    assert_eq!(
        (levels.get(&0x01), levels.get(&0x02), levels.get(&0x03)),
        (Some(&64), Some(&191), Some(&26)),
        "AF, RF and squelch of MAIN"
    );
    // PTT in one session (a session that ends while keyed would release it)
    let out = hamlib_rigctl(
        addr,
        &[
            "T",
            "1",
            "t",
            "l",
            "SWR",
            "l",
            "ALC",
            "l",
            "RFPOWER_METER_WATTS",
            "T",
            "0",
            "t",
        ],
    );
    assert_eq!(out.len(), 5, "{out:?}");
    assert_eq!((out[0].as_str(), out[4].as_str()), ("1", "0"));
    let swr: f64 = out[1].parse().unwrap();
    assert!((1.0..6.0).contains(&swr), "SWR while keyed: {swr}");
    let alc: f64 = out[2].parse().unwrap();
    assert!((0.0..=2.2).contains(&alc), "ALC while keyed: {alc}");
    let watts: f64 = out[3].parse().unwrap();
    assert!(
        (0.0..=120.0).contains(&watts),
        "power while keyed: {watts} W"
    );
    assert!(!sim_ptt(&srv));
    let out = hamlib_rigctl(addr, &["S", "0", "Main", "s", "l", "STRENGTH"]);
    assert_eq!(&out[..2], ["0", "Main"]);
    let strength: i32 = out[2].parse().unwrap();
    assert!((-54..=60).contains(&strength), "STRENGTH {strength}");
    assert!(!srv.sim.as_ref().unwrap().snapshot().unwrap().split);
    // the functions of issue 19, announced in the dump_state's masks
    let out = hamlib_rigctl(
        addr,
        &[
            "U", "XIT", "1", "u", "XIT", "U", "VOX", "1", "u", "VOX", "U", "APF", "1", "u", "APF",
        ],
    );
    assert_eq!(out, ["1", "1", "1"], "{out:?}");
    let s = srv.sim.as_ref().unwrap().snapshot().unwrap();
    assert!(s.xit_on, "21 02 01");
    assert_eq!(s.functions.get(&0x46), Some(&1), "VOX 16 46 01");
    assert_eq!(s.receivers[0].functions.get(&0x32), Some(&1), "APF of MAIN");
    srv.shutdown();
}

#[test]
fn hamlib_rigctl_splits_an_ab_radio_without_changing_its_vfo() {
    let srv = start(rigctld_config("ic705"));
    let addr = rigctld_addr(&srv);
    let out = hamlib_rigctl(
        addr,
        &[
            "F", "7074000", "S", "1", "VFOB", "I", "7076000", "X", "CW", "0", "s", "i", "x", "f",
            "v",
        ],
    );
    assert_eq!(
        out,
        ["1", "VFOB", "7076000", "CW", "1200", "7074000", "VFOA"],
        "{out:?}"
    );
    let s = srv.sim.as_ref().unwrap().snapshot().unwrap();
    let rx = &s.receivers[0];
    assert_eq!(rx.active_vfo, 0, "VFO A receives");
    assert_eq!(rx.vfo[0].freq_hz, 7_074_000);
    assert_eq!(rx.vfo[1].freq_hz, 7_076_000, "VFO B transmits");
    assert_eq!(rx.vfo[1].mode, 0x03, "CW on VFO B");
    assert!(s.split);
    // DATA mode on the transmitting VFO reaches the radio
    hamlib_rigctl(addr, &["X", "PKTUSB", "0"]);
    let s = srv.sim.as_ref().unwrap().snapshot().unwrap();
    let b = s.receivers[0].vfo[1];
    assert_eq!((b.mode, b.data), (0x01, 1), "USB-D on VFO B");
    assert_eq!(s.receivers[0].active_vfo, 0);
    srv.shutdown();
}

#[test]
fn hamlib_rigctl_parses_the_dump_state() {
    let srv = start(rigctld_config("ic7610"));
    let addr = rigctld_addr(&srv);
    // `1` dumps the capabilities netrigctl built from our \dump_state
    let caps = hamlib_rigctl(addr, &["1"]).join("\n");
    for want in [
        "PTT type:\tRig capable",
        "Has targetable VFO: N",
        "Attenuator: 3dB 6dB",
        "Preamp: 10dB 20dB",
        "VFO list: Sub Main",
        "Low power: 2 W, High power: 100 W",
        "Get functions: NB COMP VOX ANF NR APF MON MN RIT TUNER XIT DUAL_WATCH",
        "Set functions: NB COMP VOX ANF NR APF MON MN RIT TUNER XIT DUAL_WATCH",
    ] {
        assert!(caps.contains(want), "{want:?} in:\n{caps}");
    }
    for level in [
        "STRENGTH",
        "RFPOWER_METER_WATTS",
        "SWR",
        "ALC",
        "AF",
        "RF",
        "SQL",
    ] {
        assert!(caps.contains(&format!(" {level}(")), "{level}");
    }
    let mut c = Rigctl::connect(addr);
    assert_eq!(c.one("\\chk_vfo"), "0");
    assert_eq!(c.one("+\\chk_vfo"), "ChkVFO: 0");
    c.send("\\dump_state");
    let mut lines = Vec::new();
    while let Some(l) = c.line() {
        let done = l == "done";
        lines.push(l);
        if done {
            break;
        }
    }
    assert_eq!(&lines[..3], ["1", "2", "0"]);
    assert!(lines.contains(&"ptt_type=0x1".to_string()));
    assert!(lines.contains(&"targetable_vfo=0x0".to_string()));
    srv.shutdown();
}

#[test]
fn answers_in_every_format_and_errors_at_once() {
    let srv = start(rigctld_config("ic7610"));
    let mut c = Rigctl::connect(rigctld_addr(&srv));
    c.one("F 14074000");
    assert_eq!(
        c.ask("+f", 3),
        ["get_freq:", "Frequency: 14074000", "RPRT 0"]
    );
    assert_eq!(c.one(";f"), "get_freq:;Frequency: 14074000;RPRT 0");
    assert_eq!(c.one("|\\get_freq"), "get_freq:|Frequency: 14074000|RPRT 0");
    assert_eq!(c.ask("+F 14074100", 2), ["set_freq: 14074100", "RPRT 0"]);
    let t0 = Instant::now();
    assert_eq!(c.one("\\no_such_command"), "RPRT -4");
    assert_eq!(c.one("k"), "RPRT -4");
    assert_eq!(c.one("F abc"), "RPRT -1");
    assert_eq!(c.one("V VFOZ"), "RPRT -16");
    assert_eq!(c.one("l NOSUCHLEVEL"), "RPRT -1");
    assert!(t0.elapsed() < Duration::from_secs(5), "errors at once");
    assert_eq!(c.ask("f m", 3), ["14074100", "USB", "3000"]);
    assert_eq!(c.one("\\get_powerstat"), "1");
    assert_eq!(c.one("\\power2mW 1 14074000 USB"), "100000");
    // out of the radio's range: the command table refuses it
    assert_eq!(c.one("F 1"), "RPRT -1");
    c.send("q");
    assert_eq!(c.line(), None, "q closes");
    srv.shutdown();
}

/// A transcript step.
enum Step<'a> {
    Send(&'a str),
    Expect(&'a str),
    Set(&'a str, &'a str),
}

/// Runs the transcript `text` against a connection; variables in `vars`.
fn replay(c: &mut Rigctl, text: &str, vars: &mut HashMap<String, i64>) {
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        let l = l.trim_end();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if let Some(n) = l.strip_prefix("* ") {
            let block: Vec<&str> = lines.by_ref().take_while(|x| x.trim() != "end").collect();
            let block = block.join("\n");
            for _ in 0..n.trim().parse::<usize>().unwrap() {
                replay(c, &block, vars);
            }
            continue;
        }
        let (kind, rest) = l.split_at(2);
        let step = match kind {
            "> " => Step::Send(rest),
            "< " => Step::Expect(rest),
            "= " => {
                let (name, expr) = rest.split_once(' ').unwrap();
                Step::Set(name, expr)
            }
            _ => panic!("bad transcript line {l:?}"),
        };
        run_step(c, step, vars);
    }
}

fn run_step(c: &mut Rigctl, s: Step, vars: &mut HashMap<String, i64>) {
    let subst = |t: &str, vars: &HashMap<String, i64>| {
        let mut out = t.to_string();
        for (k, v) in vars {
            out = out.replace(&format!("${k}"), &v.to_string());
        }
        out
    };
    match s {
        Step::Send(line) => c.send(&subst(line, vars)),
        Step::Set(name, expr) => {
            let words: Vec<&str> = expr.split(' ').collect();
            let v = match words.as_slice() {
                ["probe", f] => {
                    let f = vars[*f];
                    f - f % 100 + 55
                }
                [f, "+", n] => vars[*f] + n.parse::<i64>().unwrap(),
                _ => panic!("bad expression {expr:?}"),
            };
            vars.insert(name.to_string(), v);
        }
        Step::Expect("<until done>") => {
            while c.line().expect("dump_state ends with done") != "done" {}
        }
        Step::Expect(want) => {
            let got = c
                .line()
                .unwrap_or_else(|| panic!("no line; expected {want:?}"));
            match want {
                "<int>" => assert!(got.parse::<i64>().is_ok(), "{got:?} is not an integer"),
                "<float>" => assert!(got.parse::<f64>().is_ok(), "{got:?} is not a number"),
                "<word>" => assert!(!got.is_empty() && !got.contains(' '), "{got:?}"),
                var if var.starts_with('$') => {
                    let name = &var[1..];
                    let v: i64 = got.parse().unwrap_or_else(|_| panic!("{got:?} for {var}"));
                    match vars.get(name) {
                        Some(want) => assert_eq!(v, *want, "{var}"),
                        None => {
                            vars.insert(name.to_string(), v);
                        }
                    }
                }
                exact => assert_eq!(got, exact),
            }
        }
    }
}

#[test]
fn wsjtx_start_up_resolution_probe_split_and_poll() {
    let srv = start(rigctld_config("ic7610"));
    let mut c = Rigctl::connect(rigctld_addr(&srv));
    let mut vars = HashMap::new();
    replay(
        &mut c,
        include_str!("transcripts/wsjtx_rigctld.txt"),
        &mut vars,
    );
    assert_eq!(c.line(), None, "q closed the connection");
    let s = srv.sim.as_ref().unwrap().snapshot().unwrap();
    assert_eq!(
        sim_vfo(&s, 0).freq_hz as i64,
        vars["F"],
        "the probe restored the dial"
    );
    assert_eq!(sim_vfo(&s, 1).freq_hz as i64, vars["TX"]);
    assert!(!s.ptt && !s.split);
    srv.shutdown();
}

#[test]
fn a_burst_of_sets_reads_back_each_value_and_ends_at_the_last() {
    // WSJT-X's probe and a fast tuning knob: sets inside one rate-limit window are held
    // (acknowledged at once), reads answer them, the radio ends at the last one
    let srv = start(rigctld_config("ic7610"));
    let mut c = Rigctl::connect(rigctld_addr(&srv));
    for i in 0..20u64 {
        let hz = 14_070_000 + i * 10;
        assert_eq!(c.one(&format!("F {hz}")), "RPRT 0");
        assert_eq!(c.one("f"), hz.to_string());
    }
    let sim = srv.sim.as_ref().unwrap();
    assert!(
        wait_for(T, || sim_vfo(&sim.snapshot().unwrap(), 0).freq_hz
            == 14_070_190),
        "the radio ends at the last value"
    );
    assert!(wait_for(T, || c.one("f") == "14070190"));
    srv.shutdown();
}

#[test]
fn two_clients_at_once() {
    let srv = start(rigctld_config("ic7610"));
    let addr = rigctld_addr(&srv);
    std::thread::scope(|s| {
        for (i, base) in [(0u64, 14_074_000u64), (1, 7_074_000)] {
            s.spawn(move || {
                let mut c = Rigctl::connect(addr);
                let vfo = if i == 0 { "Main" } else { "Sub" };
                assert_eq!(c.one(&format!("V {vfo}")), "RPRT 0");
                for k in 0..30 {
                    let hz = base + k * 100;
                    assert_eq!(c.one(&format!("F {hz}")), "RPRT 0");
                    assert_eq!(c.one("f"), hz.to_string(), "client {i}");
                    assert_eq!(c.one("v"), vfo);
                    c.ask("m", 2);
                    assert_eq!(c.one("t"), "0");
                }
            });
        }
    });
    let sim = srv.sim.as_ref().unwrap();
    assert!(wait_for(T, || {
        let s = sim.snapshot().unwrap();
        sim_vfo(&s, 0).freq_hz == 14_076_900 && sim_vfo(&s, 1).freq_hz == 7_076_900
    }));
    assert_eq!(
        sim.snapshot().unwrap().selected_rx,
        0,
        "V chose the VFO a client addresses; the radio's selection stayed"
    );
    // a change made elsewhere shows in the next read
    let mut c = Rigctl::connect(addr);
    let mut w = Ws::control(srv.addr());
    let ok = w.cmd("1", "set_freq", json!({"freq": 14_100_000}));
    assert_eq!(ok["ok"], true, "{ok}");
    assert!(wait_for(T, || c.one("f") == "14100000"));
    srv.shutdown();
}

#[test]
fn ptt_ownership_is_the_webs() {
    let srv = start(rigctld_config("ic7610"));
    let addr = rigctld_addr(&srv);
    let mut a = Rigctl::connect(addr);
    let mut b = Rigctl::connect(addr);
    assert_eq!(a.one("T 1"), "RPRT 0");
    assert!(sim_ptt(&srv));
    assert_eq!(b.one("T 1"), "RPRT -1", "another client owns PTT");
    let mut w = Ws::control(srv.addr());
    let r = w.cmd("k", "ptt", json!({"state": true}));
    assert_eq!(r["error"], "ptt_busy", "a web client is refused too: {r}");
    assert_eq!(a.one("T 0"), "RPRT 0");
    assert!(wait_for(T, || !sim_ptt(&srv)));
    // the web client keys: rigctld clients are refused
    let r = w.cmd("k2", "ptt", json!({"state": true}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(b.one("T 2"), "RPRT -1");
    assert_eq!(b.one("t"), "1");
    assert_eq!(w.cmd("k3", "ptt", json!({"state": false}))["ok"], true);
    srv.shutdown();
}

#[test]
fn a_client_that_vanishes_while_keyed_releases_ptt() {
    let srv = start(rigctld_config("ic7610"));
    let addr = rigctld_addr(&srv);
    let mut a = Rigctl::connect(addr);
    assert_eq!(a.one("T 1"), "RPRT 0");
    assert!(sim_ptt(&srv));
    a.close();
    assert!(wait_for(T, || !sim_ptt(&srv)), "released");
    assert!(wait_for(T, || srv.app.ptt.owner().is_none()));
    // and the next client may key
    let mut b = Rigctl::connect(addr);
    assert_eq!(b.one("T 1"), "RPRT 0");
    // a client killed with PTT held (its process ends: the kernel closes the socket)
    let mut child = std::process::Command::new("rigctl")
        .args(["-m", "2", "-r", &addr.to_string(), "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("Hamlib's rigctl (apt-get install libhamlib-utils)");
    assert_eq!(b.one("T 0"), "RPRT 0");
    assert!(wait_for(T, || !sim_ptt(&srv)));
    {
        use std::io::Write;
        let stdin = child.stdin.as_mut().unwrap();
        writeln!(stdin, "T 1").unwrap();
        stdin.flush().unwrap();
    }
    assert!(wait_for(T, || sim_ptt(&srv)), "rigctl keyed");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(wait_for(T, || !sim_ptt(&srv)), "released after the kill");
    srv.shutdown();
}

#[test]
fn the_tx_timeout_applies_to_rigctld_clients() {
    let mut cfg = rigctld_config("ic7610");
    cfg.tx_timeout = Duration::from_secs(1);
    let srv = start(cfg);
    let mut a = Rigctl::connect(rigctld_addr(&srv));
    assert_eq!(a.one("T 1"), "RPRT 0");
    assert!(sim_ptt(&srv));
    assert!(wait_for(T, || !sim_ptt(&srv)), "the TX timeout unkeyed");
    assert!(wait_for(T, || a.one("t") == "0"));
    srv.shutdown();
}

#[test]
fn power_off_and_on() {
    let srv = start(rigctld_config("ic705"));
    let mut c = Rigctl::connect(rigctld_addr(&srv));
    assert_eq!(c.one("\\set_powerstat 0"), "RPRT 0");
    assert!(wait_for(T, || c.one("\\get_powerstat") == "0"));
    assert_eq!(c.one("f"), "RPRT -20", "powered off");
    assert_eq!(c.one("\\set_powerstat 1"), "RPRT 0");
    assert!(wait_for(T, || c.one("\\get_powerstat") == "1"));
    assert!(wait_for(T, || c.one("f").parse::<u64>().is_ok()));
    srv.shutdown();
}
