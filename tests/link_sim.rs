//! The client against the simulated radio over real UDP on 127.0.0.1: every command,
//! transceive, scope and audio, packet loss, simulator restart, power off, clean
//! logout, wrong credentials, held sessions and hostile datagrams.

mod common;

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use common::*;
use rigweb::hub::LatestWins;
use rigweb::lan::link::LinkState;
use rigweb::radio::command::{Command, Target};
use rigweb::radio::error::ErrorCode;
use rigweb::radio::meters::MeterKind;
use rigweb::sim::faults::FaultConfig;
use rigweb::sim::rig::PanelAction;
use rigweb::wire::lan::Port;
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

    let r = radio
        .execute(Command::SetFreq {
            target: Target::Receiver(0),
            hz: 14_074_000,
        })
        .unwrap();
    assert_eq!(r, json!({"vfo": "MAIN", "freq": 14_074_000}));
    assert_eq!(freq(&sim, 0), 14_074_000);
    radio
        .execute(Command::SetFreq {
            target: Target::Receiver(1),
            hz: 7_074_000,
        })
        .unwrap();
    assert_eq!(sub_freq(&sim), 7_074_000);
    radio
        .execute(Command::SetMode {
            target: Target::Receiver(0),
            mode: "CW".into(),
            filter: Some(2),
        })
        .unwrap();
    radio
        .execute(Command::SetFilter {
            target: Target::Receiver(1),
            filter: 3,
        })
        .unwrap();
    radio.execute(Command::SetPower(200)).unwrap();
    radio
        .execute(Command::SetAtt {
            receiver: 1,
            db: 12,
        })
        .unwrap();
    radio
        .execute(Command::SetPreamp {
            receiver: 0,
            level: 2,
        })
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
        (st.main.mode.as_str(), st.main.filter, st.power),
        ("CW", 2, 200)
    );
    assert_eq!(st.sub.as_ref().unwrap().att, 12);

    radio.execute(Command::Ptt(true)).unwrap();
    assert!(sim.snapshot().unwrap().ptt);
    let m = radio
        .execute(Command::ReadMeters(vec![MeterKind::Power, MeterKind::Swr]))
        .unwrap();
    assert!(
        m["power"].as_u64().unwrap() > 0,
        "Po rises while transmitting: {m}"
    );
    radio.execute(Command::Ptt(false)).unwrap();
    assert!(!sim.snapshot().unwrap().ptt);
    let m = radio
        .execute(Command::ReadMeters(vec![
            MeterKind::Smeter,
            MeterKind::SmeterSub,
        ]))
        .unwrap();
    assert!(
        m.get("smeter").is_some() && m.get("smeter_sub").is_some(),
        "{m}"
    );

    radio.execute(Command::VfoSwap).unwrap();
    let st = radio.store().read(|c| c.radio.clone());
    assert_eq!(
        (st.main.freq_hz, st.sub.as_ref().unwrap().freq_hz),
        (7_074_000, 14_074_000),
        "MAIN <-> SUB"
    );
    radio.execute(Command::VfoEqualize).unwrap();
    let st = radio.store().read(|c| c.radio.clone());
    assert_eq!(st.sub.as_ref().unwrap().freq_hz, st.main.freq_hz);

    // set_band: a register recall, then an unknown code acknowledged without retuning
    let r = radio.execute(Command::SetBand(0x03)).unwrap();
    assert_eq!(r["source"], "bsr");
    assert!((7_000_000..=7_300_000).contains(&radio.store().read(|c| c.radio.main.freq_hz)));
    let before = radio.store().read(|c| c.radio.main.freq_hz);
    let r = radio.execute(Command::SetBand(0x42)).unwrap();
    assert_eq!(r, json!({"band": 0x42, "source": "none", "retuned": false}));
    assert_eq!(radio.store().read(|c| c.radio.main.freq_hz), before);

    // NAK surfaces as radio_rejected (frequency outside the radio's ranges)
    let e = radio
        .execute(Command::SetFreq {
            target: Target::Receiver(0),
            hz: 1_000,
        })
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::RadioRejected, "{e}");

    radio.execute(Command::Power(false)).unwrap();
    assert!(!sim.snapshot().unwrap().powered);
    let e = radio.execute(Command::SetPower(10)).unwrap_err();
    assert_eq!(e.code, ErrorCode::RadioUnavailable);
    assert_eq!(
        radio.store().read(|c| c.detail.status.clone()),
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
    let r = radio.execute(Command::SetBand(0x11)).unwrap();
    assert_eq!(r["source"], "bsr", "WFM has a register on the radio");
    assert!((74_800_000..=108_000_000).contains(&radio.store().read(|c| c.radio.main.freq_hz)));
    let r = radio.execute(Command::SetBand(0x12)).unwrap();
    assert_eq!(r["source"], "default", "{r}");
    assert_eq!(r["freq"], 121_500_000);
    assert_eq!(freq(&sim, 0), 121_500_000);
    let r = radio.execute(Command::SetBand(0x77)).unwrap();
    assert_eq!(
        r["retuned"], false,
        "neither the radio nor the profile knows 0x77"
    );
    assert_eq!(freq(&sim, 0), 121_500_000);
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
    assert_eq!(st.freq_hz, 14_074_000);
    assert_eq!(st.vfo_b.as_ref().unwrap().freq_hz, 145_500_000);
    radio.execute(Command::VfoSwap).unwrap();
    let st = radio.store().read(|c| c.radio.main.clone());
    assert_eq!(
        (st.freq_hz, st.vfo_b.as_ref().unwrap().freq_hz),
        (145_500_000, 14_074_000)
    );
    radio.shutdown();
}

#[test]
fn ic9700_sub_receiver_without_command_29() {
    let sim = start_sim("ic9700");
    let radio = start_radio("ic9700", &sim);
    wait_ready(&radio, READY);
    radio
        .execute(Command::SetAtt {
            receiver: 1,
            db: 10,
        })
        .unwrap();
    let snap = sim.snapshot().unwrap();
    assert_eq!(snap.receivers[1].att_db, 10);
    assert_eq!(
        snap.selected_rx, 0,
        "MAIN selected again after the temporary switch"
    );
    radio
        .execute(Command::SetFreq {
            target: Target::Receiver(1),
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
        == 14_012_345));
    sim.panel(PanelAction::SetMode {
        receiver: 0,
        mode: 0x00,
        filter: 3,
    });
    assert!(wait_for(Duration::from_millis(100), || radio
        .store()
        .read(|c| c.radio.main.mode == "LSB")));
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
    let main = radio.store().read(|c| c.radio.main.freq_hz) as u32;
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
fn every_command_succeeds_at_ten_percent_loss() {
    let sim = start_sim_with(
        "ic7610",
        FaultConfig {
            loss: 0.10,
            ..Default::default()
        },
    );
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, Duration::from_secs(20));
    for i in 0..150u64 {
        let hz = 14_000_000 + i * 100;
        radio
            .execute(Command::SetFreq {
                target: Target::Receiver(0),
                hz,
            })
            .unwrap_or_else(|e| panic!("command {i} failed: {e}"));
        if i % 10 == 0 {
            radio.execute(Command::SetPower((i % 255) as u8)).unwrap();
        }
    }
    assert_eq!(freq(&sim, 0), 14_014_900);
    let stats = sim.stats();
    assert!(
        stats.faults_out.dropped > 0 && stats.faults_in.dropped > 0,
        "{stats:?}"
    );
    assert!(stats.resent > 0, "retransmissions happened: {stats:?}");
    radio.shutdown();
}

#[test]
fn duplicated_and_reordered_datagrams_do_not_repeat_commands() {
    let faults = FaultConfig {
        duplicate: 0.3,
        reorder: 0.2,
        ..Default::default()
    };
    let sim = start_sim_with("ic7610", faults);
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    let before = radio
        .store()
        .read(|c| (c.radio.main.freq_hz, c.radio.sub.as_ref().unwrap().freq_hz));
    for _ in 0..10 {
        radio.execute(Command::VfoSwap).unwrap();
    }
    let after = radio
        .store()
        .read(|c| (c.radio.main.freq_hz, c.radio.sub.as_ref().unwrap().freq_hz));
    assert_eq!(
        before, after,
        "an even number of swaps, each executed exactly once"
    );
    radio.shutdown();
}

#[test]
fn survives_a_simulator_restart() {
    let sim = start_sim("ic7610");
    let port = sim.addrs().control.port();
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    let ids_before = sim.client_ids();
    assert_eq!(ids_before.len(), 1);
    assert!(ids_before[0][0] != 0 && ids_before[0][1] != 0);
    sim.shutdown();
    assert!(wait_for(Duration::from_secs(6), || !radio
        .store()
        .read(|c| c.connection.radio_ready)));
    let mut cfg = sim_config("ic7610");
    cfg.listen.set_port(port);
    let sim2 = rigweb::sim::server::start(cfg).expect("restart on the same port");
    wait_ready(&radio, Duration::from_secs(15));
    assert_eq!(radio.link_status().connects, 2);
    let ids_after = sim2.client_ids();
    assert_eq!(
        ids_after[0][..2],
        ids_before[0][..2],
        "the client reuses its ids when it reconnects"
    );
    radio
        .execute(Command::SetFreq {
            target: Target::Receiver(0),
            hz: 21_074_000,
        })
        .unwrap();
    assert_eq!(freq(&sim2, 0), 21_074_000);
    radio.shutdown();
}

#[test]
fn in_process_restart_with_new_ids_reconnects() {
    let sim = start_sim("ic7610");
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    sim.restart();
    assert!(wait_for(Duration::from_secs(6), || !radio
        .store()
        .read(|c| c.connection.radio_ready)));
    wait_ready(&radio, Duration::from_secs(15));
    radio.execute(Command::SetPower(5)).unwrap();
    radio.shutdown();
}

#[test]
fn reports_a_powered_off_radio() {
    let sim = start_sim("ic7610");
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    sim.panel(PanelAction::PowerOff);
    assert!(wait_for(Duration::from_secs(8), || radio
        .store()
        .read(|c| !c.radio.power_on)));
    let (ready, status) = radio
        .store()
        .read(|c| (c.connection.radio_ready, c.detail.status.clone()));
    assert!(!ready);
    assert_eq!(status, "powered_off");
    assert!(
        radio.link_status().state == LinkState::Ready,
        "the LAN link itself stays up"
    );
    sim.panel(PanelAction::PowerOn);
    wait_ready(&radio, READY);
    radio.shutdown();
}

#[test]
fn clean_logout_lets_a_new_login_in_at_once() {
    let sim = start_sim("ic7610");
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    radio.shutdown();
    assert!(
        wait_for(Duration::from_secs(2), || sim.stats().clean_logouts == 1),
        "{:?}",
        sim.stats()
    );
    let t = Instant::now();
    let radio2 = start_radio("ic7610", &sim);
    wait_ready(&radio2, READY);
    assert!(
        t.elapsed() < Duration::from_secs(3),
        "no held session: {:?}",
        t.elapsed()
    );
    assert_eq!(sim.stats().streams_held, 0);
    radio2.shutdown();
}

#[test]
fn an_unclean_departure_holds_the_session_then_lets_go() {
    let sim = start_sim("ic7610");
    // a client that logs in and vanishes: the link is dropped without any goodbye
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    sim.silence(Duration::from_secs(4)); // the simulator stops hearing it
    radio.disconnect(); // its goodbye is lost in the silence
    std::thread::sleep(Duration::from_millis(3500));
    let t = Instant::now();
    let radio2 = start_radio("ic7610", &sim);
    wait_ready(&radio2, Duration::from_secs(15));
    assert!(
        sim.stats().streams_held > 0,
        "the new login was held first: {:?}",
        sim.stats()
    );
    eprintln!("held session released after {:?}", t.elapsed());
    radio2.shutdown();
    radio.shutdown();
}

#[test]
fn wrong_credentials_are_a_clear_permanent_error() {
    let sim = start_sim("ic7610");
    let radio =
        rigweb::radio::service::Radio::start(radio_config("ic7610", sim.addrs().control, "wrong"))
            .unwrap();
    assert!(wait_for(Duration::from_secs(5), || radio
        .link_status()
        .state
        == LinkState::Failed));
    let st = radio.link_status();
    assert!(
        st.last_error
            .as_deref()
            .unwrap_or("")
            .contains("user name or password"),
        "{st:?}"
    );
    assert_eq!(radio.store().read(|c| c.detail.status.clone()), "failed");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        sim.stats().logins_rejected,
        1,
        "no retry after a permanent failure"
    );
    let e = radio.execute(Command::SetPower(1)).unwrap_err();
    assert_eq!(e.code, ErrorCode::RadioUnavailable);
    radio.shutdown();
}

#[test]
fn unreachable_radio_is_reported_and_retried() {
    // nothing listens on this port
    let free = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = free.local_addr().unwrap();
    drop(free);
    let mut cfg = radio_config("ic7610", addr, "x");
    cfg.link.control.discovery.interval = Duration::from_millis(100);
    cfg.link.control.discovery.ayt_attempts = 3;
    let radio = rigweb::radio::service::Radio::start(cfg).unwrap();
    assert!(wait_for(Duration::from_secs(5), || matches!(
        radio.link_status().state,
        LinkState::Reconnecting { .. }
    )));
    let st = radio.link_status();
    assert!(
        st.last_error
            .unwrap_or_default()
            .contains("does not answer")
    );
    radio.shutdown();
}

fn junk_datagrams() -> Vec<Vec<u8>> {
    let mut junk: Vec<Vec<u8>> = vec![
        vec![],
        vec![0xFF; 3],
        vec![0; 0x10],
        vec![
            0x15, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 9, 0, 0, 0, 0,
        ],
        vec![0xAB; 0x90],
        vec![0x00; 5000],
        vec![
            0x10, 0, 0, 0, 0x01, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0xFF, 0xFF, 0xFF,
        ],
    ];
    // CI-V data with made-up ids, garbage and BCD nibbles above 9
    let civ = rigweb::wire::lan::CivDataRepr {
        seq: 3,
        sent_id: 0x1234,
        rcvd_id: 0x5678,
        inner_seq: 0,
        payload: vec![
            0xFE, 0xFE, 0xE0, 0x98, 0x03, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFD, 0x01, 0xFE,
        ],
    }
    .emit();
    let mut bad_len = civ.clone();
    bad_len[0x11] = 0xFF; // datalen past the end
    junk.push(civ);
    junk.push(bad_len);
    junk
}

#[test]
fn hostile_datagrams_to_the_simulator_are_counted_and_ignored() {
    let sim = start_sim("ic7610");
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    let attacker = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addrs = sim.addrs();
    let junk = junk_datagrams();
    let mut sent = 0u64;
    for _ in 0..50 {
        for j in &junk {
            for a in [addrs.control, addrs.civ, addrs.audio] {
                attacker.send_to(j, a).unwrap();
                sent += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    radio
        .execute(Command::SetFreq {
            target: Target::Receiver(0),
            hz: 10_120_000,
        })
        .unwrap();
    let s = sim.stats();
    assert!(
        s.malformed + s.foreign >= sent * 9 / 10,
        "{sent} sent, counted {s:?}"
    );
    radio.shutdown();
}

#[test]
fn hostile_datagrams_from_the_radio_address_do_not_wedge_the_client() {
    let sim = start_sim("ic7610");
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    let before = radio.link_status().malformed;
    for _ in 0..20 {
        for j in junk_datagrams() {
            for port in [Port::Control, Port::Civ, Port::Audio] {
                sim.inject(port, j.clone());
            }
        }
    }
    // a replayed (already delivered) CI-V packet with the real ids must not repeat a frame
    for hz in [3_573_000u64, 3_574_000] {
        radio
            .execute(Command::SetFreq {
                target: Target::Receiver(0),
                hz,
            })
            .unwrap();
    }
    assert!(
        wait_for(Duration::from_secs(3), || radio.link_status().malformed
            > before + 100),
        "{:?}",
        radio.link_status()
    );
    for i in 0..20u64 {
        radio
            .execute(Command::SetFreq {
                target: Target::Receiver(0),
                hz: 7_000_000 + i,
            })
            .unwrap();
    }
    assert_eq!(freq(&sim, 0), 7_000_019);
    assert!(radio.store().read(|c| c.connection.radio_ready));
    radio.shutdown();
}

#[test]
fn injected_naks_surface_as_radio_rejected_and_nothing_else_breaks() {
    let sim = start_sim("ic7610");
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    sim.set_faults(FaultConfig {
        nak: 1.0,
        ..Default::default()
    });
    std::thread::sleep(Duration::from_millis(50));
    let e = radio.execute(Command::SetPower(77)).unwrap_err();
    assert_eq!(e.code, ErrorCode::RadioRejected);
    assert!(e.message.contains("NAK"), "{e}");
    sim.set_faults(FaultConfig::default());
    std::thread::sleep(Duration::from_millis(50));
    radio.execute(Command::SetPower(77)).unwrap();
    radio.shutdown();
}

#[test]
fn streams_closed_by_the_radio_are_requested_again() {
    let sim = start_sim("ic7610");
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    sim.kick_streams();
    assert!(wait_for(Duration::from_secs(3), || !radio
        .store()
        .read(|c| c.connection.rig_connected)));
    wait_ready(&radio, READY);
    assert!(sim.stats().streams_granted >= 2, "{:?}", sim.stats());
    radio.execute(Command::SetPower(12)).unwrap();
    radio.shutdown();
}

#[test]
fn the_profile_follows_the_radio_that_answers() {
    let sim = start_sim("ic705");
    // configured for an IC-7610 (stereo RX codec, two receivers) but an IC-705 answers
    let radio =
        rigweb::radio::service::Radio::start(radio_config("ic7610", sim.addrs().control, "s3cret"))
            .unwrap();
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
