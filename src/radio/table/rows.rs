//! The rows of the command table: every command clients may send.

use crate::profile::{Feature, Profile};
use crate::radio::table::builders::{
    build_list_memories, build_send_cw, build_set_antenna, build_set_data_mode, build_set_filter,
    build_set_freq, build_set_mode, channel,
};
use crate::radio::table::command::{Command, RateClass, Target};
use crate::radio::table::domains::{
    antenna_label, att_label, att_values, cw_text, data_label, data_modes, filter_widths, filters,
    fixed_edges, freq_bounds, memory_channels, modes, preamp_label, preamp_values, span_label,
    spans,
};
use crate::radio::table::error::CommandError;
use crate::radio::table::params::{Args, Domain, ParamKind, ParamSpec};
use crate::radio::table::settings::SettingId;
use crate::radio::table::values::{Agc, ScopeSpeed, Tuner};
use crate::radio::table::{Action, CommandSpec, Group, TargetKind};

const LEVEL: Domain = Domain::Range(0, 255, 1);
const ON_OFF: Domain = Domain::Any;

const fn int(name: &'static str, required: bool, domain: Domain) -> ParamSpec {
    ParamSpec::new(name, ParamKind::Int, required, domain)
}

const fn boolean(name: &'static str, required: bool) -> ParamSpec {
    ParamSpec::new(name, ParamKind::Bool, required, ON_OFF)
}

const fn string(name: &'static str, required: bool, domain: Domain) -> ParamSpec {
    ParamSpec::new(name, ParamKind::Str, required, domain)
}

/// True for `set_*` names (the settings class of the rate limit).
const fn is_set(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 4 && b[0] == b's' && b[1] == b'e' && b[2] == b't' && b[3] == b'_'
}

/// The rate class of a row by its name: `set_*` are settings, the rest actions.
const fn class_of(name: &str) -> RateClass {
    if is_set(name) {
        RateClass::Setting
    } else {
        RateClass::Action
    }
}

const fn custom(
    name: &'static str,
    description: &'static str,
    feature: Option<Feature>,
    target: TargetKind,
    params: &'static [ParamSpec],
    build: fn(&Args, &Profile, Target) -> Result<Command, CommandError>,
    state: &'static [(&'static str, &'static str)],
) -> CommandSpec {
    CommandSpec {
        name,
        description,
        feature,
        target,
        params,
        need_one: false,
        action: Action::Build(build),
        state,
        rate: class_of(name),
        label: "",
        group: Group::Rx,
    }
}

const fn write(
    name: &'static str,
    description: &'static str,
    target: TargetKind,
    params: &'static [ParamSpec],
    writes: &'static [(&'static str, SettingId)],
) -> CommandSpec {
    CommandSpec {
        name,
        description,
        feature: None,
        target,
        params,
        need_one: false,
        action: Action::Write(writes),
        state: &[],
        rate: RateClass::Setting,
        label: "",
        group: Group::Rx,
    }
}

use Group::{Cw, Memory, Rx, Scope, Tuning, Tx, Vfo};
use TargetKind::{None as Global, Receiver, ScopeReceiver};

/// Every command clients may send.
pub static COMMANDS: &[CommandSpec] = &[
    custom(
        "set_freq",
        "Tune a receiver or VFO",
        None,
        Receiver,
        &[int("freq", true, Domain::Profile(freq_bounds)).unit("Hz")],
        build_set_freq,
        &[("freq", "freqHz")],
    )
    .shown("Frequency", Tuning),
    custom(
        "set_mode",
        "Operating mode (and optionally filter)",
        None,
        Receiver,
        &[
            string("mode", true, Domain::Profile(modes)),
            string("filter", false, Domain::Profile(filters)),
        ],
        build_set_mode,
        &[("mode", "mode"), ("filter", "filter")],
    )
    .shown("Mode", Tuning),
    custom(
        "set_filter",
        "IF filter FIL1..FIL3",
        None,
        Receiver,
        &[string("filter", true, Domain::Profile(filters))],
        build_set_filter,
        &[("filter", "filter")],
    )
    .shown("Filter", Tuning),
    custom(
        "set_data_mode",
        "DATA mode: 0 off, 1..3 D1..D3",
        Some(Feature::DataMode),
        Receiver,
        &[int("data", true, Domain::Profile(data_modes)).labels_with(data_label)],
        build_set_data_mode,
        &[("data", "dataMode")],
    )
    .shown("Data", Rx),
    custom(
        "ptt",
        "Key (true) or unkey (false) the transmitter",
        Some(Feature::Tx),
        Global,
        &[boolean("state", true)],
        |a, _, _| Ok(Command::Ptt(a.raw("state") == Some(1))),
        &[("state", "ptt")],
    )
    .shown("PTT", Tx),
    write(
        "set_power",
        "RF output power level",
        Global,
        &[int("level", true, LEVEL)],
        &[("level", SettingId::Power)],
    )
    .shown("Power", Tx),
    write(
        "set_att",
        "Attenuator",
        Receiver,
        &[int("db", true, Domain::Profile(att_values))
            .unit("dB")
            .labels_with(att_label)],
        &[("db", SettingId::Att)],
    )
    .shown("ATT", Rx),
    write(
        "set_preamp",
        "Preamp (0 off)",
        Receiver,
        &[int("level", true, Domain::Profile(preamp_values)).labels_with(preamp_label)],
        &[("level", SettingId::Preamp)],
    )
    .shown("Preamp", Rx),
    custom(
        "vfo_swap",
        "Swap A/B (MAIN/SUB on two-receiver radios)",
        None,
        Global,
        &[],
        |_, _, _| Ok(Command::VfoSwap),
        &[],
    )
    .shown("Swap", Vfo),
    custom(
        "vfo_equalize",
        "Copy A to B (MAIN to SUB on two-receiver radios)",
        None,
        Global,
        &[],
        |_, _, _| Ok(Command::VfoEqualize),
        &[],
    )
    .shown("Equalize", Vfo),
    custom(
        "set_band",
        "Band change by band stack register code (capabilities bsrCode)",
        None,
        Global,
        &[int("band", true, Domain::Range(0, 255, 1))],
        |a, _, _| Ok(Command::SetBand(a.raw("band").unwrap_or(0) as u8)),
        &[],
    )
    .shown("Band", Tuning),
    write(
        "set_af_gain",
        "AF (volume) gain",
        Receiver,
        &[int("level", true, LEVEL)],
        &[("level", SettingId::AfGain)],
    )
    .shown("AF gain", Rx),
    write(
        "set_rf_gain",
        "RF gain",
        Receiver,
        &[int("level", true, LEVEL)],
        &[("level", SettingId::RfGain)],
    )
    .shown("RF gain", Rx),
    write(
        "set_squelch",
        "Squelch level",
        Receiver,
        &[int("level", true, LEVEL)],
        &[("level", SettingId::Squelch)],
    )
    .shown("Squelch", Rx),
    write(
        "set_agc",
        "AGC time constant",
        Receiver,
        &[string("mode", true, Domain::Choices(Agc::NAMED))],
        &[("mode", SettingId::Agc)],
    )
    .shown("AGC", Rx),
    write(
        "set_nb",
        "Noise blanker on/off and level",
        Receiver,
        &[boolean("on", true), int("level", false, LEVEL)],
        &[("on", SettingId::Nb), ("level", SettingId::NbLevel)],
    )
    .shown("NB", Rx),
    write(
        "set_nr",
        "Noise reduction on/off and level",
        Receiver,
        &[boolean("on", true), int("level", false, LEVEL)],
        &[("on", SettingId::Nr), ("level", SettingId::NrLevel)],
    )
    .shown("NR", Rx),
    write(
        "set_auto_notch",
        "Auto notch",
        Receiver,
        &[boolean("on", true)],
        &[("on", SettingId::AutoNotch)],
    )
    .shown("Auto notch", Rx),
    write(
        "set_manual_notch",
        "Manual notch on/off and position",
        Receiver,
        &[boolean("on", true), int("position", false, LEVEL)],
        &[
            ("on", SettingId::ManualNotch),
            ("position", SettingId::NotchPosition),
        ],
    )
    .shown("Manual notch", Rx),
    write(
        "set_filter_width",
        "IF filter width (allowed widths depend on the mode: see byMode)",
        Receiver,
        &[int("hz", true, Domain::Profile(filter_widths))
            .unit("Hz")
            .title("Width")],
        &[("hz", SettingId::FilterWidth)],
    )
    .shown("Width", Rx),
    custom(
        "set_antenna",
        "Antenna connector ANT1/ANT2 and the RX antenna input (rx_ant absent: kept)",
        Some(Feature::Antenna),
        Receiver,
        &[
            int("ant", true, Domain::Range(1, 2, 1))
                .title("Antenna")
                .labels_with(antenna_label),
            boolean("rx_ant", false).title("RX ANT"),
        ],
        build_set_antenna,
        &[("ant", "antenna"), ("rx_ant", "rxAntenna")],
    )
    .shown("Antenna", Rx),
    write(
        "set_digisel",
        "DIGI-SEL preselector",
        Receiver,
        &[boolean("on", true)],
        &[("on", SettingId::Digisel)],
    )
    .shown("DIGI-SEL", Rx),
    write(
        "set_ip_plus",
        "IP+ (intercept point improvement)",
        Receiver,
        &[boolean("on", true)],
        &[("on", SettingId::IpPlus)],
    )
    .shown("IP+", Rx),
    write(
        "set_apf",
        "Audio peak filter (CW)",
        Receiver,
        &[boolean("on", true)],
        &[("on", SettingId::Apf)],
    )
    .shown("APF", Cw),
    write(
        "set_split",
        "Split",
        Global,
        &[boolean("on", true)],
        &[("on", SettingId::Split)],
    )
    .shown("Split", Vfo),
    write(
        "set_dual_watch",
        "Dual watch",
        Global,
        &[boolean("on", true)],
        &[("on", SettingId::DualWatch)],
    )
    .shown("Dual watch", Vfo),
    CommandSpec {
        need_one: true,
        ..write(
            "set_rit",
            "RIT on/off and offset (the offset is shared with XIT; offset_hz 0 clears it)",
            Global,
            &[
                boolean("on", false),
                int("offset_hz", false, Domain::Range(-9999, 9999, 1))
                    .unit("Hz")
                    .title("Offset"),
            ],
            &[("on", SettingId::Rit), ("offset_hz", SettingId::RitOffset)],
        )
    }
    .shown("RIT", Vfo),
    CommandSpec {
        need_one: true,
        ..write(
            "set_xit",
            "XIT (ΔTX) on/off and offset (the offset is RIT's: one offset for both)",
            Global,
            &[
                boolean("on", false),
                int("offset_hz", false, Domain::Range(-9999, 9999, 1))
                    .unit("Hz")
                    .title("Offset"),
            ],
            &[("on", SettingId::Xit), ("offset_hz", SettingId::RitOffset)],
        )
    }
    .shown("XIT", Vfo),
    write(
        "set_tuner",
        "Antenna tuner: off, on, or tune now",
        Global,
        &[string("state", true, Domain::Choices(Tuner::NAMED))],
        &[("state", SettingId::Tuner)],
    )
    .shown("Tuner", Tx),
    write(
        "set_cw_speed",
        "CW key speed",
        Global,
        &[int("wpm", true, Domain::Range(6, 48, 1))
            .unit("wpm")
            .title("WPM")],
        &[("wpm", SettingId::CwSpeed)],
    )
    .shown("CW speed", Cw),
    custom(
        "send_cw",
        "Send CW text with the radio's keyer (mode CW or CW-R)",
        Some(Feature::Cw),
        Global,
        &[string("text", true, Domain::Profile(cw_text))],
        build_send_cw,
        &[],
    )
    .shown("Send CW", Cw),
    CommandSpec {
        rate: RateClass::Urgent,
        ..custom(
            "stop_cw",
            "Stop sending CW",
            Some(Feature::Cw),
            Global,
            &[],
            |_, _, _| Ok(Command::StopCw),
            &[],
        )
    }
    .shown("Stop CW", Cw),
    write(
        "set_comp",
        "Speech compressor on/off and level",
        Global,
        &[boolean("on", true), int("level", false, LEVEL)],
        &[("on", SettingId::Comp), ("level", SettingId::CompLevel)],
    )
    .shown("Comp", Tx),
    write(
        "set_mic_gain",
        "Microphone gain",
        Global,
        &[int("level", true, LEVEL)],
        &[("level", SettingId::MicGain)],
    )
    .shown("Mic gain", Tx),
    write(
        "set_monitor_gain",
        "Monitor gain (hearing one's own transmission)",
        Global,
        &[int("level", true, LEVEL)],
        &[("level", SettingId::MonitorGain)],
    )
    .shown("Monitor", Tx),
    write(
        "set_monitor",
        "Monitor on/off (hearing one's own transmission)",
        Global,
        &[boolean("on", true)],
        &[("on", SettingId::Monitor)],
    )
    .shown("Monitor on", Tx),
    write(
        "set_vox",
        "VOX on/off (speech keys the transmitter)",
        Global,
        &[boolean("on", true)],
        &[("on", SettingId::Vox)],
    )
    .shown("VOX", Tx),
    write(
        "set_vox_gain",
        "VOX gain (how readily speech keys the transmitter)",
        Global,
        &[int("level", true, LEVEL)],
        &[("level", SettingId::VoxGain)],
    )
    .shown("VOX gain", Tx),
    CommandSpec {
        need_one: true,
        ..write(
            "set_scope",
            "Scope span (half-span), mode, reference level, speed, hold and fixed-edge set",
            ScopeReceiver,
            &[
                int("span_hz", false, Domain::Profile(spans))
                    .unit("Hz")
                    .title("Span")
                    .labels_with(span_label),
                int("mode", false, Domain::Range(0, 3, 1))
                    .labels(&["Center", "Fixed", "Scroll-C", "Scroll-F"]),
                ParamSpec::new(
                    "ref_db",
                    ParamKind::Number { scale: 10 },
                    false,
                    Domain::Range(-300, 100, 5),
                )
                .unit("dB")
                .title("Ref"),
                string("speed", false, Domain::Choices(ScopeSpeed::NAMED)),
                boolean("hold", false),
                int("edge", false, Domain::Profile(fixed_edges)),
            ],
            &[
                ("span_hz", SettingId::ScopeSpan),
                ("mode", SettingId::ScopeMode),
                ("ref_db", SettingId::ScopeRef),
                ("speed", SettingId::ScopeSpeed),
                ("hold", SettingId::ScopeHold),
                ("edge", SettingId::ScopeEdge),
            ],
        )
    }
    .shown("Scope", Scope),
    custom(
        "list_memories",
        "Memory channels first..last (at most 10 per call): frequency, mode and name, or empty",
        Some(Feature::Memory),
        Global,
        &[
            int("first", true, Domain::Profile(memory_channels)).title("First"),
            int("last", true, Domain::Profile(memory_channels)).title("Last"),
        ],
        build_list_memories,
        &[],
    )
    .shown("Memories", Memory),
    custom(
        "recall_memory",
        "Copy a memory channel into the selected VFO (the radio stays in VFO mode)",
        Some(Feature::Memory),
        Global,
        &[int("channel", true, Domain::Profile(memory_channels)).title("Channel")],
        |a, _, _| Ok(Command::RecallMemory(channel(a))),
        &[],
    )
    .shown("Recall", Memory),
    custom(
        "store_memory",
        "Write the selected VFO (frequency, mode, filter) into a memory channel",
        Some(Feature::Memory),
        Global,
        &[int("channel", true, Domain::Profile(memory_channels)).title("Channel")],
        |a, _, _| Ok(Command::StoreMemory(channel(a))),
        &[],
    )
    .shown("Store", Memory),
];
