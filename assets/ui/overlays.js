// Scope overlays: band-plan segments (a strip between spectrum and waterfall), EiBi
// broadcasters on air now and DX-cluster spots (labels over the spectrum). Only the
// services the server advertises (`services` in `GET /api/v1/info`) are asked for; the
// others stay hidden and their routes are never requested. Clicking a label tunes there
// (AM for broadcasters). All text is set as text, never as HTML.
import { byId, h, loadSetting, saveSetting } from './dom.js';
import { hzToX } from './passband.js';
import { formatShort } from './freq.js';

const KINDS = {
  bandplan: { label: 'Plan', service: 'bandPlan', probe: '/api/v1/band-plan/layers', title: 'Band-plan segments' },
  eibi: { label: 'EiBi', service: 'eibi', probe: '/api/v1/eibi/status', title: 'Broadcast stations on air now (EiBi)' },
  dx: { label: 'DX', service: 'dxSpots', probe: '/api/v1/dx/spots', title: 'DX-cluster spots' },
};

/** The overlay kinds whose services `services` (of `GET /api/v1/info`) advertises. */
export function advertisedOverlays(services) {
  return Object.keys(KINDS).filter((k) => !!services && services[KINDS[k].service] === true);
}

/** The mode a band-plan segment suggests, or null. */
function segmentMode(seg) {
  if (seg.mode === 'cw') return 'CW';
  if (seg.mode === 'broadcast') return 'AM';
  if (seg.mode === 'phone') return seg.start < 10000000 ? 'LSB' : 'USB';
  return null;
}

export class Overlays {
  /** `tune(hz, mode|null)` is called when a label is clicked. */
  constructor(api, scope, tune) {
    this.api = api;
    this.scope = scope;
    this.tune = tune;
    this.strip = byId('overlay-strip');
    this.available = {};
    this.enabled = {};
    this.data = { bandplan: [], eibi: [], dx: [] };
    this.tags = [];
    this.rangeKey = '';
    this.timer = null;
    this.dxTimer = null;
    this.servicesSig = null;
    this.probeRun = 0;
  }

  /** Takes the server's `services` (read at boot and after every reconnect): probes the
   * advertised overlays and shows toggles for those that answer. Unchanged services keep
   * what is shown. */
  async setServices(services) {
    const kinds = advertisedOverlays(services);
    const sig = kinds.join(',');
    if (sig === this.servicesSig) return;
    this.servicesSig = sig;
    const run = ++this.probeRun;
    const available = {};
    let dx = [];
    for (const kind of kinds) {
      try {
        const r = await this.api.get(KINDS[kind].probe);
        available[kind] = r.status === 200;
        if (kind === 'dx' && available.dx) dx = (r.body && r.body.spots) || [];
      } catch {
        available[kind] = false;
      }
    }
    // a newer call (another reconnect) decides
    if (run !== this.probeRun) return;
    this.available = available;
    this.data.dx = dx;
    const group = this.scope.overlayGroup;
    group.replaceChildren();
    for (const kind of kinds.filter((k) => available[k])) {
      const k = KINDS[kind];
      this.enabled[kind] = loadSetting(`overlay.${kind}`, true);
      const b = h('button', { class: 'small', type: 'button', text: k.label, title: k.title, dataset: { overlay: kind }, attrs: { 'aria-pressed': String(this.enabled[kind]) } });
      b.addEventListener('click', () => {
        this.enabled[kind] = !this.enabled[kind];
        saveSetting(`overlay.${kind}`, this.enabled[kind]);
        b.setAttribute('aria-pressed', String(this.enabled[kind]));
        this.rangeKey = '';
        this.update();
      });
      group.append(b);
    }
    group.hidden = !group.children.length;
    clearInterval(this.dxTimer);
    if (available.dx) this.dxTimer = setInterval(() => this.fetchDx(), 30000);
    this.rangeKey = '';
    this.update();
    this.render();
  }

  async fetchDx() {
    if (!this.available.dx) return;
    try {
      const r = await this.api.get('/api/v1/dx/spots');
      if (r.status === 200) this.data.dx = (r.body && r.body.spots) || [];
      this.render();
    } catch {
      // the next round tries again
    }
  }

  /** Called when the scope's range may have changed: fetches what the range needs. */
  update() {
    const range = this.scope.range;
    if (!range) return;
    const key = `${range.startHz}-${range.endHz}`;
    if (key === this.rangeKey) return;
    this.rangeKey = key;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fetchRange(range), 250);
    this.render();
  }

  async fetchRange({ startHz, endHz }) {
    const q = `start=${Math.floor(startHz)}&end=${Math.ceil(endHz)}`;
    try {
      if (this.available.bandplan && this.enabled.bandplan) {
        const r = await this.api.get(`/api/v1/band-plan/segments?${q}`);
        if (r.status === 200) this.data.bandplan = ((r.body && r.body.segments) || []).filter((s) => s.layer !== 'broadcast-eibi');
      }
      if (this.available.eibi && this.enabled.eibi) {
        const r = await this.api.get(`/api/v1/eibi/segments?${q}&on_air=true`);
        if (r.status === 200) this.data.eibi = (r.body && r.body.segments) || [];
      }
    } catch {
      // keep what was shown
    }
    this.render();
  }

  /** Draws the strip and the labels for the current range. */
  render() {
    const range = this.scope.range;
    for (const t of this.tags) t.remove();
    this.tags = [];
    const showPlan = this.available.bandplan && this.enabled.bandplan;
    this.strip.hidden = !showPlan;
    if (!range) return;
    const span = range.endHz - range.startHz;
    const pct = (hz) => ((hz - range.startHz) / span) * 100;
    if (showPlan) {
      const segs = this.data.bandplan.filter((s) => s.end >= range.startHz && s.start <= range.endHz);
      this.strip.replaceChildren(...segs.map((s) => {
        const left = Math.max(0, pct(s.start));
        const right = Math.min(100, pct(Math.max(s.end, s.start + span / 200)));
        const el = h('div', {
          class: 'seg-o',
          text: s.label || s.mode || '',
          title: [s.label, s.notes, s.license].filter(Boolean).join(' — '),
          style: { left: `${left}%`, width: `${Math.max(0.3, right - left)}%`, background: s.color || '#888' },
        });
        el.addEventListener('click', () => this.tune(Math.max(s.start, range.startHz), segmentMode(s)));
        return el;
      }));
    }
    const labels = [];
    if (this.available.eibi && this.enabled.eibi) {
      for (const s of this.data.eibi) {
        const hz = (s.start + s.end) / 2;
        const text = s.station || s.label || '';
        labels.push({ hz, text, cls: 'bc', title: `${text} ${s.schedule || ''} ${s.notes || ''}`.trim(), mode: 'AM' });
      }
    }
    if (this.available.dx && this.enabled.dx) {
      for (const s of this.data.dx) {
        labels.push({ hz: s.freq, text: s.call, cls: 'dx', title: `${s.call} ${formatShort(s.freq)} de ${s.spotter || '?'} ${s.comment || ''}`.trim(), mode: null });
      }
    }
    this.placeLabels(labels.filter((l) => l.hz >= range.startHz && l.hz <= range.endHz), range);
  }

  /** Labels in rows over the spectrum so that they do not overlap. */
  placeLabels(labels, range) {
    const width = this.scope.box.getBoundingClientRect().width;
    const rowsEnd = [];
    labels.sort((a, b) => a.hz - b.hz);
    for (const l of labels) {
      const x = hzToX(l.hz, range.startHz, range.endHz, width);
      const w = Math.min(160, 8 + l.text.length * 7);
      let row = rowsEnd.findIndex((end) => end < x - w / 2);
      if (row === -1) {
        if (rowsEnd.length >= 4) continue;
        row = rowsEnd.length;
        rowsEnd.push(0);
      }
      rowsEnd[row] = x + w / 2 + 4;
      const el = h('span', { class: `tag ${l.cls}`, text: l.text, title: l.title, style: { left: `${x}px`, top: `${18 + row * 18}px` } });
      el.addEventListener('click', () => this.tune(l.hz, l.mode));
      this.scope.box.append(el);
      this.tags.push(el);
    }
  }
}
