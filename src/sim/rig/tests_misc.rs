//! BSR, meter, PTT and menu-item (clock) tests.

use crate::sim::audio_synth::mode;
use crate::sim::rig::{SimRig, SimRigConfig};
use crate::sim::testutil::{ack, ask_at, fb, nak, profile, read, rig};
use crate::wire::civ::cmd::{self, ext, level, meter, sel, tx};
use crate::wire::civ::{bcd_to_freq, bcd_to_level};

fn level_at(r: &mut SimRig, t: f64, sub: u8) -> u16 {
    let rep = ask_at(r, t, cmd::METER, &[sub]);
    assert_eq!(rep.len(), 1);
    assert_eq!(rep[0].cmd, cmd::METER, "{rep:?}");
    bcd_to_level(&rep[0].data[1..]).expect("meter")
}

#[test]
fn bsr_registers_start_at_band_defaults_and_stack_on_band_change() {
    let mut r = rig("ic7610");
    let d = read(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x05, 0x01]);
    assert_eq!(d.len(), 3 + 5 + 3 + 6);
    assert_eq!(&d[..3], &[ext::BAND_STACK, 0x05, 0x01]);
    assert_eq!(bcd_to_freq(&d[3..8]).unwrap(), 14_200_000);
    assert_eq!((d[8], d[9]), (mode::USB, 0x01), "USB FIL1");
    let d = read(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x03, 0x01]);
    assert_eq!(d[8], mode::LSB, "LSB below 10 MHz");
    // tune around 20 m, then leave for 40 m
    ack(&mut r, cmd::SET_FREQ, &fb(14_074_000));
    ack(&mut r, cmd::SET_MODE, &[mode::CW, 0x02]);
    ack(&mut r, cmd::SET_FREQ, &fb(7_030_000));
    let d = read(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x05, 0x01]);
    assert_eq!(
        bcd_to_freq(&d[3..8]).unwrap(),
        14_074_000,
        "old freq on reg 01"
    );
    assert_eq!((d[8], d[9]), (mode::CW, 0x02));
    let d = read(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x05, 0x02]);
    assert_eq!(
        bcd_to_freq(&d[3..8]).unwrap(),
        14_200_000,
        "older on reg 02"
    );
    // moving inside 40 m does not push
    ack(&mut r, cmd::SET_FREQ, &fb(7_040_000));
    let d = read(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x03, 0x01]);
    assert_eq!(bcd_to_freq(&d[3..8]).unwrap(), 7_100_000);
    // write a register
    let mut w = vec![ext::BAND_STACK, 0x10, 0x03];
    w.extend_from_slice(&fb(50_313_000));
    w.extend_from_slice(&[mode::USB, 0x02]);
    ack(&mut r, cmd::EXT, &w);
    let d = read(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x10, 0x03]);
    assert_eq!(bcd_to_freq(&d[3..8]).unwrap(), 50_313_000);
    // bad band, register, frequency outside the band, length
    nak(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x0A, 0x01]);
    nak(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x42, 0x01]);
    nak(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x05, 0x04]);
    let mut w = vec![ext::BAND_STACK, 0x05, 0x01];
    w.extend_from_slice(&fb(7_030_000));
    w.extend_from_slice(&[mode::USB, 0x01]);
    nak(&mut r, cmd::EXT, &w);
    nak(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x05]);
    // per-model codes
    let mut r = rig("ic705");
    let d = read(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x13, 0x01]);
    assert_eq!(bcd_to_freq(&d[3..8]).unwrap(), 146_520_000);
    assert_eq!(d[8], mode::FM, "FM on 2 m");
    let mut r = rig("ic9700");
    let d = read(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x03, 0x01]);
    assert_eq!(bcd_to_freq(&d[3..8]).unwrap(), 1_296_200_000);
    nak(&mut r, cmd::EXT, &[ext::BAND_STACK, 0x05, 0x01]);
}

#[test]
fn smeter_depends_on_the_band_and_fades() {
    let mut r = rig("ic7610");
    let mean = |r: &mut SimRig, hz: u64, mode: u8| -> f64 {
        ack(r, cmd::SET_FREQ, &fb(hz));
        ack(r, cmd::SET_MODE, &[mode, 0x01]);
        let v: Vec<u16> = (0..40)
            .map(|i| level_at(r, 2.0 + f64::from(i) * 0.5, meter::S_METER))
            .collect();
        v.iter().map(|&x| f64::from(x)).sum::<f64>() / v.len() as f64
    };
    let low = mean(&mut r, 3_555_000, mode::LSB);
    let high = mean(&mut r, 28_150_000, mode::USB);
    assert!(low > high + 10.0, "80 m noise {low} vs 10 m {high}");
    assert!(low > 20.0 && low < 241.0);
    // the ATT lowers the reading
    ack(&mut r, cmd::SET_FREQ, &fb(3_555_000));
    ack(&mut r, cmd::SET_MODE, &[mode::LSB, 0x01]);
    let before = level_at(&mut r, 30.0, meter::S_METER);
    ack(&mut r, cmd::ATTENUATOR, &[0x21]);
    assert!(level_at(&mut r, 30.0, meter::S_METER) < before);
}

#[test]
fn tx_meters_follow_ptt_power_and_band() {
    let mut r = rig("ic7610");
    ack(&mut r, cmd::SET_MODE, &[mode::CW, 0x01]); // CW: full carrier
    for sub in [meter::PO, meter::SWR, meter::ALC, meter::COMP, meter::ID] {
        assert_eq!(level_at(&mut r, 1.0, sub), 0, "RX: meter {sub:02X} reads 0");
    }
    assert_eq!(level_at(&mut r, 1.0, meter::VD), 185);
    assert_eq!(read(&mut r, cmd::TX, &[tx::PTT]), vec![tx::PTT, 0x00]);
    ack(&mut r, cmd::LEVEL, &[level::RF_POWER, 0x02, 0x55]);
    ack(&mut r, cmd::TX, &[tx::PTT, 0x01]);
    assert!(r.ptt());
    assert_eq!(read(&mut r, cmd::TX, &[tx::PTT]), vec![tx::PTT, 0x01]);
    let po_full = level_at(&mut r, 2.0, meter::PO);
    assert!(
        (205..=215).contains(&po_full),
        "100 W reads about 213: {po_full}"
    );
    ack(&mut r, cmd::LEVEL, &[level::RF_POWER, 0x01, 0x28]);
    let po_half = level_at(&mut r, 2.0, meter::PO);
    assert!((135..=150).contains(&po_half), "about 50 W: {po_half}");
    let swr20 = level_at(&mut r, 2.0, meter::SWR);
    assert!((1..=80).contains(&swr20), "SWR 1.1-2.0: {swr20}");
    assert!(level_at(&mut r, 2.0, meter::ID) > 0, "Id rises");
    assert!(level_at(&mut r, 2.0, meter::VD) < 185, "Vd dips");
    assert_eq!(
        level_at(&mut r, 2.0, meter::S_METER),
        0,
        "no S-meter while transmitting"
    );
    // SWR is a property of the band: deterministic, and not the same everywhere
    assert_eq!(level_at(&mut r, 3.0, meter::SWR), swr20);
    let mut other = Vec::new();
    for hz in [
        1_850_000u64,
        3_600_000,
        7_100_000,
        10_120_000,
        18_100_000,
        21_200_000,
        28_500_000,
    ] {
        ack(&mut r, cmd::TX, &[tx::PTT, 0x00]);
        ack(&mut r, cmd::SET_FREQ, &fb(hz));
        ack(&mut r, cmd::TX, &[tx::PTT, 0x01]);
        other.push(level_at(&mut r, 2.0, meter::SWR));
    }
    assert!(other.iter().any(|&s| s != swr20), "{swr20} vs {other:?}");
    // TX audio drives ALC (once the MOD input of DATA OFF is LAN)
    ack(&mut r, cmd::SET_MODE, &[mode::USB, 0x01]);
    r.accept_tx_audio(&[1_000i16; 960]);
    assert_eq!(
        r.snapshot().tx_audio_muted,
        960,
        "MOD input MIC: not transmitted"
    );
    ack(&mut r, cmd::EXT, &[ext::MENU, 0x00, 0x91, 0x05]);
    r.accept_tx_audio(&[1_000i16; 960]);
    let quiet = level_at(&mut r, 4.0, meter::ALC);
    r.accept_tx_audio(&[30_000i16, -30_000].repeat(480));
    let loud = level_at(&mut r, 4.0, meter::ALC);
    assert!(loud > quiet, "ALC {quiet} -> {loud}");
    assert_eq!(r.snapshot().tx_audio_samples, 1_920);
    ack(&mut r, cmd::TX, &[tx::PTT, 0x00]);
    assert_eq!(level_at(&mut r, 5.0, meter::PO), 0);
    r.accept_tx_audio(&[0i16; 10]);
    assert_eq!(r.snapshot().tx_audio_dropped, 10);
}

#[test]
fn ptt_outside_the_bands_is_refused() {
    let mut r = rig("ic7610");
    ack(&mut r, cmd::SET_FREQ, &fb(10_000_000)); // WWV: tunable, not a band
    nak(&mut r, cmd::TX, &[tx::PTT, 0x01]);
    assert!(!r.ptt());
    nak(&mut r, cmd::TX, &[tx::PTT, 0x02]);
    let mut r = rig("ic705");
    ack(&mut r, cmd::SET_FREQ, &fb(100_000_000));
    ack(&mut r, cmd::SET_MODE, &[mode::WFM]);
    nak(&mut r, cmd::TX, &[tx::PTT, 0x01]);
    // split: the TX slot decides
    let mut r = rig("ic705");
    ack(
        &mut r,
        cmd::SEL_FREQ,
        &[&[sel::UNSELECTED][..], &fb(9_000_000)].concat(),
    );
    ack(&mut r, cmd::SPLIT, &[0x01]);
    nak(&mut r, cmd::TX, &[tx::PTT, 0x01]);
    ack(&mut r, cmd::SPLIT, &[0x00]);
    ack(&mut r, cmd::TX, &[tx::PTT, 0x01]);
    // meters a profile lacks
    let mut r = rig("ic7100");
    nak(&mut r, cmd::METER, &[meter::VD]);
    nak(&mut r, cmd::METER, &[meter::ID]);
    nak(&mut r, cmd::METER, &[meter::S_METER, 0x01, 0x00]);
}

/// The data of `1A 05 <hi> <lo>` read at `t` seconds.
fn menu_at(r: &mut SimRig, t: f64, hi: u8, lo: u8) -> Vec<u8> {
    let rep = ask_at(r, t, cmd::EXT, &[ext::MENU, hi, lo]);
    assert_eq!(rep.len(), 1);
    assert_eq!(rep[0].cmd, cmd::EXT, "{rep:?}");
    assert_eq!(&rep[0].data[..3], &[ext::MENU, hi, lo]);
    rep[0].data[3..].to_vec()
}

/// Whether `1A 05 <hi> <lo> <value>` sent at `t` seconds is acknowledged.
fn menu_set_at(r: &mut SimRig, t: f64, hi: u8, lo: u8, value: &[u8]) -> bool {
    let rep = ask_at(r, t, cmd::EXT, &[&[ext::MENU, hi, lo][..], value].concat());
    assert_eq!(rep.len(), 1);
    rep[0].is_ack()
}

#[test]
fn clock_menu_items_have_their_real_size_and_follow_the_clock() {
    // 2024-07-01 12:00:00 UTC at the start
    let cfg = SimRigConfig {
        clock_start_unix_s: Some(1_719_835_200),
        ..SimRigConfig::default()
    };
    let mut r = SimRig::new(profile("ic7610"), cfg);
    assert_eq!(
        menu_at(&mut r, 1.0, 0x01, 0x58),
        vec![0x20, 0x24, 0x07, 0x01]
    );
    assert_eq!(menu_at(&mut r, 1.0, 0x01, 0x59), vec![0x12, 0x00]);
    assert_eq!(menu_at(&mut r, 3_661.0, 0x01, 0x59), vec![0x13, 0x01]);
    // set the time: the clock runs on from there and the date rolls over at midnight
    assert!(menu_set_at(&mut r, 3_661.0, 0x01, 0x59, &[0x23, 0x59]));
    assert_eq!(menu_at(&mut r, 3_661.0, 0x01, 0x59), vec![0x23, 0x59]);
    assert_eq!(menu_at(&mut r, 3_781.0, 0x01, 0x59), vec![0x00, 0x01]);
    assert_eq!(
        menu_at(&mut r, 3_781.0, 0x01, 0x58),
        vec![0x20, 0x24, 0x07, 0x02]
    );
    // set the date: the time of day stays
    assert!(menu_set_at(
        &mut r,
        3_781.0,
        0x01,
        0x58,
        &[0x20, 0x28, 0x02, 0x29]
    ));
    assert_eq!(
        menu_at(&mut r, 3_781.0, 0x01, 0x58),
        vec![0x20, 0x28, 0x02, 0x29]
    );
    assert_eq!(menu_at(&mut r, 3_781.0, 0x01, 0x59), vec![0x00, 0x01]);
    // refused: a day that does not exist, out of range, wrong sizes, bad BCD
    for bad in [
        &[0x20, 0x27, 0x02, 0x29][..],
        &[0x19, 0x99, 0x12, 0x31],
        &[0x20, 0x24, 0x13, 0x01],
        &[0x20, 0x24, 0x07],
        &[0x20, 0x24, 0x07, 0x0A],
    ] {
        assert!(!menu_set_at(&mut r, 4_000.0, 0x01, 0x58, bad), "{bad:02X?}");
    }
    for bad in [
        &[0x24, 0x00][..],
        &[0x12, 0x60],
        &[0x12],
        &[0x12, 0x00, 0x00],
    ] {
        assert!(!menu_set_at(&mut r, 4_000.0, 0x01, 0x59, bad), "{bad:02X?}");
    }
    // UTC offset: 3 bytes, 00 00 00 until written
    assert_eq!(menu_at(&mut r, 1.0, 0x01, 0x62), vec![0x00, 0x00, 0x00]);
    assert!(menu_set_at(&mut r, 1.0, 0x01, 0x62, &[0x05, 0x30, 0x01]));
    assert_eq!(menu_at(&mut r, 1.0, 0x01, 0x62), vec![0x05, 0x30, 0x01]);
    assert!(!menu_set_at(&mut r, 1.0, 0x01, 0x62, &[0x15, 0x00, 0x00]));
    assert!(!menu_set_at(&mut r, 1.0, 0x01, 0x62, &[0x05, 0x30, 0x02]));
    // any other item: one 00 byte until written, then what was written
    assert_eq!(menu_at(&mut r, 1.0, 0x00, 0x72), vec![0x00]);
    assert!(menu_set_at(&mut r, 1.0, 0x00, 0x72, &[0x01, 0x02]));
    assert_eq!(menu_at(&mut r, 1.0, 0x00, 0x72), vec![0x01, 0x02]);
    nak(&mut r, cmd::EXT, &[ext::MENU, 0x0A, 0x72]);
    nak(&mut r, cmd::EXT, &[ext::MENU, 0x01]);
    // per model: the IC-9700's, IC-7100's and IC-705's clock items
    let mut r = SimRig::new(profile("ic9700"), cfg);
    assert_eq!(
        menu_at(&mut r, 1.0, 0x01, 0x79),
        vec![0x20, 0x24, 0x07, 0x01]
    );
    assert_eq!(menu_at(&mut r, 1.0, 0x01, 0x80), vec![0x12, 0x00]);
    assert_eq!(menu_at(&mut r, 1.0, 0x01, 0x58), vec![0x00]);
    let mut r = SimRig::new(profile("ic7100"), cfg);
    assert_eq!(menu_at(&mut r, 1.0, 0x01, 0x20).len(), 4);
    // issue 15.9: the IC-705 had no clock items (`01 65` / `01 66` answered one byte)
    let mut r = SimRig::new(profile("ic705"), cfg);
    assert_eq!(
        menu_at(&mut r, 1.0, 0x01, 0x65),
        vec![0x20, 0x24, 0x07, 0x01]
    );
    assert_eq!(menu_at(&mut r, 1.0, 0x01, 0x66), vec![0x12, 0x00]);
    assert!(menu_set_at(&mut r, 1.0, 0x01, 0x66, &[0x08, 0x15]));
    assert_eq!(menu_at(&mut r, 61.0, 0x01, 0x66), vec![0x08, 0x16]);
    assert_eq!(menu_at(&mut r, 1.0, 0x01, 0x70), vec![0x00, 0x00, 0x00]);
    assert!(!menu_set_at(&mut r, 1.0, 0x01, 0x70, &[0x05, 0x30, 0x02]));
    assert_eq!(
        menu_at(&mut r, 1.0, 0x01, 0x58),
        vec![0x00],
        "the IC-7610's item"
    );
    // without a configured clock: 2025-01-01 00:00
    let mut r = rig("ic7610");
    assert_eq!(
        menu_at(&mut r, 1.0, 0x01, 0x58),
        vec![0x20, 0x25, 0x01, 0x01]
    );
}

#[test]
fn the_transceive_menu_item_switches_transceive() {
    let mut r = rig("ic7610");
    assert_eq!(menu_at(&mut r, 1.0, 0x01, 0x12), vec![0x01]);
    assert!(menu_set_at(&mut r, 1.0, 0x01, 0x12, &[0x00]));
    assert_eq!(menu_at(&mut r, 1.0, 0x01, 0x12), vec![0x00]);
    assert!(!r.snapshot().transceive);
    assert!(!menu_set_at(&mut r, 1.0, 0x01, 0x12, &[0x02]));
    let mut r = rig("ic9700");
    assert!(menu_set_at(&mut r, 1.0, 0x01, 0x27, &[0x00]));
    assert!(!r.snapshot().transceive);
}
