//! BSR, meters, PTT, standby, transceive, settings and audio tests.

use std::time::Duration;

use crate::sim::rig::{PanelAction, SimRig, SimRigConfig};
use crate::sim::testutil::{
    ALL, ack, ask_at, fb, goertzel, nak, profile, read, rig, steady_beacon,
};
use crate::wire::civ::{Frame, bcd_to_freq, bcd_to_level};

fn level_at(r: &mut SimRig, t: f64, sub: u8) -> u16 {
    let rep = ask_at(r, t, 0x15, &[sub]);
    assert_eq!(rep.len(), 1);
    assert_eq!(rep[0].cmd, 0x15, "{rep:?}");
    bcd_to_level(&rep[0].data[1..]).expect("meter")
}

#[test]
fn bsr_registers_start_at_band_defaults_and_stack_on_band_change() {
    let mut r = rig("ic7610");
    let d = read(&mut r, 0x1A, &[0x01, 0x05, 0x01]);
    assert_eq!(d.len(), 3 + 5 + 3 + 6);
    assert_eq!(&d[..3], &[0x01, 0x05, 0x01]);
    assert_eq!(bcd_to_freq(&d[3..8]).unwrap(), 14_200_000);
    assert_eq!((d[8], d[9]), (0x01, 0x01), "USB FIL1");
    let d = read(&mut r, 0x1A, &[0x01, 0x03, 0x01]);
    assert_eq!(d[8], 0x00, "LSB below 10 MHz");
    // tune around 20 m, then leave for 40 m
    ack(&mut r, 0x05, &fb(14_074_000));
    ack(&mut r, 0x06, &[0x03, 0x02]);
    ack(&mut r, 0x05, &fb(7_030_000));
    let d = read(&mut r, 0x1A, &[0x01, 0x05, 0x01]);
    assert_eq!(
        bcd_to_freq(&d[3..8]).unwrap(),
        14_074_000,
        "old freq on reg 01"
    );
    assert_eq!((d[8], d[9]), (0x03, 0x02));
    let d = read(&mut r, 0x1A, &[0x01, 0x05, 0x02]);
    assert_eq!(
        bcd_to_freq(&d[3..8]).unwrap(),
        14_200_000,
        "older on reg 02"
    );
    // moving inside 40 m does not push
    ack(&mut r, 0x05, &fb(7_040_000));
    let d = read(&mut r, 0x1A, &[0x01, 0x03, 0x01]);
    assert_eq!(bcd_to_freq(&d[3..8]).unwrap(), 7_100_000);
    // write a register
    let mut w = vec![0x01, 0x10, 0x03];
    w.extend_from_slice(&fb(50_313_000));
    w.extend_from_slice(&[0x01, 0x02]);
    ack(&mut r, 0x1A, &w);
    let d = read(&mut r, 0x1A, &[0x01, 0x10, 0x03]);
    assert_eq!(bcd_to_freq(&d[3..8]).unwrap(), 50_313_000);
    // bad band, register, frequency outside the band, length
    nak(&mut r, 0x1A, &[0x01, 0x0A, 0x01]);
    nak(&mut r, 0x1A, &[0x01, 0x42, 0x01]);
    nak(&mut r, 0x1A, &[0x01, 0x05, 0x04]);
    let mut w = vec![0x01, 0x05, 0x01];
    w.extend_from_slice(&fb(7_030_000));
    w.extend_from_slice(&[0x01, 0x01]);
    nak(&mut r, 0x1A, &w);
    nak(&mut r, 0x1A, &[0x01, 0x05]);
    // per-model codes
    let mut r = rig("ic705");
    let d = read(&mut r, 0x1A, &[0x01, 0x13, 0x01]);
    assert_eq!(bcd_to_freq(&d[3..8]).unwrap(), 146_520_000);
    assert_eq!(d[8], 0x05, "FM on 2 m");
    let mut r = rig("ic9700");
    let d = read(&mut r, 0x1A, &[0x01, 0x03, 0x01]);
    assert_eq!(bcd_to_freq(&d[3..8]).unwrap(), 1_296_200_000);
    nak(&mut r, 0x1A, &[0x01, 0x05, 0x01]);
}

#[test]
fn smeter_depends_on_the_band_and_fades() {
    let mut r = rig("ic7610");
    let mean = |r: &mut SimRig, hz: u64, mode: u8| -> f64 {
        ack(r, 0x05, &fb(hz));
        ack(r, 0x06, &[mode, 0x01]);
        let v: Vec<u16> = (0..40)
            .map(|i| level_at(r, 2.0 + f64::from(i) * 0.5, 0x02))
            .collect();
        v.iter().map(|&x| f64::from(x)).sum::<f64>() / v.len() as f64
    };
    let low = mean(&mut r, 3_555_000, 0x00);
    let high = mean(&mut r, 28_150_000, 0x01);
    assert!(low > high + 10.0, "80 m noise {low} vs 10 m {high}");
    assert!(low > 20.0 && low < 241.0);
    // the ATT lowers the reading
    ack(&mut r, 0x05, &fb(3_555_000));
    ack(&mut r, 0x06, &[0x00, 0x01]);
    let before = level_at(&mut r, 30.0, 0x02);
    ack(&mut r, 0x11, &[0x21]);
    assert!(level_at(&mut r, 30.0, 0x02) < before);
}

#[test]
fn tx_meters_follow_ptt_power_and_band() {
    let mut r = rig("ic7610");
    ack(&mut r, 0x06, &[0x03, 0x01]); // CW: full carrier
    for sub in [0x11, 0x12, 0x13, 0x14, 0x16] {
        assert_eq!(level_at(&mut r, 1.0, sub), 0, "RX: meter {sub:02X} reads 0");
    }
    assert_eq!(level_at(&mut r, 1.0, 0x15), 185);
    assert_eq!(read(&mut r, 0x1C, &[0x00]), vec![0x00, 0x00]);
    ack(&mut r, 0x14, &[0x0A, 0x02, 0x55]);
    ack(&mut r, 0x1C, &[0x00, 0x01]);
    assert!(r.ptt());
    assert_eq!(read(&mut r, 0x1C, &[0x00]), vec![0x00, 0x01]);
    let po_full = level_at(&mut r, 2.0, 0x11);
    assert!(
        (205..=215).contains(&po_full),
        "100 W reads about 213: {po_full}"
    );
    ack(&mut r, 0x14, &[0x0A, 0x01, 0x28]);
    let po_half = level_at(&mut r, 2.0, 0x11);
    assert!((135..=150).contains(&po_half), "about 50 W: {po_half}");
    let swr20 = level_at(&mut r, 2.0, 0x12);
    assert!((1..=80).contains(&swr20), "SWR 1.1-2.0: {swr20}");
    assert!(level_at(&mut r, 2.0, 0x16) > 0, "Id rises");
    assert!(level_at(&mut r, 2.0, 0x15) < 185, "Vd dips");
    assert_eq!(
        level_at(&mut r, 2.0, 0x02),
        0,
        "no S-meter while transmitting"
    );
    // SWR is a property of the band: deterministic, and not the same everywhere
    assert_eq!(level_at(&mut r, 3.0, 0x12), swr20);
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
        ack(&mut r, 0x1C, &[0x00, 0x00]);
        ack(&mut r, 0x05, &fb(hz));
        ack(&mut r, 0x1C, &[0x00, 0x01]);
        other.push(level_at(&mut r, 2.0, 0x12));
    }
    assert!(other.iter().any(|&s| s != swr20), "{swr20} vs {other:?}");
    // TX audio drives ALC (once the MOD input of DATA OFF is LAN)
    ack(&mut r, 0x06, &[0x01, 0x01]);
    r.accept_tx_audio(&[1_000i16; 960]);
    assert_eq!(
        r.snapshot().tx_audio_muted,
        960,
        "MOD input MIC: not transmitted"
    );
    ack(&mut r, 0x1A, &[0x05, 0x00, 0x91, 0x05]);
    r.accept_tx_audio(&[1_000i16; 960]);
    let quiet = level_at(&mut r, 4.0, 0x13);
    r.accept_tx_audio(&[30_000i16, -30_000].repeat(480));
    let loud = level_at(&mut r, 4.0, 0x13);
    assert!(loud > quiet, "ALC {quiet} -> {loud}");
    assert_eq!(r.snapshot().tx_audio_samples, 1_920);
    ack(&mut r, 0x1C, &[0x00, 0x00]);
    assert_eq!(level_at(&mut r, 5.0, 0x11), 0);
    r.accept_tx_audio(&[0i16; 10]);
    assert_eq!(r.snapshot().tx_audio_dropped, 10);
}

#[test]
fn ptt_outside_the_bands_is_refused() {
    let mut r = rig("ic7610");
    ack(&mut r, 0x05, &fb(10_000_000)); // WWV: tunable, not a band
    nak(&mut r, 0x1C, &[0x00, 0x01]);
    assert!(!r.ptt());
    nak(&mut r, 0x1C, &[0x00, 0x02]);
    let mut r = rig("ic705");
    ack(&mut r, 0x05, &fb(100_000_000));
    ack(&mut r, 0x06, &[0x06]);
    nak(&mut r, 0x1C, &[0x00, 0x01]);
    // split: the TX slot decides
    let mut r = rig("ic705");
    ack(&mut r, 0x25, &[&[0x01u8][..], &fb(9_000_000)].concat());
    ack(&mut r, 0x0F, &[0x01]);
    nak(&mut r, 0x1C, &[0x00, 0x01]);
    ack(&mut r, 0x0F, &[0x00]);
    ack(&mut r, 0x1C, &[0x00, 0x01]);
    // meters a profile lacks
    let mut r = rig("ic7100");
    nak(&mut r, 0x15, &[0x15]);
    nak(&mut r, 0x15, &[0x16]);
    nak(&mut r, 0x15, &[0x02, 0x01, 0x00]);
}

#[test]
fn standby_answers_only_power_and_id() {
    for id in ALL {
        let mut r = rig(id);
        let before = r.snapshot();
        ack(&mut r, 0x18, &[0x00]);
        assert!(!r.powered());
        nak(&mut r, 0x03, &[]);
        nak(&mut r, 0x18, &[0x00]);
        nak(&mut r, 0x29, &[0x00, 0x11]);
        assert_eq!(read(&mut r, 0x18, &[]), vec![0x00]);
        let addr = r.civ_addr();
        assert_eq!(read(&mut r, 0x19, &[0x00]), vec![0x00, addr]);
        let mut pcm = vec![7i16; 960];
        r.render_audio(&mut pcm, 2, 48_000);
        assert!(pcm.iter().all(|s| *s == 0), "{id}: silent in standby");
        assert!(
            r.panel(
                PanelAction::SetFreq {
                    receiver: 0,
                    hz: 7_074_000
                },
                Duration::ZERO
            )
            .is_empty()
        );
        assert!(r.poll(Duration::from_secs(2)).is_empty());
        assert_eq!(r.next_due(), None);
        ack(&mut r, 0x18, &[0x01]);
        assert!(r.powered());
        assert_eq!(r.snapshot(), before, "{id}: power on restores the state");
        assert_eq!(read(&mut r, 0x18, &[]), vec![0x01]);
    }
}

#[test]
fn transceive_broadcasts_follow_the_menu_item() {
    let mut r = rig("ic7610");
    let t = Duration::from_secs(1);
    let out = r.panel(
        PanelAction::SetFreq {
            receiver: 0,
            hz: 14_074_000,
        },
        t,
    );
    assert_eq!(out, vec![Frame::new(0x00, 0x98, 0x00, &fb(14_074_000))]);
    let out = r.panel(
        PanelAction::SetMode {
            receiver: 0,
            mode: 0x03,
            filter: 2,
        },
        t,
    );
    assert_eq!(out, vec![Frame::new(0x00, 0x98, 0x01, &[0x03, 0x02])]);
    // the unselected receiver changes silently
    assert!(
        r.panel(
            PanelAction::SetFreq {
                receiver: 1,
                hz: 7_010_000
            },
            t
        )
        .is_empty()
    );
    assert_eq!(r.snapshot().receivers[1].vfo[0].freq_hz, 7_010_000);
    // selecting SUB announces its frequency and mode
    let out = r.panel(PanelAction::SelectReceiver(1), t);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].data, fb(7_010_000).to_vec());
    // transceive off via 1A 05 01 12 00
    assert_eq!(
        read(&mut r, 0x1A, &[0x05, 0x01, 0x12]),
        vec![0x05, 0x01, 0x12, 0x01]
    );
    ack(&mut r, 0x1A, &[0x05, 0x01, 0x12, 0x00]);
    assert_eq!(
        read(&mut r, 0x1A, &[0x05, 0x01, 0x12]),
        vec![0x05, 0x01, 0x12, 0x00]
    );
    assert!(
        r.panel(
            PanelAction::SetFreq {
                receiver: 1,
                hz: 7_020_000
            },
            t
        )
        .is_empty()
    );
    nak(&mut r, 0x1A, &[0x05, 0x01, 0x12, 0x02]);
    // other menu items are stored and echoed
    ack(&mut r, 0x1A, &[0x05, 0x00, 0x72, 0x00]);
    assert_eq!(
        read(&mut r, 0x1A, &[0x05, 0x00, 0x72]),
        vec![0x05, 0x00, 0x72, 0x00]
    );
    nak(&mut r, 0x1A, &[0x05, 0x0A, 0x72]);
    // IC-9700: its own item; queued broadcasts come out of poll
    let mut r = rig("ic9700");
    r.queue_panel(
        PanelAction::SetFreq {
            receiver: 0,
            hz: 145_000_000,
        },
        t,
    );
    assert_eq!(r.next_due(), Some(t));
    assert_eq!(
        r.poll(t),
        vec![Frame::new(0x00, 0xA2, 0x00, &fb(145_000_000))]
    );
    ack(&mut r, 0x1A, &[0x05, 0x01, 0x27, 0x00]);
    assert!(
        r.panel(
            PanelAction::SetFreq {
                receiver: 0,
                hz: 145_100_000
            },
            t
        )
        .is_empty()
    );
    // configured off
    let cfg = SimRigConfig {
        transceive: false,
        ..SimRigConfig::default()
    };
    let mut r = SimRig::new(profile("ic705"), cfg);
    assert!(
        r.panel(
            PanelAction::SetFreq {
                receiver: 0,
                hz: 14_100_000
            },
            t
        )
        .is_empty()
    );
    // A/B radio: VFO B is not selected
    let mut r = rig("ic7100");
    assert!(
        r.panel(
            PanelAction::SetFreq {
                receiver: 1,
                hz: 7_050_000
            },
            t
        )
        .is_empty()
    );
    assert_eq!(
        r.panel(
            PanelAction::SetFreq {
                receiver: 0,
                hz: 14_050_000
            },
            t
        )
        .len(),
        1
    );
}

#[test]
fn levels_functions_widths_tones_rit_tuner() {
    let mut r = rig("ic7610");
    for sub in [
        0x01, 0x02, 0x03, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x12, 0x13,
        0x14, 0x15, 0x16, 0x17,
    ] {
        assert_eq!(read(&mut r, 0x14, &[sub]).len(), 3, "14 {sub:02X}");
        ack(&mut r, 0x14, &[sub, 0x02, 0x00]);
        assert_eq!(read(&mut r, 0x14, &[sub]), vec![sub, 0x02, 0x00]);
    }
    assert_eq!(r.snapshot().rf_power(), 200);
    for sub in [
        0x12, 0x22, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x4E, 0x4F, 0x50, 0x56,
        0x58, 0x65,
    ] {
        ack(&mut r, 0x16, &[sub, 0x01]);
        assert_eq!(read(&mut r, 0x16, &[sub]), vec![sub, 0x01], "16 {sub:02X}");
    }
    nak(&mut r, 0x16, &[0x12, 0x00]); // AGC 1..3
    nak(&mut r, 0x16, &[0x40, 0x02]);
    nak(&mut r, 0x16, &[0x99]);
    // filter width: USB FIL1 default 3000 Hz = index 34
    assert_eq!(read(&mut r, 0x1A, &[0x03]), vec![0x03, 0x34]);
    ack(&mut r, 0x1A, &[0x03, 0x21]);
    assert_eq!(read(&mut r, 0x1A, &[0x03]), vec![0x03, 0x21]);
    nak(&mut r, 0x1A, &[0x03, 0x41]);
    nak(&mut r, 0x1A, &[0x03, 0x21, 0x00]);
    ack(&mut r, 0x06, &[0x05, 0x01]);
    nak(&mut r, 0x1A, &[0x03]); // FM is fixed
    // tones
    assert_eq!(read(&mut r, 0x1B, &[0x00]), vec![0x00, 0x00, 0x88, 0x05]);
    ack(&mut r, 0x1B, &[0x01, 0x01, 0x00, 0x00]);
    assert_eq!(read(&mut r, 0x1B, &[0x01]), vec![0x01, 0x01, 0x00, 0x00]);
    nak(&mut r, 0x1B, &[0x00, 0x00, 0x50, 0x00]);
    // RIT −123 Hz
    ack(&mut r, 0x21, &[0x00, 0x23, 0x01, 0x01]);
    assert_eq!(read(&mut r, 0x21, &[0x00]), vec![0x00, 0x23, 0x01, 0x01]);
    assert_eq!(r.snapshot().rit_hz, -123);
    ack(&mut r, 0x21, &[0x01, 0x01]);
    assert_eq!(read(&mut r, 0x21, &[0x01]), vec![0x01, 0x01]);
    nak(&mut r, 0x21, &[0x00, 0x23, 0x01, 0x02]);
    // tuner: tuning for two seconds, then on
    ack(&mut r, 0x1C, &[0x01, 0x02]);
    assert_eq!(read(&mut r, 0x1C, &[0x01]), vec![0x01, 0x02]);
    let rep = ask_at(&mut r, 3.5, 0x1C, &[0x01]);
    assert_eq!(rep[0].data, vec![0x01, 0x01]);
    ack(&mut r, 0x1C, &[0x03, 0x01]);
    assert_eq!(read(&mut r, 0x1C, &[0x03]), vec![0x03, 0x01]);
    let mut r = rig("ic705");
    nak(&mut r, 0x1C, &[0x01]); // no internal tuner
}

#[test]
fn stereo_audio_is_main_left_sub_right_and_mono_radios_duplicate() {
    let mut r = rig("ic7610");
    let (f, t0) = steady_beacon(r.band(), 14_000_000, 14_350_000, 0.4);
    // MAIN: USB 1 kHz below the beacon; SUB: an empty frequency
    ack(&mut r, 0x05, &fb(f as u64 - 1_000));
    ack(&mut r, 0x06, &[0x01, 0x02]);
    ack(&mut r, 0x25, &[&[0x01u8][..], &fb(8_500_000)].concat());
    // advance the audio clock to the steady part of the beacon
    let skip = (t0 * 48_000.0) as usize;
    let mut sink = vec![0i16; skip * 2];
    r.render_audio(&mut sink, 2, 48_000);
    let mut pcm = vec![0i16; 2 * 9_600];
    r.render_audio(&mut pcm, 2, 48_000);
    let left: Vec<f32> = pcm
        .iter()
        .step_by(2)
        .map(|s| f32::from(*s) / 32_768.0)
        .collect();
    let right: Vec<f32> = pcm
        .iter()
        .skip(1)
        .step_by(2)
        .map(|s| f32::from(*s) / 32_768.0)
        .collect();
    let l = goertzel(&left[1_000..], 1_000.0, 48_000);
    let rr = goertzel(&right[1_000..], 1_000.0, 48_000);
    assert!(l > 20.0 * rr, "beat tone on MAIN only: {l} vs {rr}");
    // PTT mutes RX audio
    ack(&mut r, 0x1C, &[0x00, 0x01]);
    r.render_audio(&mut pcm, 2, 48_000);
    assert!(pcm[400..].iter().all(|s| *s == 0));
    // single receiver: both channels equal
    let mut r = rig("ic705");
    let mut pcm = vec![0i16; 2 * 4_800];
    r.render_audio(&mut pcm, 2, 48_000);
    assert!(pcm.chunks(2).all(|c| c[0] == c[1]));
    assert!(pcm.iter().any(|s| *s != 0));
    // odd buffers
    let mut odd = vec![1i16; 7];
    r.render_audio(&mut odd, 2, 48_000);
    assert_eq!(odd[6], 0);
    r.render_audio(&mut odd, 0, 48_000);
    r.render_audio(&mut odd, 3, 0);
    assert!(odd.iter().all(|s| *s == 0));
}

#[test]
fn audio_is_deterministic_per_seed() {
    let mut a = rig("ic705");
    let mut b = rig("ic705");
    let mut c = SimRig::new(
        profile("ic705"),
        SimRigConfig {
            seed: 99,
            ..SimRigConfig::default()
        },
    );
    let (mut pa, mut pb, mut pc) = (vec![0i16; 1_920], vec![0i16; 1_920], vec![0i16; 1_920]);
    for _ in 0..3 {
        a.render_audio(&mut pa, 1, 48_000);
        b.render_audio(&mut pb, 1, 48_000);
        c.render_audio(&mut pc, 1, 48_000);
        assert_eq!(pa, pb);
    }
    assert_ne!(pa, pc);
}
