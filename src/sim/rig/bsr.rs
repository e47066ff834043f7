//! Band stacking registers (`1A 01`): three registers per band with a BSR code, register
//! 01 the newest. When the MAIN receiver leaves a band its last frequency, mode and
//! filter are pushed onto that band's stack, like a real radio does.
//!
//! Read `1A 01 <band> <reg>` → `1A 01 <band> <reg> <f×5> <mode> <filter>
//! <data<<4|sqltype> <tone×3> <tsql×3>` (wfview layout); write the same with either the
//! first 9 data bytes or all 16.

use super::SimRig;
use super::codec::{Reply, bcd, freq, freq_bytes, to_bcd};
use super::state::{BsrEntry, VfoState};
use crate::wire::civ::cmd::{self, ext};

impl SimRig {
    /// Pushes `old` (MAIN's settings before a frequency change to `new_hz`) onto the
    /// stack of the band it leaves.
    pub(super) fn bsr_leave(&mut self, old: &VfoState, new_hz: u64) {
        let Some(from) = self.profile.band_for_freq(old.freq_hz) else {
            return;
        };
        if self
            .profile
            .band_for_freq(new_hz)
            .is_some_and(|to| to.name == from.name)
        {
            return;
        }
        let Some(code) = from.bsr_code else {
            return;
        };
        let (tone, tsql) = self
            .state
            .receivers
            .first()
            .map_or(([0, 0x88, 0x05], [0, 0x88, 0x05]), |r| (r.tone, r.tsql));
        let entry = BsrEntry {
            freq_hz: old.freq_hz,
            mode: old.mode,
            filter: old.filter,
            data: old.data,
            sql_type: 0,
            tone,
            tsql,
        };
        if let Some(b) = self.state.bsr.iter_mut().find(|b| b.code == code) {
            b.regs = [entry, b.regs[0], b.regs[1]];
        }
    }

    /// `1A 01 …` with `rest` the bytes after the sub-command.
    pub(super) fn cmd_bsr(&mut self, rest: &[u8]) -> Reply {
        let (band, reg, body) = match rest {
            [band, reg, body @ ..] => (*band, *reg, body),
            _ => return Reply::Nak,
        };
        let Some(r) = bcd(reg).filter(|r| (1..=3).contains(r)) else {
            return Reply::Nak;
        };
        let idx = usize::from(r - 1);
        let Some(pos) = self.state.bsr.iter().position(|b| b.code == band) else {
            return Reply::Nak;
        };
        if body.is_empty() {
            let Some(e) = self.state.bsr.get(pos).and_then(|b| b.regs.get(idx)) else {
                return Reply::Nak;
            };
            return Reply::data(
                cmd::EXT,
                &[
                    &[ext::BAND_STACK, band, reg],
                    &freq_bytes(e.freq_hz),
                    &[
                        e.mode,
                        to_bcd(e.filter),
                        (e.data << 4) | (e.sql_type & 0x0F),
                    ],
                    &e.tone,
                    &e.tsql,
                ],
            );
        }
        match self.parse_bsr_entry(band, body) {
            Some(entry) => {
                if let Some(slot) = self
                    .state
                    .bsr
                    .get_mut(pos)
                    .and_then(|b| b.regs.get_mut(idx))
                {
                    *slot = entry;
                }
                Reply::Ack
            }
            None => Reply::Nak,
        }
    }

    /// Validates a register write: frequency inside the band, supported mode, a filter,
    /// and (16-byte form) DATA mode, squelch type and two BCD tones.
    fn parse_bsr_entry(&self, band_code: u8, body: &[u8]) -> Option<BsrEntry> {
        if body.len() != 7 && body.len() != 14 {
            return None;
        }
        let band = self.profile.band_by_bsr(band_code)?;
        let hz = freq(body.get(0..5)?)?;
        if !(band.start_hz..=band.end_hz).contains(&hz) {
            return None;
        }
        let mode_code = *body.get(5)?;
        let filter = bcd(*body.get(6)?)?;
        if !self.mode_ok(mode_code) || !self.filter_ok(filter) {
            return None;
        }
        let mut entry = BsrEntry {
            freq_hz: hz,
            mode: mode_code,
            filter,
            data: 0,
            sql_type: 0,
            tone: [0x00, 0x88, 0x05],
            tsql: [0x00, 0x88, 0x05],
        };
        if body.len() == 14 {
            let ds = *body.get(7)?;
            entry.data = ds >> 4;
            entry.sql_type = ds & 0x0F;
            if !self.data_ok(mode_code, entry.data) || entry.sql_type > 9 {
                return None;
            }
            let tones = body.get(8..14)?;
            if tones.iter().any(|b| bcd(*b).is_none()) {
                return None;
            }
            entry.tone.copy_from_slice(tones.get(0..3)?);
            entry.tsql.copy_from_slice(tones.get(3..6)?);
        }
        Some(entry)
    }
}
