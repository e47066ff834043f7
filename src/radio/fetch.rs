//! Reading the whole state after (re)connecting or powering on: selected receiver,
//! frequency and mode of every receiver / VFO, ATT and preamp per receiver, RF power,
//! PTT, split, power, scope settings. Unsupported reads (NAK) are skipped; the result
//! is applied in one change so clients see one consistent delta.

use super::apply::apply_frame;
use super::error::{CommandError, ErrorCode};
use super::executor::Executor;
use super::request::CivRequest;
use crate::profile::{ScopeSourceKind, VfoScheme};
use crate::wire::civ::Frame;

impl Executor {
    /// The reads of the initial fetch for the current profile.
    fn fetch_plan(&self) -> Vec<(Option<u8>, CivRequest)> {
        let p = self.profile();
        let a = p.radio.civ_addr;
        let mut plan = vec![(None, CivRequest::read(a, 0x18, &[]))];
        let dual = p.vfo.scheme == VfoScheme::MainSub && p.is_dual();
        if dual {
            plan.push((None, CivRequest::read(a, 0x07, &[0xD2])));
        }
        // the selected receiver with the classic reads, for radios without 25/26
        plan.push((None, CivRequest::read(a, 0x03, &[])));
        plan.push((None, CivRequest::read(a, 0x04, &[])));
        let selectors = if dual || p.vfo.scheme == VfoScheme::Ab {
            2
        } else {
            1
        };
        for sel in 0..selectors {
            plan.push((None, CivRequest::read(a, 0x25, &[sel])));
            plan.push((None, CivRequest::read(a, 0x26, &[sel])));
        }
        let receivers = if dual { 2 } else { 1 };
        for rx in 0..receivers {
            if p.has_feature("attenuator") {
                plan.push((Some(rx), CivRequest::read(a, 0x11, &[])));
            }
            if p.has_feature("preamp") {
                plan.push((Some(rx), CivRequest::read(a, 0x16, &[0x02])));
            }
        }
        plan.push((None, CivRequest::read(a, 0x14, &[0x0A])));
        plan.push((None, CivRequest::read(a, 0x1C, &[0x00])));
        if p.has_feature("split") {
            plan.push((None, CivRequest::read(a, 0x0F, &[])));
        }
        if p.has_feature("dual_watch") {
            plan.push((None, CivRequest::read(a, 0x07, &[0xC2])));
        }
        if p.scope.source == ScopeSourceKind::Hardware {
            if dual {
                plan.push((None, CivRequest::read(a, 0x27, &[0x12])));
                plan.push((None, CivRequest::read(a, 0x27, &[0x13])));
            }
            plan.push((None, CivRequest::read(a, 0x27, &[0x14, 0x00])));
            plan.push((None, CivRequest::read(a, 0x27, &[0x15, 0x00])));
        }
        if !p.radio.transceive_menu.is_empty() {
            plan.push((
                None,
                CivRequest::read(a, 0x1A, &p.radio.transceive_menu[1..]),
            ));
        }
        plan
    }

    /// Runs the fetch. Fails when the radio stops answering.
    pub(super) fn fetch_state(&mut self) -> Result<(), CommandError> {
        let plan = self.fetch_plan();
        let profile = self.profile();
        let mut replies: Vec<Frame> = Vec::with_capacity(plan.len());
        let mut timeouts = 0;
        for (rx, req) in plan {
            let sub = if crate::wire::civ::has_sub(req.frame.cmd) {
                req.frame.data.first().copied()
            } else {
                None
            };
            let req = match rx {
                Some(r) if profile.uses_cmd29(req.frame.cmd, sub) => req.for_receiver(r),
                Some(r) if r > 0 => continue, // no command 29: SUB values follow its selection later
                _ => req,
            };
            match self.transact_retry(&req, true) {
                Ok(f) => {
                    if f.cmd == 0x18 && f.data == [0x00] {
                        // switched off: nothing else will answer
                        replies.push(f);
                        break;
                    }
                    if f.cmd == 0x1A && req.frame.cmd == 0x1A && f.data.last() == Some(&0x00) {
                        log::warn!(
                            "CI-V transceive is off on the radio: changes made on its front panel will not be seen \
                             (menu item {:02X?})",
                            profile.radio.transceive_menu
                        );
                    }
                    replies.push(f);
                }
                Err(e) if e.code == ErrorCode::RadioRejected => {}
                Err(e) if e.code == ErrorCode::RadioTimeout => {
                    timeouts += 1;
                    if timeouts >= 3 {
                        return Err(e);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        self.store.modify(|c| {
            for f in &replies {
                apply_frame(c, &profile, f);
            }
        });
        Ok(())
    }
}
