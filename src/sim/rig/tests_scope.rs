//! Scope control and sweep tests: frame layout (spec §5.2), rate, dual scope, center and
//! fixed edges, out of range, hold, determinism, activity on every band.

use std::time::Duration;

use crate::sim::audio_synth::mode;
use crate::sim::band::Band;
use crate::sim::frontend::Frontend;
use crate::sim::rig::{SimRig, SimRigConfig};
use crate::sim::spectrum::{Spectrum, SweepRequest};
use crate::sim::testutil::{ack, fb, nak, profile, read, rig};
use crate::wire::civ::cmd::{self, meter, power, scope, tx};
use crate::wire::civ::{BROADCAST, Frame, PREAMBLE, TERMINATOR, bcd_to_freq};

fn secs(t: f64) -> Duration {
    Duration::from_secs_f64(t)
}

fn output_on(r: &mut SimRig, from: u8, t: f64) {
    let f = Frame::new(r.civ_addr(), from, cmd::SCOPE, &[scope::OUTPUT, 0x01]);
    let rep = r.handle(&f, secs(t));
    assert!(rep.len() == 1 && rep[0].is_ack(), "{rep:?}");
}

/// Sweeps emitted in `t0..=t1` when polling exactly at `next_due`.
fn sweeps_between(r: &mut SimRig, t0: f64, t1: f64) -> Vec<Frame> {
    let mut out = r.poll(secs(t0));
    while let Some(d) = r.next_due() {
        if d > secs(t1) {
            break;
        }
        out.extend(r.poll(d));
    }
    out
}

fn pixels(f: &Frame) -> &[u8] {
    f.data.get(16..).unwrap_or(&[])
}

#[test]
fn sweep_frame_layout_matches_the_lan_single_frame_format() {
    for (id, len, amp, center) in [
        ("ic7610", 711, 200, 14_200_000u64),
        ("ic705", 497, 160, 14_200_000),
        ("ic9700", 497, 160, 145_500_000),
    ] {
        let mut r = rig(id);
        assert_eq!(
            read(&mut r, cmd::SCOPE, &[scope::DISPLAY]),
            vec![scope::DISPLAY, 0x01],
            "{id}: display on"
        );
        assert_eq!(
            read(&mut r, cmd::SCOPE, &[scope::OUTPUT]),
            vec![scope::OUTPUT, 0x00],
            "{id}: output off"
        );
        assert!(
            r.poll(secs(1.0)).is_empty(),
            "{id}: nothing before 27 11 01"
        );
        assert_eq!(r.next_due(), None);
        output_on(&mut r, 0xE1, 1.0);
        assert_eq!(r.next_due(), Some(secs(1.0)));
        let s = r.poll(secs(1.0));
        assert_eq!(s.len(), 1, "{id}");
        let b = s[0].emit();
        assert_eq!(b.len(), len, "{id}");
        assert_eq!(
            &b[..6],
            &[
                PREAMBLE,
                PREAMBLE,
                0xE1,
                r.civ_addr(),
                cmd::SCOPE,
                scope::WAVE
            ],
            "{id}"
        );
        assert_eq!(
            &b[6..10],
            &[0x00, 0x01, 0x01, 0x00],
            "{id}: rx, seq, seqmax, center"
        );
        assert_eq!(
            bcd_to_freq(&b[10..15]).unwrap(),
            center,
            "{id}: f1 = centre"
        );
        assert_eq!(
            &b[15..20],
            &[0x00, 0x50, 0x02, 0x00, 0x00],
            "{id}: f2 = ±25 kHz"
        );
        assert_eq!(b[20], 0x00, "{id}: in range");
        assert_eq!(b[len - 1], TERMINATOR);
        let px = &b[21..len - 1];
        assert!(px.iter().all(|&p| p <= amp), "{id}");
        assert!(px.iter().any(|&p| p > 0), "{id}");
        assert!(Frame::parse(&b).is_ok());
    }
    let mut r = rig("ic7100");
    nak(&mut r, cmd::SCOPE, &[scope::DISPLAY]);
    nak(&mut r, cmd::SCOPE, &[scope::OUTPUT, 0x01]);
}

#[test]
fn sweep_rate_and_speed() {
    let mut r = rig("ic705");
    output_on(&mut r, 0xE0, 1.0);
    let n = sweeps_between(&mut r, 1.0, 2.0).len();
    assert!((30..=31).contains(&n), "fast: {n}/s");
    ack(&mut r, cmd::SCOPE, &[scope::SPEED, 0x00, 0x01]);
    assert_eq!(
        read(&mut r, cmd::SCOPE, &[scope::SPEED, 0x00]),
        vec![scope::SPEED, 0x00, 0x01]
    );
    let n = sweeps_between(&mut r, 3.0, 4.0).len();
    assert!((14..=16).contains(&n), "mid: {n}/s");
    let cfg = SimRigConfig {
        sweep_rate_hz: 10.0,
        ..SimRigConfig::default()
    };
    let mut r = SimRig::new(profile("ic705"), cfg);
    output_on(&mut r, 0xE0, 0.0);
    let n = sweeps_between(&mut r, 0.0, 0.999).len();
    assert_eq!(n, 10);
    // a late poll does not burst
    assert_eq!(r.poll(secs(30.0)).len(), 1);
    // display off stops the flow
    ack(&mut r, cmd::SCOPE, &[scope::DISPLAY, 0x00]);
    assert!(r.poll(secs(31.0)).is_empty());
    assert_eq!(r.next_due(), None);
}

#[test]
fn dual_scope_sends_both_receivers() {
    for id in ["ic7610", "ic9700"] {
        let mut r = rig(id);
        let sub = r.snapshot().receivers[1].vfo[0].freq_hz;
        ack(&mut r, cmd::SCOPE, &[scope::DUAL, 0x01]);
        output_on(&mut r, 0xE0, 1.0);
        let s = sweeps_between(&mut r, 1.0, 1.5);
        let main_n = s.iter().filter(|f| f.data[1] == 0).count();
        let sub_n = s.iter().filter(|f| f.data[1] == 1).count();
        assert!(main_n >= 15 && sub_n == main_n, "{id}: {main_n} / {sub_n}");
        let f = s.iter().find(|f| f.data[1] == 1).unwrap();
        assert_eq!(
            bcd_to_freq(&f.data[5..10]).unwrap(),
            sub,
            "{id}: SUB centre"
        );
        // single scope showing SUB
        ack(&mut r, cmd::SCOPE, &[scope::DUAL, 0x00]);
        ack(&mut r, cmd::SCOPE, &[scope::RECEIVER, 0x01]);
        assert_eq!(
            read(&mut r, cmd::SCOPE, &[scope::RECEIVER]),
            vec![scope::RECEIVER, 0x01]
        );
        let s = sweeps_between(&mut r, 2.0, 2.5);
        assert!(!s.is_empty() && s.iter().all(|f| f.data[1] == 1), "{id}");
    }
    let mut r = rig("ic705");
    nak(&mut r, cmd::SCOPE, &[scope::DUAL, 0x01]);
    nak(&mut r, cmd::SCOPE, &[scope::RECEIVER, 0x01]);
    nak(&mut r, cmd::SCOPE, &[scope::MODE, 0x01, 0x00]);
}

#[test]
fn fixed_edges_span_presets_and_out_of_range() {
    let mut r = rig("ic7610");
    output_on(&mut r, 0xE0, 0.0);
    assert_eq!(
        read(&mut r, cmd::SCOPE, &[scope::MODE]),
        vec![scope::MODE, 0x00, 0x00],
        "read without rx"
    );
    ack(&mut r, cmd::SCOPE, &[scope::MODE, 0x00, 0x01]);
    assert_eq!(
        read(&mut r, cmd::SCOPE, &[scope::MODE, 0x00]),
        vec![scope::MODE, 0x00, 0x01]
    );
    let s = r.poll(secs(1.0));
    assert_eq!(s[0].data[4], 0x01, "fixed mode byte");
    // 20 m is the 6th band of the IC-7610: edge 1 = the whole band
    assert_eq!(bcd_to_freq(&s[0].data[5..10]).unwrap(), 14_000_000);
    assert_eq!(bcd_to_freq(&s[0].data[10..15]).unwrap(), 14_350_000);
    let mut set = vec![scope::FIXED_EDGES, 0x06, 0x02];
    set.extend_from_slice(&fb(14_100_000));
    set.extend_from_slice(&fb(14_200_000));
    ack(&mut r, cmd::SCOPE, &set);
    assert_eq!(
        read(&mut r, cmd::SCOPE, &[scope::FIXED_EDGES, 0x06, 0x02]),
        set
    );
    ack(&mut r, cmd::SCOPE, &[scope::EDGE, 0x00, 0x02]);
    let s = r.poll(secs(2.0));
    assert_eq!(bcd_to_freq(&s[0].data[5..10]).unwrap(), 14_100_000);
    assert_eq!(bcd_to_freq(&s[0].data[10..15]).unwrap(), 14_200_000);
    nak(&mut r, cmd::SCOPE, &[scope::EDGE, 0x00, 0x05]);
    let mut bad = vec![scope::FIXED_EDGES, 0x06, 0x02];
    bad.extend_from_slice(&fb(14_200_000));
    bad.extend_from_slice(&fb(14_100_000));
    nak(&mut r, cmd::SCOPE, &bad);
    nak(&mut r, cmd::SCOPE, &[scope::FIXED_EDGES, 0x42, 0x01]);
    // span presets
    assert_eq!(
        read(&mut r, cmd::SCOPE, &[scope::SPAN]),
        [&[0x15u8, 0x00][..], &fb(25_000)].concat()
    );
    ack(
        &mut r,
        cmd::SCOPE,
        &[&[0x15u8, 0x01][..], &fb(2_500)].concat(),
    );
    assert_eq!(
        read(&mut r, cmd::SCOPE, &[scope::SPAN, 0x01]),
        [&[0x15u8, 0x01][..], &fb(2_500)].concat()
    );
    nak(
        &mut r,
        cmd::SCOPE,
        &[&[0x15u8, 0x00][..], &fb(30_000)].concat(),
    );
    nak(&mut r, cmd::SCOPE, &[scope::SPAN, 0x00, 0x00]);
    // out of range: ±500 kHz at the bottom of 2 m on the IC-9700
    let mut r = rig("ic9700");
    output_on(&mut r, 0xE0, 0.0);
    ack(&mut r, cmd::SET_FREQ, &fb(144_100_000));
    ack(
        &mut r,
        cmd::SCOPE,
        &[&[0x15u8, 0x00][..], &fb(500_000)].concat(),
    );
    let s = r.poll(secs(1.0));
    assert_eq!(s[0].data[15], 0x01, "oor");
    assert_eq!(s[0].emit().len(), 22, "no pixels");
    ack(&mut r, cmd::SET_FREQ, &fb(145_000_000));
    let s = r.poll(secs(2.0));
    assert_eq!(s[0].data[15], 0x00);
    assert_eq!(s[0].emit().len(), 497);
}

#[test]
fn reference_level_hold_and_stored_settings() {
    let mut r = rig("ic705");
    ack(
        &mut r,
        cmd::SCOPE,
        &[scope::REF_LEVEL, 0x00, 0x05, 0x00, 0x01],
    );
    assert_eq!(
        read(&mut r, cmd::SCOPE, &[scope::REF_LEVEL, 0x00]),
        vec![scope::REF_LEVEL, 0x00, 0x05, 0x00, 0x01]
    );
    assert_eq!(r.snapshot().scope.rx[0].ref_tenths_db, -50);
    ack(
        &mut r,
        cmd::SCOPE,
        &[scope::REF_LEVEL, 0x00, 0x10, 0x00, 0x00],
    );
    nak(
        &mut r,
        cmd::SCOPE,
        &[scope::REF_LEVEL, 0x00, 0x10, 0x50, 0x00],
    ); // +10.5
    nak(
        &mut r,
        cmd::SCOPE,
        &[scope::REF_LEVEL, 0x00, 0x01, 0x30, 0x00],
    ); // not a 0.5 step
    for sub in [scope::CENTER_TYPE, scope::VBW, scope::RBW] {
        ack(&mut r, cmd::SCOPE, &[sub, 0x00, 0x01]);
        assert_eq!(read(&mut r, cmd::SCOPE, &[sub]), vec![sub, 0x00, 0x01]);
    }
    ack(&mut r, cmd::SCOPE, &[scope::DURING_TX, 0x01]);
    assert_eq!(
        read(&mut r, cmd::SCOPE, &[scope::DURING_TX]),
        vec![scope::DURING_TX, 0x01]
    );
    // hold freezes the picture
    output_on(&mut r, 0xE0, 0.0);
    let a = r.poll(secs(0.0));
    let b = r.poll(secs(0.5));
    assert_ne!(pixels(&a[0]), pixels(&b[0]), "the band moves");
    ack(&mut r, cmd::SCOPE, &[scope::HOLD, 0x00, 0x01]);
    let c = r.poll(secs(1.0));
    let d = r.poll(secs(2.0));
    assert_eq!(pixels(&c[0]), pixels(&b[0]));
    assert_eq!(pixels(&d[0]), pixels(&b[0]));
    // standby stops sweeps (its last word is the `18 00` broadcast), power on brings
    // them back
    ack(&mut r, cmd::POWER, &[power::OFF]);
    let last = Frame::new(BROADCAST, r.civ_addr(), cmd::POWER, &[power::OFF]);
    assert_eq!(r.poll(secs(3.0)), vec![last]);
    assert_eq!(r.next_due(), None);
    ack(&mut r, cmd::POWER, &[power::ON]);
    assert_eq!(r.poll(secs(4.0)).len(), 1);
}

#[test]
fn sweeps_are_deterministic_per_seed() {
    let run = |seed: u64| -> Vec<Frame> {
        let cfg = SimRigConfig {
            seed,
            ..SimRigConfig::default()
        };
        let mut r = SimRig::new(profile("ic7610"), cfg);
        output_on(&mut r, 0xE0, 0.0);
        sweeps_between(&mut r, 0.0, 0.5)
    };
    let a = run(1);
    assert_eq!(a, run(1));
    assert_ne!(a, run(2));
    assert!(a.len() >= 15);
}

/// Peak above the median noise of a sweep.
fn activity(px: &[u8]) -> i32 {
    let mut v = px.to_vec();
    v.sort_unstable();
    let median = v.get(v.len() / 2).copied().unwrap_or(0);
    i32::from(v.last().copied().unwrap_or(0)) - i32::from(median)
}

#[test]
fn every_band_default_view_shows_activity() {
    for id in ["ic7610", "ic705", "ic9700"] {
        let mut r = rig(id);
        output_on(&mut r, 0xE0, 0.0);
        let bands: Vec<(String, u64)> = r
            .profile()
            .bands()
            .map(|b| (b.name.clone(), b.default_hz))
            .collect();
        let mut t = 1.0;
        for (name, hz) in bands {
            ack(&mut r, cmd::SET_FREQ, &fb(hz));
            let mut best = 0;
            for _ in 0..8 {
                t += 2.5;
                let s = r.poll(secs(t));
                let sweep = s.iter().find(|f| f.data[1] == 0).expect("a sweep");
                assert_eq!(sweep.data[15], 0x00, "{id} {name}: in range");
                best = best.max(activity(pixels(sweep)));
            }
            assert!(best >= 20, "{id} {name}: activity {best}");
        }
    }
    // the scope-less IC-7100 still has a living band for its audio-FFT scope
    let p = profile("ic7100");
    let hot: Vec<u64> = p.bands().map(|b| b.default_hz).collect();
    let band = Band::with_hotspots(SimRigConfig::default().seed, &hot);
    let mut sp = Spectrum::new();
    for hz in hot {
        let best = (0..8)
            .map(|k| {
                let mut px = Vec::new();
                let req = SweepRequest {
                    lo_hz: hz - 25_000,
                    hi_hz: hz + 25_000,
                    pixels: 475,
                    amp_max: 160,
                    t: 1.0 + 2.5 * f64::from(k),
                    frontend: Frontend::OFF,
                    ref_db: 0.0,
                    texture_seed: k as u64,
                };
                sp.render(&band, &req, &[], &mut px);
                activity(&px)
            })
            .max()
            .unwrap_or(0);
        assert!(best >= 20, "ic7100 {hz}: activity {best}");
    }
}

#[test]
fn extreme_times_and_rates_do_not_panic() {
    use crate::sim::rig::PanelAction;
    for rate in [1e-300, f64::NAN, f64::INFINITY, -5.0, 1e9] {
        let cfg = SimRigConfig {
            sweep_rate_hz: rate,
            ..SimRigConfig::default()
        };
        let mut r = SimRig::new(profile("ic7610"), cfg);
        output_on(&mut r, 0xE0, 0.0);
        assert_eq!(r.poll(secs(0.0)).len(), 1, "rate {rate}");
        assert!(r.next_due().is_some());
        r.panel(PanelAction::SetSweepRate(rate), Duration::MAX);
        // the clock saturates there: at most one sweep per poll, no panic
        assert!(r.poll(Duration::MAX).len() <= 1);
        assert!(r.poll(Duration::MAX).len() <= 1);
        let f = Frame::new(0x98, 0xE0, cmd::TX, &[tx::TUNER, 0x02]);
        assert_eq!(r.handle(&f, Duration::MAX).len(), 1);
        let f = Frame::new(0x98, 0xE0, cmd::METER, &[meter::S_METER]);
        assert_eq!(r.handle(&f, Duration::MAX).len(), 1);
        // CW keyed at the end of time saturates instead of overflowing
        for f in [
            Frame::new(0x98, 0xE0, cmd::SET_MODE, &[mode::CW, 0x01]),
            Frame::new(0x98, 0xE0, cmd::SEND_CW, b"PARIS PARIS"),
            Frame::new(0x98, 0xE0, cmd::SEND_CW, b"PARIS"),
        ] {
            assert_eq!(r.handle(&f, Duration::MAX).len(), 1);
        }
        let mut pcm = vec![0i16; 960];
        r.render_audio(&mut pcm, 1, 48_000);
        let _ = r.poll(Duration::MAX);
    }
}
