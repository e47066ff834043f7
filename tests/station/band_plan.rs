//! The band plans against the profiles: every region covers every amateur band a
//! profile knows.

use std::path::Path;

use rigweb::profile::ProfileRegistry;
use rigweb::station::band_plan::BandPlans;
use rigweb::station::band_plan::model::Layer;
use rigweb::station::ham_bands::looks_like_ham_band;

#[test]
fn every_region_covers_every_amateur_band_the_profiles_know() {
    // the files of profiles/ as they are now (also those not embedded yet)
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("profiles");
    let registry = ProfileRegistry::with_override_dir(&dir).expect("profiles load");
    let mut bands = Vec::new();
    for id in registry.ids() {
        let p = registry.get(&id).unwrap();
        for b in p.bands() {
            if looks_like_ham_band(&b.name) {
                bands.push((id.clone(), b.name.clone(), b.start_hz, b.end_hz));
            }
        }
    }
    for must in ["2200m", "630m", "160m", "60m", "6m", "2m", "70cm", "23cm"] {
        assert!(
            bands.iter().any(|(_, n, _, _)| n == must),
            "the profiles know {must}"
        );
    }
    let plans = BandPlans::new(None, None).unwrap();
    for region in plans.regions() {
        for (profile, name, start, end) in &bands {
            let covered = region.segments.iter().any(|s| {
                s.layer == Layer::Band && s.label == *name && s.start <= *end && s.end >= *start
            });
            assert!(
                covered,
                "{}: no band {name} overlapping {start}..{end} (from profile {profile})",
                region.name
            );
            let detailed = region
                .segments
                .iter()
                .any(|s| s.layer != Layer::Band && s.band == *name);
            assert!(detailed, "{}: band {name} has no segments", region.name);
        }
    }
}
