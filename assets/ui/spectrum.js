// The spectrum trace above the waterfall: grid, frequency and dB labels, the passbands of
// the receivers (where they really listen), the trace with an optional average and
// peak hold, and an out-of-range warning.
import { hzToX } from './passband.js';
import { scopeTicks } from './freq.js';

export class Spectrum {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.dpr = 1;
  }

  resize() {
    const r = this.canvas.getBoundingClientRect();
    // at most 1.5 device pixels per CSS pixel: crisp enough, and a phone draws half the pixels
    this.dpr = Math.min(1.5, window.devicePixelRatio || 1);
    const w = Math.max(1, Math.round(r.width * this.dpr));
    const h = Math.max(1, Math.round(r.height * this.dpr));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
  }

  /** Draws one picture. `v`: `{trace, peak, startHz, endHz, lo, hi, passbands:
   * [{lo, hi, dial, color, label}], colors, outOfRange, fill}`. */
  draw(v) {
    const { ctx, canvas } = this;
    const W = canvas.width;
    const H = canvas.height;
    const dpr = this.dpr;
    const c = v.colors;
    ctx.clearRect(0, 0, W, H);
    const axisH = Math.round(16 * dpr);
    const plotH = H - axisH;
    const yLo = v.lo - 6;
    const yHi = v.hi + 14;
    const yOf = (a) => plotH - ((a - yLo) / (yHi - yLo)) * plotH;
    // amplitude grid every 10 units
    ctx.strokeStyle = c.grid;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let a = Math.ceil(yLo / 10) * 10; a < yHi; a += 10) {
      const y = Math.round(yOf(a)) + 0.5;
      ctx.moveTo(0, y);
      ctx.lineTo(W, y);
    }
    ctx.stroke();
    if (!(v.endHz > v.startHz)) return;
    const x = (hz) => hzToX(hz, v.startHz, v.endHz, W);
    // frequency ticks and labels
    ctx.font = `${Math.round(11 * dpr)}px ui-monospace, "DejaVu Sans Mono", monospace`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.beginPath();
    for (const t of scopeTicks(v.startHz, v.endHz, W / dpr)) {
      const tx = Math.round(x(t.hz)) + 0.5;
      ctx.moveTo(tx, 0);
      ctx.lineTo(tx, plotH);
    }
    ctx.stroke();
    ctx.fillStyle = c.label;
    for (const t of scopeTicks(v.startHz, v.endHz, W / dpr)) {
      const tx = x(t.hz);
      if (tx > 24 * dpr && tx < W - 24 * dpr) ctx.fillText(t.label, tx, plotH + axisH / 2);
    }
    // the amplitude scale: the scope's units are dB (relative to its floor)
    ctx.textAlign = 'left';
    ctx.textBaseline = 'bottom';
    for (let a = Math.ceil(yLo / 20) * 20; a < yHi; a += 20) {
      const y = yOf(a);
      if (y > 14 * dpr && y < plotH - 2 * dpr) ctx.fillText(`${a} dB`, 3 * dpr, y - 1);
    }
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    // passbands behind the trace
    for (const pb of v.passbands) {
      const x0 = x(pb.lo);
      const x1 = x(pb.hi);
      if (x1 < 0 || x0 > W) continue;
      ctx.fillStyle = pb.color;
      ctx.globalAlpha = 0.16;
      ctx.fillRect(x0, 0, Math.max(1, x1 - x0), plotH);
      ctx.globalAlpha = 0.9;
      ctx.fillRect(x0, 0, Math.max(1, x1 - x0), 2 * dpr);
      const xd = Math.round(x(pb.dial)) + 0.5;
      ctx.strokeStyle = pb.color;
      ctx.lineWidth = Math.max(1, dpr);
      ctx.beginPath();
      ctx.moveTo(xd, 0);
      ctx.lineTo(xd, plotH);
      ctx.stroke();
      ctx.globalAlpha = 1;
      ctx.fillStyle = pb.color;
      ctx.textAlign = 'left';
      ctx.fillText(pb.label, Math.min(W - 40 * dpr, Math.max(2, xd + 4 * dpr)), 10 * dpr);
      ctx.textAlign = 'center';
    }
    const tr = v.trace;
    if (!tr || !tr.length) return;
    const n = tr.length;
    const step = W / n;
    // the trace, filled underneath
    ctx.beginPath();
    ctx.moveTo(0, plotH);
    for (let i = 0; i < n; i++) ctx.lineTo(i * step + step / 2, yOf(tr[i]));
    ctx.lineTo(W, plotH);
    ctx.closePath();
    const g = ctx.createLinearGradient(0, 0, 0, plotH);
    g.addColorStop(0, v.fill[0]);
    g.addColorStop(1, v.fill[1]);
    ctx.fillStyle = g;
    ctx.fill();
    ctx.beginPath();
    for (let i = 0; i < n; i++) {
      const px = i * step + step / 2;
      const py = yOf(tr[i]);
      if (i === 0) ctx.moveTo(px, py);
      else ctx.lineTo(px, py);
    }
    ctx.strokeStyle = c.light ? '#0b3d6e' : '#d9f1ff';
    ctx.lineWidth = Math.max(1, dpr);
    ctx.stroke();
    if (v.peak) {
      ctx.beginPath();
      for (let i = 0; i < n; i++) {
        const px = i * step + step / 2;
        const py = yOf(v.peak[i]);
        if (i === 0) ctx.moveTo(px, py);
        else ctx.lineTo(px, py);
      }
      ctx.strokeStyle = c.accent;
      ctx.globalAlpha = 0.7;
      ctx.stroke();
      ctx.globalAlpha = 1;
    }
    if (v.outOfRange) {
      ctx.fillStyle = c.tx;
      ctx.textAlign = 'right';
      ctx.fillText('OUT OF RANGE', W - 8 * dpr, 12 * dpr);
    }
  }
}
