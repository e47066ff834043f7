//! Choosing and keeping the region, queries, and the modes a plan implies.

use super::*;

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "rigweb-bandplan-{tag}-{}-{:x}",
        std::process::id(),
        u64::from_le_bytes(crate::util::random::bytes::<8>())
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn the_flag_and_its_aliases_choose_the_region_and_unknown_ones_are_refused() {
    assert_eq!(
        BandPlans::new(None, None).unwrap().active_name(),
        DEFAULT_REGION
    );
    for alias in [
        "r2", "R2", "2", "iaru-r2", "IARU-R2", "region 2", "Region-2",
    ] {
        let p = BandPlans::new(Some(alias), None).unwrap();
        assert_eq!(p.active_name(), "r2", "{alias}");
    }
    for bad in ["r4", "US", "", "r", "iaru", "12345"] {
        let e = BandPlans::new(Some(bad), None).err().unwrap();
        assert!(
            e.contains("--band-plan-region") && e.contains("r1, r2, r3"),
            "{e}"
        );
    }
}

#[test]
fn a_region_chosen_through_the_api_survives_a_restart_until_the_flag_changes() {
    let dir = temp_dir("persist");
    let p = BandPlans::new(Some("r1"), Some(&dir)).unwrap();
    assert_eq!(p.set_region("iaru-r3"), Ok("r3".to_string()));
    assert_eq!(p.active_name(), "r3");
    drop(p);
    // same flag: the choice wins
    assert_eq!(
        BandPlans::new(Some("r1"), Some(&dir))
            .unwrap()
            .active_name(),
        "r3"
    );
    // the operator changed the flag since: the flag wins
    assert_eq!(
        BandPlans::new(Some("r2"), Some(&dir))
            .unwrap()
            .active_name(),
        "r2"
    );
    assert!(matches!(
        BandPlans::new(None, Some(&dir)).unwrap().set_region("r9"),
        Err(RegionError::Unknown(m)) if m.contains("known: r1, r2, r3")
    ));
    // a garbled file is ignored
    std::fs::write(dir.join(STATE_FILE), b"{not json").unwrap();
    assert_eq!(
        BandPlans::new(Some("r1"), Some(&dir))
            .unwrap()
            .active_name(),
        "r1"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_choice_that_cannot_be_saved_is_an_error_and_changes_nothing() {
    let dir = temp_dir("readonly");
    std::fs::create_dir_all(&dir).unwrap();
    // a directory where the file should be: the rename fails whoever runs the test
    std::fs::create_dir_all(dir.join(STATE_FILE)).unwrap();
    std::fs::write(dir.join(STATE_FILE).join("x"), b"x").unwrap();
    let p = BandPlans::new(Some("r1"), Some(&dir)).unwrap();
    assert!(matches!(p.set_region("r2"), Err(RegionError::NotSaved(m)) if m.contains(STATE_FILE)));
    assert_eq!(p.active_name(), "r1");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn segments_are_those_of_the_active_region_and_layers_that_touch_the_range() {
    let p = BandPlans::new(Some("r1"), None).unwrap();
    let all: Vec<Layer> = Layer::ALL.to_vec();
    let segs = p.segments(7_000_000, 7_300_000, &all);
    assert!(
        segs.windows(2).all(|w| w[0].start <= w[1].start),
        "by start"
    );
    assert!(
        segs.iter()
            .any(|s| s.layer == Layer::Band && s.end == 7_200_000)
    );
    assert!(
        segs.iter()
            .any(|s| s.layer == Layer::Broadcast && s.label == "41m")
    );
    let cw = p.segments(7_000_000, 7_300_000, &[Layer::Cw]);
    assert!(!cw.is_empty() && cw.iter().all(|s| s.layer == Layer::Cw));
    p.set_region("r2").unwrap();
    let segs = p.segments(7_250_000, 7_250_000, &[Layer::Band]);
    assert_eq!(segs.len(), 1, "40 m reaches 7300 kHz in region 2");
    assert!(p.segments(100_000_000, 101_000_000, &all).is_empty());
    let v = segs[0].to_json_clipped(7_250_000, 7_260_000);
    assert_eq!(
        (v["start"].as_u64(), v["end"].as_u64()),
        (Some(7_250_000), Some(7_260_000))
    );
    for k in ["start", "end", "label", "layer", "color", "mode"] {
        assert!(v.get(k).is_some(), "{k} in {v}");
    }
}

#[test]
fn the_plan_implies_a_mode_where_a_spot_comment_names_none() {
    let p = BandPlans::new(Some("r1"), None).unwrap();
    assert_eq!(p.suggest_mode(14_025_000), Some(Mode::Cw));
    assert_eq!(p.suggest_mode(14_075_500), Some(Mode::Usb), "FT8 passband");
    assert_eq!(p.suggest_mode(7_150_000), Some(Mode::Lsb));
    assert_eq!(p.suggest_mode(14_200_000), Some(Mode::Usb));
    assert_eq!(p.suggest_mode(9_500_000), Some(Mode::Am));
    assert_eq!(p.suggest_mode(100_000_000), None);
    let v = p.config_json();
    assert_eq!(v["region"], "r1");
    assert_eq!(v["regions"].as_array().unwrap().len(), 3);
    assert_eq!(
        p.layers_json()["layers"].as_array().unwrap().len(),
        Layer::ALL.len()
    );
}
