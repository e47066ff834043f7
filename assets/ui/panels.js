// The tuning panels of the side: the mode and filter buttons (each filter with its
// width in the current mode), the tuning step, and the band buttons; built from the
// capabilities, their pressed states read from the tuned VFO.
import { byId, h } from './dom.js';
import { STEPS, stepLabel, bandOf, formatShort } from './freq.js';

export class TuningPanels {
  /** `hooks`: `mode(m)`, `filter(f)`, `band(b)`, `step(hz|null)`. */
  constructor(hooks) {
    this.hooks = hooks;
    this.modes = byId('modes');
    this.filters = byId('filters');
    this.bands = byId('bands');
    this.stepSel = byId('step');
    this.stepSel.onchange = () => hooks.step(this.stepSel.value === 'auto' ? null : +this.stepSel.value);
  }

  /** Builds the buttons for `caps` and `bands` (in frequency order); `step` is the
   * operator's step or null (follow the mode). */
  build(caps, bands, step) {
    this.modes.replaceChildren(...(caps.modes || []).map((m) => h('button', { type: 'button', text: m, dataset: { mode: m }, on: { click: () => this.hooks.mode(m) } })));
    this.filters.replaceChildren(...(caps.filters || []).map((f, i) => h('button', { type: 'button', dataset: { filter: f }, on: { click: () => this.hooks.filter(f) } }, f, h('span', { class: 'w', dataset: { i: String(i) } }))));
    this.bands.replaceChildren(...bands.map((b) => h('button', { type: 'button', text: b.name, dataset: { band: b.name }, title: `${formatShort(b.start)} – ${formatShort(b.end)}`, on: { click: () => this.hooks.band(b) } })));
    byId('card-band').hidden = !bands.length;
    this.stepSel.replaceChildren(h('option', { value: 'auto', text: 'Auto' }), ...STEPS.map((s) => h('option', { value: String(s), text: stepLabel(s) })));
    this.showStep(step);
  }

  /** Shows the operator's step (null: Auto). */
  showStep(step) {
    this.stepSel.value = step ? String(step) : 'auto';
  }

  /** Presses the buttons of the tuned VFO's mode, filter and band: `rx` its settings,
   * `hz` its shown frequency, `autoStep` the step Auto stands for now. */
  update(rx, hz, caps, bands, step, autoStep) {
    for (const b of this.modes.children) b.setAttribute('aria-pressed', String(!!rx && b.dataset.mode === rx.mode));
    for (const b of this.filters.children) {
      const i = +b.lastElementChild.dataset.i;
      b.setAttribute('aria-pressed', String(!!rx && rx.filter === i + 1));
      const w = rx && caps.filterWidths && caps.filterWidths[rx.mode] ? caps.filterWidths[rx.mode][i] : null;
      b.lastElementChild.textContent = w ? (w >= 1000 ? `${w / 1000}k` : `${w}`) : '';
    }
    const band = rx ? bandOf(bands, hz) : null;
    for (const b of this.bands.children) b.setAttribute('aria-pressed', String(!!band && b.dataset.band === band.name));
    if (!step) this.stepSel.options[0].textContent = `Auto (${stepLabel(autoStep)})`;
  }
}
