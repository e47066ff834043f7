//! The embedded plans load; every rule of the loader refuses what breaks it, naming the
//! file and the item.

use super::*;

const WORLD: &str = r#"
[sources]
w = "worldwide test source"

[[band]]
name = "20m"
source = "w"
segments = [ { start = 14_074_000, layer = "wsjt", label = "FT8" } ]

[[broadcast]]
name = "31m"
start = 9_400_000
end = 9_900_000
source = "w"
"#;

const GOOD: &str = r##"
[region]
name = "r9"
label = "Test region"

[sources]
t = "test document"

[[band]]
name = "40m"
start = 7_000_000
end = 7_200_000
source = "t"
segments = [
  { start = 7_000_000, end = 7_040_000, layer = "cw", label = "CW" },
  { start = 7_040_000, end = 7_200_000, layer = "phone", label = "All modes", color = "#123abc" },
]

[[band]]
name = "20m"
start = 14_000_000
end = 14_350_000
source = "t"
segments = [
  { start = 14_000_000, end = 14_070_000, layer = "cw", label = "CW" },
]
"##;

fn load(region_text: &str) -> Result<RegionPlan, String> {
    region("test.toml", region_text, "world.toml", WORLD)
}

#[test]
fn the_embedded_regions_load_with_their_sources_and_every_layer_is_used() {
    let plans = embedded().expect("embedded band plans are valid");
    let names: Vec<&str> = plans.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["r1", "r2", "r3"]);
    for p in &plans {
        for layer in Layer::ALL {
            assert!(
                p.segments.iter().any(|s| s.layer == layer),
                "{}: no {} segment",
                p.name,
                layer.name()
            );
        }
        for s in &p.segments {
            assert!(!s.source.is_empty(), "{}: {s:?}", p.name);
        }
        assert!(
            p.sources.iter().any(|(_, s)| s.contains("IARU")),
            "{}",
            p.name
        );
    }
    let r1 = &plans[0];
    assert!(
        r1.sources
            .iter()
            .any(|(_, s)| s.contains("16 October 2020"))
    );
}

#[test]
fn a_good_file_loads_merged_with_the_worldwide_one() {
    let p = load(GOOD).unwrap();
    assert_eq!((p.name.as_str(), p.label.as_str()), ("r9", "Test region"));
    let ft8 = p.segments.iter().find(|s| s.layer == Layer::Wsjt).unwrap();
    assert_eq!(
        (ft8.start, ft8.end, ft8.band.as_str()),
        (14_074_000, 14_074_000, "20m")
    );
    assert_eq!(ft8.source, "worldwide test source");
    let phone = p.segments.iter().find(|s| s.layer == Layer::Phone).unwrap();
    assert_eq!(phone.color.to_string(), "#123ABC");
    let bands: Vec<&str> = p
        .segments
        .iter()
        .filter(|s| s.layer == Layer::Band)
        .map(|s| s.label.as_str())
        .collect();
    assert_eq!(bands, ["40m", "20m"]);
    assert!(
        p.segments
            .iter()
            .any(|s| s.layer == Layer::Broadcast && s.label == "31m")
    );
}

/// `GOOD` with `from` replaced by `to`; the load must fail with all of `words`.
fn refused(from: &str, to: &str, words: &[&str]) {
    let text = GOOD.replacen(from, to, 1);
    assert_ne!(text, GOOD, "the replacement {from:?} applies");
    let err = load(&text).expect_err(to);
    for w in words {
        assert!(err.contains(w), "{err:?} lacks {w:?}");
    }
    assert!(
        err.starts_with("test.toml") || err.starts_with("world.toml"),
        "{err}"
    );
}

#[test]
fn overlaps_order_edges_layers_colours_labels_and_sources_are_checked() {
    refused(
        r#"{ start = 7_000_000, end = 7_040_000, layer = "cw", label = "CW" },"#,
        r#"{ start = 7_000_000, end = 7_050_000, layer = "phone", label = "CW" },"#,
        &["overlaps", "phone"],
    );
    refused(
        r#"{ start = 7_000_000, end = 7_040_000, layer = "cw", label = "CW" },"#,
        r#"{ start = 7_100_000, end = 7_140_000, layer = "phone", label = "Late" },
           { start = 7_000_000, end = 7_040_000, layer = "phone", label = "CW" },"#,
        &["rising frequency"],
    );
    refused(
        "end = 7_040_000, layer",
        "end = 7_300_000, layer",
        &["outside the band"],
    );
    refused(
        "layer = \"cw\"",
        "layer = \"morse\"",
        &["unknown layer", "morse"],
    );
    refused("layer = \"cw\"", "layer = \"band\"", &["unknown layer"]);
    refused("#123abc", "#12345", &["#RRGGBB"]);
    refused("label = \"CW\"", "label = \"\"", &["label"]);
    refused("label = \"CW\"", "label = \"a\\u0007b\"", &["control"]);
    refused(
        "label = \"CW\"",
        &format!("label = \"{}\"", "x".repeat(49)),
        &["1 to 48"],
    );
    refused("source = \"t\"", "source = \"nope\"", &["source \"nope\""]);
    refused("end = 7_040_000, layer", "layer", &["end is required"]);
    refused(
        "start = 7_000_000, end = 7_040_000",
        "start = 7_040_000, end = 7_040_000",
        &["below end"],
    );
    refused(
        "name = \"20m\"\nstart = 14_000_000",
        "name = \"20m\"\nstart = 7_100_000",
        &["not after"],
    );
    refused(
        "name = \"20m\"",
        "name = \"17m\"",
        &["20m", "not in test.toml"],
    );
    refused(
        "label = \"Test region\"",
        "label = \"Test region\"\nextra = 1",
        &["unknown field"],
    );
    refused(
        "[region]\nname = \"r9\"\nlabel = \"Test region\"",
        "",
        &["[region]"],
    );
    refused("name = \"r9\"", "name = \"r 9\"", &["letters and digits"]);
    refused("[[band]]", "[[band", &["test.toml"]);
}

#[test]
fn broadcast_bands_are_checked_too() {
    let text = format!(
        "{GOOD}\n[[broadcast]]\nname = \"41m\"\nstart = 7_450_000\nend = 7_200_000\nsource = \"t\"\n"
    );
    assert!(load(&text).unwrap_err().contains("41m"));
    let text = format!(
        "{GOOD}\n[[broadcast]]\nname = \"31m bis\"\nstart = 9_800_000\nend = 9_950_000\nsource = \"t\"\n"
    );
    assert!(load(&text).unwrap_err().contains("overlaps"));
}
