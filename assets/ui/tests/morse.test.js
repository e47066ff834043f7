import { test } from 'node:test';
import assert from 'node:assert/strict';
import { morseTiming, dotMs, DEFAULT_WPM } from '../morse.js';

test('a dot lasts 1200 / wpm ms; an unknown speed is 20 wpm', () => {
  assert.equal(dotMs(20), 60);
  assert.equal(dotMs(12), 100);
  assert.equal(dotMs(null), 1200 / DEFAULT_WPM);
  assert.equal(dotMs(0), 60);
});

test('elements, letters and words are spaced one, three and seven dots apart', () => {
  const d = 60;
  // "ET E": dot; 3 gap; dash; 7 gap; dot
  const t = morseTiming('et e', 20);
  assert.deepEqual(t.tones, [
    { at: 0, ms: d },
    { at: d + 3 * d, ms: 3 * d },
    { at: d + 3 * d + 3 * d + 7 * d, ms: d },
  ]);
  assert.equal(t.totalMs, 15 * d);
  // "A": dot, one dot gap, dash
  assert.deepEqual(morseTiming('A', 20).tones, [{ at: 0, ms: d }, { at: 2 * d, ms: 3 * d }]);
});

test('PARIS takes 50 dots (the definition of a word per minute)', () => {
  const t = morseTiming('PARIS', 20);
  // 43 dots of elements and gaps inside the word; the 7-dot word gap after it makes 50
  assert.equal(t.totalMs + 7 * 60, 50 * 60);
});

test('characters without a code, extra spaces and empty text are skipped', () => {
  assert.deepEqual(morseTiming('', 20), { tones: [], totalMs: 0 });
  assert.deepEqual(morseTiming('  ', 20).tones, []);
  assert.deepEqual(morseTiming('E ~ E', 20).tones.length, 2);
  assert.equal(morseTiming('  E  ', 20).tones[0].at, 0);
});
