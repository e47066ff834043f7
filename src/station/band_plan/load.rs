//! Reading and checking the plan files of `assets/band-plans/`: every region file plus
//! `worldwide.toml` (what is the same everywhere: the FT8/FT4/WSPR dial frequencies and
//! the HF broadcasting bands). Checked on load: known layers and sources, `#RRGGBB`
//! colours, labels, segments inside their band, each band's segments in order, bands in
//! order, and no two segments of one layer overlapping. A bad file is an error naming
//! the file and the item, never a panic.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::model::{Color, Layer, RegionPlan, Segment};

/// The files embedded in the binary: (file name, text).
pub const EMBEDDED_REGIONS: &[(&str, &str)] = &[
    (
        "iaru-r1.toml",
        include_str!("../../../assets/band-plans/iaru-r1.toml"),
    ),
    (
        "iaru-r2.toml",
        include_str!("../../../assets/band-plans/iaru-r2.toml"),
    ),
    (
        "iaru-r3.toml",
        include_str!("../../../assets/band-plans/iaru-r3.toml"),
    ),
];

/// What every region shares.
pub const EMBEDDED_WORLDWIDE: (&str, &str) = (
    "worldwide.toml",
    include_str!("../../../assets/band-plans/worldwide.toml"),
);

/// The longest label, in characters.
const MAX_LABEL: usize = 48;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanFile {
    region: Option<RegionMeta>,
    #[serde(default)]
    sources: BTreeMap<String, String>,
    #[serde(default)]
    band: Vec<FileBand>,
    #[serde(default)]
    broadcast: Vec<FileBroadcast>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RegionMeta {
    name: String,
    label: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileBand {
    name: String,
    start: Option<u64>,
    end: Option<u64>,
    source: String,
    #[serde(default)]
    segments: Vec<FileSegment>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSegment {
    start: u64,
    /// None: a point (a dial frequency).
    end: Option<u64>,
    layer: String,
    label: String,
    color: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileBroadcast {
    name: String,
    start: u64,
    end: u64,
    source: String,
}

/// Loads every embedded region.
pub fn embedded() -> Result<Vec<RegionPlan>, String> {
    let (wname, wtext) = EMBEDDED_WORLDWIDE;
    EMBEDDED_REGIONS
        .iter()
        .map(|(name, text)| region(name, text, wname, wtext))
        .collect()
}

/// Loads region file `text` (named `file`) with the shared `worldwide` file.
pub fn region(
    file: &str,
    text: &str,
    worldwide_file: &str,
    worldwide: &str,
) -> Result<RegionPlan, String> {
    let parse = |name: &str, text: &str| -> Result<PlanFile, String> {
        toml::from_str(text).map_err(|e| format!("{name}: {e}"))
    };
    let own = parse(file, text)?;
    let shared = parse(worldwide_file, worldwide)?;
    let meta = own
        .region
        .as_ref()
        .ok_or_else(|| format!("{file}: a [region] table with name and label is required"))?;
    check_label(file, "region label", &meta.label)?;
    if meta.name.is_empty() || !meta.name.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(format!(
            "{file}: region name {:?}: letters and digits only",
            meta.name
        ));
    }
    let mut segments = Vec::new();
    let mut edges: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    let mut last_end = 0;
    for b in &own.band {
        let (Some(start), Some(end)) = (b.start, b.end) else {
            return Err(format!(
                "{file}: band {}: start and end are required",
                b.name
            ));
        };
        if start >= end || start < last_end {
            return Err(format!(
                "{file}: band {}: {start}..{end} is empty or not after the band before it",
                b.name
            ));
        }
        last_end = end;
        check_label(file, "band name", &b.name)?;
        let source = source_of(file, &own.sources, &b.source)?;
        edges.insert(&b.name, (start, end));
        segments.push(Segment {
            start,
            end,
            label: b.name.clone(),
            layer: Layer::Band,
            color: Layer::Band.color(),
            mode: Layer::Band.mode(),
            band: b.name.clone(),
            source: source.clone(),
        });
        band_segments(file, b, (start, end), &source, &mut segments)?;
    }
    for b in &shared.band {
        let Some(&band_edges) = edges.get(b.name.as_str()) else {
            return Err(format!(
                "{worldwide_file}: band {} is not in {file}",
                b.name
            ));
        };
        let source = source_of(worldwide_file, &shared.sources, &b.source)?;
        band_segments(worldwide_file, b, band_edges, &source, &mut segments)?;
    }
    for (f, sources, list) in [
        (file, &own.sources, &own.broadcast),
        (worldwide_file, &shared.sources, &shared.broadcast),
    ] {
        for b in list {
            if b.start >= b.end {
                return Err(format!(
                    "{f}: broadcast band {}: start must be below end",
                    b.name
                ));
            }
            check_label(f, "broadcast band name", &b.name)?;
            segments.push(Segment {
                start: b.start,
                end: b.end,
                label: b.name.clone(),
                layer: Layer::Broadcast,
                color: Layer::Broadcast.color(),
                mode: Layer::Broadcast.mode(),
                band: b.name.clone(),
                source: source_of(f, sources, &b.source)?,
            });
        }
    }
    let order = |l: Layer| Layer::ALL.iter().position(|x| *x == l).unwrap_or(0);
    segments.sort_by_key(|s| (order(s.layer), s.start, s.end));
    for w in segments.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let overlap = if a.start == a.end || b.start == b.end {
            a.start == b.start
        } else {
            b.start < a.end
        };
        if a.layer == b.layer && overlap {
            return Err(format!(
                "{file}: layer {}: {:?} ({}..{}) overlaps {:?} ({}..{})",
                a.layer.name(),
                a.label,
                a.start,
                a.end,
                b.label,
                b.start,
                b.end
            ));
        }
    }
    Ok(RegionPlan {
        name: meta.name.clone(),
        label: meta.label.clone(),
        sources: own
            .sources
            .iter()
            .chain(shared.sources.iter())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        segments,
    })
}

/// The segments of band `b` (edges `band`), checked.
fn band_segments(
    file: &str,
    b: &FileBand,
    (lo, hi): (u64, u64),
    source: &str,
    out: &mut Vec<Segment>,
) -> Result<(), String> {
    let mut last_start: BTreeMap<Layer, u64> = BTreeMap::new();
    for s in &b.segments {
        let at = |what: &str| format!("{file}: band {}: segment {:?}: {what}", b.name, s.label);
        let layer = Layer::from_name(&s.layer)
            .filter(|l| !matches!(l, Layer::Band | Layer::Broadcast))
            .ok_or_else(|| at(&format!("unknown layer {:?}", s.layer)))?;
        let end = match (s.end, layer) {
            (Some(e), _) => e,
            (None, Layer::Wsjt) => s.start,
            (None, _) => return Err(at("end is required (only wsjt segments are points)")),
        };
        if end < s.start || (end == s.start && layer != Layer::Wsjt) {
            return Err(at("start must be below end"));
        }
        if s.start < lo || end > hi {
            return Err(at(&format!(
                "{}..{end} lies outside the band {lo}..{hi}",
                s.start
            )));
        }
        if last_start.get(&layer).is_some_and(|&p| s.start < p) {
            return Err(at("segments of a layer must be listed by rising frequency"));
        }
        last_start.insert(layer, s.start);
        check_label(file, "label", &s.label)?;
        let color = match &s.color {
            Some(c) => {
                Color::parse(c).ok_or_else(|| at(&format!("colour {c:?} is not #RRGGBB")))?
            }
            None => layer.color(),
        };
        out.push(Segment {
            start: s.start,
            end,
            label: s.label.clone(),
            layer,
            color,
            mode: layer.mode(),
            band: b.name.clone(),
            source: source.to_string(),
        });
    }
    Ok(())
}

fn source_of(file: &str, sources: &BTreeMap<String, String>, key: &str) -> Result<String, String> {
    sources
        .get(key)
        .cloned()
        .ok_or_else(|| format!("{file}: source {key:?} is not in [sources]"))
}

fn check_label(file: &str, what: &str, s: &str) -> Result<(), String> {
    let n = s.chars().count();
    if n == 0 || n > MAX_LABEL || s.chars().any(char::is_control) {
        return Err(format!(
            "{file}: {what} {s:?}: 1 to {MAX_LABEL} characters, no control characters"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
