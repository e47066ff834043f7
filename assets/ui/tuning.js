// Tuning: what the display shows while a new frequency travels to the radio (the
// operator's value at once, the radio's once it reports it), `set_freq` sent as fast as
// the server takes it with the last value always sent, and the tuning step.
import { throttle, loadSetting, saveSetting } from './dom.js';
import { defaultStep, inRanges, formatShort } from './freq.js';

/** set_freq is sent at most this often per VFO while tuning fast; the last value wins. */
const TUNE_MS = 40;
/** A tuned frequency is shown until the radio reports it, or for this long. */
const PENDING_MS = 1500;

export class Tuner {
  /** `hooks`: `entries()`, `caps()`, `send(name, params)` (a promise), `changed()`,
   * `refused(text)`. */
  constructor(hooks) {
    this.hooks = hooks;
    this.pending = new Map();
    this.senders = new Map();
    this.step = loadSetting('step', null);
  }

  /** The frequency to show for a VFO entry. */
  shown(e) {
    const p = this.pending.get(e.key);
    return p ? p.hz : e.rx.freqHz;
  }

  /** The tuning step: the operator's, or the mode's default. */
  stepFor(mode) {
    return this.step || defaultStep(mode || 'USB');
  }

  /** Sets the step (null: follow the mode). */
  setStep(s) {
    this.step = s;
    saveSetting('step', s);
    this.hooks.changed();
  }

  /** Tunes VFO `key` to `hz`: on screen now, at the radio as fast as it may. */
  tune(key, hz) {
    const e = this.hooks.entries().find((x) => x.key === key);
    if (!e || !Number.isFinite(hz)) return;
    const f = Math.round(hz);
    const caps = this.hooks.caps();
    if (!inRanges(caps, f)) {
      this.hooks.refused(`${formatShort(f)} is outside the ${caps.model}'s ranges`);
      return;
    }
    this.pending.set(key, { hz: f, at: performance.now() });
    if (!this.senders.has(key)) {
      this.senders.set(key, throttle((freq, params) => {
        this.hooks.send('set_freq', { freq, ...params }).catch(() => this.pending.delete(key));
      }, TUNE_MS));
    }
    this.senders.get(key)(f, e.params);
    this.hooks.changed();
  }

  /** Forgets shown values the radio has reached (or that are too old). */
  expire(list, now = performance.now()) {
    for (const [key, p] of this.pending) {
      const e = list.find((x) => x.key === key);
      if (!e || e.rx.freqHz === p.hz || now - p.at > PENDING_MS) this.pending.delete(key);
    }
  }

  /** Whether shown values are waiting for the radio. */
  get busy() {
    return this.pending.size > 0;
  }
}
