//! RX audio: channels, determinism, and how the receiver controls shape it (AF gain,
//! squelch, NB / NR, auto notch, filter width, AF mute).

use crate::sim::audio_synth::mode;
use crate::sim::rig::{SimRig, SimRigConfig};
use crate::sim::testutil::{ack, fb, goertzel, profile, rig, steady_beacon};
use crate::wire::civ::cmd::{self, ext, function, level, sel, tx};

/// Renders `seconds` of mono 48 kHz audio and returns it as floats.
fn listen(r: &mut SimRig, seconds: f64) -> Vec<f32> {
    let mut pcm = vec![0i16; (seconds * 48_000.0) as usize];
    r.render_audio(&mut pcm, 1, 48_000);
    pcm.iter().map(|s| f32::from(*s) / 32_768.0).collect()
}

/// RMS of a block, skipping the first 50 ms (ramps).
fn rms(x: &[f32]) -> f32 {
    let x = &x[x.len().min(2_400)..];
    (x.iter().map(|v| v * v).sum::<f32>() / x.len().max(1) as f32).sqrt()
}

/// A radio tuned (USB) 1 kHz below a beacon that stays up for a while, with the audio
/// clock moved to where the beacon is steady.
fn on_a_beacon() -> SimRig {
    let mut r = rig("ic7610");
    let (f, t0) = steady_beacon(r.band(), 14_000_000, 14_350_000, 3.0);
    ack(&mut r, cmd::SET_FREQ, &fb(f as u64 - 1_000));
    ack(&mut r, cmd::SET_MODE, &[mode::USB, 0x01]);
    listen(&mut r, t0);
    r
}

/// A radio on an empty frequency (receiver noise only).
fn on_noise() -> SimRig {
    let mut r = rig("ic7610");
    ack(&mut r, cmd::SET_FREQ, &fb(8_500_000));
    ack(&mut r, cmd::SET_MODE, &[mode::USB, 0x01]);
    listen(&mut r, 0.2);
    r
}

#[test]
fn stereo_audio_is_main_left_sub_right_and_mono_radios_duplicate() {
    let mut r = rig("ic7610");
    let (f, t0) = steady_beacon(r.band(), 14_000_000, 14_350_000, 0.4);
    // MAIN: USB 1 kHz below the beacon; SUB: an empty frequency
    ack(&mut r, cmd::SET_FREQ, &fb(f as u64 - 1_000));
    ack(&mut r, cmd::SET_MODE, &[mode::USB, 0x02]);
    ack(
        &mut r,
        cmd::SEL_FREQ,
        &[&[sel::UNSELECTED][..], &fb(8_500_000)].concat(),
    );
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
    ack(&mut r, cmd::TX, &[tx::PTT, 0x01]);
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

#[test]
fn af_gain_scales_the_audio_and_af_mute_silences_it() {
    let mut r = on_a_beacon();
    let loud = rms(&listen(&mut r, 0.3));
    ack(&mut r, cmd::LEVEL, &[level::AF, 0x00, 0x64]);
    let soft = rms(&listen(&mut r, 0.3));
    assert!(
        loud > 2.0 * soft && soft > 0.0,
        "AF 128 {loud} vs AF 64 {soft}"
    );
    ack(&mut r, cmd::LEVEL, &[level::AF, 0x00, 0x00]);
    assert_eq!(rms(&listen(&mut r, 0.3)), 0.0, "AF 0");
    ack(&mut r, cmd::LEVEL, &[level::AF, 0x01, 0x28]);
    ack(&mut r, cmd::EXT, &[ext::AF_MUTE, 0x01]);
    assert_eq!(rms(&listen(&mut r, 0.3)), 0.0, "AF mute");
    ack(&mut r, cmd::EXT, &[ext::AF_MUTE, 0x00]);
    assert!(rms(&listen(&mut r, 0.3)) > 0.0);
}

#[test]
fn squelch_closes_on_noise_and_opens_for_a_signal() {
    let mut r = on_noise();
    assert!(rms(&listen(&mut r, 0.3)) > 0.0, "open squelch: noise");
    ack(&mut r, cmd::LEVEL, &[level::SQUELCH, 0x02, 0x55]);
    assert_eq!(rms(&listen(&mut r, 0.3)), 0.0, "closed on noise");
    let mut r = on_a_beacon();
    ack(&mut r, cmd::LEVEL, &[level::SQUELCH, 0x00, 0x10]);
    assert!(
        rms(&listen(&mut r, 0.3)) > 0.0,
        "a signal opens a low squelch"
    );
}

#[test]
fn nb_and_nr_lower_the_noise() {
    let mut r = on_noise();
    let plain = rms(&listen(&mut r, 0.5));
    ack(&mut r, cmd::FUNCTION, &[function::NB, 0x01]);
    let nb = rms(&listen(&mut r, 0.5));
    ack(&mut r, cmd::FUNCTION, &[function::NB, 0x00]);
    ack(&mut r, cmd::FUNCTION, &[function::NR, 0x01]);
    ack(&mut r, cmd::LEVEL, &[level::NR, 0x02, 0x55]);
    let nr = rms(&listen(&mut r, 0.5));
    assert!(plain > nb && nb > nr, "noise {plain}, NB {nb}, NR {nr}");
    assert!(plain > 4.0 * nr, "NR at full level: about 15 dB less noise");
}

/// Full noise reduction, so that a tone is measured well above the noise.
fn quiet(r: &mut SimRig) {
    ack(r, cmd::FUNCTION, &[function::NR, 0x01]);
    ack(r, cmd::LEVEL, &[level::NR, 0x02, 0x55]);
}

#[test]
fn the_auto_notch_removes_a_carrier_on_ssb() {
    let mut r = on_a_beacon();
    quiet(&mut r);
    let tone = goertzel(&listen(&mut r, 0.3)[2_400..], 1_000.0, 48_000);
    ack(&mut r, cmd::FUNCTION, &[function::AUTO_NOTCH, 0x01]);
    let notched = goertzel(&listen(&mut r, 0.3)[2_400..], 1_000.0, 48_000);
    assert!(
        tone > 30.0 * notched,
        "beat tone {tone} vs notched {notched}"
    );
}

#[test]
fn a_narrow_filter_cuts_what_is_outside_it() {
    let mut r = on_a_beacon();
    quiet(&mut r);
    let wide = goertzel(&listen(&mut r, 0.3)[2_400..], 1_000.0, 48_000);
    // index 9 = 500 Hz: USB passes 200..700 Hz, the beat at 1 kHz is 300 Hz outside
    ack(&mut r, cmd::EXT, &[ext::FILTER_WIDTH, 0x09]);
    let narrow = goertzel(&listen(&mut r, 0.3)[2_400..], 1_000.0, 48_000);
    assert!(wide > 30.0 * narrow, "3 kHz {wide} vs 500 Hz {narrow}");
}

/// The highest pixel of rigweb's audio-FFT scope (0..160) over `seconds` of the radio's
/// audio from audio time `t0`.
fn fft_peak(r: &mut SimRig, t0: f64, seconds: f64) -> u8 {
    use crate::dsp::audio_fft::{AudioFft, to_pixel};
    let skip = (t0 * 48_000.0) as usize;
    let mut sink = vec![0i16; skip];
    r.render_audio(&mut sink, 1, 48_000);
    let mut pcm = vec![0i16; (seconds * 48_000.0) as usize];
    r.render_audio(&mut pcm, 1, 48_000);
    let mut fft = AudioFft::new();
    let mut sweeps = Vec::new();
    fft.push(&pcm, &mut sweeps);
    sweeps
        .iter()
        .skip(3)
        .flat_map(|s| s[4..130].iter().copied())
        .map(to_pixel)
        .max()
        .unwrap_or(0)
}

/// A radio at the default AF tuned (USB) so that the strongest `kind` signal on 20 m at
/// `t` seconds sounds at about 1 kHz.
fn on_the_strongest(kind: crate::sim::band::SignalKind, t: f64) -> (SimRig, f32) {
    let mut r = rig("ic7610");
    let s = r
        .band()
        .signals_near(14_000_000, 14_350_000, t)
        .filter(|s| s.kind == kind)
        .max_by(|a, b| a.level_dbm.total_cmp(&b.level_dbm))
        .expect("a signal");
    let dial = s.freq_hz as u64
        - if kind == crate::sim::band::SignalKind::Usb {
            300
        } else {
            1_000
        };
    ack(&mut r, cmd::SET_FREQ, &fb(dial));
    ack(&mut r, cmd::SET_MODE, &[mode::USB, 0x01]);
    (r, s.level_dbm)
}

#[test]
fn strong_signals_peak_on_the_audio_fft_scale_as_on_a_real_band() {
    // issue 15.9: an audio-FFT presence check saw peaks of 59-79 on the 0..160 scale in
    // the simulator's RX audio where a real band gives > 80: the audio was quieter than
    // a real radio's LAN audio, an empty channel's hiss as loud as a strong signal, and
    // SSB voices had no harmonics (flat noise, low per-bin peaks)
    use crate::sim::band::SignalKind;
    let (mut r, cw_dbm) = on_the_strongest(SignalKind::Cw, 10.0);
    let cw = fft_peak(&mut r, 9.5, 1.5);
    let (mut r, ssb_dbm) = on_the_strongest(SignalKind::Usb, 10.0);
    let ssb = fft_peak(&mut r, 9.5, 1.5);
    let mut r = on_noise();
    let noise = fft_peak(&mut r, 0.3, 1.5);
    eprintln!(
        "audio-FFT peaks: CW {cw_dbm:.0} dBm {cw}, SSB {ssb_dbm:.0} dBm {ssb}, empty channel {noise}"
    );
    assert!(cw >= 140, "a strong carrier: {cw}");
    assert!(ssb >= 125, "a strong SSB voice: {ssb}");
    assert!(
        noise + 8 <= ssb.min(cw),
        "an empty channel's hiss ({noise}) well below strong signals ({ssb}, {cw})"
    );
}
