//! Checks of a parsed profile: every fact the rest of the program relies on.

use super::{Feature, Profile, ScopeSourceKind};
use crate::wire::civ;
use crate::wire::lan::codec;

impl Profile {
    pub(super) fn validate(&self) -> Result<(), String> {
        let r = &self.radio;
        if r.id.is_empty()
            || !r
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!(
                "radio.id {:?} must be non-empty ASCII letters, digits, - or _",
                r.id
            ));
        }
        if !(1..=2).contains(&r.receivers) {
            return Err(format!(
                "radio.receivers is {}, allowed 1 or 2",
                r.receivers
            ));
        }
        if r.civ_addr == 0 || r.civ_addr >= 0xE0 {
            return Err(format!(
                "radio.civ_addr 0x{:02X} is not a radio address",
                r.civ_addr
            ));
        }
        if self.modes.list.is_empty() {
            return Err("modes.list is empty".into());
        }
        if self.filters.list.is_empty() || self.filters.list.len() > 3 {
            return Err("filters.list must name 1 to 3 filters".into());
        }
        for (i, f) in self.filters.list.iter().enumerate() {
            if *f != format!("FIL{}", i + 1) {
                return Err(format!(
                    "filters.list[{i}] is {f:?}, expected \"FIL{}\"",
                    i + 1
                ));
            }
        }
        for (mode, widths) in &self.filters.widths {
            if !self.modes.list.contains(mode) {
                return Err(format!(
                    "filters.widths.{mode} names a mode not in modes.list"
                ));
            }
            if widths.len() != self.filters.list.len() {
                return Err(format!(
                    "filters.widths.{mode} must have one width per filter"
                ));
            }
        }
        for v in self.attenuator.values.iter().chain(&self.preamp.values) {
            if *v > 99 {
                return Err(format!(
                    "attenuator/preamp value {v} does not fit a BCD byte"
                ));
            }
        }
        if !self.attenuator.values.contains(&0) || !self.preamp.values.contains(&0) {
            return Err("attenuator.values and preamp.values must include 0 (off)".into());
        }
        if self.power.min_watts > self.power.max_watts {
            return Err("power.min_watts is above power.max_watts".into());
        }
        if self.scope.source == ScopeSourceKind::Hardware
            && (self.scope.pixels == 0 || self.scope.amp_max == 0)
        {
            return Err("a hardware scope needs scope.pixels and scope.amp_max".into());
        }
        if self.audio.rx_codecs.is_empty() {
            return Err("audio.rx_codecs is empty".into());
        }
        if codec::channels(self.tx_codec_byte()) != Some(1) {
            return Err("audio.tx_codec must be mono".into());
        }
        if let Some(m) = &self.mod_input {
            if m.menus.is_empty() || m.menus.len() > usize::from(self.modes.data_modes) + 1 {
                return Err(format!(
                    "mod_input.menus must name 1 to {} items (DATA OFF and each DATA mode)",
                    usize::from(self.modes.data_modes) + 1
                ));
            }
            for item in &m.menus {
                if item.len() != 2 || item.iter().any(|b| civ::from_bcd_byte(*b).is_err()) {
                    return Err(format!(
                        "mod_input.menus item {item:02X?} must be two BCD bytes [hi, lo]"
                    ));
                }
            }
            if m.lan > 99 {
                return Err(format!("mod_input.lan {} does not fit a BCD byte", m.lan));
            }
        }
        match (&self.memory, self.has_feature(Feature::Memory)) {
            (Some(m), true) if m.first > m.last || m.last > 9999 => {
                return Err(format!(
                    "memory channels {}..{} must be ascending and at most 9999",
                    m.first, m.last
                ));
            }
            (Some(_), true) | (None, false) => {}
            (None, true) => return Err("the memory feature needs a [memory] section".into()),
            (Some(_), false) => return Err("[memory] needs the memory feature".into()),
        }
        if self.freq_ranges.is_empty() {
            return Err("freq_ranges is empty".into());
        }
        let mut codes = Vec::new();
        for fr in &self.freq_ranges {
            if fr.start_hz >= fr.end_hz || fr.end_hz > civ::MAX_FREQ_HZ {
                return Err(format!("freq range {:?} has bad edges", fr.label));
            }
            for b in &fr.bands {
                if b.start_hz >= b.end_hz || !(b.start_hz..=b.end_hz).contains(&b.default_hz) {
                    return Err(format!("band {:?} has bad edges or default_hz", b.name));
                }
                if !self.in_range(b.default_hz) {
                    return Err(format!(
                        "band {:?} default_hz is outside every range",
                        b.name
                    ));
                }
                if let Some(code) = b.bsr_code {
                    if civ::from_bcd_byte(code).is_err() {
                        return Err(format!(
                            "band {:?} bsr_code 0x{code:02X} is not BCD",
                            b.name
                        ));
                    }
                    if codes.contains(&code) {
                        return Err(format!("bsr_code 0x{code:02X} is used twice"));
                    }
                    codes.push(code);
                }
            }
        }
        Ok(())
    }
}
