// Operating controls from the command catalogue (`GET /api/v1/commands`): which widget
// each parameter gets, where its current value lives in the state, and what a change
// sends. While the server has no catalogue, a minimal one is made from the capabilities
// for the commands every server has (power, ATT, preamp, VFO swap / equalize).

/** Commands the page drives through its own panels, not the generic controls. */
export const CORE_COMMANDS = new Set(['set_freq', 'set_mode', 'set_filter', 'ptt', 'set_band']);

const TARGET_PARAMS = new Set(['vfo', 'receiver']);
/** What a command addresses: a receiver (the tuned one), the receiver the scope shows, or
 * nothing (`none`). */
const TARGETS = new Set(['receiver', 'scope_receiver']);

/** Short labels and panel groups of the commands docs/API.md names. */
const KNOWN = {
  set_af_gain: ['AF gain', 'rx'],
  set_rf_gain: ['RF gain', 'rx'],
  set_squelch: ['Squelch', 'rx'],
  set_agc: ['AGC', 'rx'],
  set_nb: ['NB', 'rx'],
  set_nr: ['NR', 'rx'],
  set_auto_notch: ['Notch', 'rx'],
  set_filter_width: ['Width', 'rx'],
  set_data_mode: ['Data', 'rx'],
  set_att: ['ATT', 'rx'],
  set_preamp: ['Preamp', 'rx'],
  set_split: ['Split', 'vfo'],
  set_dual_watch: ['Dual watch', 'vfo'],
  set_rit: ['RIT', 'vfo'],
  vfo_swap: ['Swap', 'vfo'],
  vfo_equalize: ['Equalize', 'vfo'],
  set_power: ['Power', 'tx'],
  set_mic_gain: ['Mic gain', 'tx'],
  set_comp: ['Comp', 'tx'],
  set_tuner: ['Tuner', 'tx'],
  set_cw_speed: ['CW speed', 'cw'],
  send_cw: ['Send CW', 'cw'],
  stop_cw: ['Stop CW', 'cw'],
  set_scope: ['Scope', 'scope'],
};

/** Display names of values the catalogue gives without labels. */
const VALUE_LABELS = {
  'set_scope.mode': ['Center', 'Fixed', 'Scroll-C', 'Scroll-F'],
  'set_preamp.level': ['Off', 'P1', 'P2'],
  'set_data_mode.data': ['Off', 'D1', 'D2', 'D3'],
};

function titleCase(s) {
  const t = String(s).replace(/^set_/, '').replace(/_/g, ' ');
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** Display names of parameters. */
const PARAM_TITLES = { span_hz: 'Span', ref_db: 'Ref', hz: 'Width', wpm: 'WPM', offset_hz: 'Offset', level: 'Level' };

function valueLabel(cmd, param, v) {
  const known = VALUE_LABELS[`${cmd}.${param.name}`];
  if (known && Number.isInteger(v) && known[v] !== undefined) return known[v];
  if (cmd === 'set_att') return v === 0 ? 'Off' : `${v} dB`;
  if (param.name === 'span_hz' && typeof v === 'number') return v >= 1e6 ? `±${v / 1e6}M` : v >= 1000 ? `±${v / 1000}k` : `±${v}`;
  if (typeof v === 'string') return v.charAt(0).toUpperCase() + v.slice(1);
  if (param.unit) return `${v} ${param.unit}`;
  return String(v);
}

/** The widget of one parameter: `toggle` (boolean), `choice` (a few values), `select`
 * (many values), `slider` (a number range), `text`, or null when it cannot be shown. */
export function widgetOf(param) {
  if (param.type === 'boolean') return 'toggle';
  if (Array.isArray(param.values)) return param.values.length <= 5 ? 'choice' : 'select';
  if ((param.type === 'integer' || param.type === 'number') && Number.isFinite(param.min) && Number.isFinite(param.max)) {
    return 'slider';
  }
  if (param.type === 'string') return 'text';
  return null;
}

/** A small integer range (at most five values, e.g. DATA 0..3) becomes a list of values,
 * shown as buttons rather than a slider. */
function withSmallRange(p) {
  const small = p.type === 'integer' && !Array.isArray(p.values) && Number.isInteger(p.min)
    && Number.isInteger(p.max) && p.max - p.min <= 4 && !(p.step > 1);
  if (!small) return p;
  const values = [];
  for (let v = p.min; v <= p.max; v++) values.push(v);
  return { ...p, values };
}

/** Control descriptors for the catalogue's commands: `{cmd, label, group, target,
 * description, params: [{name, widget, required, min, max, step, unit, values, labels,
 * statePath, byMode}]}`. Commands with no value parameter become actions. */
export function controlsFromCatalogue(catalogue) {
  const out = [];
  for (const c of (catalogue && catalogue.commands) || []) {
    if (!c || typeof c.name !== 'string' || CORE_COMMANDS.has(c.name)) continue;
    const [label, group] = KNOWN[c.name] || [titleCase(c.name), c.target === 'receiver' ? 'rx' : 'other'];
    const params = [];
    let unusable = false;
    for (const raw of c.params || []) {
      if (TARGET_PARAMS.has(raw.name)) continue;
      const p = withSmallRange(raw);
      const widget = widgetOf(p);
      if (!widget) {
        if (p.required) unusable = true;
        continue;
      }
      const values = Array.isArray(p.values) ? p.values : null;
      params.push({
        name: p.name,
        title: PARAM_TITLES[p.name] || titleCase(p.name),
        widget,
        required: !!p.required,
        min: p.min,
        max: p.max,
        step: p.step || (p.type === 'integer' ? 1 : undefined),
        unit: p.unit || '',
        values,
        labels: values ? values.map((v, i) => (p.labels && p.labels[i]) || valueLabel(c.name, p, v)) : null,
        maxLength: p.maxLength,
        statePath: c.state ? c.state[p.name] || null : null,
        byMode: p.name === 'hz' ? c.byMode || null : null,
      });
    }
    if (unusable) continue;
    out.push({
      cmd: c.name,
      label,
      group,
      target: TARGETS.has(c.target) ? c.target : 'none',
      // whether the catalogue lets this command name its receiver (two-receiver radios)
      addressable: (c.params || []).some((p) => p && p.name === 'receiver'),
      rateLimited: !!c.rateLimited,
      description: c.description || '',
      params,
      kind: params.length === 0 ? 'action' : 'params',
    });
  }
  return out;
}

/** The parameters that address a control's command: the scope's receiver for scope
 * commands (`scope_receiver`, and receiver commands of the scope group) where the
 * catalogue lets them name one, the tuned receiver's `rxParams` (`{receiver}` or `{vfo}`)
 * for receiver commands, else none. */
export function commandTarget(desc, rxParams, scopeReceiver) {
  const scopeCmd = desc.target === 'scope_receiver' || (desc.target === 'receiver' && desc.group === 'scope');
  if (scopeCmd) return desc.addressable ? { receiver: scopeReceiver } : {};
  if (desc.target === 'receiver') return { ...(rxParams || {}) };
  return {};
}

/** A catalogue in the `GET /api/v1/commands` shape for the commands of servers that
 * have no catalogue yet, from what the capabilities say the radio has. */
export function fallbackCatalogue(caps) {
  const tags = new Set((caps && caps.tags) || []);
  const rx = (extra) => [
    ...extra,
    { name: 'receiver', type: 'integer', required: false, min: 0, max: Math.max(0, ((caps && caps.receivers) || 1) - 1) },
  ];
  const commands = [];
  if (tags.has('power_control') || (caps && caps.power)) {
    commands.push({
      name: 'set_power', description: 'RF output power level', target: 'none', rateLimited: true,
      params: [{ name: 'level', type: 'integer', required: true, min: 0, max: 255 }],
      state: { level: 'power' },
    });
  }
  const att = (caps && caps.attValues) || [];
  if (att.length > 1) {
    commands.push({
      name: 'set_att', description: 'Attenuator', target: 'receiver', rateLimited: true,
      params: rx([{ name: 'db', type: 'integer', required: true, values: att }]),
      state: { db: 'att' },
    });
  }
  const pre = (caps && caps.preampValues) || [];
  if (pre.length > 1) {
    commands.push({
      name: 'set_preamp', description: 'Preamplifier', target: 'receiver', rateLimited: true,
      params: rx([{ name: 'level', type: 'integer', required: true, values: pre }]),
      state: { level: 'preamp' },
    });
  }
  commands.push({ name: 'vfo_swap', description: 'Swap the VFOs', target: 'none', params: [] });
  commands.push({ name: 'vfo_equalize', description: 'Copy the selected VFO to the other', target: 'none', params: [] });
  return { model: caps && caps.model, commands, fallback: true };
}

/** The parameters a change of `paramName` to `value` sends: that value, plus the
 * current values of the command's other required parameters (read with `current`). */
export function paramsFor(desc, paramName, value, current) {
  const out = { [paramName]: value };
  for (const p of desc.params) {
    if (p.name === paramName || !p.required) continue;
    let v = current(p);
    if (v === null || v === undefined) {
      v = p.widget === 'toggle' ? false : p.values ? p.values[0] : p.min;
    }
    out[p.name] = v;
  }
  return out;
}

/** The slider range of a parameter for `mode` (per-mode ranges of `byMode`). */
export function rangeFor(param, mode) {
  const m = param.byMode && param.byMode[mode];
  return {
    min: m && Number.isFinite(m.min) ? m.min : param.min,
    max: m && Number.isFinite(m.max) ? m.max : param.max,
    step: m && m.step ? m.step : param.step || 1,
  };
}

/** A slider value as text: watts for the power level, percent for 0..255 levels, else
 * the value with its unit. */
export function sliderText(desc, param, v, caps) {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  if (desc.cmd === 'set_power' && caps && caps.power) {
    const { minWatts = 0, maxWatts = 100, levelMax = 255 } = caps.power;
    const w = minWatts + (v / levelMax) * (maxWatts - minWatts);
    return `${w < 10 ? w.toFixed(1) : Math.round(w)} W`;
  }
  if (param.unit) return `${v} ${param.unit}`;
  if (param.min === 0 && param.max === 255) return `${Math.round((v / 255) * 100)} %`;
  return String(v);
}
