// Wheel input to tuning steps. A mouse notch (a large delta: 100-120 px in Chromium and
// Safari, 3 lines in Firefox) is one step; a trackpad's stream of small deltas is added
// up, one step per notch's worth of travel, instead of a step per event (which tunes
// many times too fast).

/** Wheel travel of one step, px. */
export const STEP_PX = 100;
/** A single delta at least this large is a notch (one step at least), px. */
const NOTCH_PX = 50;
/** Pixels per line (`deltaMode` 1): a 3-line notch is one step. */
const LINE_PX = STEP_PX / 3;
/** Pixels per page (`deltaMode` 2). */
const PAGE_PX = 8 * STEP_PX;
/** A pause this long drops a partial step, ms. */
const IDLE_MS = 250;

export class WheelSteps {
  constructor() {
    this.acc = 0;
    this.at = -Infinity;
  }

  /** Takes one wheel event's `delta` (positive: tune up), its `deltaMode` and its time
   * (ms); returns the whole steps to tune now (signed, often 0). */
  add(delta, mode, t) {
    const px = (Number(delta) || 0) * (mode === 1 ? LINE_PX : mode === 2 ? PAGE_PX : 1);
    if (!px) return 0;
    // a new gesture, or a turn the other way, starts from nothing
    if (t - this.at > IDLE_MS || Math.sign(px) !== Math.sign(this.acc)) this.acc = 0;
    this.at = t;
    if (Math.abs(px) >= NOTCH_PX) {
      this.acc = 0;
      return Math.sign(px) * Math.max(1, Math.round(Math.abs(px) / STEP_PX));
    }
    this.acc += px;
    const steps = Math.trunc(this.acc / STEP_PX) || 0;
    this.acc -= steps * STEP_PX;
    return steps;
  }
}
