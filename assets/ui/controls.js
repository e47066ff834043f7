// The operating controls, built from the command catalogue: one row
// per command in the panel of its group, a widget per parameter, values read back from
// the state (a value the radio has not reported shows "—"), changes sent as commands.
import { h, setText, throttle } from './dom.js';
import { getPath } from './protocol.js';
import { paramsFor, rangeFor, sliderText, offsetText, offsetBy } from './catalogue.js';
import { WheelSteps } from './wheel.js';

/** Sliders send at most this often while dragged (the server keeps the last). */
const SLIDER_MS = 80;
/** After a change, the widget ignores the state for this long (the echo is on its way). */
const HOLD_MS = 1200;

export class ControlsView {
  /** `containers`: group -> element; `hooks.send(desc, params)` returns a promise,
   * `hooks.context()` gives `{state, rxKey, mode, scopeReceiver}`, `hooks.changed()` asks for a redraw
   * (when a hold ends), `hooks.cwSent(text)` / `hooks.cwStopped()` follow the keyer. */
  constructor(containers, hooks) {
    this.containers = containers;
    this.hooks = hooks;
    this.items = [];
    this.caps = {};
  }

  /** Builds the controls; returns the groups that got any. */
  build(descs, caps) {
    this.caps = caps;
    for (const c of Object.values(this.containers)) c.replaceChildren();
    this.items = [];
    const actionRows = {};
    const used = new Set();
    for (const d of descs) {
      const box = this.containers[d.group] || this.containers.other;
      const group = this.containers[d.group] ? d.group : 'other';
      used.add(group);
      if (d.kind === 'action') {
        if (!actionRows[group]) {
          actionRows[group] = h('div', { class: 'ctl actions' });
          box.append(actionRows[group]);
        }
        const b = h('button', { type: 'button', text: d.label, title: d.description, dataset: { cmd: d.cmd } });
        b.addEventListener('click', () => {
          this.hooks.send(d, {}).catch(() => {});
          if (d.cmd === 'stop_cw' && this.hooks.cwStopped) this.hooks.cwStopped();
        });
        actionRows[group].append(b);
        continue;
      }
      const item = { desc: d, widgets: [], held: -Infinity, holdTimer: null };
      const val = h('span', { class: 'val' });
      item.val = val;
      const compact = group === 'scope';
      const inline = h('div', { class: 'inline' });
      for (const p of d.params) {
        const w = this.widget(item, p);
        // a toolbar names each parameter (a toggle names itself) and shows a slider's value
        const shown = compact && p.widget === 'slider' && !item.compactVal ? (item.compactVal = val) : null;
        inline.append(compact && p.widget !== 'toggle' ? h('label', { title: d.description }, p.title, w, shown) : w);
      }
      const row = compact
        ? h('span', { class: 'inline', title: d.description, dataset: { cmd: d.cmd } }, inline)
        : h('div', { class: 'ctl', title: d.description, dataset: { cmd: d.cmd } }, h('span', { class: 'lbl', text: d.label }), inline, val);
      item.row = row;
      box.append(row);
      this.items.push(item);
    }
    return used;
  }

  widget(item, p) {
    const d = item.desc;
    const current = () => this.current(item, p);
    const send = (v) => {
      this.hold(item);
      return this.hooks.send(d, paramsFor(d, p.name, v, (q) => this.current(item, q)));
    };
    let el;
    let set;
    if (p.widget === 'toggle') {
      const text = d.params.length === 1 ? 'On' : p.name === 'on' ? d.label : p.title;
      el = h('button', { class: 'small', type: 'button', text, attrs: { 'aria-pressed': 'false' } });
      el.addEventListener('click', () => {
        const next = el.getAttribute('aria-pressed') !== 'true';
        el.setAttribute('aria-pressed', String(next));
        send(next);
      });
      set = (v) => el.setAttribute('aria-pressed', String(v === true));
    } else if (p.widget === 'slider') {
      el = h('input', { type: 'range', min: p.min, max: p.max, step: p.step || 1, attrs: { 'aria-label': `${d.label} ${p.name}` } });
      const live = throttle((v) => send(v), SLIDER_MS);
      el.addEventListener('input', () => {
        this.hold(item);
        this.showValue(item, p, +el.value);
        live(+el.value);
      });
      el.addEventListener('change', () => send(+el.value));
      el.title = `${d.label}: ${p.title}`;
      set = (v, mode) => {
        const r = rangeFor(p, mode);
        if (+el.min !== r.min) el.min = r.min;
        if (+el.max !== r.max) el.max = r.max;
        if (+el.step !== r.step) el.step = r.step;
        if (v !== null && v !== undefined && +el.value !== v) el.value = v;
      };
    } else if (p.widget === 'choice') {
      el = h('div', { class: 'seg' });
      p.values.forEach((v, i) => {
        const b = h('button', { class: 'small', type: 'button', text: p.labels[i], dataset: { v: String(v) }, attrs: { 'aria-pressed': 'false' } });
        b.addEventListener('click', () => {
          for (const x of el.children) x.setAttribute('aria-pressed', String(x === b));
          send(v);
        });
        el.append(b);
      });
      set = (v) => {
        for (const x of el.children) x.setAttribute('aria-pressed', String(x.dataset.v === String(v)));
      };
    } else if (p.widget === 'select') {
      el = h('select', { attrs: { 'aria-label': d.label } }, ...p.values.map((v, i) => h('option', { value: String(v), text: p.labels[i] })));
      el.addEventListener('change', () => send(p.values[el.selectedIndex]));
      set = (v) => {
        // an unknown value selects nothing rather than keep a stale choice
        const i = p.values.findIndex((x) => x === v);
        if (el.selectedIndex !== i) el.selectedIndex = i;
      };
    } else if (p.widget === 'offset') {
      ({ el, set } = this.offsetWidget(item, p, send));
    } else {
      const input = h('input', { type: 'text', maxLength: p.maxLength || 64, placeholder: d.cmd === 'send_cw' ? 'CQ TEST' : p.name, attrs: { 'aria-label': d.label, autocomplete: 'off', spellcheck: 'false' } });
      const go = h('button', { class: 'small', type: 'button', text: 'Send' });
      const submit = () => {
        const text = input.value.trim();
        if (!text) return;
        const sent = d.cmd === 'send_cw' ? text.toUpperCase() : text;
        send(sent).then(() => {
          input.value = '';
          if (d.cmd === 'send_cw' && this.hooks.cwSent) this.hooks.cwSent(sent);
        }, () => {});
      };
      go.addEventListener('click', submit);
      input.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter') submit();
      });
      el = h('div', { class: 'inline' }, input, go);
      set = () => {};
    }
    item.widgets.push({ p, el, set, current });
    return el;
  }

  /** An offset (RIT/XIT): its value as text that the wheel and the arrow keys move in
   * 10 Hz steps (×10 with Shift, PageUp/PageDown), and a Clear that sends 0. */
  offsetWidget(item, p, send) {
    const d = item.desc;
    let value = null;
    const out = h('span', {
      class: 'offset', tabIndex: 0, text: '—', title: `${d.label}: wheel or ↑↓ in 10 Hz steps`,
      attrs: { role: 'spinbutton', 'aria-label': `${d.label} ${p.title}`, 'aria-valuemin': String(p.min), 'aria-valuemax': String(p.max) },
    });
    const show = (v) => {
      value = v;
      setText(out, offsetText(v));
      out.setAttribute('aria-valuetext', offsetText(v));
      if (Number.isFinite(v)) out.setAttribute('aria-valuenow', String(v));
      else out.removeAttribute('aria-valuenow');
    };
    const live = throttle((v) => send(v), SLIDER_MS);
    const move = (steps) => {
      const v = offsetBy(value, steps, p.min, p.max);
      show(v);
      this.hold(item);
      live(v);
    };
    const wheel = new WheelSteps();
    out.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const n = wheel.add(ev.deltaY ? -ev.deltaY : ev.deltaX, ev.deltaMode, ev.timeStamp);
      if (n) move(n * (ev.shiftKey ? 10 : 1));
    }, { passive: false });
    out.addEventListener('keydown', (ev) => {
      const steps = { ArrowUp: 1, ArrowRight: 1, ArrowDown: -1, ArrowLeft: -1, PageUp: 10, PageDown: -10 }[ev.key];
      if (steps === undefined && ev.key !== 'Delete' && ev.key !== 'Backspace') return;
      // the page's shortcuts (↑↓ change band) stay out of it
      ev.preventDefault();
      ev.stopPropagation();
      if (steps === undefined) {
        show(0);
        send(0);
      } else {
        move(steps * (ev.shiftKey ? 10 : 1));
      }
    });
    const clear = h('button', { class: 'small', type: 'button', text: 'Clear', title: `${d.label}: offset 0 Hz`, attrs: { 'aria-label': `Clear ${d.label}` } });
    clear.addEventListener('click', () => {
      show(0);
      send(0);
    });
    return { el: h('span', { class: 'inline offset-box' }, out, clear), set: (v) => show(v) };
  }

  /** A change was sent: the widget keeps its value for HOLD_MS, then reads the state
   * again (a redraw is asked for then, whether or not the state moved). */
  hold(item) {
    item.held = performance.now();
    clearTimeout(item.holdTimer);
    item.holdTimer = setTimeout(() => this.hooks.changed(), HOLD_MS + 20);
  }

  /** Forgets the holds of a group's controls (their target changed: the scope shows
   * another receiver). */
  releaseHolds(group) {
    for (const item of this.items) {
      if (item.desc.group === group) {
        item.held = -Infinity;
        clearTimeout(item.holdTimer);
      }
    }
  }

  /** The current value of a parameter from the state (null: unknown). The scope's
   * settings in the state are those of the receiver it names (`scope.receiver`): for the
   * other receiver's scope they are unknown, not the ones on record. */
  current(item, p) {
    const { state, rxKey, scopeReceiver } = this.hooks.context();
    if (!p.statePath || !state) return null;
    const scopeState = item.desc.group === 'scope' && state.scope && Number.isInteger(state.scope.receiver);
    if (scopeState && state.scope.receiver !== scopeReceiver) return null;
    // receiver commands name fields of the receiver object; a root path ("scope.spanHz")
    // is read from the root
    let v = item.desc.target === 'receiver' ? getPath(state[rxKey], p.statePath) : undefined;
    if (v === undefined) v = getPath(state, p.statePath);
    return v === undefined ? null : v;
  }

  showValue(item, p, v) {
    if (p.widget === 'slider') setText(item.val, sliderText(item.desc, p, v, this.caps));
    else if (p.widget === 'offset') setText(item.val, '');
  }

  /** Reads every control's value back from the state. */
  update() {
    const { mode } = this.hooks.context();
    const now = performance.now();
    for (const item of this.items) {
      const held = now - item.held < HOLD_MS;
      let known = false;
      let shown = false;
      for (const w of item.widgets) {
        const v = w.current();
        if (v !== null) known = true;
        if (!held) w.set(v, mode);
        if (w.p.widget === 'slider' && !shown) {
          shown = true;
          if (!held) this.showValue(item, w.p, v);
        }
      }
      if (!shown && item.desc.params.some((p) => p.widget === 'toggle')) {
        const t = item.widgets.find((w) => w.p.widget === 'toggle');
        setText(item.val, t.current() === null ? '—' : t.current() ? 'on' : 'off');
      }
      item.row.classList.toggle('unknown', !known && item.desc.params.some((p) => p.statePath));
    }
  }
}
