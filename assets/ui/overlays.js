// Scope overlays: the band plan as a strip between spectrum and waterfall (coloured by
// segment, with the region chooser), DX-cluster spots as labels at their frequency
// (newest on top, fading with age), EiBi broadcasters on the air as labels on broadcast
// bands, and the probable station for the tuned frequency under the VFOs. Only the
// services the server advertises (`services` in `GET /api/v1/info`) are asked for.
//
// Drawn on canvases of their own, redrawn only when something changed (data, range,
// size, a toggle, the minute a spot fades): the scope's 30 fps never repaints them.
// Clicking a label or a segment tunes there and sets the mode it implies. Text is
// painted on a canvas (or set as text), never parsed as HTML.
import { byId, h, loadSetting, saveSetting, toast } from './dom.js';
import { hzToX, xToHz } from './passband.js';
import { formatShort } from './freq.js';
import { spotAlpha, segmentMode, spotMode, overlapsAny, bandAt, layoutLabels, labelAt, mergeSpot } from './overlay_layout.js';

const KINDS = {
  bandplan: { label: 'Plan', service: 'bandPlan', probe: '/api/v1/band-plan/config', title: 'Band plan strip' },
  eibi: { label: 'EiBi', service: 'eibi', probe: '/api/v1/eibi/status', title: 'Broadcast stations on the air (EiBi)' },
  dx: { label: 'DX', service: 'dxSpots', probe: '/api/v1/dx/spots', title: 'DX-cluster spots' },
};

/** Height of a label row, CSS px. */
const ROW_H = 16;
/** Label colours by kind. */
const LABEL_COLORS = { cluster: '#4ade80', rbn: '#22d3ee', bc: '#c084fc' };

/** The overlay kinds whose services `services` (of `GET /api/v1/info`) advertises. */
export function advertisedOverlays(services) {
  return Object.keys(KINDS).filter((k) => !!services && services[KINDS[k].service] === true);
}

export class Overlays {
  /** `hooks`: `tune(hz, mode|null)`, `post(path, body)` -> `{status, body}`. */
  constructor(api, scope, hooks) {
    this.api = api;
    this.scope = scope;
    this.hooks = hooks;
    this.strip = byId('overlay-strip');
    this.layer = byId('overlay-labels');
    this.stationLine = byId('vfo-station');
    this.available = {};
    this.enabled = {};
    this.data = { bandplan: [], eibi: [], dx: [] };
    this.regions = [];
    this.region = null;
    this.eibiBands = null;
    this.eibiAsked = false;
    this.placed = [];
    this.stripSegs = [];
    this.range = null;
    this.drawnRange = null;
    this.fetched = null;
    this.timer = null;
    this.dxTimer = null;
    this.fadeTimer = null;
    this.idTimer = null;
    this.tunedHz = null;
    this.identifiedHz = null;
    this.servicesSig = null;
    this.probeRun = 0;
    this.drawPending = false;
    this.stats = { draws: 0, drawMs: 0, labels: 0, hidden: 0 };
    new ResizeObserver(() => this.invalidate()).observe(scope.box);
  }

  /** Takes the server's `services` (read at boot and after every reconnect): probes the
   * advertised overlays and shows toggles for those that answer. */
  async setServices(services) {
    const kinds = advertisedOverlays(services);
    const sig = kinds.join(',');
    if (sig === this.servicesSig) return;
    this.servicesSig = sig;
    const run = ++this.probeRun;
    const available = {};
    const answers = {};
    for (const kind of kinds) {
      try {
        const r = await this.api.get(KINDS[kind].probe);
        available[kind] = r.status === 200;
        answers[kind] = r.body;
      } catch {
        available[kind] = false;
      }
    }
    // a newer call (another reconnect) decides
    if (run !== this.probeRun) return;
    this.available = available;
    this.data = { bandplan: [], eibi: [], dx: available.dx ? (answers.dx && answers.dx.spots) || [] : [] };
    if (available.bandplan) this.setRegions(answers.bandplan);
    this.eibiBands = null;
    this.eibiAsked = false;
    this.buildToolbar();
    clearInterval(this.dxTimer);
    clearInterval(this.fadeTimer);
    if (available.dx) {
      this.dxTimer = setInterval(() => this.fetchDx(), 60000);
      this.fadeTimer = setInterval(() => this.fade(), 30000);
    }
    this.identifiedHz = null;
    this.refetch();
    this.tuned(this.tunedHz);
    this.invalidate();
  }

  setRegions(config) {
    this.regions = (config && config.regions) || [];
    this.region = config ? config.region : null;
  }

  buildToolbar() {
    const group = this.scope.overlayGroup;
    group.replaceChildren();
    for (const kind of Object.keys(KINDS).filter((k) => this.available[k])) {
      const k = KINDS[kind];
      this.enabled[kind] = loadSetting(`overlay.${kind}`, true);
      const b = h('button', { class: 'small', type: 'button', text: k.label, title: k.title, dataset: { overlay: kind }, attrs: { 'aria-pressed': String(this.enabled[kind]) } });
      b.addEventListener('click', () => {
        this.enabled[kind] = !this.enabled[kind];
        saveSetting(`overlay.${kind}`, this.enabled[kind]);
        b.setAttribute('aria-pressed', String(this.enabled[kind]));
        this.identifiedHz = null;
        this.refetch();
        this.tuned(this.tunedHz);
        this.invalidate();
      });
      group.append(b);
      if (kind === 'bandplan' && this.regions.length) group.append(this.regionSelect());
    }
    group.hidden = !group.children.length;
  }

  regionSelect() {
    const sel = h('select', { title: 'Band-plan region (kept by the server)', attrs: { 'aria-label': 'Band-plan region' }, dataset: { overlay: 'region' } },
      ...this.regions.map((r) => h('option', { value: r.name, text: r.name.toUpperCase(), title: r.label, selected: r.name === this.region })));
    sel.addEventListener('change', async () => {
      try {
        const r = await this.hooks.post('/api/v1/band-plan/config', { region: sel.value });
        if (r.status !== 200) throw new Error((r.body && r.body.message) || `HTTP ${r.status}`);
        this.setRegions(r.body);
        this.refetch();
      } catch (e) {
        sel.value = this.region || '';
        toast(`Band plan: ${e.message}`, 'bad');
      }
    });
    return sel;
  }

  async fetchDx() {
    if (!this.available.dx) return;
    try {
      const r = await this.api.get('/api/v1/dx/spots');
      if (r.status === 200) {
        this.data.dx = (r.body && r.body.spots) || [];
        this.invalidate();
      }
    } catch {
      // the next round tries again
    }
  }

  /** Redraws when a spot on screen has faded visibly since it was drawn. */
  fade() {
    const now = Date.now();
    if (this.placed.some((p) => p.at && Math.abs(spotAlpha(now - p.at) - p.alpha) > 0.02)) this.invalidate();
  }

  /** A `dx_spot` event of the control socket. */
  onSpot(spot) {
    if (!this.available.dx || !spot || !Number.isFinite(spot.freq)) return;
    this.data.dx = mergeSpot(this.data.dx, spot);
    const r = this.range;
    if (this.enabled.dx && r && spot.freq >= r.startHz && spot.freq <= r.endHz) this.invalidate();
  }

  /** Called with every scope frame: redraws when the range moved, fetches when it left
   * the window fetched last (the range and a span either side, so that tuning and small
   * pans need no request and segments are not cut at the edges of the view). */
  update() {
    const r = this.scope.range;
    if (!r) return;
    if (!this.range || r.startHz !== this.range.startHz || r.endHz !== this.range.endHz) {
      this.range = r;
      this.invalidate();
    }
    const span = r.endHz - r.startHz;
    const w = this.fetched;
    if (w && r.startHz >= w.lo && r.endHz <= w.hi && span === w.span) return;
    this.fetched = { lo: Math.max(0, r.startHz - span), hi: r.endHz + span, span };
    clearTimeout(this.timer);
    const win = this.fetched;
    this.timer = setTimeout(() => this.fetchWindow(win), 250);
  }

  /** Fetches again for the current range (after a toggle, a region change, a failure). */
  refetch() {
    this.fetched = null;
    this.update();
  }

  async fetchWindow({ lo, hi }) {
    const q = `start=${Math.floor(lo)}&end=${Math.ceil(hi)}`;
    let retry = false;
    try {
      if (this.available.bandplan && this.enabled.bandplan) {
        const r = await this.api.get(`/api/v1/band-plan/segments?${q}`);
        if (r.status === 200) this.data.bandplan = (r.body && r.body.segments) || [];
      }
      if (this.available.eibi && this.enabled.eibi) {
        retry = !(await this.fetchEibi(q, lo, hi));
      }
    } catch {
      retry = true;
    }
    if (retry) {
      // the schedule is still loading or the server was away: ask again later
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.refetch(), 5000);
    }
    this.invalidate();
  }

  /** True once the server has a schedule and its bands are known. Until then it asks
   * the server to load one (the server fetches it only once a client wants it) and
   * says false: the caller asks again later. */
  async eibiReady() {
    if (this.eibiBands) return true;
    const st = await this.api.get('/api/v1/eibi/status');
    if (st.status !== 200 || !st.body) return false;
    if (!st.body.loaded) {
      if (!st.body.fetching && !this.eibiAsked) {
        this.eibiAsked = true;
        await this.hooks.post('/api/v1/eibi/fetch', {});
      }
      return false;
    }
    const b = await this.api.get('/api/v1/eibi/bands');
    if (b.status !== 200) return false;
    this.eibiBands = (b.body && b.body.bands) || [];
    return true;
  }

  /** EiBi labels for the range when it shows a broadcast band; false to retry later. */
  async fetchEibi(q, startHz, endHz) {
    if (!(await this.eibiReady())) return false;
    if (!overlapsAny(this.eibiBands, startHz, endHz)) {
      this.data.eibi = [];
      return true;
    }
    const r = await this.api.get(`/api/v1/eibi/segments?${q}&on_air=true`);
    if (r.status !== 200) return false;
    this.data.eibi = (r.body && r.body.segments) || [];
    return true;
  }

  /** The tuned frequency of the VFO the scope shows: the probable broadcaster there. */
  tuned(hz) {
    this.tunedHz = Number.isFinite(hz) ? hz : null;
    const want = this.available.eibi && this.enabled.eibi && this.tunedHz !== null;
    if (!want) {
      this.showStation(null);
      return;
    }
    if (this.tunedHz === this.identifiedHz) return;
    clearTimeout(this.idTimer);
    this.idTimer = setTimeout(() => this.identify(this.tunedHz), 400);
  }

  async identify(hz) {
    try {
      if (!(await this.eibiReady())) throw new Error('not loaded');
      if (!bandAt(this.eibiBands, hz)) {
        this.identifiedHz = hz;
        this.showStation(null);
        return;
      }
      const r = await this.api.get(`/api/v1/eibi/identify?freq=${Math.round(hz)}&tolerance=5000&limit=3`);
      if (r.status !== 200) throw new Error('not loaded');
      this.identifiedHz = hz;
      const c = ((r.body && r.body.candidates) || []).find((x) => x.on_air);
      this.showStation(c || null);
    } catch {
      // loading: try again shortly, unless the operator tuned elsewhere meanwhile
      clearTimeout(this.idTimer);
      this.idTimer = setTimeout(() => { if (this.tunedHz === hz) this.identify(hz); }, 5000);
    }
  }

  showStation(c) {
    const el = this.stationLine;
    if (!el) return;
    el.hidden = !c;
    if (!c) return;
    const off = c.distance ? ` (${c.distance >= 1000 ? `${c.distance / 1000} kHz` : `${c.distance} Hz`} off)` : '';
    el.textContent = `≈ ${c.station} · ${formatShort(c.freq)}${off} · ${c.language || '?'} → ${c.target || '?'} · ${c.time} UTC`;
    el.title = `EiBi: ${c.station} (${c.itu}), ${c.days || 'daily'} ${c.time}, ${c.remarks || ''}`.trim();
  }

  /** Asks for a redraw at the next display frame. */
  invalidate() {
    if (this.drawPending) return;
    this.drawPending = true;
    requestAnimationFrame(() => this.draw());
  }

  draw() {
    this.drawPending = false;
    const t0 = performance.now();
    this.range = this.scope.range;
    this.drawnRange = this.range;
    this.drawStrip();
    this.drawLabels();
    this.stats.draws++;
    this.stats.drawMs = performance.now() - t0;
  }

  /** Sizes `canvas` to `cssW` x `cssH`; its 2D context scaled to CSS px. */
  fit(canvas, cssW, cssH) {
    const dpr = Math.min(1.5, window.devicePixelRatio || 1);
    const w = Math.max(1, Math.round(cssW * dpr));
    const hgt = Math.max(1, Math.round(cssH * dpr));
    if (canvas.width !== w || canvas.height !== hgt) {
      canvas.width = w;
      canvas.height = hgt;
    }
    canvas.style.height = `${cssH}px`;
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cssW, cssH);
    return ctx;
  }

  drawStrip() {
    const show = !!(this.available.bandplan && this.enabled.bandplan);
    this.strip.hidden = !show;
    this.stripSegs = [];
    const r = this.range;
    if (!show || !r) return;
    const W = this.strip.getBoundingClientRect().width;
    const H = 18;
    const ctx = this.fit(this.strip, W, H);
    const x = (hz) => hzToX(hz, r.startHz, r.endHz, W);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (const s of this.data.bandplan) {
      if (s.end < r.startHz || s.start > r.endHz) continue;
      const x0 = Math.max(0, x(s.start));
      const x1 = Math.min(W, x(s.end));
      ctx.fillStyle = s.color || '#888';
      if (s.start === s.end) {
        // a dial frequency: a marker with its name
        ctx.fillRect(Math.round(x0) - 1, 0, 3, H);
        ctx.fillStyle = '#fff';
        ctx.fillText(s.label, x0 + 4, H / 2);
        this.stripSegs.push({ seg: s, x0: x0 - 4, x1: x0 + 4 + ctx.measureText(s.label).width });
        continue;
      }
      ctx.globalAlpha = s.layer === 'band' ? 0.35 : 0.8;
      ctx.fillRect(x0, s.layer === 'band' ? 0 : 2, Math.max(1, x1 - x0), s.layer === 'band' ? H : H - 4);
      ctx.globalAlpha = 1;
      const label = s.label || '';
      if (s.layer !== 'band' && x1 - x0 > ctx.measureText(label).width + 8) {
        ctx.fillStyle = '#fff';
        ctx.fillText(label, x0 + 4, H / 2);
      }
      this.stripSegs.push({ seg: s, x0, x1 });
    }
  }

  drawLabels() {
    const r = this.range;
    const spec = this.scope.specCanvas.getBoundingClientRect();
    const W = spec.width;
    const ctx = this.fit(this.layer, W, spec.height);
    this.placed = [];
    if (!r) return;
    const now = Date.now();
    const items = [];
    ctx.font = '11px system-ui, sans-serif';
    const widthOf = (t) => Math.min(160, Math.ceil(ctx.measureText(t).width) + 8);
    if (this.available.dx && this.enabled.dx) {
      for (const s of this.data.dx) {
        if (!(s.freq >= r.startHz && s.freq <= r.endHz)) continue;
        const at = Date.parse(s.received_at);
        items.push({ kind: s.source === 'rbn' ? 'rbn' : 'cluster', text: s.call, x: hzToX(s.freq, r.startHz, r.endHz, W), w: widthOf(s.call), freq: s.freq, mode: spotMode(s), alpha: spotAlpha(now - at), at });
      }
    }
    if (this.available.eibi && this.enabled.eibi) {
      for (const s of this.data.eibi) {
        const text = (s.station || '').slice(0, 24);
        if (!text || !(s.freq >= r.startHz && s.freq <= r.endHz)) continue;
        items.push({ kind: 'bc', text, x: hzToX(s.freq, r.startHz, r.endHz, W), w: widthOf(text), freq: s.freq, mode: 'AM', alpha: 1 });
      }
    }
    const rows = Math.max(1, Math.min(6, Math.floor((spec.height - 20) / ROW_H / 1.6)));
    // spots in the top rows, broadcasters below: a busy cluster never hides them all
    const dx = items.filter((i) => i.kind !== 'bc');
    const bc = items.filter((i) => i.kind === 'bc');
    const bcRows = dx.length && bc.length ? Math.max(1, Math.floor(rows / 3)) : rows;
    const top = layoutLabels(dx, W, dx.length ? rows - (bc.length ? bcRows : 0) : 0);
    const low = layoutLabels(bc, W, bc.length ? bcRows : 0);
    const offset = dx.length ? rows - bcRows : 0;
    const placed = [...top.placed, ...low.placed.map((p) => ({ ...p, row: p.row + offset }))];
    this.placed = placed;
    this.stats.labels = placed.length;
    this.stats.hidden = top.hidden + low.hidden;
    ctx.textBaseline = 'middle';
    // the first placed are the newest: drawn last, on top
    for (let i = placed.length - 1; i >= 0; i--) {
      const p = placed[i];
      const y = 2 + p.row * ROW_H;
      ctx.globalAlpha = p.alpha;
      ctx.fillStyle = 'rgba(10,14,20,.82)';
      ctx.fillRect(p.left, y, p.w, ROW_H - 2);
      ctx.strokeStyle = LABEL_COLORS[p.kind];
      ctx.lineWidth = 1;
      ctx.strokeRect(p.left + 0.5, y + 0.5, p.w - 1, ROW_H - 3);
      ctx.beginPath();
      ctx.moveTo(Math.round(p.x) + 0.5, y + ROW_H - 2);
      ctx.lineTo(Math.round(p.x) + 0.5, y + ROW_H + 3);
      ctx.stroke();
      ctx.fillStyle = '#f5f5f5';
      ctx.fillText(p.text, p.left + 4, y + (ROW_H - 2) / 2);
    }
    ctx.globalAlpha = 1;
  }

  /** A press at `(clientX, clientY)`: true (and tuned) when it was on a label or on the
   * strip. */
  hit(clientX, clientY) {
    const r = this.range;
    if (!r) return false;
    const lr = this.layer.getBoundingClientRect();
    const p = labelAt(this.placed, clientX - lr.left, clientY - lr.top, ROW_H, 2);
    if (p) {
      this.hooks.tune(p.freq, p.mode);
      return true;
    }
    if (this.strip.hidden) return false;
    const sr = this.strip.getBoundingClientRect();
    if (clientY < sr.top || clientY > sr.bottom) return false;
    const x = clientX - sr.left;
    const found = [...this.stripSegs].reverse().find((s) => x >= s.x0 && x <= s.x1 && s.seg.layer !== 'band');
    if (!found) return false;
    const s = found.seg;
    const hz = s.start === s.end ? s.start : Math.round(xToHz(x, r.startHz, r.endHz, sr.width));
    this.hooks.tune(hz, segmentMode(s, hz));
    return true;
  }

  /** What is drawn, for diagnostics and the browser tests. */
  snapshot() {
    return {
      stats: { ...this.stats },
      range: this.drawnRange ? { ...this.drawnRange } : null,
      region: this.region,
      enabled: { ...this.enabled },
      available: { ...this.available },
      labels: this.placed.map((p) => ({ kind: p.kind, text: p.text, freq: p.freq, x: p.x, left: p.left, w: p.w, row: p.row, alpha: p.alpha })),
      strip: this.stripSegs.map((s) => ({ label: s.seg.label, layer: s.seg.layer, x0: s.x0, x1: s.x1 })),
      station: this.stationLine && !this.stationLine.hidden ? this.stationLine.textContent : null,
    };
  }
}
