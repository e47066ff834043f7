//! Station data for the waterfall: DX-cluster spots ([`dx`]), the IARU band plans
//! ([`band_plan`]) and the EiBi broadcast schedule ([`eibi`]). Each runs on threads of
//! its own with bounded memory, and none touches the radio: a dead cluster or a slow
//! web site never slows the radio path.

pub mod band_plan;
pub mod dx;
pub mod eibi;
pub mod ham_bands;
pub mod khz;
pub mod rig_mode;

use std::path::PathBuf;
use std::sync::Arc;

use self::band_plan::BandPlans;
use self::dx::{DxConfig, DxService};
use self::eibi::{EibiConfig, EibiService};

/// Which services run, and with what. The default runs what needs neither the network
/// nor a disk: the band plans (region 1, nothing kept).
#[derive(Debug, Clone)]
pub struct StationConfig {
    /// DX-cluster and skimmer feeds (`--dx-cluster`, `--rbn`), if any.
    pub dx: Option<DxConfig>,
    /// The band plans (on unless switched off), with `--band-plan-region`.
    pub band_plan: Option<BandPlanConfig>,
    /// The EiBi schedule (`--eibi-url`), if on.
    pub eibi: Option<EibiConfig>,
}

impl Default for StationConfig {
    fn default() -> Self {
        StationConfig {
            dx: None,
            band_plan: Some(BandPlanConfig::default()),
            eibi: None,
        }
    }
}

/// The band plans' settings.
#[derive(Debug, Clone, Default)]
pub struct BandPlanConfig {
    /// `--band-plan-region`, if given.
    pub region: Option<String>,
    /// Where the chosen region is kept (`--data-dir`).
    pub data_dir: Option<PathBuf>,
}

/// The running services.
#[derive(Default)]
pub struct Station {
    /// DX spots.
    pub dx: Option<DxService>,
    /// Band plans.
    pub band_plans: Option<Arc<BandPlans>>,
    /// The broadcast schedule.
    pub eibi: Option<EibiService>,
}

impl Station {
    /// Starts what `cfg` asks for.
    pub fn start(cfg: &StationConfig) -> Result<Station, String> {
        let band_plans = cfg
            .band_plan
            .as_ref()
            .map(|b| BandPlans::new(b.region.as_deref(), b.data_dir.as_deref()).map(Arc::new))
            .transpose()?;
        if let Some(p) = &band_plans {
            log::info!("band plan: region {}", p.active_name());
        }
        let hint: dx::ModeHint = match &band_plans {
            Some(p) => {
                let p = p.clone();
                Arc::new(move |hz| p.suggest_mode(hz))
            }
            None => Arc::new(|_| None),
        };
        let dx = cfg
            .dx
            .clone()
            .map(|c| DxService::start(c, hint))
            .transpose()
            .map_err(|e| format!("starting the DX feeds: {e}"))?;
        let eibi = cfg
            .eibi
            .clone()
            .map(EibiService::start)
            .transpose()
            .map_err(|e| format!("starting the EiBi service: {e}"))?;
        Ok(Station {
            dx,
            band_plans,
            eibi,
        })
    }

    /// Stops every service.
    pub fn stop(&self) {
        if let Some(d) = &self.dx {
            d.stop();
        }
        if let Some(e) = &self.eibi {
            e.stop();
        }
    }
}
