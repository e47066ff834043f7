//! The CI-V reads behind each meter of the web interface (`15 xx`, spec §4.5).

use crate::wire::civ::cmd::meter;
pub use crate::wire::meter::MeterKind;

/// The CI-V `15 <sub>` read of `kind` and the receiver it targets, if the meter has one.
pub fn civ_read(kind: MeterKind) -> Option<(u8, u8)> {
    Some(match kind {
        MeterKind::Smeter => (meter::S_METER, 0),
        MeterKind::SmeterSub => (meter::S_METER, 1),
        MeterKind::Power => (meter::PO, 0),
        MeterKind::Swr => (meter::SWR, 0),
        MeterKind::Alc => (meter::ALC, 0),
        MeterKind::Comp => (meter::COMP, 0),
        MeterKind::Vd => (meter::VD, 0),
        MeterKind::Id => (meter::ID, 0),
        MeterKind::Temp => return None,
    })
}
