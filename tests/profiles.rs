//! The embedded profiles load, validate and carry the corrected facts of the spec.

use rigweb::profile::{Profile, ProfileRegistry, ScopeSourceKind, VfoScheme};
use rigweb::wire::civ::Mode;
use rigweb::wire::lan::codec::LanCodec;
use rigweb::wire::meter::MeterKind;

#[test]
fn embedded_profiles_load() {
    let reg = ProfileRegistry::embedded();
    assert_eq!(reg.ids(), vec!["ic705", "ic7100", "ic7610", "ic9700"]);
}

#[test]
fn ic7610_facts() {
    let p = ProfileRegistry::embedded().get("ic7610").unwrap();
    assert_eq!(p.radio.civ_addr, 0x98);
    assert_eq!(p.vfo.scheme, VfoScheme::MainSub);
    assert_eq!(p.scope.amp_max, 200);
    assert_eq!(p.scope.pixels, 689);
    assert_eq!(
        p.band_by_bsr(0x10).unwrap().name,
        "6m",
        "6 m is BCD 0x10, not 0x0A"
    );
    assert!(p.band_by_bsr(0x0A).is_none());
    assert!(p.uses_cmd29(0x11, None));
    assert!(p.uses_cmd29(0x16, Some(0x02)));
    assert!(
        !p.uses_cmd29(0x14, Some(0x0A)),
        "RF power is transceiver-global"
    );
    assert_eq!(p.attenuator.values.len(), 16);
    assert!(
        p.band_for_freq(5_357_000).unwrap().bsr_code.is_none(),
        "60 m has no BSR"
    );
}

#[test]
fn ic705_and_ic9700_facts() {
    let reg = ProfileRegistry::embedded();
    let p705 = reg.get("ic705").unwrap();
    assert_eq!(p705.band_by_bsr(0x13).unwrap().name, "2m");
    assert_eq!(p705.band_by_bsr(0x14).unwrap().name, "70cm");
    assert_eq!(p705.vfo.equalize, vec![0xA0]);
    let p9700 = reg.get("ic9700").unwrap();
    let names: Vec<_> = p9700.bands().map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        vec!["2m", "70cm", "23cm"],
        "VHF/UHF bands, not the HF copy"
    );
    assert_eq!(p9700.band_by_bsr(0x03).unwrap().name, "23cm");
    assert!(p9700.cmd29.routes.is_empty());
    assert_eq!(p9700.attenuator.values, vec![0, 10]);
}

#[test]
fn a_lan_model_without_hardware_scope_exists() {
    let reg = ProfileRegistry::embedded();
    let p = reg.get("ic7100").unwrap();
    assert!(p.radio.lan);
    assert_eq!(p.scope.source, ScopeSourceKind::AudioFft);
    assert_eq!(reg.find("IC-7100", None).unwrap().id(), "ic7100");
    assert_eq!(reg.find("unknown", Some(0xA2)).unwrap().id(), "ic9700");
}

#[test]
fn invalid_profiles_are_rejected_with_the_field() {
    let base = include_str!("../profiles/ic705.toml");
    let bad_mode = base.replace("\"DV\"]", "\"XYZ\"]");
    let err = Profile::from_toml("bad.toml", &bad_mode).unwrap_err();
    assert!(err.to_string().contains("XYZ"), "{err}");
    let bad_bsr = base.replace("bsr_code = 0x13", "bsr_code = 0x1A");
    let err = Profile::from_toml("bad.toml", &bad_bsr).unwrap_err();
    assert!(err.to_string().contains("not BCD"), "{err}");
    let stereo_tx = base.replace("tx_codec = \"pcm16_mono\"", "tx_codec = \"pcm16_stereo\"");
    assert!(Profile::from_toml("bad.toml", &stereo_tx).is_err());
    let unknown_field = format!("{base}\n[extra]\nx = 1\n");
    assert!(Profile::from_toml("bad.toml", &unknown_field).is_err());
    // a feature name nobody knows is a load error, not a silently missing command
    let typo = base.replace("\"attenuator\"", "\"attenuater\"");
    assert_ne!(typo, base);
    let err = Profile::from_toml("bad.toml", &typo).unwrap_err();
    assert!(err.to_string().contains("attenuater"), "{err}");
}

#[test]
fn a_typo_in_a_meter_codec_or_mode_fails_at_load_and_names_the_known_words() {
    let base = include_str!("../profiles/ic705.toml");
    for (from, to, says) in [
        (
            "\"swr\"",
            "\"swrr\"",
            "unknown meter kind \"swrr\"; known: smeter, smeter_sub",
        ),
        (
            "tx_codec = \"pcm16_mono\"",
            "tx_codec = \"pcm16_mon\"",
            "unknown lan codec \"pcm16_mon\"; known: ulaw_mono",
        ),
        (
            "rx_codecs = [\"pcm16_mono\"",
            "rx_codecs = [\"PCM16_mono\"",
            "unknown lan codec \"PCM16_mono\"",
        ),
        (
            "\"CW-R\", ",
            "\"CWR\", ",
            "unknown mode \"CWR\"; known: LSB, USB",
        ),
    ] {
        let bad = base.replacen(from, to, 1);
        assert_ne!(bad, base, "{from} is in the profile");
        let err = Profile::from_toml("bad.toml", &bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains(says), "{err}");
        assert!(err.starts_with("profile bad.toml:"), "{err}");
    }
    // the words typed in the profile are what the program uses
    let p = Profile::from_toml("ic705.toml", base).unwrap();
    assert_eq!(p.audio.tx_codec, LanCodec::Pcm16Mono);
    assert!(p.has_meter(MeterKind::Swr) && !p.has_meter(MeterKind::SmeterSub));
    assert!(p.has_mode(Mode::CwR));
}

#[test]
fn override_directory_replaces_by_id() {
    let dir = std::env::temp_dir().join(format!("rigweb-profiles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = include_str!("../profiles/ic705.toml").replace("max_watts = 10", "max_watts = 5");
    std::fs::write(dir.join("my705.toml"), text).unwrap();
    let reg = ProfileRegistry::with_override_dir(&dir).unwrap();
    assert_eq!(reg.get("ic705").unwrap().power.max_watts, 5);
    std::fs::write(dir.join("broken.toml"), "[radio]\nid = 1\n").unwrap();
    let err = ProfileRegistry::with_override_dir(&dir).unwrap_err();
    assert!(err.to_string().contains("broken.toml"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
