// The RX audio jitter buffer: a ring of decoded samples that the audio thread reads at
// a slightly adjustable speed, so that the buffered amount stays near an adaptive target
// between `minMs` and `maxMs` (100–200 ms by default). It also resamples from the
// stream's rate to the output's. Self-contained on purpose: audio.js hands its source
// text to the AudioWorklet (and uses it directly where there is no worklet).

export class JitterRing {
  /**
   * channels: channels of the ring (a mono push fills all of them);
   * inRate / outRate: stream and output sample rates; minMs / maxMs: target bounds.
   */
  constructor(opts = {}) {
    this.channels = opts.channels || 2;
    this.inRate = opts.inRate || 48000;
    this.outRate = opts.outRate || 48000;
    this.minMs = opts.minMs || 100;
    this.maxMs = opts.maxMs || 200;
    // the ring holds at least a second and a half of stream audio
    let cap = 1;
    while (cap < this.inRate * 1.5) cap *= 2;
    this.cap = cap;
    this.mask = cap - 1;
    this.buf = [];
    for (let c = 0; c < this.channels; c++) this.buf.push(new Float32Array(cap));
    this.written = 0; // stream samples written, ever
    this.readPos = 0; // fractional read position in the same count
    this.step = this.inRate / this.outRate;
    this.targetMs = this.minMs;
    this.primed = false;
    this.avgMs = 0;
    this.underruns = 0;
    this.droppedMs = 0;
    this.speed = 1;
    // adaptation window: lowest level seen and whether it ran dry
    this.windowOut = 0;
    this.windowMinMs = Infinity;
    this.windowDry = false;
  }

  /** Buffered stream audio, ms. */
  levelMs() {
    return ((this.written - this.readPos) * 1000) / this.inRate;
  }

  /** Appends one block: an array of Float32Array (one per channel, same length). */
  push(chans) {
    const n = chans[0].length;
    for (let i = 0; i < this.channels; i++) {
      const src = chans[Math.min(i, chans.length - 1)];
      const dst = this.buf[i];
      let w = this.written & this.mask;
      const first = Math.min(n, this.cap - w);
      dst.set(src.subarray(0, first), w);
      if (first < n) dst.set(src.subarray(first), 0);
    }
    this.written += n;
    // more than the ring holds (a long stall): keep the newest, at the target
    const level = this.written - this.readPos;
    if (level > this.cap - 1024) this.skipTo(this.targetMs);
    if (!this.primed && this.levelMs() >= this.targetMs) this.primed = true;
  }

  /** Drops the oldest audio so that `ms` stay buffered. */
  skipTo(ms) {
    const keep = (ms * this.inRate) / 1000;
    const drop = this.written - this.readPos - keep;
    if (drop > 0) {
      this.readPos += drop;
      this.droppedMs += (drop * 1000) / this.inRate;
    }
  }

  /** Fills `outs` (one Float32Array per output channel, same length) with audio or silence. */
  pull(outs) {
    const m = outs[0].length;
    const level = this.levelMs();
    this.avgMs += (level - this.avgMs) * 0.02;
    if (this.primed && level < this.windowMinMs) this.windowMinMs = level;
    let done = 0;
    if (this.primed) {
      // far too much buffered (a burst after a stall): cut back to the target at once
      if (level > this.targetMs + this.maxMs) this.skipTo(this.targetMs);
      // else drift towards the target by playing up to 1 % faster or slower
      const err = (this.avgMs - this.targetMs) / this.targetMs;
      this.speed = 1 + Math.max(-0.01, Math.min(0.01, err * 0.05));
      const step = this.step * this.speed;
      const chans = this.channels;
      for (; done < m; done++) {
        const i0 = Math.floor(this.readPos);
        if (i0 + 1 >= this.written) break;
        const frac = this.readPos - i0;
        const a = i0 & this.mask;
        const b = (i0 + 1) & this.mask;
        for (let c = 0; c < outs.length; c++) {
          const src = this.buf[Math.min(c, chans - 1)];
          // a lossy codec overshoots full scale a little: clip here, not in the speaker
          const v = src[a] + (src[b] - src[a]) * frac;
          outs[c][done] = v > 1 ? 1 : v < -1 ? -1 : v;
        }
        this.readPos += step;
      }
      if (done < m) {
        // ran dry: silence until the target is buffered again
        this.primed = false;
        this.underruns++;
        this.windowDry = true;
        this.windowMinMs = 0;
      }
    }
    for (let c = 0; c < outs.length; c++) outs[c].fill(0, done);
    this.windowOut += m;
    if (this.windowOut >= this.outRate * 2) this.adapt();
  }

  /** Every two seconds of output: raise the target after a dry spell, lower it slowly
   * while the lowest level leaves a wide margin. */
  adapt() {
    const margin = 25;
    if (this.windowDry) {
      this.targetMs = Math.min(this.maxMs, this.targetMs + 30);
    } else if (this.windowMinMs !== Infinity && this.windowMinMs < margin) {
      this.targetMs = Math.min(this.maxMs, this.targetMs + (margin - this.windowMinMs) + 5);
    } else if (this.windowMinMs > margin + 30) {
      this.targetMs = Math.max(this.minMs, this.targetMs - 5);
    }
    this.windowOut = 0;
    this.windowMinMs = Infinity;
    this.windowDry = false;
  }

  /** Figures for the latency readout. */
  stats() {
    return {
      levelMs: this.levelMs(),
      avgMs: this.avgMs,
      targetMs: this.targetMs,
      underruns: this.underruns,
      droppedMs: this.droppedMs,
      speed: this.speed,
      primed: this.primed,
    };
  }

  /** Forgets everything buffered (a new stream). */
  reset() {
    this.readPos = this.written;
    this.primed = false;
    this.avgMs = 0;
  }
}
