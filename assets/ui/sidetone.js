// The CW sidetone in the browser: what the radio's keyer sends, heard locally as a tone
// keyed with the Morse timing of the text at the keyer's speed (a WebAudio oscillator
// whose gain follows the key, with 5 ms edges against clicks). Off unless the operator
// turns it on.
import { loadSetting, saveSetting } from './dom.js';
import { morseTiming } from './morse.js';

/** The tone's pitch, Hz. */
const PITCH_HZ = 600;
/** Rise and fall of each element, s. */
const EDGE_S = 0.005;

export class Sidetone {
  /** `button` turns the sidetone on and off (remembered in the browser). */
  constructor(button) {
    this.ctx = null;
    this.osc = null;
    this.gain = null;
    this.until = 0;
    this.lastTiming = null;
    this.enabled = loadSetting('sidetone', false);
    button.setAttribute('aria-pressed', String(this.enabled));
    button.addEventListener('click', () => {
      this.enabled = !this.enabled;
      saveSetting('sidetone', this.enabled);
      button.setAttribute('aria-pressed', String(this.enabled));
      if (!this.enabled) this.stop();
    });
  }

  /** The radio's keyer took `text`: play it when the sidetone is on (`wpm` the keyer's
   * speed, null when unknown). */
  sent(text, wpm) {
    if (this.enabled) this.play(text, wpm);
  }

  /** Plays `text` at `wpm`; returns the timing played. */
  play(text, wpm) {
    this.stop();
    const timing = morseTiming(text, wpm);
    this.lastTiming = { ...timing, text, wpm };
    if (!timing.tones.length) return timing;
    if (!this.ctx) this.ctx = new AudioContext();
    const ctx = this.ctx;
    const t0 = ctx.currentTime + 0.05;
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = PITCH_HZ;
    gain.gain.setValueAtTime(0, t0);
    for (const tone of timing.tones) {
      const a = t0 + tone.at / 1000;
      const b = a + tone.ms / 1000;
      gain.gain.setValueAtTime(0, a);
      gain.gain.linearRampToValueAtTime(0.3, a + EDGE_S);
      gain.gain.setValueAtTime(0.3, b - EDGE_S);
      gain.gain.linearRampToValueAtTime(0, b);
    }
    osc.connect(gain).connect(ctx.destination);
    osc.start(t0);
    osc.stop(t0 + timing.totalMs / 1000 + 0.05);
    this.osc = osc;
    this.gain = gain;
    this.until = performance.now() + 50 + timing.totalMs;
    if (ctx.state === 'suspended') ctx.resume().catch(() => {});
    return timing;
  }

  /** Whether a tone is being played. */
  get playing() {
    return !!this.osc && performance.now() < this.until;
  }

  /** Stops at once (stop_cw). */
  stop() {
    if (this.osc) {
      try {
        this.osc.stop();
      } catch {
        // already stopped
      }
      this.osc.disconnect();
    }
    this.osc = null;
    this.until = 0;
  }
}
