//! What each command sends to the radio and what it changes in the state
//! (the encoder and state-effect columns of the command table).

use serde_json::{Value, json};

use super::apply::{apply_frame, sel_for_target, selected_receiver, vfo_of};
use super::command::{Command, Target};
use super::error::{CommandError, ErrorCode};
use super::executor::Executor;
use super::meters::MeterKind;
use super::request::CivRequest;
use crate::profile::VfoScheme;
use crate::wire::civ::{self, Frame, cmd, has_sub};

impl Executor {
    /// Sends a set and waits for ACK (retried once on timeout when idempotent).
    fn set(&mut self, cmd: u8, data: &[u8], idempotent: bool) -> Result<(), CommandError> {
        let req = CivRequest::set(self.addr(), cmd, data);
        self.transact_retry(&req, idempotent).map(|_| ())
    }

    /// Sends a read and returns the reply (retried once on timeout).
    fn read(&mut self, cmd: u8, data: &[u8]) -> Result<Frame, CommandError> {
        let req = CivRequest::read(self.addr(), cmd, data);
        self.transact_retry(&req, true)
    }

    /// Sends `req` to `receiver`: wrapped in command 29 where the profile routes it, plain
    /// when the receiver is selected, else by selecting it for the duration.
    fn routed(&mut self, receiver: u8, req: CivRequest) -> Result<Frame, CommandError> {
        let profile = self.profile();
        let sub = if has_sub(req.frame.cmd) {
            req.frame.data.first().copied()
        } else {
            None
        };
        if profile.uses_cmd29(req.frame.cmd, sub) {
            return self.transact_retry(&req.for_receiver(receiver), true);
        }
        let selected = self.store.read(|c| selected_receiver(&c.radio));
        if profile.vfo.scheme == VfoScheme::Ab || receiver == selected {
            return self.transact_retry(&req, true);
        }
        let (there, back) = if receiver == 1 {
            (
                profile.vfo.select_sub.clone(),
                profile.vfo.select_main.clone(),
            )
        } else {
            (
                profile.vfo.select_main.clone(),
                profile.vfo.select_sub.clone(),
            )
        };
        self.set(0x07, &there, true)?;
        let r = self.transact_retry(&req, true);
        let restored = self.set(0x07, &back, true);
        let f = r?;
        restored?;
        Ok(f)
    }

    fn apply(&self, f: &Frame) {
        let profile = self.profile();
        self.store.modify(|c| apply_frame(c, &profile, f));
    }

    /// Executes `cmd` (the link is known to be ready).
    pub(super) fn perform(&mut self, cmd: &Command) -> Result<Value, CommandError> {
        let profile = self.profile();
        match cmd {
            Command::SetFreq { target, hz } => {
                let sel = self.store.read(|c| sel_for_target(&c.radio, *target));
                let bcd = bcd_freq(*hz)?;
                if sel == 0 {
                    // the selected receiver / VFO: the classic command every Icom radio has
                    self.set(0x05, &bcd, true)?;
                } else {
                    let mut data = vec![sel];
                    data.extend(bcd);
                    self.set(0x25, &data, true)?;
                }
                self.store
                    .modify(|c| super::apply::set_freq(&mut c.radio, *target, *hz));
                Ok(json!({"vfo": target.label(), "freq": hz}))
            }
            Command::SetMode {
                target,
                mode,
                filter,
            } => {
                let (_, _, cur_filter, data_mode) = self.current(*target)?;
                let filter = filter.unwrap_or(cur_filter);
                self.set_mode(*target, mode, data_mode, filter)?;
                Ok(json!({"vfo": target.label(), "mode": mode, "filter": format!("FIL{filter}")}))
            }
            Command::SetFilter { target, filter } => {
                let (_, mode, _, data_mode) = self.current(*target)?;
                self.set_mode(*target, &mode, data_mode, *filter)?;
                Ok(json!({"vfo": target.label(), "mode": mode, "filter": format!("FIL{filter}")}))
            }
            Command::Ptt(on) => {
                self.set(0x1C, &[0x00, u8::from(*on)], true)?;
                self.store.modify(|c| c.radio.ptt = *on);
                Ok(json!({"state": on}))
            }
            Command::SetPower(level) => {
                let bcd = civ::level_to_bcd(u16::from(*level)).map_err(internal)?;
                self.set(0x14, &[0x0A, bcd[0], bcd[1]], true)?;
                self.store.modify(|c| c.radio.power = *level);
                Ok(json!({"level": level}))
            }
            Command::SetAtt { receiver, db } => {
                let b = civ::bcd_byte(*db).map_err(internal)?;
                self.routed(*receiver, CivRequest::set(self.addr(), 0x11, &[b]))?;
                self.store.modify(|c| {
                    if let Some(r) = c.radio.receiver_mut(*receiver) {
                        r.att = *db;
                    }
                });
                Ok(json!({"receiver": receiver, "db": db}))
            }
            Command::SetPreamp { receiver, level } => {
                let b = civ::bcd_byte(*level).map_err(internal)?;
                self.routed(*receiver, CivRequest::set(self.addr(), 0x16, &[0x02, b]))?;
                self.store.modify(|c| {
                    if let Some(r) = c.radio.receiver_mut(*receiver) {
                        r.preamp = *level;
                    }
                });
                Ok(json!({"receiver": receiver, "level": level}))
            }
            Command::VfoSwap | Command::VfoEqualize => {
                let bytes = if *cmd == Command::VfoSwap {
                    profile.vfo.swap.clone()
                } else {
                    profile.vfo.equalize.clone()
                };
                self.set(0x07, &bytes, cmd.is_idempotent())?;
                self.read_vfos()?;
                Ok(json!({}))
            }
            Command::SetBand(code) => self.set_band(*code),
            Command::Power(on) => {
                self.set(0x18, &[u8::from(*on)], true)?;
                self.store.modify(|c| c.radio.power_on = *on);
                if !*on {
                    self.fetched = false;
                }
                self.after_power_report();
                Ok(json!({"state": if *on { "on" } else { "off" }}))
            }
            Command::ScopeOutput(on) => {
                if profile.scope.source != crate::profile::ScopeSourceKind::Hardware {
                    return Err(CommandError::new(
                        ErrorCode::NotSupported,
                        format!("the {} has no hardware scope", profile.model()),
                    ));
                }
                if *on {
                    self.set(0x27, &[0x10, 0x01], true)?;
                }
                self.set(0x27, &[0x11, u8::from(*on)], true)?;
                self.store.modify(|c| c.radio.scope.streaming = *on);
                Ok(json!({"output": on}))
            }
            Command::ScopeDual(on) => {
                if profile.scope.source != crate::profile::ScopeSourceKind::Hardware
                    || !profile.is_dual()
                {
                    return Err(CommandError::new(
                        ErrorCode::NotSupported,
                        format!(
                            "the {} has no second receiver on its scope",
                            profile.model()
                        ),
                    ));
                }
                self.set(0x27, &[0x13, u8::from(*on)], true)?;
                self.store.modify(|c| c.radio.scope.dual = *on);
                Ok(json!({"dual": on}))
            }
            Command::ReadMeters(kinds) => self.read_meters(kinds),
            Command::ReadModInput => self.read_mod_input(),
            Command::SetModInput { data_mode, value } => {
                let (hi, lo) = self.mod_input_item(*data_mode)?;
                let v = civ::bcd_byte(*value).map_err(internal)?;
                self.set(cmd::EXT, &[cmd::ext::MENU, hi, lo, v], true)?;
                Ok(json!({"data_mode": data_mode, "value": value}))
            }
            Command::Refresh => {
                self.fetch_state()?;
                Ok(json!({}))
            }
        }
    }

    /// `(freq, mode, filter, data mode)` of `target`.
    fn current(&self, target: Target) -> Result<(u64, String, u8, u8), CommandError> {
        self.store
            .read(|c| vfo_of(&c.radio, target))
            .ok_or_else(|| {
                CommandError::new(
                    ErrorCode::NotSupported,
                    format!("this radio has no {}", target.label()),
                )
            })
    }

    fn set_mode(
        &mut self,
        target: Target,
        mode: &str,
        data_mode: u8,
        filter: u8,
    ) -> Result<(), CommandError> {
        let profile = self.profile();
        let code = profile.mode_code(mode).ok_or_else(|| {
            CommandError::param(
                "mode",
                format!("{mode:?} is not a mode of the {}", profile.model()),
            )
        })?;
        let sel = self.store.read(|c| sel_for_target(&c.radio, target));
        let data = civ::bcd_byte(data_mode).map_err(internal)?;
        let fil = civ::bcd_byte(filter).map_err(internal)?;
        let current_data = self.store.read(|c| vfo_of(&c.radio, target).map(|v| v.3));
        if sel == 0 && current_data == Some(data_mode) {
            // the selected receiver / VFO with its DATA mode unchanged: the classic `06`
            self.set(0x06, &[code, fil], true)?;
        } else {
            self.set(0x26, &[sel, code, data, fil], true)?;
        }
        self.store.modify(|c| {
            super::apply::set_mode(&mut c.radio, target, mode, Some(data_mode), Some(filter))
        });
        Ok(())
    }

    /// Reads frequency and mode of every receiver / VFO.
    pub(super) fn read_vfos(&mut self) -> Result<(), CommandError> {
        let targets = if self.profile().vfo.scheme == VfoScheme::MainSub && self.profile().is_dual()
        {
            2
        } else {
            1
        };
        let ab = self.profile().vfo.scheme == VfoScheme::Ab;
        for sel in 0..u8::max(targets, if ab { 2 } else { 1 }) {
            for cmd in [0x25, 0x26] {
                match self.read(cmd, &[sel]) {
                    Ok(f) => self.apply(&f),
                    Err(e) if e.code == ErrorCode::RadioRejected => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    /// `set_band` (interface.md §3 rule 5): a code the profile has no band for is
    /// acknowledged and the radio left where it is (no CI-V at all); otherwise recall the
    /// band stack register, and when that fails, tune the band's `default_hz`.
    fn set_band(&mut self, code: u8) -> Result<Value, CommandError> {
        let profile = self.profile();
        let Some(band) = profile.band_by_bsr(code) else {
            return Ok(json!({"band": code, "source": "none", "retuned": false}));
        };
        let target = if profile.vfo.scheme == VfoScheme::Ab {
            Target::Vfo(0)
        } else {
            Target::Receiver(0)
        };
        let recalled = match self.read(0x1A, &[0x01, code, 0x01]) {
            Ok(f) => parse_bsr(&f, code).filter(|(hz, _, _)| profile.in_range(*hz)),
            Err(e) if matches!(e.code, ErrorCode::RadioRejected | ErrorCode::RadioTimeout) => {
                log::debug!("band stack register {code:#04x} recall failed: {e}");
                None
            }
            Err(e) => return Err(e),
        };
        if let Some((hz, mode_code, filter)) = recalled {
            self.perform(&Command::SetFreq { target, hz })?;
            if let Some(mode) = civ::mode_name(mode_code).filter(|m| profile.mode_code(m).is_some())
            {
                let filter = (1..=3).contains(&filter).then_some(filter);
                self.perform(&Command::SetMode {
                    target,
                    mode: mode.to_string(),
                    filter,
                })?;
            }
            return Ok(json!({"band": code, "source": "bsr", "freq": hz, "retuned": true}));
        }
        let (hz, name) = (band.default_hz, band.name.clone());
        self.perform(&Command::SetFreq { target, hz })?;
        Ok(json!({"band": code, "name": name, "source": "default", "freq": hz, "retuned": true}))
    }

    /// The `1A 05` item holding the MOD input of `data_mode`.
    fn mod_input_item(&self, data_mode: u8) -> Result<(u8, u8), CommandError> {
        let profile = self.profile();
        profile
            .mod_input
            .as_ref()
            .and_then(|m| m.menu_for(data_mode))
            .ok_or_else(|| {
                CommandError::new(
                    ErrorCode::NotSupported,
                    format!("the {} has no MOD-input setting", profile.model()),
                )
            })
    }

    /// `{"data_mode", "value"}`: the MOD input of MAIN's current DATA mode.
    fn read_mod_input(&mut self) -> Result<Value, CommandError> {
        let data_mode = self.store.read(|c| c.radio.main.data_mode);
        let (hi, lo) = self.mod_input_item(data_mode)?;
        let f = self.read(cmd::EXT, &[cmd::ext::MENU, hi, lo])?;
        let value = match f.data.as_slice() {
            [sub, h, l, v, ..] if *sub == cmd::ext::MENU && (*h, *l) == (hi, lo) => {
                civ::from_bcd_byte(*v).map_err(internal)?
            }
            other => {
                return Err(CommandError::new(
                    ErrorCode::RadioRejected,
                    format!("unexpected MOD-input reply {other:02X?}"),
                ));
            }
        };
        Ok(json!({"data_mode": data_mode, "value": value}))
    }

    fn read_meters(&mut self, kinds: &[MeterKind]) -> Result<Value, CommandError> {
        let profile = self.profile();
        let mut out = serde_json::Map::new();
        for &k in kinds {
            let Some((sub, rx)) = k.civ_read() else {
                continue;
            };
            if !profile.has_meter(k.name()) {
                continue;
            }
            let req = CivRequest::read(self.addr(), cmd::METER, &[sub]);
            // receiver meters read that receiver (command 29 where the profile routes
            // `15 02`), not whichever receiver happens to be selected
            let f = match rx {
                Some(rx) => self.routed(rx, req),
                None => self.transact_retry(&req, false),
            };
            match f {
                Ok(f) => {
                    let payload = match f.unwrap_receiver() {
                        Some((_, inner)) => inner.data,
                        None => f.data,
                    };
                    if let Some(v) = payload.get(1..3).and_then(|b| civ::bcd_to_level(b).ok()) {
                        out.insert(k.name().into(), json!(v.min(255)));
                    }
                }
                Err(e) if e.code == ErrorCode::RadioRejected => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Value::Object(out))
    }
}

fn bcd_freq(hz: u64) -> Result<[u8; 5], CommandError> {
    civ::freq_to_bcd(hz).map_err(|e| CommandError::param("freq", e))
}

fn internal(e: crate::wire::WireError) -> CommandError {
    CommandError::new(ErrorCode::InvalidParam, e.to_string())
}

/// `(freq, mode code, filter)` from a band stack register reply
/// `1A 01 <band> <reg> <freq x5> <mode> <filter> ...`.
fn parse_bsr(f: &Frame, code: u8) -> Option<(u64, u8, u8)> {
    let d = &f.data;
    if d.len() < 10 || d[0] != 0x01 || d[1] != code {
        return None;
    }
    let hz = civ::bcd_to_freq(&d[3..8]).ok()?;
    let filter = civ::from_bcd_byte(d[9]).ok()?;
    Some((hz, d[8], filter))
}
