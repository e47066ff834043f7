//! `set_antenna`: `12 <ant> [<rx-ant>]` to a receiver (command 29 on the IC-7610), the
//! connector and RX antenna input set in the state once the radio acknowledged. The
//! radio's antenna is never read (spec pitfall 23): the state knows it from these sets
//! and from transceive reports.

use super::proc::{Cx, Item, Script, Then, route};
use crate::radio::engine::request::CivRequest;
use crate::radio::table::answer::{Answer, Given, Written};
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::radio::table::settings::SettingId;
use crate::wire::civ::Receiver;
use crate::wire::civ::cmd::{self, antenna};

/// The procedure of `set_antenna` on `receiver`: connector `ant` (1 or 2), the RX antenna
/// input when `rx_ant` is given (else the radio keeps it).
pub fn set_antenna(cx: &Cx, receiver: Receiver, ant: u8, rx_ant: Option<bool>) -> Script {
    let port = if ant == 2 {
        antenna::ANT2
    } else {
        antenna::ANT1
    };
    let mut data = vec![port];
    data.extend(rx_ant.map(u8::from));
    let req = CivRequest::set(cx.addr(), cmd::ANTENNA, &data);
    let Some(r) = route(cx, receiver, req, true) else {
        return Script::fail(CommandError::new(
            ErrorCode::RadioUnavailable,
            "the receiver cannot be reached",
        ));
    };
    let then = Then::Set(Box::new(move |c| {
        c.radio
            .set_setting(SettingId::Antenna, receiver, i64::from(ant));
        if let Some(on) = rx_ant {
            c.radio
                .set_setting(SettingId::RxAntenna, receiver, i64::from(on));
        }
    }));
    let mut items = r.before;
    items.push(Item::set(r.req, then));
    let mut values = vec![("ant", Given::Int(i64::from(ant)))];
    values.extend(rx_ant.map(|on| ("rx_ant", Given::Bool(on))));
    let result = Written {
        receiver: Some(receiver),
        values,
    };
    Script::new(items, Answer::Written(result)).finally(r.after)
}
