import { test } from 'node:test';
import assert from 'node:assert/strict';
import { workletSource } from '../worklets.js';

/** Runs the worklet module's source text in a scope shaped like an
 * AudioWorkletGlobalScope and returns the processors it registered, by name. */
function loadProcessors() {
  const registered = {};
  class AudioWorkletProcessor {
    constructor() {
      this.sent = [];
      this.port = { postMessage: (m) => this.sent.push(m), onmessage: null };
    }
  }
  const scope = new Function('AudioWorkletProcessor', 'registerProcessor', 'sampleRate', workletSource());
  scope(AudioWorkletProcessor, (name, cls) => (registered[name] = cls), 48000);
  return registered;
}

const ringOptions = { processorOptions: { channels: 1, inRate: 48000, minMs: 20, maxMs: 40 } };

function tone(n) {
  const f = new Float32Array(n);
  for (let i = 0; i < n; i++) f[i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / 48000);
  return f;
}

function quantum() {
  return [[new Float32Array(128), new Float32Array(128)]];
}

test('the RX processor plays what is pushed and reports every 20 quanta', () => {
  const { 'rigweb-rx': Rx } = loadProcessors();
  const rx = new Rx(ringOptions);
  for (let i = 0; i < 3; i++) rx.port.onmessage({ data: { type: 'push', chans: [tone(960)] } });
  let loud = 0;
  for (let i = 0; i < 20; i++) {
    const out = quantum();
    assert.equal(rx.process([], out), true);
    if (out[0][0].some((v) => Math.abs(v) > 0.1)) loud++;
  }
  assert.ok(loud > 10, `quanta with the tone: ${loud}`);
  assert.equal(rx.sent.length, 1);
  assert.equal(rx.sent[0].type, 'stats');
  assert.ok(rx.sent[0].peak > 0.4, `peak ${rx.sent[0].peak}`);
});

test('a stopped RX processor ends: no more output, no more reports', () => {
  const { 'rigweb-rx': Rx } = loadProcessors();
  const rx = new Rx(ringOptions);
  rx.port.onmessage({ data: { type: 'push', chans: [tone(4800)] } });
  rx.port.onmessage({ data: { type: 'stop' } });
  for (let i = 0; i < 40; i++) assert.equal(rx.process([], quantum()), false);
  assert.deepEqual(rx.sent, []);
});

test('the TX processor cuts the microphone into 20 ms frames at 48 kHz', () => {
  const { 'rigweb-tx': Tx } = loadProcessors();
  const tx = new Tx();
  const mic = new Float32Array(128).fill(0.25);
  for (let i = 0; i < 15; i++) assert.equal(tx.process([[mic]], [[new Float32Array(128)]]), true);
  // 15 quanta of 128 samples: two whole frames of 960
  assert.equal(tx.sent.length, 2);
  assert.equal(tx.sent[0].length, 960);
  assert.ok(tx.sent[1].every((v) => v === 0.25));
});
