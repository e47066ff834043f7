// Meter views: an S-meter bar per receiver (S-units, dB over S9, peak hold) and the
// transmit meters (the profile's meters that are not read while receiving only: their
// labels and when they apply come from the capabilities' `meterInfo`).
import { h, setText } from './dom.js';
import { sMeter, sMeterTicks, meterReading, PeakHold } from './meterscale.js';

/** One S-meter bar with its scale and a reading like "S9+20". */
export class SMeterBar {
  /** `label`: the meter's accessible name ("MAIN S-meter"). */
  constructor(label = 'S-meter') {
    this.fill = h('div', { class: 'fill' });
    this.peakMark = h('div', { class: 'peak' });
    this.bar = h('div', { class: 'bar', attrs: { role: 'meter', 'aria-valuemin': '0', 'aria-valuemax': '241', 'aria-valuenow': '0', 'aria-valuetext': 'no reading', 'aria-label': label } }, this.fill, this.peakMark);
    // the scale is for the eye: the meter's value says the reading in words
    const ticks = h('div', { class: 'ticks', attrs: { 'aria-hidden': 'true' } }, ...sMeterTicks().map((t) => h('span', { class: t.label.startsWith('+') ? 'over' : '', text: t.label, style: { left: `${t.fraction * 100}%` } })));
    this.el = h('div', { class: 'smeter' }, this.bar, ticks);
    this.readout = h('span', { class: 'smeter-read', text: 'S0' });
    this.hold = new PeakHold(1500, 0.35);
    this.raw = null;
    new ResizeObserver(() => this.fill.style.setProperty('--bar-w', `${this.bar.clientWidth}px`)).observe(this.bar);
  }

  /** Shows a raw reading (0..255), or null for none (no live reading: the bar empties,
   * the readout says "—"). */
  update(raw, now = performance.now()) {
    this.raw = raw;
    if (raw === null || raw === undefined) {
      this.fill.style.width = '0%';
      this.peakMark.style.left = '0%';
      setText(this.readout, '—');
      this.bar.setAttribute('aria-valuetext', 'no reading');
      return;
    }
    const s = sMeter(raw);
    const peak = this.hold.update(s.fraction, now);
    this.fill.style.width = `${(s.fraction * 100).toFixed(1)}%`;
    this.peakMark.style.left = `calc(${(peak * 100).toFixed(1)}% - 1px)`;
    this.bar.setAttribute('aria-valuenow', String(raw));
    this.bar.setAttribute('aria-valuetext', s.text);
    setText(this.readout, s.text);
  }

  /** The reading in words ("S9+10", or "no S-meter reading"). */
  text() {
    return this.raw === null || this.raw === undefined ? 'no S-meter reading' : `S-meter ${sMeter(this.raw).text}`;
  }
}

/** The transmit meters the profile has. */
export class TxMeters {
  constructor(root) {
    this.root = root;
    this.items = new Map();
    this.maxWatts = 100;
    this.holds = new Map();
  }

  /** Builds bars for the profile's meters (`caps.meters`, in its order) that are read
   * while transmitting (`read` "tx" or "always" in `caps.meterInfo`). */
  build(caps) {
    this.root.replaceChildren();
    this.items.clear();
    this.maxWatts = (caps.power && caps.power.maxWatts) || 100;
    const info = caps.meterInfo || {};
    for (const name of caps.meters || []) {
      const meter = info[name];
      if (!meter || meter.read === 'rx') continue;
      const v = h('span', { class: 'v', text: '—' });
      const bar = h('i');
      const el = h('div', { class: 'mtr idle' }, h('div', { class: 'top2' }, h('span', { text: meter.label }), v), h('div', { class: 'bar' }, bar));
      this.items.set(name, { el, v, bar, always: meter.read === 'always' });
      this.holds.set(name, new PeakHold(800, 0.6));
      this.root.append(el);
    }
  }

  /** Shows readings `{name: raw}`; `tx` dims the transmit-only meters while receiving. */
  update(readings, tx, now = performance.now()) {
    for (const [name, it] of this.items) {
      const raw = readings[name];
      const live = tx || it.always;
      it.el.classList.toggle('idle', !live || raw === undefined);
      if (raw === undefined || !live) {
        if (!live) {
          it.bar.style.width = '0%';
          setText(it.v, '—');
        }
        continue;
      }
      const r = meterReading(name, raw, this.maxWatts);
      const shown = name === 'swr' ? r.fraction : this.holds.get(name).update(r.fraction, now);
      it.bar.style.width = `${(shown * 100).toFixed(1)}%`;
      it.el.classList.toggle('red', r.red);
      setText(it.v, r.text);
    }
  }
}
