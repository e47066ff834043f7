import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JitterRing } from '../jitter.js';

const RATE = 48000;
const FRAME = 960; // 20 ms
const BLOCK = 128; // one render quantum

/** Runs `ms` of simulated time: frames arrive at the times `arrivals` gives (ms), the
 * output pulls a block every 128 samples; returns the output's first channel. */
function run(ring, ms, arrivalAt, outRate = RATE, clock = { t: 0, next: 0 }) {
  const out = [];
  let next = clock.next;
  let t = clock.t;
  let phase = next * FRAME;
  const blockMs = (BLOCK * 1000) / outRate;
  const end = t + ms;
  while (t < end) {
    while (arrivalAt(next) <= t) {
      const f = new Float32Array(FRAME);
      for (let i = 0; i < FRAME; i++) f[i] = Math.sin(((phase + i) * 2 * Math.PI * 440) / RATE) * 0.5;
      phase += FRAME;
      ring.push([f]);
      next++;
    }
    const o = [new Float32Array(BLOCK), new Float32Array(BLOCK)];
    ring.pull(o);
    out.push(o);
    t += blockMs;
  }
  clock.t = t;
  clock.next = next;
  return out;
}

test('silence until the target is buffered, then audio', () => {
  const ring = new JitterRing({ channels: 1, minMs: 100, maxMs: 200 });
  const o = [new Float32Array(BLOCK)];
  ring.pull(o);
  assert.ok(o[0].every((x) => x === 0));
  for (let i = 0; i < 4; i++) ring.push([new Float32Array(FRAME).fill(0.25)]);
  ring.pull(o);
  assert.ok(o[0].every((x) => x === 0), '80 ms is below the 100 ms target');
  ring.push([new Float32Array(FRAME).fill(0.25)]);
  ring.pull(o);
  assert.ok(o[0].every((x) => Math.abs(x - 0.25) < 1e-6));
});

test('steady arrivals: no underruns and the level settles near the lowest target', () => {
  const ring = new JitterRing({ channels: 1, minMs: 100, maxMs: 200 });
  run(ring, 10000, (n) => n * 20);
  const s = ring.stats();
  assert.equal(s.underruns, 0);
  assert.equal(s.targetMs, 100);
  assert.ok(s.avgMs > 80 && s.avgMs < 125, `average level ${s.avgMs} ms`);
});

test('bursty arrivals raise the target until the dry spells stop, within the maximum', () => {
  const ring = new JitterRing({ channels: 1, minMs: 100, maxMs: 200 });
  // every second, frames are held back 150 ms and then arrive together
  const late = (n) => {
    const t = n * 20;
    const inSecond = t % 1000;
    return inSecond < 150 ? t - inSecond + 150 : t;
  };
  const clock = { t: 0, next: 0 };
  run(ring, 20000, late, RATE, clock);
  const early = ring.stats().underruns;
  assert.ok(ring.stats().targetMs > 100, `target rose: ${ring.stats().targetMs}`);
  assert.ok(ring.stats().targetMs <= 200);
  // keep going: once adapted, no more underruns
  run(ring, 10000, late, RATE, clock);
  assert.equal(ring.stats().underruns, early, 'no new underruns after adapting');
});

test('a backlog after a stall is cut back to the target, not played late', () => {
  const ring = new JitterRing({ channels: 1, minMs: 100, maxMs: 200 });
  for (let i = 0; i < 50; i++) ring.push([new Float32Array(FRAME)]); // 1 s at once
  const o = [new Float32Array(BLOCK)];
  ring.pull(o);
  assert.ok(ring.levelMs() <= 101, `level ${ring.levelMs()}`);
  assert.ok(ring.stats().droppedMs > 850);
});

test('more than the ring holds keeps the newest audio', () => {
  const ring = new JitterRing({ channels: 1, minMs: 100, maxMs: 200 });
  for (let i = 0; i < 200; i++) ring.push([new Float32Array(FRAME).fill(i / 1000)]);
  assert.ok(ring.levelMs() < 1500);
  const o = [new Float32Array(BLOCK)];
  ring.pull(o);
  assert.ok(o[0][0] > 0.19, 'plays recent audio');
});

test('mono input fills both output channels; stereo keeps them apart', () => {
  const mono = new JitterRing({ channels: 1, minMs: 20, maxMs: 200 });
  mono.push([new Float32Array(FRAME * 2).fill(0.3)]);
  const o = [new Float32Array(BLOCK), new Float32Array(BLOCK)];
  mono.pull(o);
  assert.ok(o[1].every((x) => Math.abs(x - 0.3) < 1e-6));
  const st = new JitterRing({ channels: 2, minMs: 20, maxMs: 200 });
  st.push([new Float32Array(FRAME * 2).fill(0.1), new Float32Array(FRAME * 2).fill(-0.1)]);
  st.pull(o);
  assert.ok(Math.abs(o[0][5] - 0.1) < 1e-6 && Math.abs(o[1][5] + 0.1) < 1e-6);
});

test('48 kHz into a 44.1 kHz output resamples without running dry', () => {
  const ring = new JitterRing({ channels: 1, inRate: 48000, outRate: 44100, minMs: 100, maxMs: 200 });
  const out = run(ring, 8000, (n) => n * 20, 44100);
  assert.equal(ring.stats().underruns, 0);
  // the tone is still a clean 440 Hz sine: neighbouring samples differ little
  const last = out[out.length - 1][0];
  for (let i = 1; i < last.length; i++) assert.ok(Math.abs(last[i] - last[i - 1]) < 0.05);
});

test('decoded audio past full scale (a lossy codec overshoots) plays clipped at ±1', () => {
  const ring = new JitterRing({ channels: 1, minMs: 100, maxMs: 200 });
  for (let i = 0; i < 8; i++) {
    const f = new Float32Array(FRAME);
    for (let j = 0; j < FRAME; j++) f[j] = (j % 2 ? -1 : 1) * 1.03;
    ring.push([f]);
  }
  const o = [new Float32Array(BLOCK)];
  ring.pull(o);
  const peak = Math.max(...o[0].map(Math.abs));
  assert.ok(peak > 0.99 && peak <= 1, `peak ${peak}`);
});
