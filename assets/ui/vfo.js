// The VFO panel: a large frequency display per VFO (MAIN/SUB or A/B) with digit-wise
// tuning — the wheel over a digit, a click then ↑↓ (←→ move, 0-9 type), a tap on the
// upper or lower half of a digit on touch screens — and typed entry; mode, filter and
// level badges; and the receiver's S-meter. A frequency the radio has not reported is
// drawn as greyed dashes, never as a number. For screen readers each display is one
// spin button named with the frequency as text (the digits are hidden from them; ↑↓
// tune it by the step), and a copy while it has the focus copies that text.
import { h, setText } from './dom.js';
import { freqDigits, freqText, parseFreq } from './freq.js';
import { SMeterBar } from './meters.js';
import { WheelSteps } from './wheel.js';

export class VfoPanel {
  /** `hooks`: `tune(key, hz)`, `select(key)`, `toast(msg)`. */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.cards = new Map();
    this.order = '';
    this.digits = 8;
    this.cursor = null; // {key, index}
    this.values = new Map();
    this.wheelSteps = new WheelSteps();
  }

  /** Digits shown (from the highest frequency the radio tunes). */
  setDigitCount(n) {
    if (n === this.digits) return;
    this.digits = n;
    this.order = '';
  }

  /** `list`: `[{key, name, cls, freqHz, badges: [{text, cls}], meter: name|null}]`. */
  update(list, targetKey) {
    const order = list.map((v) => v.key).join(',');
    if (order !== this.order) this.build(list);
    for (const b of this.selector.children) b.setAttribute('aria-checked', String(b.dataset.key === targetKey));
    list.forEach((v, i) => {
      const card = this.cards.get(v.key);
      card.el.classList.toggle('target', v.key === targetKey && list.length > 1);
      card.el.classList.toggle('primary', i === 0);
      card.el.classList.toggle('secondary', i > 0);
      setText(card.name, v.name);
      // a VFO that is not a receiver of its own (B of an A/B radio) has no S-meter
      card.foot.hidden = !v.meter;
      this.values.set(v.key, v.freqHz);
      this.renderDigits(card, v.key, v.freqHz);
      const bt = v.badges.map((b) => `${b.cls}:${b.text}`).join('|');
      if (card.badgeText !== bt) {
        card.badgeText = bt;
        // each badge says what it is to a screen reader ("Mode USB")
        card.badges.replaceChildren(...v.badges.map((b) => h('span', {
          class: `badge ${b.cls || ''}`, title: b.title || '', text: b.text,
          attrs: { role: 'listitem', 'aria-label': b.title ? `${b.title} ${b.text}` : b.text },
        })));
      }
    });
  }

  /** Updates an S-meter (by VFO key); `raw` null when there is no live reading. */
  smeter(key, raw) {
    const card = this.cards.get(key);
    if (card) card.meter.update(raw);
  }

  /** What a screen reader is told on request: each VFO's frequency, mode and S-meter. */
  summary(list) {
    return list.map((v) => {
      const card = this.cards.get(v.key);
      const mode = v.badges.find((b) => b.title === 'Mode');
      const s = card && v.meter ? `, ${card.meter.text()}` : '';
      return `${v.name} ${freqText(v.freqHz)}${mode ? `, ${mode.text}` : ''}${s}`;
    }).join('. ');
  }

  build(list) {
    this.root.replaceChildren();
    this.cards.clear();
    this.order = list.map((v) => v.key).join(',');
    // A/B radios: which VFO the page tunes, as a choice of its own
    const ab = list.length > 1 && list.every((v) => v.key === 'A' || v.key === 'B');
    this.selector = h('div', { class: 'ab-select', hidden: !ab, attrs: { role: 'radiogroup', 'aria-label': 'Tune VFO' } },
      ...(ab ? ['A', 'B'] : []).map((k) => h('button', {
        type: 'button', class: 'small', text: k, title: `Tune VFO ${k}`, dataset: { key: k },
        attrs: { role: 'radio', 'aria-checked': 'false', 'aria-label': `Tune VFO ${k}` }, on: { click: () => this.hooks.select(k) },
      })));
    for (const v of list) {
      const name = h('span', { class: 'vfo-name' });
      const badges = h('span', { class: 'vfo-head', style: { gap: '4px' }, attrs: { role: 'list', 'aria-label': `${v.name} settings` } });
      const freq = h('div', {
        class: 'freq', tabIndex: 0,
        attrs: { role: 'spinbutton', 'aria-label': `${v.name} frequency`, 'aria-roledescription': 'frequency' },
      });
      const digitEls = [];
      const digits = h('span', { class: 'digits', attrs: { 'aria-hidden': 'true' } });
      freqDigits(0, this.digits).forEach((d, i) => {
        const el = h('span', { class: 'd', text: '-', dataset: { i: String(i) } });
        digitEls.push(el);
        digits.append(el);
        if (d.sep) digits.append(h('span', { class: 'sep', text: '.' }));
      });
      freq.append(digits, h('span', { class: 'unit', text: 'MHz', attrs: { 'aria-hidden': 'true' } }));
      const meter = new SMeterBar(`${v.name} S-meter`);
      const foot = h('div', { class: 'vfo-foot' }, meter.el, meter.readout);
      const head = h('div', { class: 'vfo-head' }, name, badges);
      if (ab && v === list[0]) head.append(this.selector);
      const el = h('div', { class: `vfo ${v.cls}`, dataset: { key: v.key }, attrs: { role: 'group', 'aria-label': v.name } },
        head, freq, foot);
      const card = { el, name, badges, freq, digitEls, meter, foot, label: v.name, badgeText: '', shown: '' };
      this.cards.set(v.key, card);
      this.bindCard(card, v.key);
      this.root.append(el);
    }
  }

  renderDigits(card, key, hz) {
    const known = Number.isFinite(hz);
    const sig = `${hz}|${this.cursor && this.cursor.key === key ? this.cursor.index : -1}`;
    if (card.shown === sig) return;
    card.shown = sig;
    // unknown (null): greyed dashes, and "unknown" to a screen reader
    card.freq.classList.toggle('unknown', !known);
    // the name carries the frequency too: every screen reader (and the accessibility
    // tree) gets it as one piece of text
    card.freq.setAttribute('aria-label', `${card.label} frequency ${freqText(hz)}`);
    card.freq.setAttribute('aria-valuetext', freqText(hz));
    if (known) card.freq.setAttribute('aria-valuenow', String(Math.round(hz)));
    else card.freq.removeAttribute('aria-valuenow');
    const ds = freqDigits(known ? hz : 0, this.digits);
    ds.forEach((d, i) => {
      const el = card.digitEls[i];
      setText(el, known ? d.ch : '-');
      el.classList.toggle('lead', known && d.lead);
      el.classList.toggle('cursor', !!this.cursor && this.cursor.key === key && this.cursor.index === i);
    });
  }

  place(i) {
    return 10 ** (this.digits - 1 - i);
  }

  bindCard(card, key) {
    card.el.addEventListener('pointerdown', (ev) => {
      if (!ev.target.closest('.freq')) this.hooks.select(key);
    });
    card.freq.addEventListener('wheel', (ev) => {
      const d = ev.target.closest('.d');
      if (!d) return;
      ev.preventDefault();
      // a trackpad's many small deltas add up to steps (see wheel.js)
      const n = this.wheelSteps.add(ev.deltaY ? -ev.deltaY : ev.deltaX, ev.deltaMode, ev.timeStamp);
      if (n) this.tuneBy(key, n * this.place(+d.dataset.i));
    }, { passive: false });
    card.freq.addEventListener('pointerup', (ev) => {
      const d = ev.target.closest('.d');
      this.hooks.select(key);
      if (!d) {
        this.startEntry(card, key);
        return;
      }
      const i = +d.dataset.i;
      if (ev.pointerType === 'touch' || ev.pointerType === 'pen') {
        // upper half tunes the digit up, lower half down
        const r = d.getBoundingClientRect();
        const dir = ev.clientY < r.top + r.height / 2 ? 1 : -1;
        this.tuneBy(key, dir * this.place(i));
        return;
      }
      this.cursor = this.cursor && this.cursor.key === key && this.cursor.index === i ? null : { key, index: i };
      card.shown = '';
      this.renderDigits(card, key, this.values.get(key));
      card.freq.focus({ preventScroll: true });
    });
    card.freq.addEventListener('dblclick', () => this.startEntry(card, key));
    card.freq.addEventListener('copy', (ev) => {
      // the frequency as one piece of text, not a digit per line
      ev.preventDefault();
      ev.clipboardData.setData('text/plain', freqText(this.values.get(key)));
    });
    card.freq.addEventListener('blur', () => {
      if (this.cursor && this.cursor.key === key) {
        this.cursor = null;
        card.shown = '';
        this.renderDigits(card, key, this.values.get(key));
      }
    });
  }

  /** Tunes VFO `key` by `dHz` from its shown frequency (nothing while that is unknown). */
  tuneBy(key, dHz) {
    const hz = this.values.get(key);
    if (Number.isFinite(hz)) this.hooks.tune(key, hz + dHz);
  }

  /** Handles a key while a digit is selected, or an arrow key on a focused display
   * (a spin button: ↑↓ tune by `step`); true when it was used. */
  handleKey(ev, step) {
    const focused = ev.target && ev.target.closest && ev.target.closest('.freq');
    if (!this.cursor && focused && (ev.key === 'ArrowUp' || ev.key === 'ArrowDown')) {
      const key = [...this.cards].find(([, c]) => c.freq === focused);
      if (!key) return false;
      this.tuneBy(key[0], (ev.key === 'ArrowUp' ? 1 : -1) * step);
      return true;
    }
    if (!this.cursor) return false;
    const { key } = this.cursor;
    const card = this.cards.get(key);
    if (!card) return false;
    const hz = this.values.get(key);
    let { index } = this.cursor;
    if (ev.key === 'ArrowUp' || ev.key === 'ArrowDown') {
      this.tuneBy(key, (ev.key === 'ArrowUp' ? 1 : -1) * this.place(index));
    } else if (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') {
      index = Math.max(0, Math.min(this.digits - 1, index + (ev.key === 'ArrowRight' ? 1 : -1)));
      this.cursor = { key, index };
    } else if (/^[0-9]$/.test(ev.key)) {
      const place = this.place(index);
      const cur = Math.floor(hz / place) % 10;
      this.tuneBy(key, (+ev.key - cur) * place);
      this.cursor = { key, index: Math.min(this.digits - 1, index + 1) };
    } else if (ev.key === 'Escape' || ev.key === 'Enter') {
      this.cursor = null;
    } else {
      return false;
    }
    card.shown = '';
    this.renderDigits(card, key, this.values.get(key));
    return true;
  }

  /** Replaces the display by a text field for typing a frequency. */
  startEntry(card, key) {
    if (card.el.querySelector('.freq-entry')) return;
    const cur = Number.isFinite(this.values.get(key)) ? this.values.get(key) : 0;
    const input = h('input', {
      class: 'freq-entry', type: 'text', value: '', placeholder: '14.074 · 7074k · +5k',
      attrs: { inputmode: 'decimal', 'aria-label': 'Frequency', enterkeyhint: 'go', autocomplete: 'off' },
    });
    card.freq.hidden = true;
    card.freq.after(input);
    input.focus();
    let finished = false;
    const done = (apply) => {
      if (finished) return;
      finished = true;
      const hz = apply ? parseFreq(input.value, cur) : null;
      input.remove();
      card.freq.hidden = false;
      if (apply && input.value.trim() && hz === null) this.hooks.toast(`"${input.value}" is not a frequency`);
      if (hz !== null) this.hooks.tune(key, hz);
    };
    input.addEventListener('keydown', (ev) => {
      ev.stopPropagation();
      if (ev.key === 'Enter') done(true);
      if (ev.key === 'Escape') done(false);
    });
    input.addEventListener('blur', () => done(true));
  }

  /** Opens typed entry on the tuning target. */
  enterFrequency(key) {
    const card = this.cards.get(key);
    if (card) this.startEntry(card, key);
  }
}
