// The spectrum + waterfall view: takes scope frames, renders at most once per display
// frame (all rows queued since the last one go into the waterfall, the newest sweep
// into the spectrum), sets contrast automatically or by hand, and turns clicks, drags,
// the wheel and touch into tuning requests.
import { byId, h, loadSetting, saveSetting } from './dom.js';
import { COLORMAPS, measureLevels, smoothLevels, autoRange } from './colormap.js';
import { xToHz, hzToX } from './passband.js';
import { formatShort } from './freq.js';
import { themeColors } from './theme.js';
import { Waterfall } from './waterfall.js';
import { Spectrum } from './spectrum.js';
import { WheelSteps } from './wheel.js';

/** Most frames kept while the page cannot draw (a hidden tab does not run frames). */
const MAX_QUEUE = 64;
/** Pointer travel (CSS px) that makes a press a drag rather than a click. */
const DRAG_PX = 6;

export class ScopeView {
  /** `hooks`: `tune(hz)`, `pan(deltaHz, done)`, `wheel(steps)`, `receiverChange(r)`,
   * `overlayHit(clientX, clientY)` (true when an overlay took the press). */
  constructor(hooks) {
    this.hooks = hooks;
    this.box = byId('scope');
    this.specCanvas = byId('spectrum');
    this.wfCanvas = byId('waterfall');
    this.cursor = byId('scope-cursor');
    this.note = byId('scope-note');
    this.waterfall = new Waterfall(this.wfCanvas);
    this.spectrum = new Spectrum(this.specCanvas);
    this.wheelSteps = new WheelSteps();
    this.queue = [];
    this.last = null;
    this.trace = null;
    this.peak = null;
    this.levels = null;
    this.passbands = [];
    this.colors = themeColors();
    this.settings = {
      colormap: loadSetting('colormap', 'classic'),
      auto: loadSetting('autoLevels', true),
      floor: loadSetting('floor', 20),
      range: loadSetting('range', 70),
      average: loadSetting('average', true),
      peakHold: loadSetting('peakHold', false),
    };
    if (!COLORMAPS.includes(this.settings.colormap)) this.settings.colormap = 'classic';
    this.waterfall.setColormap(this.settings.colormap);
    this.stats = { frames: 0, rows: 0, firstLineMs: null, drawMs: 0, lost: 0 };
    this.rafPending = false;
    this.hoverX = null;
    this.buildToolbar();
    this.bindPointer();
    const ro = new ResizeObserver(() => this.resize());
    ro.observe(this.box);
    this.resize();
  }

  resize() {
    this.waterfall.resize();
    this.spectrum.resize();
    this.waterfall.dirty = true;
    this.schedule();
  }

  /** The range on screen, or null before the first frame. */
  get range() {
    return this.last ? { startHz: this.last.startHz, endHz: this.last.endHz } : null;
  }

  /** The receiver the shown frames belong to. */
  get receiver() {
    return this.last ? this.last.receiver : 0;
  }

  buildToolbar() {
    const bar = byId('scope-bar');
    const s = this.settings;
    const cm = h('select', { title: 'Waterfall colour map (c)', attrs: { 'aria-label': 'Colour map' } },
      ...COLORMAPS.map((n) => h('option', { value: n, text: n[0].toUpperCase() + n.slice(1), selected: n === s.colormap })));
    cm.addEventListener('change', () => this.setColormap(cm.value));
    this.cmSelect = cm;
    const auto = h('button', { class: 'small', type: 'button', text: 'Auto', title: 'Automatic contrast from the noise floor and peaks', attrs: { 'aria-pressed': String(s.auto) } });
    const floor = h('input', { type: 'range', min: 0, max: 150, value: s.floor, title: 'Floor: amplitude shown darkest', attrs: { 'aria-label': 'Waterfall floor' } });
    const range = h('input', { type: 'range', min: 10, max: 160, value: s.range, title: 'Range: amplitude span from darkest to brightest', attrs: { 'aria-label': 'Waterfall range' } });
    const syncManual = () => {
      floor.disabled = s.auto;
      range.disabled = s.auto;
      auto.setAttribute('aria-pressed', String(s.auto));
    };
    auto.addEventListener('click', () => {
      s.auto = !s.auto;
      if (!s.auto && this.levels) {
        const r = autoRange(this.levels);
        s.floor = Math.round(r.lo);
        s.range = Math.round(r.hi - r.lo);
        floor.value = s.floor;
        range.value = s.range;
      }
      saveSetting('autoLevels', s.auto);
      syncManual();
      this.applyLevels();
    });
    floor.addEventListener('input', () => { s.floor = +floor.value; saveSetting('floor', s.floor); this.applyLevels(); });
    range.addEventListener('input', () => { s.range = +range.value; saveSetting('range', s.range); this.applyLevels(); });
    syncManual();
    const toggle = (label, key, title) => {
      const b = h('button', { class: 'small', type: 'button', text: label, title, attrs: { 'aria-pressed': String(s[key]) } });
      b.addEventListener('click', () => {
        s[key] = !s[key];
        saveSetting(key, s[key]);
        b.setAttribute('aria-pressed', String(s[key]));
        if (key === 'peakHold') this.peak = null;
        this.schedule();
      });
      return b;
    };
    this.rxGroup = h('span', { class: 'grp', hidden: true });
    this.radioGroup = h('span', { class: 'grp', hidden: true });
    this.overlayGroup = h('span', { class: 'grp', hidden: true });
    bar.append(
      this.rxGroup,
      h('span', { class: 'grp' }, cm, auto, h('label', { title: 'Floor' }, 'Floor', floor), h('label', { title: 'Range' }, 'Range', range)),
      h('span', { class: 'grp' }, toggle('Avg', 'average', 'Average the spectrum trace'), toggle('Peak', 'peakHold', 'Peak hold on the spectrum')),
      this.radioGroup,
      this.overlayGroup,
    );
  }

  /** Shows MAIN / SUB buttons for two-receiver radios. */
  setReceivers(names, current) {
    this.rxGroup.replaceChildren();
    this.rxGroup.hidden = names.length < 2;
    if (names.length < 2) return;
    names.forEach((n, i) => {
      const b = h('button', { class: 'small', type: 'button', text: n, title: `Show ${n}'s scope`, attrs: { 'aria-pressed': String(i === current) } });
      b.addEventListener('click', () => {
        for (const x of this.rxGroup.children) x.setAttribute('aria-pressed', String(x === b));
        this.hooks.receiverChange(i);
      });
      this.rxGroup.append(b);
    });
  }

  setColormap(name) {
    this.settings.colormap = name;
    saveSetting('colormap', name);
    this.cmSelect.value = name;
    this.waterfall.setColormap(name);
    this.applyLevels();
  }

  nextColormap() {
    const i = COLORMAPS.indexOf(this.settings.colormap);
    this.setColormap(COLORMAPS[(i + 1) % COLORMAPS.length]);
    return this.settings.colormap;
  }

  themeChanged() {
    this.colors = themeColors();
    this.schedule();
  }

  /** The colour range in use. */
  currentRange() {
    const s = this.settings;
    if (s.auto && this.levels) return autoRange(this.levels);
    if (s.auto) return { lo: 20, hi: 90 };
    return { lo: s.floor, hi: s.floor + s.range };
  }

  applyLevels() {
    const r = this.currentRange();
    this.waterfall.setLevels(r.lo, r.hi);
    this.schedule();
  }

  /** Passbands to draw: `[{lo, hi, dial, color, label}]`. */
  setPassbands(list) {
    this.passbands = list;
    this.schedule();
  }

  /** A message over the scope (null hides it). */
  setNote(text) {
    this.note.hidden = !text;
    if (text) this.note.textContent = text;
  }

  /** Takes a parsed scope frame. */
  push(frame) {
    this.stats.frames++;
    if (this.queue.length >= MAX_QUEUE) this.queue.shift();
    this.queue.push(frame);
    this.schedule();
  }

  schedule() {
    if (this.rafPending) return;
    this.rafPending = true;
    requestAnimationFrame(() => this.render());
  }

  render() {
    this.rafPending = false;
    const t0 = performance.now();
    const frames = this.queue;
    this.queue = [];
    for (const f of frames) {
      const lv = measureLevels(f.pixels);
      this.levels = smoothLevels(this.levels, lv, this.levels ? 0.06 : 1);
      if (this.settings.auto) {
        const r = autoRange(this.levels);
        this.waterfall.setLevels(r.lo, r.hi);
      }
      this.waterfall.push(f.pixels, f.startHz, f.endHz);
      this.stats.rows++;
      this.updateTrace(f);
      this.last = f;
    }
    if (frames.length && this.stats.firstLineMs === null) this.stats.firstLineMs = performance.now();
    if (!this.last) {
      this.waterfall.draw();
      return;
    }
    this.waterfall.draw();
    const r = this.currentRange();
    const fill = this.colors.light
      ? ['rgba(11,61,110,.35)', 'rgba(11,61,110,.03)']
      : ['rgba(120,200,255,.35)', 'rgba(120,200,255,.02)'];
    this.spectrum.draw({
      trace: this.trace,
      peak: this.settings.peakHold ? this.peak : null,
      startHz: this.last.startHz,
      endHz: this.last.endHz,
      lo: r.lo,
      hi: r.hi,
      passbands: this.passbands,
      colors: this.colors,
      outOfRange: this.last.outOfRange,
      fill,
    });
    if (this.hoverX !== null) this.showCursor(this.hoverX);
    this.stats.drawMs = this.stats.drawMs * 0.9 + (performance.now() - t0) * 0.1;
  }

  updateTrace(f) {
    const n = f.pixels.length;
    if (!this.trace || this.trace.length !== n || !this.last || this.last.startHz !== f.startHz || this.last.endHz !== f.endHz) {
      this.trace = Float32Array.from(f.pixels);
      this.peak = Float32Array.from(f.pixels);
      return;
    }
    const a = this.settings.average ? 0.35 : 1;
    for (let i = 0; i < n; i++) {
      this.trace[i] += (f.pixels[i] - this.trace[i]) * a;
      this.peak[i] = Math.max(f.pixels[i], this.peak[i] - 0.25);
    }
  }

  /** The frequency of the strongest signal in the last sweep, or null. */
  peakHz() {
    if (!this.last || !this.trace) return null;
    let best = 0;
    for (let i = 1; i < this.trace.length; i++) if (this.trace[i] > this.trace[best]) best = i;
    return this.last.startHz + ((best + 0.5) / this.trace.length) * (this.last.endHz - this.last.startHz);
  }

  /** The frequency under a client x coordinate, or null. */
  hzAt(clientX) {
    if (!this.last) return null;
    const r = this.box.getBoundingClientRect();
    return xToHz(clientX - r.left, this.last.startHz, this.last.endHz, r.width);
  }

  /** The CSS x of a frequency inside the scope box, or null. */
  xOf(hz) {
    if (!this.last) return null;
    return hzToX(hz, this.last.startHz, this.last.endHz, this.box.getBoundingClientRect().width);
  }

  showCursor(clientX) {
    const hz = this.hzAt(clientX);
    if (hz === null) return;
    const r = this.box.getBoundingClientRect();
    const x = clientX - r.left;
    this.cursor.hidden = false;
    this.cursor.style.left = `${x}px`;
    this.cursor.classList.toggle('flip', x > r.width - 120);
    this.cursor.firstElementChild.textContent = formatShort(Math.round(hz / 10) * 10);
  }

  bindPointer() {
    const el = this.box;
    let press = null;
    el.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0 || !this.last) return;
      if (this.hooks.overlayHit && this.hooks.overlayHit(ev.clientX, ev.clientY)) return;
      press = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, dragging: false, lastX: ev.clientX, type: ev.pointerType };
      el.setPointerCapture(ev.pointerId);
    });
    el.addEventListener('pointermove', (ev) => {
      if (ev.pointerType === 'mouse') {
        this.hoverX = ev.clientX;
        this.showCursor(ev.clientX);
      }
      if (!press || press.id !== ev.pointerId) return;
      const dx = ev.clientX - press.x;
      if (!press.dragging && Math.abs(dx) > DRAG_PX && Math.abs(dx) > Math.abs(ev.clientY - press.y)) press.dragging = true;
      if (press.dragging) {
        const r = el.getBoundingClientRect();
        const hzPerPx = (this.last.endHz - this.last.startHz) / r.width;
        // centre modes: the picture follows the finger (dragging right goes down in
        // frequency); fixed modes: the picture stays and the passband follows the finger
        const fixed = this.last.mode === 1 || this.last.mode === 3;
        this.hooks.pan((fixed ? 1 : -1) * (ev.clientX - press.lastX) * hzPerPx, false);
        press.lastX = ev.clientX;
      }
    });
    const end = (ev, cancelled) => {
      if (!press || press.id !== ev.pointerId) return;
      const p = press;
      press = null;
      if (p.dragging) this.hooks.pan(0, true);
      else if (!cancelled) {
        const hz = this.hzAt(ev.clientX);
        if (hz !== null) this.hooks.tune(hz);
      }
    };
    el.addEventListener('pointerup', (ev) => end(ev, false));
    el.addEventListener('pointercancel', (ev) => end(ev, true));
    el.addEventListener('pointerleave', () => {
      this.hoverX = null;
      this.cursor.hidden = true;
    });
    el.addEventListener('wheel', (ev) => {
      if (!this.last) return;
      ev.preventDefault();
      // a trackpad's many small deltas add up to steps (see wheel.js)
      const steps = this.wheelSteps.add(-(ev.deltaY || ev.deltaX), ev.deltaMode, ev.timeStamp);
      if (steps) this.hooks.wheel(steps * (ev.shiftKey ? 10 : 1));
    }, { passive: false });
  }
}
