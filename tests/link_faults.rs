//! The client against the simulated radio over real UDP on 127.0.0.1 when things go
//! wrong: packet loss, duplicates and reordering, simulator restart, power off, clean
//! and unclean logout, wrong credentials, an unreachable radio, hostile datagrams,
//! NAKs and streams closed by the radio.

mod common;

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use common::*;
use rigweb::lan::link::LinkState;
use rigweb::lan::session::recovery::{LanPort, Recovery};
use rigweb::radio::command::{Command, Target};
use rigweb::radio::error::ErrorCode;
use rigweb::radio::table::settings::SettingId;
use rigweb::sim::faults::FaultConfig;
use rigweb::sim::rig::PanelAction;
use rigweb::wire::civ::Receiver;
use rigweb::wire::lan::Port;

const READY: Duration = Duration::from_secs(10);

fn freq(sim: &rigweb::sim::server::SimHandle, r: usize) -> u64 {
    sim_vfo(&sim.snapshot().expect("snapshot"), r).freq_hz
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
                target: Target::Receiver(Receiver::Main),
                hz,
            })
            .unwrap_or_else(|e| panic!("command {i} failed: {e}"));
        if i % 10 == 0 {
            radio
                .execute(Command::write(
                    SettingId::Power,
                    Receiver::Main,
                    i64::from((i % 255) as u8),
                ))
                .unwrap();
        }
    }
    assert_eq!(freq(&sim, 0), 14_014_900);
    let stats = sim.stats();
    assert!(
        stats.faults_out.dropped > 0 && stats.faults_in.dropped > 0,
        "{stats:?}"
    );
    assert!(stats.resent > 0, "retransmissions happened: {stats:?}");
    // the link's own recovery counts (GET /metrics): it asked for the radio's lost
    // packets and resent its own that the radio asked for
    let link = radio.link_status();
    let total = |f: fn(&Recovery) -> u64| link.recovery.iter().map(f).sum::<u64>();
    assert!(total(|r| r.requests_sent) > 0, "{:?}", link.recovery);
    assert!(total(|r| r.resent) > 0, "{:?}", link.recovery);
    assert!(
        link.recovery[LanPort::Civ.index()].requests_sent > 0,
        "{:?}",
        link.recovery
    );
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
            target: Target::Receiver(Receiver::Main),
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
    radio
        .execute(Command::write(
            SettingId::Power,
            Receiver::Main,
            i64::from(5),
        ))
        .unwrap();
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
        .read(|c| c.radio.power_on == Some(false))));
    let (ready, status) = radio
        .store()
        .read(|c| (c.connection.radio_ready, c.detail.status.name()));
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
    assert_eq!(radio.store().read(|c| c.detail.status.name()), "failed");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        sim.stats().logins_rejected,
        1,
        "no retry after a permanent failure"
    );
    let e = radio
        .execute(Command::write(
            SettingId::Power,
            Receiver::Main,
            i64::from(1),
        ))
        .unwrap_err();
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
            target: Target::Receiver(Receiver::Main),
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
                target: Target::Receiver(Receiver::Main),
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
                target: Target::Receiver(Receiver::Main),
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
    let e = radio
        .execute(Command::write(
            SettingId::Power,
            Receiver::Main,
            i64::from(77),
        ))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::RadioRejected);
    assert!(e.message.contains("NAK"), "{e}");
    sim.set_faults(FaultConfig::default());
    std::thread::sleep(Duration::from_millis(50));
    radio
        .execute(Command::write(
            SettingId::Power,
            Receiver::Main,
            i64::from(77),
        ))
        .unwrap();
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
    radio
        .execute(Command::write(
            SettingId::Power,
            Receiver::Main,
            i64::from(12),
        ))
        .unwrap();
    radio.shutdown();
}

#[test]
fn a_radio_already_in_standby_is_reported_off_and_can_be_switched_on() {
    // regression (independent implementations): a radio in standby grants the streams but
    // sends no CI-V; rigweb stayed "connecting" with made-up frequencies for good and
    // power-on answered radio_unavailable
    let mut c = sim_config("ic9700");
    c.rig.start_in_standby = true;
    c.rig.boot_time = Duration::from_millis(300);
    let sim = rigweb::sim::server::start(c).expect("simulator starts");
    let radio = start_radio("ic9700", &sim);
    assert!(
        wait_for(Duration::from_secs(10), || radio.store().read(|c| c
            .detail
            .status
            .name()
            == "powered_off")),
        "{:?}",
        radio.store().read(|c| c.detail.clone())
    );
    let st = radio.store().read(|c| c.clone());
    assert_eq!(st.radio.power_on, Some(false));
    assert_eq!(st.radio.main.freq_hz, None, "no made-up frequency");
    assert!(!st.connection.radio_ready);
    radio
        .execute(Command::Power(true))
        .expect("power on wakes the radio");
    assert!(sim.snapshot().unwrap().powered);
    wait_ready(&radio, READY);
    let st = radio.store().read(|c| c.clone());
    assert_eq!(st.radio.power_on, Some(true));
    assert_eq!(st.radio.main.freq_hz, Some(freq(&sim, 0)));
    radio.shutdown();
}

#[test]
fn a_radio_that_went_to_standby_is_found_so_after_a_reconnect() {
    // the standby case of independent implementations, on a reconnect: the streams are
    // granted again but no CI-V comes, and power-on must still wake the radio
    let sim = start_sim("ic7610");
    let radio = start_radio("ic7610", &sim);
    wait_ready(&radio, READY);
    radio.execute(Command::Power(false)).expect("power off");
    sim.kick_streams();
    assert!(wait_for(Duration::from_secs(3), || !radio
        .store()
        .read(|c| c.connection.rig_connected)));
    assert!(
        wait_for(Duration::from_secs(10), || radio
            .store()
            .read(
                |c| c.connection.rig_connected && c.detail.status.name() == "powered_off"
            )),
        "{:?}",
        radio.store().read(|c| c.detail.clone())
    );
    assert_eq!(radio.store().read(|c| c.radio.ptt), Some(false));
    radio
        .execute(Command::Power(true))
        .expect("power on wakes the radio");
    wait_ready(&radio, READY);
    assert_eq!(
        radio.store().read(|c| c.radio.main.freq_hz),
        Some(freq(&sim, 0))
    );
    radio.shutdown();
}
