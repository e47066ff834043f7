//! Band plans: the IARU regions' plans embedded in the binary (`assets/band-plans/`),
//! checked at load, one of them active. The active region is chosen with
//! `--band-plan-region` or `POST /api/v1/band-plan/config`; a choice made through the
//! API is kept in `--data-dir` and wins at the next start, until the flag's value
//! changes (then the operator's new flag wins).

mod load;
pub mod model;

use std::path::{Path, PathBuf};

use parking_lot::RwLock;
use serde_json::{Value, json};

pub use self::load::{EMBEDDED_REGIONS, EMBEDDED_WORLDWIDE, embedded, region};
use self::model::{Layer, RegionPlan, Segment};
use super::rig_mode::voice_sideband;
use crate::wire::civ::Mode;

/// The region used when neither the flag nor a saved choice names one.
pub const DEFAULT_REGION: &str = "r1";
/// The file in `--data-dir` that keeps the chosen region.
pub const STATE_FILE: &str = "band-plan.json";

/// Why a region could not be chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegionError {
    /// No such region; the message lists the known ones.
    Unknown(String),
    /// The choice could not be saved.
    NotSaved(String),
}

/// See the module docs.
pub struct BandPlans {
    regions: Vec<RegionPlan>,
    active: RwLock<usize>,
    state_file: Option<PathBuf>,
    flag: Option<String>,
}

impl BandPlans {
    /// The embedded plans with region `flag` (or the saved choice, see the module docs);
    /// `data_dir` keeps choices made through the API.
    pub fn new(flag: Option<&str>, data_dir: Option<&Path>) -> Result<BandPlans, String> {
        BandPlans::with_regions(embedded()?, flag, data_dir)
    }

    /// As [`BandPlans::new`] with other plans (tests).
    pub fn with_regions(
        regions: Vec<RegionPlan>,
        flag: Option<&str>,
        data_dir: Option<&Path>,
    ) -> Result<BandPlans, String> {
        let mut plans = BandPlans {
            regions,
            active: RwLock::new(0),
            state_file: data_dir.map(|d| d.join(STATE_FILE)),
            flag: None,
        };
        let flag_index = match flag {
            Some(f) => Some(
                plans
                    .index_of(f)
                    .ok_or_else(|| format!("--band-plan-region {f:?}: {}", plans.known()))?,
            ),
            None => None,
        };
        plans.flag = flag_index.map(|i| plans.regions[i].name.clone());
        let saved = plans.saved_choice();
        let chosen = match (saved, flag_index) {
            (Some(s), _) => Some(s),
            (None, Some(f)) => Some(f),
            (None, None) => plans.index_of(DEFAULT_REGION),
        };
        *plans.active.write() = chosen.unwrap_or(0);
        Ok(plans)
    }

    /// The saved choice, if it was made under the flag given now.
    fn saved_choice(&self) -> Option<usize> {
        let text = std::fs::read_to_string(self.state_file.as_ref()?).ok()?;
        let v: Value = serde_json::from_str(&text).ok()?;
        let made_under = v.get("flag").and_then(Value::as_str);
        if made_under != self.flag.as_deref() {
            return None;
        }
        self.index_of(v.get("region")?.as_str()?)
    }

    /// The index of the region `name` names: `r1`, `R1`, `1`, `iaru-r1`, `IARU-R1`,
    /// `region1`.
    fn index_of(&self, name: &str) -> Option<usize> {
        let n = canonical_region(name)?;
        self.regions.iter().position(|r| r.name == n)
    }

    fn known(&self) -> String {
        let names: Vec<&str> = self.regions.iter().map(|r| r.name.as_str()).collect();
        format!("unknown region; known: {}", names.join(", "))
    }

    /// The active region's plan.
    pub fn active_name(&self) -> String {
        self.regions[*self.active.read()].name.clone()
    }

    /// Makes `name` the active region and keeps the choice in `--data-dir`.
    pub fn set_region(&self, name: &str) -> Result<String, RegionError> {
        let i = self
            .index_of(name)
            .ok_or_else(|| RegionError::Unknown(self.known()))?;
        let region = self.regions[i].name.clone();
        if let Some(path) = &self.state_file {
            let body = json!({"region": region, "flag": self.flag}).to_string();
            write_atomically(path, body.as_bytes())
                .map_err(|e| RegionError::NotSaved(format!("{}: {e}", path.display())))?;
        }
        *self.active.write() = i;
        Ok(region)
    }

    /// `GET /api/v1/band-plan/config`.
    pub fn config_json(&self) -> Value {
        json!({
            "region": self.active_name(),
            "regions": self.regions.iter().map(RegionPlan::to_json).collect::<Vec<_>>(),
        })
    }

    /// `GET /api/v1/band-plan/layers`.
    pub fn layers_json(&self) -> Value {
        json!({"layers": Layer::ALL.iter().map(|l| l.to_json()).collect::<Vec<_>>()})
    }

    /// The active region's segments of `layers` that touch `start..=end`, by start.
    pub fn segments(&self, start: u64, end: u64, layers: &[Layer]) -> Vec<Segment> {
        let plan = &self.regions[*self.active.read()];
        let mut out: Vec<Segment> = plan
            .segments
            .iter()
            .filter(|s| layers.contains(&s.layer) && s.end >= start && s.start <= end)
            .cloned()
            .collect();
        out.sort_by_key(|s| (s.start, s.end));
        out
    }

    /// The mode the active plan implies at `hz` (for a spot whose comment names none):
    /// the dial frequencies and digital segments USB, CW segments CW, voice segments
    /// the conventional sideband, broadcast AM.
    pub fn suggest_mode(&self, hz: u64) -> Option<Mode> {
        let plan = &self.regions[*self.active.read()];
        // a dial frequency covers the 3 kHz of audio above it
        let at = |l: Layer| {
            plan.segments.iter().any(|s| {
                let end = if s.start == s.end {
                    s.start + 3000
                } else {
                    s.end
                };
                s.layer == l && s.start <= hz && hz <= end
            })
        };
        if at(Layer::Wsjt) || at(Layer::Digital) {
            Some(Mode::Usb)
        } else if at(Layer::Cw) || at(Layer::Beacon) {
            Some(Mode::Cw)
        } else if at(Layer::Phone) {
            Some(voice_sideband(hz))
        } else if at(Layer::Broadcast) {
            Some(Mode::Am)
        } else {
            None
        }
    }

    /// Every region's plan.
    pub fn regions(&self) -> &[RegionPlan] {
        &self.regions
    }
}

/// `r1`, `R1`, `1`, `iaru-r1`, `IARU-R1`, `region 1` -> `r1`.
fn canonical_region(name: &str) -> Option<String> {
    let lower = name.trim().to_ascii_lowercase();
    let core = lower
        .replace("iaru", "")
        .replace("region", "")
        .replace(['-', '_', ' '], "");
    let digits = core.strip_prefix('r').unwrap_or(&core);
    (!digits.is_empty() && digits.len() <= 2 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| format!("r{digits}"))
}

/// Writes `bytes` to `path` through a temporary file and a rename (never half a file).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests;
