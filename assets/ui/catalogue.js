// Operating controls from the command catalogue (`GET /api/v1/commands`): which widget
// each parameter gets, where its current value lives in the state, and what a change
// sends. The catalogue names each command's label and panel group, each parameter's
// title and the display names of its values; the page adds only generic formatting.

/** Commands the page drives through its own panels, not the generic controls (the
 * memory panel's among them). */
export const CORE_COMMANDS = new Set(['set_freq', 'set_mode', 'set_filter', 'ptt', 'set_band', 'list_memories', 'recall_memory', 'store_memory']);

const TARGET_PARAMS = new Set(['vfo', 'receiver']);
/** What a command addresses: a receiver (the tuned one), the receiver the scope shows, or
 * nothing (`none`). */
const TARGETS = new Set(['receiver', 'scope_receiver']);

function titleCase(s) {
  const t = String(s).replace(/^set_/, '').replace(/_/g, ' ');
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** A value without a label of the catalogue: a name capitalised, a number with its unit. */
function valueLabel(param, v) {
  if (typeof v === 'string') return v.charAt(0).toUpperCase() + v.slice(1);
  if (param.unit) return `${v} ${param.unit}`;
  return String(v);
}

/** The widget of one parameter: `toggle` (boolean), `choice` (a few values), `select`
 * (many values), `offset` (a Hz offset either side of zero, e.g. RIT/XIT: tuned in
 * fixed steps, with a clear), `slider` (a number range), `text`, or null when it cannot
 * be shown. */
export function widgetOf(param) {
  if (param.type === 'boolean') return 'toggle';
  if (param.type === 'integer' && param.unit === 'Hz' && param.min < 0 && param.max > 0 && !Array.isArray(param.values)) return 'offset';
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
    const label = c.label || titleCase(c.name);
    const group = c.group || 'other';
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
        title: p.title || titleCase(p.name),
        widget,
        required: !!p.required,
        min: p.min,
        max: p.max,
        step: p.step || (p.type === 'integer' ? 1 : undefined),
        unit: p.unit || '',
        values,
        labels: values ? values.map((v, i) => (p.labels && p.labels[i]) || valueLabel(p, v)) : null,
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

/** An offset in steps of this many Hz (the wheel and the arrow keys; ×10 with Shift or
 * PageUp/PageDown). */
export const OFFSET_STEP_HZ = 10;

/** An offset as text: "+120 Hz", "0 Hz", "—" when unknown. */
export function offsetText(v) {
  if (!Number.isFinite(v)) return '—';
  return `${v > 0 ? '+' : ''}${v} Hz`;
}

/** `v` moved by `steps` offset steps, on the step grid and inside `[min, max]`. */
export function offsetBy(v, steps, min, max) {
  const base = Number.isFinite(v) ? Math.round(v / OFFSET_STEP_HZ) * OFFSET_STEP_HZ : 0;
  return Math.max(min, Math.min(max, base + steps * OFFSET_STEP_HZ));
}

/** The memory panel's commands, when the catalogue has them: `{list, recall, store,
 * first, last}` (the channel range from `recall_memory`'s parameter), else null. */
export function memoryCommands(catalogue) {
  const rows = new Map(((catalogue && catalogue.commands) || []).map((c) => [c && c.name, c]));
  const list = rows.get('list_memories');
  const recall = rows.get('recall_memory');
  if (!list || !recall) return null;
  const ch = (recall.params || []).find((p) => p.name === 'channel') || {};
  const first = Number.isInteger(ch.min) ? ch.min : Array.isArray(ch.values) ? Math.min(...ch.values) : 1;
  const last = Number.isInteger(ch.max) ? ch.max : Array.isArray(ch.values) ? Math.max(...ch.values) : first;
  return { list: true, recall: true, store: rows.has('store_memory'), first, last };
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
