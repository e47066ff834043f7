//! The CI-V reads behind each meter of the web interface (`15 xx`, spec §4.5).

use crate::wire::civ::Receiver;
use crate::wire::civ::cmd::meter;
pub use crate::wire::meter::MeterKind;

/// The CI-V `15 <sub>` read of `kind` and the receiver it targets, if the meter has one.
pub fn civ_read(kind: MeterKind) -> Option<(u8, Receiver)> {
    Some(match kind {
        MeterKind::Smeter => (meter::S_METER, Receiver::Main),
        MeterKind::SmeterSub => (meter::S_METER, Receiver::Sub),
        MeterKind::Power => (meter::PO, Receiver::Main),
        MeterKind::Swr => (meter::SWR, Receiver::Main),
        MeterKind::Alc => (meter::ALC, Receiver::Main),
        MeterKind::Comp => (meter::COMP, Receiver::Main),
        MeterKind::Vd => (meter::VD, Receiver::Main),
        MeterKind::Id => (meter::ID, Receiver::Main),
        MeterKind::Temp => return None,
    })
}
