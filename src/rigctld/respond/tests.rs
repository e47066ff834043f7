//! The responder per command, against fixed states of an IC-7610 (MAIN/SUB) and an
//! IC-705 (A/B): the answer bytes of reads, the command-table commands of sets, errors.

use super::*;
use crate::profile::{Profile, ProfileRegistry};
use crate::radio::state::{RadioState, ReceiverState, Selected};
use crate::radio::table::values::Agc;
use crate::rigctld::overlay::Overlay;
use crate::rigctld::parse::parse_line;
use crate::rigctld::reply::render;
use crate::wire::civ::Mode;

fn profile(id: &str) -> std::sync::Arc<Profile> {
    ProfileRegistry::embedded().get(id).unwrap()
}

fn ic7610() -> RadioState {
    let mut main = ReceiverState::tuned(14_074_000, Mode::Usb, false);
    main.data_mode = Some(1);
    main.settings.filter_width = Some(3000);
    main.settings.af_gain = Some(128);
    main.settings.att = Some(6);
    main.settings.preamp = Some(1);
    main.settings.agc = Some(Agc::Mid);
    main.settings.nb = Some(true);
    main.settings.nr = Some(false);
    main.settings.nr_level = Some(51);
    let mut r = RadioState::new(
        main,
        Some(ReceiverState::tuned(7_074_000, Mode::Lsb, false)),
    );
    r.active = Some(Selected::Main);
    r.ptt = Some(false);
    r.power_on = Some(true);
    r.settings.power = Some(255);
    r.settings.split = Some(false);
    r.settings.cw_speed = Some(20);
    r
}

fn ic705() -> RadioState {
    let mut r = RadioState::new(ReceiverState::tuned(7_074_000, Mode::Usb, true), None);
    r.ptt = Some(false);
    r.power_on = Some(true);
    r.settings.split = Some(false);
    r
}

/// The answer bytes of `line` (every command on it), or the plan of its one command.
fn run(id: &str, radio: &RadioState, overlay: &Overlay, line: &str) -> Result<String, Plan> {
    let p = profile(id);
    let v = View {
        profile: &p,
        radio,
        overlay,
        current: None,
    };
    let mut out = String::new();
    for req in parse_line(line.as_bytes()) {
        let reply = match &req.cmd {
            Ok(cmd) => match plan(cmd, &v) {
                Plan::Reply(r) => r,
                other => return Err(other),
            },
            Err(e) => Reply::Failed(*e),
        };
        render(&req, &reply, &mut out);
    }
    Ok(out)
}

fn get(id: &str, radio: &RadioState, line: &str) -> String {
    run(id, radio, &Overlay::default(), line).expect("answered from the state")
}

fn steps(id: &str, radio: &RadioState, line: &str) -> Vec<(&'static str, Value)> {
    match run(id, radio, &Overlay::default(), line) {
        Err(Plan::Steps(s)) => s.into_iter().map(|s| (s.name, s.params)).collect(),
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn reads_of_a_main_sub_radio() {
    let r = ic7610();
    assert_eq!(get("ic7610", &r, "f"), "14074000\n");
    assert_eq!(get("ic7610", &r, "m"), "PKTUSB\n3000\n");
    assert_eq!(get("ic7610", &r, "v"), "Main\n");
    assert_eq!(get("ic7610", &r, "t"), "0\n");
    assert_eq!(get("ic7610", &r, "s"), "0\nMain\n");
    assert_eq!(
        get("ic7610", &r, "i"),
        "7074000\n",
        "SUB transmits in split"
    );
    assert_eq!(get("ic7610", &r, "x"), "LSB\n3000\n");
    assert_eq!(get("ic7610", &r, "\\get_powerstat"), "1\n");
    assert_eq!(get("ic7610", &r, "\\chk_vfo"), "0\n");
    assert_eq!(get("ic7610", &r, "\\get_lock_mode"), "0\n");
    assert_eq!(
        get("ic7610", &r, "+\\get_vfo_info Sub"),
        "get_vfo_info: Sub\nFreq: 7074000\nMode: LSB\nWidth: 3000\nSplit: 0\nSatMode: 0\nRPRT 0\n"
    );
    assert_eq!(
        get("ic7610", &r, "+s"),
        "get_split_vfo:\nSplit: 0\nTX VFO: Main\nRPRT 0\n"
    );
}

#[test]
fn levels_and_functions_from_the_state() {
    let r = ic7610();
    assert_eq!(get("ic7610", &r, "l AF"), "0.501961\n");
    assert_eq!(get("ic7610", &r, "l RFPOWER"), "1.000000\n");
    assert_eq!(get("ic7610", &r, "l ATT"), "6\n");
    assert_eq!(get("ic7610", &r, "l PREAMP"), "10\n");
    assert_eq!(get("ic7610", &r, "l AGC"), "5\n");
    assert_eq!(get("ic7610", &r, "l KEYSPD"), "20\n");
    assert_eq!(get("ic7610", &r, "l NR"), "0.200000\n");
    assert_eq!(get("ic7610", &r, "u NB"), "1\n");
    assert_eq!(get("ic7610", &r, "+u NR"), "get_func: NR\n0\nRPRT 0\n");
    assert_eq!(get("ic7610", &r, "l NOSUCH"), "RPRT -1\n");
    assert_eq!(get("ic7610", &r, "u NOSUCH"), "RPRT -1\n");
    assert_eq!(
        get("ic7100", &ic705(), "u TUNER"),
        "RPRT -11\n",
        "the IC-7100 profile has no tuner"
    );
    assert_eq!(get("ic7100", &ic705(), "u XIT"), "RPRT -11\n", "nor XIT");
    let l = levels::level("STRENGTH").unwrap();
    assert!(matches!(
        run("ic7610", &r, &Overlay::default(), "l STRENGTH"),
        Err(Plan::Meter(x, MeterKind::Smeter)) if x.name == l.name
    ));
    let mut sub = ic7610();
    sub.active = Some(Selected::Sub);
    assert!(matches!(
        run("ic7610", &sub, &Overlay::default(), "l STRENGTH"),
        Err(Plan::Meter(_, MeterKind::SmeterSub))
    ));
}

#[test]
fn meter_answers() {
    let p = profile("ic7610");
    let r = ic7610();
    let o = Overlay::default();
    let v = View {
        profile: &p,
        radio: &r,
        overlay: &o,
        current: None,
    };
    let watts = levels::level("RFPOWER_METER_WATTS").unwrap();
    assert_eq!(
        meter_reply(watts, Some(213), &v),
        Reply::Values(vec![("", "100.000000".into())])
    );
    let s = levels::level("STRENGTH").unwrap();
    assert_eq!(
        meter_reply(s, Some(0), &v),
        Reply::Values(vec![("", "-54".into())])
    );
    assert_eq!(meter_reply(s, None, &v), Reply::Failed(RigError::Io));
}

#[test]
fn sets_become_command_table_commands() {
    let r = ic7610();
    assert_eq!(
        steps("ic7610", &r, "F 14074055"),
        vec![("set_freq", json!({"receiver": 0, "freq": 14_074_055}))]
    );
    assert_eq!(
        steps("ic7610", &r, "M PKTUSB 2400"),
        vec![
            ("set_mode", json!({"receiver": 0, "mode": "USB"})),
            ("set_data_mode", json!({"receiver": 0, "data": 1})),
            ("set_filter_width", json!({"receiver": 0, "hz": 2400})),
        ]
    );
    assert_eq!(
        steps("ic7610", &r, "M CW 0"),
        vec![
            ("set_mode", json!({"receiver": 0, "mode": "CW"})),
            ("set_data_mode", json!({"receiver": 0, "data": 0})),
        ],
        "passband 0 keeps the filter"
    );
    assert_eq!(
        steps("ic7610", &r, "S 1 Sub"),
        vec![("set_split", json!({"on": true}))]
    );
    assert_eq!(
        steps("ic7610", &r, "I 14075000"),
        vec![("set_freq", json!({"receiver": 1, "freq": 14_075_000}))]
    );
    assert_eq!(
        steps("ic7610", &r, "X USB 0"),
        vec![
            ("set_mode", json!({"receiver": 1, "mode": "USB"})),
            ("set_data_mode", json!({"receiver": 1, "data": 0})),
        ],
        "no filter width for the transmitting VFO"
    );
    assert_eq!(
        steps("ic7610", &r, "L RFPOWER 0.5"),
        vec![("set_power", json!({"level": 128}))]
    );
    assert_eq!(
        steps("ic7610", &r, "L AF 1"),
        vec![("set_af_gain", json!({"level": 255, "receiver": 0}))]
    );
    assert_eq!(
        steps("ic7610", &r, "L NR 0.4"),
        vec![("set_nr", json!({"level": 102, "on": false, "receiver": 0}))],
        "a level change keeps NR off"
    );
    assert_eq!(
        steps("ic7610", &r, "L AGC 3"),
        vec![("set_agc", json!({"mode": "slow", "receiver": 0}))]
    );
    assert_eq!(
        steps("ic7610", &r, "L PREAMP 20"),
        vec![("set_preamp", json!({"level": 2, "receiver": 0}))]
    );
    assert_eq!(
        steps("ic7610", &r, "U TUNER 1"),
        vec![("set_tuner", json!({"state": "on"}))]
    );
    assert_eq!(
        steps("ic7610", &r, "U XIT 1"),
        vec![("set_xit", json!({"on": true}))]
    );
    assert_eq!(
        steps("ic7610", &r, "U VOX 0"),
        vec![("set_vox", json!({"on": false}))]
    );
    assert_eq!(
        steps("ic7610", &r, "U APF 1"),
        vec![("set_apf", json!({"on": true, "receiver": 0}))]
    );
    assert_eq!(steps("ic7610", &r, "G XCHG"), vec![("vfo_swap", json!({}))]);
}

#[test]
fn split_on_an_ab_radio_selects_vfo_a_first_when_the_selection_is_unknown() {
    let r = ic705();
    assert_eq!(
        steps("ic705", &r, "S 1 VFOB"),
        vec![
            ("set_freq", json!({"vfo": "A", "freq": 7_074_000})),
            ("set_split", json!({"on": true})),
        ]
    );
    assert_eq!(
        steps("ic705", &r, "I 7076000"),
        vec![
            ("set_freq", json!({"vfo": "A", "freq": 7_074_000})),
            ("set_freq", json!({"vfo": "B", "freq": 7_076_000})),
        ]
    );
    assert_eq!(
        steps("ic705", &r, "F 7075000"),
        vec![("set_freq", json!({"freq": 7_075_000}))],
        "the receiving VFO needs no selection"
    );
    assert_eq!(get("ic705", &r, "i"), "RPRT -11\n", "not known yet");
    let mut selected = ic705();
    selected.active = Some(Selected::A);
    selected.main.vfo_b = Some(Default::default());
    assert_eq!(
        steps("ic705", &selected, "X PKTUSB 0")[0],
        (
            "set_mode",
            json!({"vfo": "B", "mode": "USB", "filter": "FIL1"})
        ),
        "the radio needs a filter for VFO B's mode"
    );
    let mut known = ic705();
    known.active = Some(Selected::A);
    known.main.vfo_b.as_mut().unwrap().freq_hz = Some(7_076_000);
    assert_eq!(get("ic705", &known, "i"), "7076000\n");
    assert_eq!(
        steps("ic705", &known, "I 7077000"),
        vec![("set_freq", json!({"vfo": "B", "freq": 7_077_000}))]
    );
    assert_eq!(get("ic705", &known, "v"), "VFOA\n");
}

/// The answer of `line` with the client's current VFO `current`.
fn with_current(id: &str, radio: &RadioState, current: u8, line: &str) -> Result<String, Plan> {
    let p = profile(id);
    let o = Overlay::default();
    let v = View {
        profile: &p,
        radio,
        overlay: &o,
        current: Some(current),
    };
    let req = &parse_line(line.as_bytes())[0];
    match plan(req.cmd.as_ref().unwrap(), &v) {
        Plan::Reply(r) => {
            let mut out = String::new();
            render(req, &r, &mut out);
            Ok(out)
        }
        other => Err(other),
    }
}

#[test]
fn v_chooses_the_vfo_the_client_addresses_without_selecting_it() {
    let r = ic7610();
    assert_eq!(
        run("ic7610", &r, &Overlay::default(), "V Sub"),
        Err(Plan::Current {
            index: 1,
            steps: vec![]
        })
    );
    assert_eq!(
        run("ic7610", &r, &Overlay::default(), "V currVFO"),
        Err(Plan::Current {
            index: 0,
            steps: vec![]
        })
    );
    assert_eq!(with_current("ic7610", &r, 1, "f").unwrap(), "7074000\n");
    assert_eq!(with_current("ic7610", &r, 1, "v").unwrap(), "Sub\n");
    assert_eq!(with_current("ic7610", &r, 1, "m").unwrap(), "LSB\n3000\n");
    assert!(matches!(
        with_current("ic7610", &r, 1, "F 7075000"),
        Err(Plan::Steps(s)) if s[0].params == json!({"receiver": 1, "freq": 7_075_000})
    ));
    assert!(matches!(
        with_current("ic7610", &r, 1, "l STRENGTH"),
        Err(Plan::Meter(_, MeterKind::SmeterSub))
    ));
    assert_eq!(
        with_current("ic7610", &r, 1, "s").unwrap(),
        "0\nMain\n",
        "split stays the radio's"
    );
    // an A/B radio whose selection is unknown: VFO A is selected first
    assert_eq!(
        run("ic705", &ic705(), &Overlay::default(), "V VFOB"),
        Err(Plan::Current {
            index: 1,
            steps: vec![Step {
                name: "set_freq",
                params: json!({"vfo": "A", "freq": 7_074_000})
            }]
        })
    );
}

#[test]
fn ptt_power_and_quit_need_the_connection() {
    let r = ic7610();
    let o = Overlay::default();
    for (line, want) in [
        ("T 1", Plan::Ptt(true)),
        ("T 2", Plan::Ptt(true)),
        ("T 3", Plan::Ptt(true)),
        ("T 0", Plan::Ptt(false)),
        ("\\set_powerstat 0", Plan::Power(false)),
        ("\\set_powerstat 1", Plan::Power(true)),
        ("q", Plan::Quit),
    ] {
        assert_eq!(run("ic7610", &r, &o, line), Err(want), "{line}");
    }
}

#[test]
fn bad_sets_are_refused_at_once() {
    let r = ic7610();
    assert_eq!(get("ic7610", &r, "M NOSUCH 0"), "RPRT -1\n");
    assert_eq!(
        get("ic7610", &r, "M WFM 0"),
        "RPRT -1\n",
        "the IC-7610 has no WFM"
    );
    assert_eq!(
        get("ic7610", &r, "L SWR 1"),
        "RPRT -11\n",
        "meters are read only"
    );
    assert_eq!(get("ic7610", &r, "L AF 2"), "RPRT -1\n");
    assert_eq!(get("ic7610", &r, "L AGC 0"), "RPRT -1\n");
    assert_eq!(
        get("ic7610", &r, "S 1 Main"),
        "RPRT -16\n",
        "split to the receiving VFO"
    );
    assert_eq!(get("ic7610", &r, "\\set_lock_mode 1"), "RPRT -11\n");
    assert_eq!(get("ic7610", &r, "G TOGGLE"), "RPRT -11\n");
}

#[test]
fn a_read_after_a_pending_set_answers_the_set_value() {
    let r = ic7610();
    let mut o = Overlay::default();
    let now = std::time::Instant::now();
    o.hold(
        &crate::radio::command::Command::SetFreq {
            target: crate::radio::command::Target::Receiver(crate::wire::civ::Receiver::Main),
            hz: 14_074_055,
        },
        &r,
        now,
    );
    o.hold(
        &crate::radio::command::Command::write(
            crate::radio::table::settings::SettingId::Split,
            crate::wire::civ::Receiver::Main,
            1,
        ),
        &r,
        now,
    );
    assert_eq!(run("ic7610", &r, &o, "f").unwrap(), "14074055\n");
    assert_eq!(run("ic7610", &r, &o, "s").unwrap(), "1\nSub\n");
}

#[test]
fn unknown_state_and_power_conversions() {
    let mut r = ic7610();
    r.main.freq_hz = None;
    assert_eq!(get("ic7610", &r, "f"), "RPRT -6\n");
    r.power_on = Some(false);
    r.ptt = None;
    assert_eq!(get("ic7610", &r, "t"), "RPRT -20\n");
    assert_eq!(get("ic7610", &r, "\\get_powerstat"), "0\n");
    let r = ic7610();
    // 2..100 W
    assert_eq!(get("ic7610", &r, "\\power2mW 0.5 14074000 USB"), "51000\n");
    assert_eq!(
        get("ic7610", &r, "+\\mW2power 100000 14074000 USB"),
        "mW2power: 100000 14074000 USB\nPower [0.0..1.0]: 1.000000\nRPRT 0\n"
    );
    assert!(get("ic7610", &r, "\\dump_state").ends_with("done\n"));
}
