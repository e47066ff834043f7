//! The registry of profiles: the embedded ones plus an override directory.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use super::{EMBEDDED, Profile, ProfileError};

/// All known profiles by id.
#[derive(Debug, Clone)]
pub struct ProfileRegistry {
    profiles: BTreeMap<String, Arc<Profile>>,
}

impl ProfileRegistry {
    /// The profiles embedded in the binary.
    pub fn embedded() -> ProfileRegistry {
        let mut profiles = BTreeMap::new();
        for (name, text) in EMBEDDED {
            // The embedded files are checked by the test suite; a failure here is a build bug.
            let p = Profile::from_toml(name, text).unwrap_or_else(|e| panic!("{e}"));
            profiles.insert(p.radio.id.clone(), Arc::new(p));
        }
        ProfileRegistry { profiles }
    }

    /// The embedded profiles plus (overriding by id) every `*.toml` in `dir`.
    pub fn with_override_dir(dir: &Path) -> Result<ProfileRegistry, ProfileError> {
        let mut reg = ProfileRegistry::embedded();
        let entries = std::fs::read_dir(dir).map_err(|e| ProfileError {
            source: dir.display().to_string(),
            message: format!("cannot read directory: {e}"),
        })?;
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(|e| ProfileError {
                source: path.display().to_string(),
                message: format!("cannot read: {e}"),
            })?;
            let p = Profile::from_toml(&path.display().to_string(), &text)?;
            log::info!("profile {} loaded from {}", p.radio.id, path.display());
            reg.profiles.insert(p.radio.id.clone(), Arc::new(p));
        }
        Ok(reg)
    }

    /// The profile with `id`.
    pub fn get(&self, id: &str) -> Option<Arc<Profile>> {
        self.profiles.get(&id.to_ascii_lowercase()).cloned()
    }

    /// The profile whose model name (e.g. "IC-7610") or CI-V address matches.
    pub fn find(&self, model: &str, civ_addr: Option<u8>) -> Option<Arc<Profile>> {
        self.profiles
            .values()
            .find(|p| p.radio.model.eq_ignore_ascii_case(model.trim()))
            .or_else(|| {
                civ_addr.and_then(|a| self.profiles.values().find(|p| p.radio.civ_addr == a))
            })
            .cloned()
    }

    /// Every profile id.
    pub fn ids(&self) -> Vec<String> {
        self.profiles.keys().cloned().collect()
    }
}
