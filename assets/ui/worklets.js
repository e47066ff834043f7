// The AudioWorklet processors, loaded from a blob made of their source text (the page is
// one file): `rigweb-rx` plays the jitter ring, `rigweb-tx` cuts the microphone into
// 20 ms frames at 48 kHz for the encoder.
import { JitterRing } from './jitter.js';

/** Runs inside the AudioWorkletGlobalScope (never in the page). */
function workletMain() {
  class RigwebRx extends AudioWorkletProcessor {
    constructor(options) {
      super();
      const o = options.processorOptions || {};
      this.ring = new JitterRing({ channels: o.channels, inRate: o.inRate, outRate: sampleRate, minMs: o.minMs, maxMs: o.maxMs });
      this.blocks = 0;
      this.peak = 0;
      this.port.onmessage = (e) => {
        const m = e.data;
        if (m.type === 'push') this.ring.push(m.chans);
        else if (m.type === 'reset') this.ring.reset();
        else if (m.type === 'stop') this.stopped = true;
      };
    }

    process(inputs, outputs) {
      // a node the page replaced ends here (a disconnected node with no inputs would
      // otherwise go on running, and reporting, until it is collected)
      if (this.stopped) return false;
      const out = outputs[0];
      this.ring.pull(out);
      for (let c = 0; c < out.length; c++) {
        const ch = out[c];
        for (let i = 0; i < ch.length; i++) {
          const a = ch[i] < 0 ? -ch[i] : ch[i];
          if (a > this.peak) this.peak = a;
        }
      }
      if (++this.blocks % 20 === 0) {
        this.port.postMessage({ type: 'stats', peak: this.peak, ...this.ring.stats() });
        this.peak = 0;
      }
      return true;
    }
  }

  class RigwebTx extends AudioWorkletProcessor {
    constructor() {
      super();
      this.ratio = 48000 / sampleRate;
      this.frame = new Float32Array(960);
      this.n = 0;
      this.pos = 0;
      this.prev = 0;
    }

    process(inputs, outputs) {
      const input = inputs[0] && inputs[0][0];
      if (outputs[0] && outputs[0][0]) outputs[0][0].fill(0);
      if (!input) return true;
      for (let i = 0; i < input.length; i++) {
        const s = input[i];
        if (this.ratio === 1) {
          this.put(s);
        } else {
          // linear resampling to 48 kHz
          while (this.pos < 1) {
            this.put(this.prev + (s - this.prev) * this.pos);
            this.pos += 1 / this.ratio;
          }
          this.pos -= 1;
          this.prev = s;
        }
      }
      return true;
    }

    put(s) {
      this.frame[this.n++] = s;
      if (this.n === this.frame.length) {
        this.port.postMessage(this.frame, [this.frame.buffer]);
        this.frame = new Float32Array(960);
        this.n = 0;
      }
    }
  }

  registerProcessor('rigweb-rx', RigwebRx);
  registerProcessor('rigweb-tx', RigwebTx);
}

/** The worklet module's source text. */
export function workletSource() {
  return `${JitterRing.toString()}\n(${workletMain.toString()})();\n`;
}

const loaded = new WeakMap();

/** Adds the processors to an AudioContext (once). */
export function loadWorklets(ctx) {
  if (!loaded.has(ctx)) {
    const url = URL.createObjectURL(new Blob([workletSource()], { type: 'text/javascript' }));
    loaded.set(ctx, ctx.audioWorklet.addModule(url).finally(() => URL.revokeObjectURL(url)));
  }
  return loaded.get(ctx);
}
