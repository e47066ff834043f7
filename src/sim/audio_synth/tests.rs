use super::*;
use crate::sim::testutil::{goertzel, steady_beacon};

fn view(mode_code: u8, dial: f64, width: f32) -> RxView {
    RxView {
        passband: Passband::new(mode_code, dial, width, 600.0),
        frontend: Frontend::OFF,
        af: 128,
        rf_gain: 255,
        squelch: 0,
        noise_cut_db: 0.0,
        auto_notch: false,
        muted: false,
    }
}

fn render(band: &Band, v: &RxView, t0: f64, n: usize) -> Vec<f32> {
    let mut a = RxAudio::new(1);
    let mut out = vec![0.0f32; n];
    a.render(band, v, t0, 48_000, &mut out);
    out
}

#[test]
fn cw_beacon_is_heard_at_its_beat_frequency_usb_and_lsb() {
    let band = Band::new(8);
    let (f, t0) = steady_beacon(&band, 14_000_000, 14_350_000, 0.3);
    // USB, dial 1 kHz below: a 1 kHz tone
    let usb = render(&band, &view(mode::USB, f - 1_000.0, 2_400.0), t0, 12_000);
    let on = goertzel(&usb[2_000..], 1_000.0, 48_000);
    let off = goertzel(&usb[2_000..], 1_700.0, 48_000);
    assert!(on > 50.0 * off, "USB tone {on} vs {off}");
    // LSB, dial 800 Hz above: an 800 Hz tone (mirrored)
    let lsb = render(&band, &view(mode::LSB, f + 800.0, 2_400.0), t0, 12_000);
    let on = goertzel(&lsb[2_000..], 800.0, 48_000);
    let off = goertzel(&lsb[2_000..], 1_300.0, 48_000);
    assert!(on > 50.0 * off, "LSB tone {on} vs {off}");
    // CW on the carrier: the 600 Hz pitch
    let cw = render(&band, &view(mode::CW, f, 500.0), t0, 12_000);
    let on = goertzel(&cw[2_000..], 600.0, 48_000);
    let off = goertzel(&cw[2_000..], 900.0, 48_000);
    assert!(on > 50.0 * off, "CW tone {on} vs {off}");
}

#[test]
fn same_seed_same_audio_and_blocks_join() {
    let band = Band::new(2);
    let v = view(mode::USB, 14_200_000.0, 2_400.0);
    let whole = render(&band, &v, 5.0, 4_800);
    let mut a = RxAudio::new(1);
    let mut first = vec![0.0f32; 2_400];
    let mut second = vec![0.0f32; 2_400];
    a.render(&band, &v, 5.0, 48_000, &mut first);
    a.render(&band, &v, 5.0 + 0.05, 48_000, &mut second);
    first.extend_from_slice(&second);
    assert_eq!(whole, first, "two blocks equal one block");
    assert_eq!(whole, render(&band, &v, 5.0, 4_800));
    assert!(whole.iter().any(|s| *s != 0.0));
    assert!(whole.iter().all(|s| s.is_finite()));
}

#[test]
fn muted_af_zero_and_squelch_are_silent() {
    let band = Band::new(3);
    let mut v = view(mode::USB, 14_200_000.0, 2_400.0);
    v.muted = true;
    let out = render(&band, &v, 1.0, 4_800);
    assert!(out[100..].iter().all(|s| *s == 0.0));
    let mut v = view(mode::USB, 14_200_000.0, 2_400.0);
    v.af = 0;
    assert!(render(&band, &v, 1.0, 4_800).iter().all(|s| *s == 0.0));
    // FM on an empty channel with the squelch up: closed
    let mut v = view(mode::FM, 2_100_000_000.0, 15_000.0);
    v.squelch = 120;
    let out = render(&band, &v, 1.0, 4_800);
    assert!(out[100..].iter().all(|s| *s == 0.0));
    // ... and open noise without squelch
    v.squelch = 0;
    let out = render(&band, &v, 1.0, 4_800);
    let rms = (out.iter().map(|s| s * s).sum::<f32>() / out.len() as f32).sqrt();
    assert!(rms > 0.02, "FM noise rms {rms}");
}

#[test]
fn odd_inputs_do_not_panic() {
    let band = Band::new(4);
    let mut a = RxAudio::new(9);
    let v = view(mode::AM, 9_500_000.0, 6_000.0);
    let mut out = vec![1.0f32; 37];
    a.render(&band, &v, 0.0, 0, &mut out);
    assert!(out.iter().all(|s| *s == 0.0));
    let mut out = vec![0.0f32; 100];
    a.render(&band, &v, 0.0, 8_000, &mut out);
    a.render(&band, &v, 0.0, 1, &mut out);
    a.render(
        &band,
        &view(mode::WFM, 100_000_000.0, 200_000.0),
        3.0,
        8_000,
        &mut out,
    );
    a.render(&band, &view(0x99, 1.0, 0.0), 3.0, 44_100, &mut out);
    assert!(out.iter().all(|s| s.is_finite()));
}

#[test]
fn am_broadcast_in_am_mode_is_voice_like() {
    let band = Band::new(5);
    // find a strong broadcast carrier
    let s = band
        .signals_near(9_400_000, 9_900_000, 2.0)
        .filter(|s| s.kind == SignalKind::Am)
        .max_by(|a, b| a.level_dbm.total_cmp(&b.level_dbm))
        .expect("a broadcast station");
    let out = render(&band, &view(mode::AM, s.freq_hz, 6_000.0), 2.0, 24_000);
    let rms = (out.iter().map(|s| s * s).sum::<f32>() / out.len() as f32).sqrt();
    assert!(rms > 0.01, "rms {rms}");
}
