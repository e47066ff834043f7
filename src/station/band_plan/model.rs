//! What a band plan is made of: layers (a closed vocabulary), segments, and a region's
//! plan with the documents its figures come from.

use serde_json::{Value, json};

/// A layer of the band plan: the kind of use a segment describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// The amateur allocation itself (a band's edges).
    Band,
    /// CW (and the narrow modes the plans put with it).
    Cw,
    /// Narrow-band digital modes.
    Digital,
    /// The FT8, FT4 and WSPR dial frequencies (points).
    Wsjt,
    /// SSB and the all-mode segments.
    Phone,
    /// Beacons.
    Beacon,
    /// Satellite segments.
    Satellite,
    /// Broadcasting bands (ITU Radio Regulations Article 5).
    Broadcast,
}

impl Layer {
    /// Every layer, drawing order (the allocation first, points last).
    pub const ALL: [Layer; 8] = [
        Layer::Band,
        Layer::Broadcast,
        Layer::Phone,
        Layer::Digital,
        Layer::Cw,
        Layer::Satellite,
        Layer::Beacon,
        Layer::Wsjt,
    ];

    /// The name in the API and the files.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Band => "band",
            Layer::Cw => "cw",
            Layer::Digital => "digital",
            Layer::Wsjt => "wsjt",
            Layer::Phone => "phone",
            Layer::Beacon => "beacon",
            Layer::Satellite => "satellite",
            Layer::Broadcast => "broadcast",
        }
    }

    /// The layer called `name`.
    pub fn from_name(name: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.name() == name)
    }

    /// What the UI calls it.
    pub fn label(self) -> &'static str {
        match self {
            Layer::Band => "Amateur bands",
            Layer::Cw => "CW",
            Layer::Digital => "Narrow digital",
            Layer::Wsjt => "FT8 / FT4 / WSPR",
            Layer::Phone => "SSB / all modes",
            Layer::Beacon => "Beacons",
            Layer::Satellite => "Satellites",
            Layer::Broadcast => "Broadcast bands",
        }
    }

    /// The colour of its segments unless a segment has its own.
    pub fn color(self) -> Color {
        Color(match self {
            Layer::Band => [0x64, 0x74, 0x8B],
            Layer::Cw => [0xF9, 0x73, 0x16],
            Layer::Digital => [0x22, 0xC5, 0x5E],
            Layer::Wsjt => [0xA3, 0xE6, 0x35],
            Layer::Phone => [0x3B, 0x82, 0xF6],
            Layer::Beacon => [0xFA, 0xCC, 0x15],
            Layer::Satellite => [0x06, 0xB6, 0xD4],
            Layer::Broadcast => [0xC0, 0x84, 0xFC],
        })
    }

    /// Shown unless the operator hides it.
    pub fn visible(self) -> bool {
        !matches!(self, Layer::Band)
    }

    /// The `mode` of its segments.
    pub fn mode(self) -> SegmentMode {
        match self {
            Layer::Band => SegmentMode::Mixed,
            Layer::Cw => SegmentMode::Cw,
            Layer::Digital | Layer::Wsjt => SegmentMode::Digital,
            Layer::Phone => SegmentMode::Phone,
            Layer::Beacon => SegmentMode::Beacon,
            Layer::Satellite => SegmentMode::Satellite,
            Layer::Broadcast => SegmentMode::Broadcast,
        }
    }

    /// The layer's record in `GET /api/v1/band-plan/layers`.
    pub fn to_json(self) -> Value {
        json!({
            "name": self.name(),
            "label": self.label(),
            "color": self.color().to_string(),
            "visible": self.visible(),
        })
    }
}

/// The use a segment is for (`mode` of a segment record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentMode {
    /// CW.
    Cw,
    /// Digital modes.
    Digital,
    /// Voice (SSB, all modes).
    Phone,
    /// Beacons.
    Beacon,
    /// Satellites.
    Satellite,
    /// Broadcasting.
    Broadcast,
    /// Anything (a whole band).
    Mixed,
}

impl SegmentMode {
    /// The name in the API.
    pub fn as_str(self) -> &'static str {
        match self {
            SegmentMode::Cw => "cw",
            SegmentMode::Digital => "digital",
            SegmentMode::Phone => "phone",
            SegmentMode::Beacon => "beacon",
            SegmentMode::Satellite => "satellite",
            SegmentMode::Broadcast => "broadcast",
            SegmentMode::Mixed => "mixed",
        }
    }
}

/// An RGB colour, `#RRGGBB` in files and the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Color(pub [u8; 3]);

impl Color {
    /// Parses `#RRGGBB` (either case).
    pub fn parse(s: &str) -> Option<Color> {
        let hex = s.strip_prefix('#')?;
        if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
        Some(Color([byte(0)?, byte(2)?, byte(4)?]))
    }
}

impl std::fmt::Display for Color {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [r, g, b] = self.0;
        write!(f, "#{r:02X}{g:02X}{b:02X}")
    }
}

/// One segment of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Lower edge, Hz.
    pub start: u64,
    /// Upper edge, Hz (equal to `start` for a point such as a dial frequency).
    pub end: u64,
    /// What the plan calls it.
    pub label: String,
    /// Its layer.
    pub layer: Layer,
    /// Its colour.
    pub color: Color,
    /// Its use.
    pub mode: SegmentMode,
    /// The amateur or broadcast band it belongs to.
    pub band: String,
    /// The document its figures come from.
    pub source: String,
}

impl Segment {
    /// The record of `GET /api/v1/band-plan/segments`, clipped to `start..=end`.
    pub fn to_json_clipped(&self, start: u64, end: u64) -> Value {
        json!({
            "start": self.start.max(start),
            "end": self.end.min(end),
            "label": self.label,
            "layer": self.layer.name(),
            "color": self.color.to_string(),
            "mode": self.mode.as_str(),
            "band": self.band,
            "source": self.source,
        })
    }
}

/// A region's plan.
#[derive(Debug, Clone)]
pub struct RegionPlan {
    /// Its name in the API (`r1`).
    pub name: String,
    /// What the UI calls it.
    pub label: String,
    /// The documents, by key.
    pub sources: Vec<(String, String)>,
    /// The segments, by layer (in [`Layer::ALL`] order) then by start.
    pub segments: Vec<Segment>,
}

impl RegionPlan {
    /// The region's record in `regions` of `GET /api/v1/band-plan/config`.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "label": self.label,
            "sources": self.sources.iter().map(|(_, s)| s).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_parse_and_print_and_layers_are_named_both_ways() {
        assert_eq!(Color::parse("#ff6a00"), Some(Color([0xFF, 0x6A, 0x00])));
        assert_eq!(Color([0xFF, 0x6A, 0]).to_string(), "#FF6A00");
        for bad in ["ff6a00", "#ff6a0", "#ff6a0g", "#ff6a000", "", "#", "#ÿÿÿ"] {
            assert_eq!(Color::parse(bad), None, "{bad:?}");
        }
        for l in Layer::ALL {
            assert_eq!(Layer::from_name(l.name()), Some(l));
        }
        assert_eq!(Layer::from_name("CW"), None, "names are exact");
    }
}
