//! The responder, sans-IO: a request and the radio as the client sees it ([`View`]) in,
//! what to do out ([`Plan`]). Reads are answered here from the state; a set becomes the
//! command-table commands (names and JSON parameters, as a WebSocket client would send
//! them) that the connection runs through the same validation, rate limits and
//! executor as WebSocket commands; PTT, power and meters need the connection's help.

use serde_json::{Map, Value, json};

use super::dump_state::dump_state;
use super::hamlib::{self, POWER_OFF, POWER_ON, RigError, VfoName};
use super::levels::{self, LevelDef, LevelSource, MeterUnit};
use super::parse::RigCmd;
use super::reply::{self, Reply};
use super::view::View;
use crate::profile::{Feature, VfoScheme};
use crate::radio::apply::vfo_of;
use crate::radio::table::{self, Action, TargetKind};
use crate::wire::civ;
use crate::wire::meter::MeterKind;

/// One command of the command table, as a WebSocket `cmd` names it.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Command-table name.
    pub name: &'static str,
    /// Its parameters.
    pub params: Value,
}

impl Step {
    fn new(name: &'static str, params: Map<String, Value>) -> Step {
        Step {
            name,
            params: Value::Object(params),
        }
    }
}

/// What to do for a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Answer this.
    Reply(Reply),
    /// Run these in order; answer `RPRT 0`, or the first failure.
    Steps(Vec<Step>),
    /// Key (true) or unkey PTT, under the PTT ownership rules.
    Ptt(bool),
    /// Switch the radio on or off.
    Power(bool),
    /// Answer level `level` from a reading of meter `kind`.
    Meter(&'static LevelDef, MeterKind),
    /// Run `steps` (an A/B radio's selection made known), then make VFO `index` the
    /// client's current VFO (`V`; the radio's selection stays as it is).
    Current {
        /// The VFO.
        index: u8,
        /// What runs first.
        steps: Vec<Step>,
    },
    /// Close the connection.
    Quit,
}

fn values(v: Vec<(&'static str, String)>) -> Plan {
    Plan::Reply(Reply::Values(v))
}

fn fail(e: RigError) -> Plan {
    Plan::Reply(Reply::Failed(e))
}

/// Plans `cmd` against `view`.
pub fn plan(cmd: &RigCmd, view: &View) -> Plan {
    match plan_inner(cmd, view) {
        Ok(p) => p,
        Err(e) => fail(e),
    }
}

/// True for reads of the radio's settings, which a switched-off radio does not answer.
fn reads_the_radio(cmd: &RigCmd) -> bool {
    matches!(
        cmd,
        RigCmd::GetFreq
            | RigCmd::GetMode
            | RigCmd::GetPtt
            | RigCmd::GetSplitVfo
            | RigCmd::GetSplitFreq
            | RigCmd::GetSplitMode
            | RigCmd::GetLevel(_)
            | RigCmd::GetFunc(_)
            | RigCmd::GetVfoInfo(_)
    )
}

fn plan_inner(cmd: &RigCmd, v: &View) -> Result<Plan, RigError> {
    if v.radio.power_on == Some(false) && reads_the_radio(cmd) {
        return Err(RigError::PowerOff);
    }
    let scheme = v.scheme();
    let label = |i: u8| hamlib::vfo_label(scheme, i).to_string();
    Ok(match cmd {
        RigCmd::GetFreq => values(vec![("Frequency", reply::hz(v.freq(v.current())?))]),
        RigCmd::GetSplitFreq => values(vec![("TX Frequency", reply::hz(v.freq(other(v))?))]),
        RigCmd::GetMode => mode_values(v, v.current(), "Mode", "Passband")?,
        RigCmd::GetSplitMode => mode_values(v, other(v), "TX Mode", "TX Passband")?,
        RigCmd::GetVfo => values(vec![("VFO", label(v.current()))]),
        RigCmd::GetPtt => {
            let ptt = v.radio.ptt.ok_or_else(|| v.unknown())?;
            values(vec![("PTT", u8::from(ptt).to_string())])
        }
        RigCmd::GetSplitVfo => {
            let split = v.split().unwrap_or(false);
            values(vec![
                ("Split", u8::from(split).to_string()),
                ("TX VFO", label(v.tx())),
            ])
        }
        RigCmd::GetVfoInfo(name) => {
            let i = index(v, *name);
            let mode = v.mode(i)?;
            values(vec![
                ("Freq", reply::hz(v.freq(i)?)),
                ("Mode", mode.name.to_string()),
                ("Width", v.passband(i).to_string()),
                ("Split", u8::from(v.split() == Some(true)).to_string()),
                ("SatMode", "0".into()),
            ])
        }
        RigCmd::GetLevel(name) => get_level(v, name)?,
        RigCmd::GetFunc(name) => {
            let f = levels::func(name).ok_or(RigError::InvalidParam)?;
            if !levels::func_supported(f, v.profile) {
                return Err(RigError::NotAvailable);
            }
            let on = (f.read)(v.radio, v.rx_receiver()).ok_or_else(|| v.unknown())?;
            values(vec![("", u8::from(on).to_string())])
        }
        RigCmd::GetPowerstat => {
            // unknown (the link is down) answers "on", as Hamlib's netrigctl itself does
            // when a server cannot tell: 4.6 clients ask before anything else
            let off = v.radio.power_on == Some(false);
            let n = if off { POWER_OFF } else { POWER_ON };
            values(vec![("Power Status", n.to_string())])
        }
        RigCmd::GetLockMode => values(vec![("Locked", "0".into())]),
        RigCmd::DumpState => Plan::Reply(Reply::Text(dump_state(v.profile))),
        RigCmd::ChkVfo => Plan::Reply(Reply::ChkVfo(0)),
        RigCmd::Power2mW(p) => {
            let (lo, hi) = watts(v);
            let w = lo + (hi - lo) * p.clamp(0.0, 1.0);
            values(vec![(
                "Power mW",
                format!("{}", (w * 1000.0).round() as i64),
            )])
        }
        RigCmd::MW2Power(mw) => {
            let (lo, hi) = watts(v);
            let p = if hi > lo {
                ((mw / 1000.0 - lo) / (hi - lo)).clamp(0.0, 1.0)
            } else {
                0.0
            };
            values(vec![("Power [0.0..1.0]", reply::float(p))])
        }
        RigCmd::SetFreq(hz) => Plan::Steps(vec![set_freq(v, v.current(), *hz)?]),
        RigCmd::SetSplitFreq(hz) => {
            let mut steps = establish(v)?;
            steps.push(set_freq(v, other(v), *hz)?);
            Plan::Steps(steps)
        }
        RigCmd::SetMode(mode, passband) => Plan::Steps(set_mode(v, v.current(), mode, *passband)?),
        RigCmd::SetSplitMode(mode, passband) => {
            let mut steps = establish(v)?;
            steps.extend(set_mode(v, other(v), mode, *passband)?);
            Plan::Steps(steps)
        }
        RigCmd::SetVfo(name) => {
            let index = index(v, *name);
            let steps = if index == v.rx() {
                Vec::new()
            } else {
                establish(v)?
            };
            Plan::Current { index, steps }
        }
        RigCmd::SetSplitVfo(on, tx) => {
            if !on {
                Plan::Steps(vec![Step::new("set_split", obj(json!({"on": false})))])
            } else if !v.has_two() || (*tx != VfoName::Tx && index(v, *tx) == v.rx()) {
                return Err(RigError::InvalidVfo);
            } else {
                let mut steps = establish(v)?;
                steps.push(Step::new("set_split", obj(json!({"on": true}))));
                Plan::Steps(steps)
            }
        }
        RigCmd::SetPtt(on) => Plan::Ptt(*on),
        RigCmd::SetLevel(name, value) => Plan::Steps(vec![set_level(v, name, *value)?]),
        RigCmd::SetFunc(name, on) => {
            let f = levels::func(name).ok_or(RigError::InvalidParam)?;
            let params = with_target(v, f.cmd, obj((f.params)(*on)))?;
            Plan::Steps(vec![Step::new(f.cmd, params)])
        }
        RigCmd::VfoOp(op) => match op.as_str() {
            "CPY" => Plan::Steps(vec![Step::new("vfo_equalize", Map::new())]),
            "XCHG" => Plan::Steps(vec![Step::new("vfo_swap", Map::new())]),
            _ => return Err(RigError::NotAvailable),
        },
        RigCmd::SetPowerstat(on) => Plan::Power(*on),
        RigCmd::SetLockMode(false) => Plan::Reply(Reply::Done),
        RigCmd::SetLockMode(true) => return Err(RigError::NotAvailable),
        RigCmd::Quit => Plan::Quit,
    })
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The VFO that is not receiving.
fn other(v: &View) -> u8 {
    if v.has_two() { 1 - v.rx() } else { v.rx() }
}

/// The VFO index a client's name stands for.
fn index(v: &View, name: VfoName) -> u8 {
    match name {
        VfoName::First => 0,
        VfoName::Second if v.has_two() => 1,
        VfoName::Second => 0,
        VfoName::Current => v.current(),
        VfoName::Tx => v.tx(),
    }
}

/// The power range of the profile, W.
fn watts(v: &View) -> (f64, f64) {
    let p = &v.profile.power;
    (f64::from(p.min_watts), f64::from(p.max_watts))
}

/// Before addressing the other VFO of an A/B radio whose selection is unknown (the
/// radio cannot report it), select VFO A at the frequency the operator hears. VFO B's
/// frequency and mode are known from then on once a client has set them (`I`, `X`).
fn establish(v: &View) -> Result<Vec<Step>, RigError> {
    if v.scheme() != VfoScheme::Ab || v.selected().is_some() {
        return Ok(Vec::new());
    }
    let hz = v.freq(0)?;
    Ok(vec![Step::new(
        "set_freq",
        obj(json!({"vfo": "A", "freq": hz})),
    )])
}

/// The target parameters of VFO `i` an A/B radio will have once [`establish`] ran.
fn target_after_establish(v: &View, i: u8) -> Result<Map<String, Value>, RigError> {
    match v.target_params(i) {
        Err(RigError::NotAvailable) if v.scheme() == VfoScheme::Ab => {
            Ok(obj(json!({"vfo": if i == 0 { "A" } else { "B" }})))
        }
        r => r,
    }
}

fn set_freq(v: &View, i: u8, hz: u64) -> Result<Step, RigError> {
    let mut p = if i == v.rx() {
        v.target_params(i)?
    } else {
        target_after_establish(v, i)?
    };
    p.insert("freq".into(), json!(hz));
    Ok(Step::new("set_freq", p))
}

fn mode_values(
    v: &View,
    i: u8,
    mode_label: &'static str,
    width_label: &'static str,
) -> Result<Plan, RigError> {
    let m = v.mode(i)?;
    Ok(values(vec![
        (mode_label, m.name.to_string()),
        (width_label, v.passband(i).to_string()),
    ]))
}

/// `M`/`X`: the mode, the DATA mode (on radios that have it) and, for the receiving VFO,
/// a given passband as the IF filter width (clamped to the mode's range).
fn set_mode(v: &View, i: u8, name: &str, passband: i64) -> Result<Vec<Step>, RigError> {
    let m = hamlib::mode_by_name(name).ok_or(RigError::InvalidParam)?;
    if !hamlib::profile_has(v.profile, m) {
        return Err(RigError::InvalidParam);
    }
    let target = if i == v.rx() {
        v.target_params(i)?
    } else {
        target_after_establish(v, i)?
    };
    let with = |extra: Value| {
        let mut p = target.clone();
        p.extend(obj(extra));
        p
    };
    let mut first = with(json!({"mode": m.mode.name()}));
    if filter_unknown(v, i) {
        // the radio's `26` needs a filter: the receiving VFO's, as the radio would keep
        let f = v
            .target(v.rx())
            .and_then(|t| vfo_of(v.radio, t))
            .and_then(|x| x.2)
            .unwrap_or(1);
        first.insert("filter".into(), json!(format!("FIL{f}")));
    }
    let mut steps = vec![Step::new("set_mode", first)];
    if v.profile.has_feature(Feature::DataMode) {
        steps.push(Step::new(
            "set_data_mode",
            with(json!({"data": u8::from(m.data)})),
        ));
    }
    let range = civ::width_range(m.mode.code());
    if let (true, Some((lo, hi)), true) = (
        passband > 0,
        range,
        i == v.rx() && v.profile.has_feature(Feature::FilterWidth),
    ) {
        let hz = passband.clamp(i64::from(lo), i64::from(hi));
        steps.push(Step::new("set_filter_width", with(json!({"hz": hz}))));
    }
    Ok(steps)
}

/// True when VFO `i`'s filter is not known (the other VFO of an A/B radio nobody set).
fn filter_unknown(v: &View, i: u8) -> bool {
    v.target(i)
        .and_then(|t| vfo_of(v.radio, t))
        .is_none_or(|x| x.2.is_none())
}

/// Adds the receiving VFO's target to `params` if row `cmd` takes one.
fn with_target(
    v: &View,
    cmd: &str,
    mut params: Map<String, Value>,
) -> Result<Map<String, Value>, RigError> {
    let spec = table::spec(cmd).ok_or(RigError::NotAvailable)?;
    if spec.target == TargetKind::Receiver && v.scheme() == VfoScheme::MainSub {
        params.insert("receiver".into(), json!(v.rx_receiver()));
    }
    Ok(params)
}

/// The raw value of level `l` a pending set of the client holds, if any.
fn pending_gain(v: &View, cmd: &str) -> Option<i64> {
    let spec = table::spec(cmd)?;
    let Action::Write(ws) = spec.action else {
        return None;
    };
    let (_, id) = ws.iter().find(|(p, _)| *p == "level")?;
    let rx = if spec.target == TargetKind::Receiver {
        v.rx_receiver()
    } else {
        civ::Receiver::Main
    };
    v.overlay.write(*id, rx)
}

fn get_level(v: &View, name: &str) -> Result<Plan, RigError> {
    let l = levels::level(name).ok_or(RigError::InvalidParam)?;
    if !levels::readable(l, v.profile) {
        return Err(RigError::NotAvailable);
    }
    let r = v.radio;
    let rx = v.rx_receiver();
    let known = |x: Option<i64>| x.ok_or_else(|| v.unknown());
    let receiver = r.receiver(rx);
    let value = match l.source {
        LevelSource::Meter(MeterKind::Smeter, _) if rx == civ::Receiver::Sub => {
            return Ok(Plan::Meter(l, MeterKind::SmeterSub));
        }
        LevelSource::Meter(kind, _) => return Ok(Plan::Meter(l, kind)),
        LevelSource::Gain { cmd, read, .. } => {
            let raw = known(pending_gain(v, cmd).or(read(r, rx).map(i64::from)))?;
            return Ok(values(vec![("", reply::float(raw as f64 / 255.0))]));
        }
        LevelSource::Att => known(receiver.and_then(|x| x.settings.att).map(i64::from))?,
        LevelSource::Preamp => known(receiver.and_then(|x| x.settings.preamp).map(i64::from))? * 10,
        LevelSource::Agc => known(
            receiver
                .and_then(|x| x.settings.agc)
                .map(levels::agc_number),
        )?,
        LevelSource::KeySpeed => known(r.settings.cw_speed.map(i64::from))?,
    };
    Ok(values(vec![("", value.to_string())]))
}

/// The answer to level `l` from meter reading `raw` (`None`: the meter pump has not read
/// it; a TX meter is only read while transmitting, so it reads 0 on receive).
pub fn meter_reply(l: &LevelDef, raw: Option<u16>, v: &View) -> Reply {
    let LevelSource::Meter(_, unit) = l.source else {
        return Reply::Failed(RigError::NotAvailable);
    };
    let Some(raw) = raw else {
        return Reply::Failed(v.unknown());
    };
    let value = levels::meter_value(unit, raw, v.profile.power.max_watts);
    let text = match unit {
        MeterUnit::DbOverS9 | MeterUnit::Raw => format!("{}", value as i64),
        _ => reply::float(value),
    };
    Reply::Values(vec![("", text)])
}

fn set_level(v: &View, name: &str, value: f64) -> Result<Step, RigError> {
    let l = levels::level(name).ok_or(RigError::InvalidParam)?;
    let cmd = levels::set_command(l).ok_or(RigError::NotAvailable)?;
    if !levels::settable(l, v.profile) {
        return Err(RigError::NotAvailable);
    }
    let rx = v.rx_receiver();
    let params = match l.source {
        LevelSource::Gain { on, .. } => {
            if !(0.0..=1.0).contains(&value) {
                return Err(RigError::InvalidParam);
            }
            let raw = (value * 255.0).round() as i64;
            let mut p = obj(json!({"level": raw}));
            if let Some(on) = on {
                let now = on(v.radio, rx).unwrap_or(raw > 0);
                p.insert("on".into(), json!(now));
            }
            p
        }
        LevelSource::Att => obj(json!({"db": value.round() as i64})),
        LevelSource::Preamp => obj(json!({"level": (value / 10.0).round() as i64})),
        LevelSource::Agc => {
            let choice = levels::agc_choice(value.round() as i64).ok_or(RigError::InvalidParam)?;
            obj(json!({"mode": choice.name()}))
        }
        LevelSource::KeySpeed => obj(json!({"wpm": value.round() as i64})),
        LevelSource::Meter(..) => return Err(RigError::NotAvailable),
    };
    Ok(Step::new(cmd, with_target(v, cmd, params)?))
}

#[cfg(test)]
mod tests;
