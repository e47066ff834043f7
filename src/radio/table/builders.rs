//! The builders of the typed commands of the table's custom rows (`rows.rs`): each
//! turns the checked parameters and the resolved target into a [`Command`], with the
//! checks that span parameters (a frequency inside the profile's ranges, a memory list
//! of at most ten channels).

use super::command::{Command, Target};
use super::error::CommandError;
use super::params::Args;
use crate::profile::Profile;
use crate::wire::civ;

fn ranges(profile: &Profile) -> String {
    profile
        .freq_ranges
        .iter()
        .map(|r| format!("{}-{}", r.start_hz, r.end_hz))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn build_set_freq(
    a: &Args,
    p: &Profile,
    target: Target,
) -> Result<Command, CommandError> {
    let hz = a.raw("freq").unwrap_or(-1);
    if hz < 0 || hz as u64 > civ::MAX_FREQ_HZ || !p.in_range(hz as u64) {
        return Err(CommandError::param(
            "freq",
            format!(
                "{hz} Hz is outside the {}'s ranges; allowed {} Hz",
                p.model(),
                ranges(p)
            ),
        ));
    }
    Ok(Command::SetFreq {
        target,
        hz: hz as u64,
    })
}

fn filter_of(a: &Args) -> Option<u8> {
    a.raw("filter").map(|f| f as u8)
}

pub(super) fn build_set_mode(
    a: &Args,
    p: &Profile,
    target: Target,
) -> Result<Command, CommandError> {
    let mode = a
        .raw("mode")
        .and_then(|code| p.mode_of_code(u8::try_from(code).ok()?))
        .ok_or_else(|| CommandError::param("mode", "required (a string)"))?;
    Ok(Command::SetMode {
        target,
        mode,
        filter: filter_of(a),
    })
}

pub(super) fn build_set_filter(
    a: &Args,
    _: &Profile,
    target: Target,
) -> Result<Command, CommandError> {
    let filter =
        filter_of(a).ok_or_else(|| CommandError::param("filter", "required (a string)"))?;
    Ok(Command::SetFilter { target, filter })
}

pub(super) fn build_set_data_mode(
    a: &Args,
    _: &Profile,
    target: Target,
) -> Result<Command, CommandError> {
    Ok(Command::SetDataMode {
        target,
        data: a.raw("data").unwrap_or(0) as u8,
    })
}

pub(super) fn build_send_cw(a: &Args, _: &Profile, _: Target) -> Result<Command, CommandError> {
    Ok(Command::SendCw(
        a.str("text").unwrap_or_default().to_ascii_uppercase(),
    ))
}

pub(super) fn build_set_antenna(
    a: &Args,
    _: &Profile,
    target: Target,
) -> Result<Command, CommandError> {
    Ok(Command::SetAntenna {
        receiver: target.receiver(),
        ant: a.raw("ant").unwrap_or(1) as u8,
        rx_ant: a.raw("rx_ant").map(|v| v == 1),
    })
}

/// Most memory channels one `list_memories` reads (each is one CI-V read).
pub const MAX_MEMORIES_PER_LIST: i64 = 10;

pub(super) fn build_list_memories(
    a: &Args,
    _: &Profile,
    _: Target,
) -> Result<Command, CommandError> {
    let (first, last) = (a.raw("first").unwrap_or(0), a.raw("last").unwrap_or(0));
    if last < first {
        return Err(CommandError::param(
            "last",
            format!("{last} is below first ({first})"),
        ));
    }
    if last - first >= MAX_MEMORIES_PER_LIST {
        return Err(CommandError::param(
            "last",
            format!(
                "at most {MAX_MEMORIES_PER_LIST} channels per call; allowed {first}..{}",
                first + MAX_MEMORIES_PER_LIST - 1
            ),
        ));
    }
    Ok(Command::ListMemories {
        first: first as u16,
        last: last as u16,
    })
}

pub(super) fn channel(a: &Args) -> u16 {
    a.raw("channel").unwrap_or(0) as u16
}
