// The waterfall: one row per sweep written into a ring (an offscreen canvas as wide as
// the sweep has pixels), drawn newest-on-top onto the visible canvas with two blits.
// When the scope's edges move (retuning in centre mode, a span change) the history is
// shifted and scaled to the new edges, so old signals stay where they were in frequency.
import { buildLut, levelTable } from './colormap.js';

function makeCanvas(w, h) {
  if (typeof OffscreenCanvas === 'function') return new OffscreenCanvas(w, h);
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  return c;
}

export class Waterfall {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.rows = 0;
    this.width = 0;
    this.ring = null;
    this.rctx = null;
    this.head = 0;
    this.filled = 0;
    this.row = null;
    this.row32 = null;
    this.startHz = 0;
    this.endHz = 0;
    this.lut = buildLut('classic');
    this.table = levelTable(this.lut, 0, 160);
    this.dirty = true;
  }

  setColormap(name) {
    this.lut = buildLut(name);
  }

  /** Maps amplitudes from `lo` (darkest) to `hi` (brightest). */
  setLevels(lo, hi) {
    this.table = levelTable(this.lut, lo, hi);
  }

  /** Keeps as many rows as the box is tall in CSS pixels. The canvas itself is as wide
   * as a sweep and as tall as the rows: the browser stretches it to the box, so each
   * frame costs two unscaled copies, not a full-size redraw. */
  resize() {
    const r = this.canvas.getBoundingClientRect();
    const rows = Math.max(16, Math.min(1024, Math.round(r.height)));
    if (rows !== this.rows && this.width) this.allocate(this.width, rows);
    this.rows = rows;
    this.fitCanvas();
  }

  fitCanvas() {
    const w = Math.max(1, this.width || 1);
    const hgt = Math.max(1, this.rows || 1);
    if (this.canvas.width !== w || this.canvas.height !== hgt) {
      this.canvas.width = w;
      this.canvas.height = hgt;
      this.dirty = true;
    }
  }

  allocate(width, rows) {
    const old = this.ring;
    const oldRows = this.rows;
    this.ring = makeCanvas(width, rows);
    this.rctx = this.ring.getContext('2d', { alpha: false });
    this.rctx.fillStyle = '#000';
    this.rctx.fillRect(0, 0, width, rows);
    if (old && old.width === width) {
      // keep the history, newest rows first, when only the height changed
      const keep = Math.min(rows, oldRows, this.filled);
      for (let i = 0; i < keep; i++) {
        const src = (this.head + i) % oldRows;
        this.rctx.drawImage(old, 0, src, width, 1, 0, i, width, 1);
      }
      this.filled = keep;
    } else {
      this.filled = 0;
    }
    this.head = 0;
    this.width = width;
    this.rows = rows;
    this.row = new ImageData(width, 1);
    this.row32 = new Uint32Array(this.row.data.buffer);
    this.fitCanvas();
  }

  /** Moves the history to new edges. */
  remap(startHz, endHz) {
    const span = this.endHz - this.startHz;
    const nspan = endHz - startHz;
    if (!(span > 0) || !(nspan > 0) || !this.filled) return;
    const x = ((this.startHz - startHz) / nspan) * this.width;
    const w = (span / nspan) * this.width;
    if (x >= this.width || x + w <= 0) {
      this.rctx.fillStyle = '#000';
      this.rctx.fillRect(0, 0, this.width, this.rows);
      return;
    }
    const copy = makeCanvas(this.width, this.rows);
    copy.getContext('2d').drawImage(this.ring, 0, 0);
    this.rctx.fillStyle = '#000';
    this.rctx.fillRect(0, 0, this.width, this.rows);
    this.rctx.imageSmoothingEnabled = false;
    this.rctx.drawImage(copy, 0, 0, this.width, this.rows, x, 0, w, this.rows);
  }

  /** Adds one sweep (amplitudes 0..160) covering `startHz`..`endHz`. */
  push(pixels, startHz, endHz) {
    if (!this.rows) this.resize();
    if (pixels.length !== this.width || !this.ring) this.allocate(pixels.length, this.rows);
    else if (startHz !== this.startHz || endHz !== this.endHz) this.remap(startHz, endHz);
    this.startHz = startHz;
    this.endHz = endHz;
    const t = this.table;
    const row = this.row32;
    for (let i = 0; i < pixels.length; i++) row[i] = t[pixels[i]];
    this.head = (this.head - 1 + this.rows) % this.rows;
    this.rctx.putImageData(this.row, 0, this.head);
    this.filled = Math.min(this.rows, this.filled + 1);
    this.dirty = true;
  }

  /** Draws the ring onto the canvas (newest row at the top). */
  draw() {
    if (!this.dirty) return false;
    this.dirty = false;
    const { ctx, canvas } = this;
    if (!this.ring) {
      ctx.fillStyle = '#000';
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      return true;
    }
    const top = this.rows - this.head;
    ctx.drawImage(this.ring, 0, this.head, this.width, top, 0, 0, this.width, top);
    if (this.head > 0) ctx.drawImage(this.ring, 0, 0, this.width, this.head, 0, top, this.width, this.head);
    return true;
  }

  /** A few statistics of what is on screen, for tests and diagnostics: how many rows are
   * filled and how many distinct colours the newest rows hold. */
  sample() {
    if (!this.ring) return { rows: 0, colours: 0 };
    const n = Math.min(this.filled, 8);
    const seen = new Set();
    for (let i = 0; i < n; i++) {
      const d = this.rctx.getImageData(0, (this.head + i) % this.rows, this.width, 1).data;
      for (let p = 0; p < d.length; p += 4) seen.add((d[p] << 16) | (d[p + 1] << 8) | d[p + 2]);
    }
    return { rows: this.filled, colours: seen.size };
  }
}
