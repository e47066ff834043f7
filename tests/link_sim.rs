//! The client against the simulated radio over real UDP on 127.0.0.1 when all is well:
//! every command, transceive, scope and audio, TX audio and profile selection.
//! `link_faults.rs` covers loss, restarts, logout and hostile traffic.

mod common;

use std::time::{Duration, Instant};

use common::*;
use rigweb::hub::LatestWins;
use rigweb::radio::answer::Answer;
use rigweb::radio::command::{Command, Target};
use rigweb::radio::error::ErrorCode;
use rigweb::radio::table::settings::SettingId;
use rigweb::sim::rig::PanelAction;
use rigweb::web::answer::result_json;
use rigweb::wire::civ::Mode;
use rigweb::wire::civ::Receiver;
use rigweb::wire::meter::MeterKind;
use serde_json::json;

const READY: Duration = Duration::from_secs(10);

fn freq(sim: &rigweb::sim::server::SimHandle, r: usize) -> u64 {
    sim_vfo(&sim.snapshot().expect("snapshot"), r).freq_hz
}

fn sub_freq(sim: &rigweb::sim::server::SimHandle) -> u64 {
    freq(sim, 1)
}

#[test]
fn ic7610_every_command_reaches_the_radio() {
    let sim = start_sim("ic7610");
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);

    let r = result_json(
        &radio
            .execute(Command::SetFreq {
                target: Target::Receiver(Receiver::Main),
                hz: 14_074_000,
            })
            .unwrap(),
    );
    assert_eq!(r, json!({"vfo": "MAIN", "freq": 14_074_000}));
    assert_eq!(freq(&sim, 0), 14_074_000);
    radio
        .execute(Command::SetFreq {
            target: Target::Receiver(Receiver::Sub),
            hz: 7_074_000,
        })
        .unwrap();
    assert_eq!(sub_freq(&sim), 7_074_000);
    radio
        .execute(Command::SetMode {
            target: Target::Receiver(Receiver::Main),
            mode: Mode::Cw,
            filter: Some(2),
        })
        .unwrap();
    radio
        .execute(Command::SetFilter {
            target: Target::Receiver(Receiver::Sub),
            filter: 3,
        })
        .unwrap();
    radio
        .execute(Command::write(
            SettingId::Power,
            Receiver::Main,
            i64::from(200),
        ))
        .unwrap();
    radio
        .execute(Command::write(SettingId::Att, Receiver::Sub, 12))
        .unwrap();
    radio
        .execute(Command::write(SettingId::Preamp, Receiver::Main, 2))
        .unwrap();
    let snap = sim.snapshot().unwrap();
    assert_eq!(
        (sim_vfo(&snap, 0).mode, sim_vfo(&snap, 0).filter),
        (0x03, 2)
    );
    assert_eq!(sim_vfo(&snap, 1).filter, 3);
    assert_eq!(snap.receivers[1].att_db, 12);
    assert_eq!(snap.receivers[0].preamp, 2);
    assert_eq!(sim_rf_power(&snap), 200);
    let st = radio.store().read(|c| c.radio.clone());
    assert_eq!(
        (
            st.main.mode.map(Mode::name),
            st.main.filter,
            st.settings.power
        ),
        (Some("CW"), Some(2), Some(200))
    );
    assert_eq!(st.sub.as_ref().unwrap().settings.att, Some(12));

    radio.execute(Command::Ptt(true)).unwrap();
    assert!(sim.snapshot().unwrap().ptt);
    let m = result_json(
        &radio
            .execute(Command::ReadMeters(vec![MeterKind::Power, MeterKind::Swr]))
            .unwrap(),
    );
    assert!(
        m["power"].as_u64().unwrap() > 0,
        "Po rises while transmitting: {m}"
    );
    radio.execute(Command::Ptt(false)).unwrap();
    assert!(!sim.snapshot().unwrap().ptt);
    let m = result_json(
        &radio
            .execute(Command::ReadMeters(vec![
                MeterKind::Smeter,
                MeterKind::SmeterSub,
            ]))
            .unwrap(),
    );
    assert!(
        m.get("smeter").is_some() && m.get("smeter_sub").is_some(),
        "{m}"
    );

    radio.execute(Command::VfoSwap).unwrap();
    let st = radio.store().read(|c| c.radio.clone());
    assert_eq!(
        (st.main.freq_hz, st.sub.as_ref().unwrap().freq_hz),
        (Some(7_074_000), Some(14_074_000)),
        "MAIN <-> SUB"
    );
    radio.execute(Command::VfoEqualize).unwrap();
    let st = radio.store().read(|c| c.radio.clone());
    assert_eq!(st.sub.as_ref().unwrap().freq_hz, st.main.freq_hz);

    // set_band: a register recall, then an unknown code acknowledged without retuning
    let r = result_json(&radio.execute(Command::SetBand(0x03)).unwrap());
    assert_eq!(r["source"], "bsr");
    assert!(
        (7_000_000..=7_300_000).contains(&radio.store().read(|c| c.radio.main.freq_hz).unwrap())
    );
    let before = radio.store().read(|c| c.radio.main.freq_hz);
    let r = result_json(&radio.execute(Command::SetBand(0x42)).unwrap());
    assert_eq!(r, json!({"band": 0x42, "source": "none", "retuned": false}));
    assert_eq!(radio.store().read(|c| c.radio.main.freq_hz), before);

    // NAK surfaces as radio_rejected (frequency outside the radio's ranges)
    let e = radio
        .execute(Command::SetFreq {
            target: Target::Receiver(Receiver::Main),
            hz: 1_000,
        })
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::RadioRejected, "{e}");

    radio.execute(Command::Power(false)).unwrap();
    assert!(!sim.snapshot().unwrap().powered);
    let e = radio
        .execute(Command::write(
            SettingId::Power,
            Receiver::Main,
            i64::from(10),
        ))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::RadioUnavailable);
    assert_eq!(
        radio.store().read(|c| c.detail.status.name()),
        "powered_off"
    );
    radio.execute(Command::Power(true)).unwrap();
    wait_ready(&radio, READY);
    radio.shutdown();
}

#[test]
fn set_band_falls_back_to_the_profile_default() {
    let sim = start_sim("ic705");
    // The client's profile gives the Air band a register code (0x12) that the radio
    // does not have: the recall is refused, so the band's default_hz is tuned.
    let text = include_str!("../profiles/ic705.toml").replace(
        "default_hz = 121500000 }",
        "default_hz = 121500000, bsr_code = 0x12 }",
    );
    let custom =
        std::sync::Arc::new(rigweb::profile::Profile::from_toml("air.toml", &text).unwrap());
    let mut cfg = radio_config("ic705", sim.addrs().control, "s3cret");
    cfg.profile = custom;
    let radio = rigweb::radio::service::Radio::start(cfg).unwrap();
    wait_ready(&radio, READY);
    let r = result_json(&radio.execute(Command::SetBand(0x11)).unwrap());
    assert_eq!(r["source"], "bsr", "WFM has a register on the radio");
    assert!(
        (74_800_000..=108_000_000).contains(&radio.store().read(|c| c.radio.main.freq_hz).unwrap())
    );
    let r = result_json(&radio.execute(Command::SetBand(0x12)).unwrap());
    assert_eq!(r["source"], "default", "{r}");
    assert_eq!(r["freq"], 121_500_000);
    assert_eq!(freq(&sim, 0), 121_500_000);
    let r = result_json(&radio.execute(Command::SetBand(0x77)).unwrap());
    assert_eq!(
        r["retuned"], false,
        "neither the radio nor the profile knows 0x77"
    );
    assert_eq!(freq(&sim, 0), 121_500_000);
    radio.shutdown();
}

#[test]
fn set_band_leaves_the_radio_alone_for_a_code_the_profile_lacks() {
    // review (interface.md §3 rule 5): a code without a profile band is acknowledged
    // without retuning, even when the radio has a register for it
    let sim = start_sim("ic705");
    let text = include_str!("../profiles/ic705.toml").replace(
        "default_hz = 100000000, bsr_code = 0x11 }",
        "default_hz = 100000000 }",
    );
    let custom =
        std::sync::Arc::new(rigweb::profile::Profile::from_toml("nowfm.toml", &text).unwrap());
    let mut cfg = radio_config("ic705", sim.addrs().control, "s3cret");
    cfg.profile = custom;
    let radio = rigweb::radio::service::Radio::start(cfg).unwrap();
    wait_ready(&radio, READY);
    let before = freq(&sim, 0);
    let r = result_json(&radio.execute(Command::SetBand(0x11)).unwrap());
    assert_eq!(r, json!({"band": 0x11, "source": "none", "retuned": false}));
    assert_eq!(freq(&sim, 0), before);
    radio.shutdown();
}

#[test]
fn ab_radio_vfos() {
    let sim = start_sim("ic705");
    let radio = start_radio("ic705", &sim);
    wait_ready(&radio, READY);
    radio
        .execute(Command::SetFreq {
            target: Target::Vfo(0),
            hz: 14_074_000,
        })
        .unwrap();
    radio
        .execute(Command::SetFreq {
            target: Target::Vfo(1),
            hz: 145_500_000,
        })
        .unwrap();
    let st = radio.store().read(|c| c.radio.main.clone());
    assert_eq!(st.freq_hz, Some(14_074_000));
    assert_eq!(st.vfo_b.as_ref().unwrap().freq_hz, Some(145_500_000));
    radio.execute(Command::VfoSwap).unwrap();
    let st = radio.store().read(|c| c.radio.main.clone());
    assert_eq!(
        (st.freq_hz, st.vfo_b.as_ref().unwrap().freq_hz),
        (Some(145_500_000), Some(14_074_000))
    );
    radio.shutdown();
}

#[test]
fn ic9700_sub_receiver_without_command_29() {
    let sim = start_sim("ic9700");
    let radio = start_radio("ic9700", &sim);
    wait_ready(&radio, READY);
    radio
        .execute(Command::write(SettingId::Att, Receiver::Sub, 10))
        .unwrap();
    let snap = sim.snapshot().unwrap();
    assert_eq!(snap.receivers[1].att_db, 10);
    assert_eq!(
        snap.selected_rx, 0,
        "MAIN selected again after the temporary switch"
    );
    radio
        .execute(Command::SetFreq {
            target: Target::Receiver(Receiver::Sub),
            hz: 435_000_000,
        })
        .unwrap();
    assert_eq!(sub_freq(&sim), 435_000_000);
    radio.shutdown();
}

#[test]
fn front_panel_changes_arrive_within_100ms() {
    let sim = start_sim("ic7610");
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    let t = Instant::now();
    sim.panel(PanelAction::SetFreq {
        receiver: 0,
        hz: 14_012_345,
    });
    assert!(wait_for(Duration::from_millis(100), || radio
        .store()
        .read(|c| c.radio.main.freq_hz)
        == Some(14_012_345)));
    sim.panel(PanelAction::SetMode {
        receiver: 0,
        mode: 0x00,
        filter: 3,
    });
    assert!(wait_for(Duration::from_millis(100), || radio
        .store()
        .read(|c| c.radio.main.mode.map(Mode::name) == Some("LSB"))));
    eprintln!("front panel -> state: {:?}", t.elapsed());
    radio.shutdown();
}

#[test]
fn scope_sweeps_are_assembled_and_audio_decoded() {
    let sim = start_sim("ic7610");
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    let q = std::sync::Arc::new(LatestWins::new(64, None));
    let sub = radio.scope().subscribe(q.clone());
    let s = q.pop_timeout(Duration::from_secs(5)).expect("a sweep");
    assert_eq!(s.frame.pixels.len(), 689);
    assert!(s.frame.pixels.iter().all(|&p| p <= 160), "web scale");
    assert!(s.frame.end_freq > s.frame.start_freq);
    let main = radio.store().read(|c| c.radio.main.freq_hz).unwrap() as u32;
    assert!((s.frame.start_freq..=s.frame.end_freq).contains(&main));
    assert!(wait_for(Duration::from_secs(2), || radio
        .store()
        .read(|c| c.radio.scope.end_freq)
        > 0));
    drop(sub);

    let a = std::sync::Arc::new(LatestWins::new(64, None));
    let asub = radio.audio().subscribe(a.clone());
    let block = a.pop_timeout(Duration::from_secs(5)).expect("RX audio");
    assert_eq!(
        (block.channels, block.sample_rate),
        (2, 48_000),
        "IC-7610: stereo L=MAIN R=SUB"
    );
    assert!(!block.samples.is_empty());
    drop(asub);
    radio.shutdown();
}

#[test]
fn the_profile_follows_the_radio_that_answers() {
    let sim = start_sim("ic705");
    // configured for an IC-7610 (stereo RX codec, two receivers) but an IC-705 answers
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    assert_eq!(radio.profile().id(), "ic705");
    let st = radio.store().read(|c| c.clone());
    assert!(
        st.radio.sub.is_none() && st.radio.main.vfo_b.is_some(),
        "{st:?}"
    );
    assert_eq!(st.detail.model, "IC-705");
    assert_eq!(
        sim.stats().streams_rejected,
        1,
        "stereo RX refused once, then mono"
    );
    radio
        .execute(Command::SetFreq {
            target: Target::Vfo(1),
            hz: 145_000_000,
        })
        .unwrap();
    radio.shutdown();
}

#[test]
fn tx_audio_is_framed_into_20ms_blocks_and_reaches_the_radio_while_transmitting() {
    let sim = start_sim("ic7610");
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    let rx = std::sync::Arc::new(LatestWins::new(64, None));
    let _listening = radio.audio().subscribe(rx.clone()); // opens the audio stream
    assert!(rx.pop_timeout(Duration::from_secs(5)).is_some());
    let e = radio.send_tx_audio(&[0; 960]).unwrap_err();
    assert_eq!(e.code, ErrorCode::PttRequired);
    // the IC-7610 transmits LAN audio only with the MOD input of DATA OFF on LAN
    let before = result_json(&radio.execute(Command::ReadModInput).unwrap());
    assert_eq!(before["data_mode"], 0, "{before}");
    radio
        .execute(Command::SetModInput {
            data_mode: 0,
            value: 5,
        })
        .unwrap();
    assert_eq!(
        radio.execute(Command::ReadModInput).unwrap(),
        Answer::ModInput {
            data_mode: 0,
            value: 5
        }
    );
    radio.execute(Command::Ptt(true)).unwrap();
    radio.start_tx_audio();
    // one second of a 1 kHz tone in uneven pieces: 50 blocks of 960 samples
    let tone: Vec<i16> = (0..48_000)
        .map(|i| ((i as f32 * 0.1309).sin() * 8000.0) as i16)
        .collect();
    let mut blocks = 0;
    for piece in tone.chunks(700) {
        blocks += radio.send_tx_audio(piece).unwrap();
    }
    assert_eq!(blocks, 50);
    assert!(
        wait_for(Duration::from_secs(3), || sim
            .snapshot()
            .unwrap()
            .tx_audio_samples
            >= 48_000),
        "{:?}",
        sim.snapshot()
            .map(|s| (s.tx_audio_samples, s.tx_audio_dropped))
    );
    // PCM16 mono blocks of 1920 bytes travel as 1364 + 556
    assert!(sim.stats().tx_audio_packets_in >= 100, "{:?}", sim.stats());
    radio.execute(Command::Ptt(false)).unwrap();
    radio.shutdown();
}
