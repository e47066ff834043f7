import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PttMachine, clock, TAP_MS, DOUBLE_TAP_MS } from '../pttmachine.js';

const kinds = (effects) => effects.map((e) => e.do);
/** The generation of the key among `effects`. */
const genOf = (effects) => effects.find((e) => e.do === 'key').gen;

test('held button: key, on the air with audio, unkey on release', () => {
  const m = new PttMachine();
  const down = m.pointerDown(0, true);
  assert.deepEqual(down, [{ do: 'key', gen: 1 }]);
  assert.equal(m.phase, 'keying');
  assert.deepEqual(m.keyed(1, 50), [{ do: 'clock', on: true }, { do: 'startAudio', gen: 1 }]);
  assert.equal(m.phase, 'live');
  assert.equal(m.caption(2050, 180), 'on air · 0:02');
  assert.deepEqual(m.pointerUp(3000, false), [{ do: 'clock', on: false }, { do: 'stopAudio' }, { do: 'unkey', quiet: false }]);
  assert.equal(m.phase, 'idle');
  assert.equal(m.caption(3000, 180), 'hold to talk');
  assert.equal(m.current(1), false, 'the release ended the generation');
});

test('a release while the key is on its way unkeys as soon as it lands, with no audio', () => {
  const m = new PttMachine();
  m.pointerDown(0, true);
  assert.deepEqual(m.pointerUp(1000, false), [], 'nothing to unkey yet');
  assert.equal(m.wantRelease, true);
  assert.equal(m.caption(1000, 180), 'keying…');
  const landed = m.keyed(1, 1200);
  assert.deepEqual(kinds(landed), ['clock', 'stopAudio', 'unkey']);
  assert.ok(!kinds(landed).includes('startAudio'));
  assert.equal(m.phase, 'idle');
});

test('a double tap on a touch screen latches until the next tap; a mouse never latches', () => {
  const m = new PttMachine();
  m.pointerDown(0, true);
  m.pointerUp(100, true); // first tap: short, released while keying
  assert.equal(m.wantRelease, true);
  assert.deepEqual(m.pointerDown(250, true), [], 'the second tap cancels the release');
  const latch = m.pointerUp(320, true);
  assert.equal(latch[0].do, 'toast');
  assert.equal(m.latched, true);
  assert.deepEqual(kinds(m.keyed(1, 400)), ['clock', 'startAudio']);
  assert.equal(m.caption(400 + 10_000, 180), 'latched · 0:10 · 2:50 left');
  // the button coming up after the latch changes nothing; the next tap releases
  assert.deepEqual(m.pointerUp(500, true), []);
  assert.deepEqual(kinds(m.pointerDown(20_000, true)), ['clock', 'stopAudio', 'unkey']);
  assert.equal(m.latched, false);

  const mouse = new PttMachine();
  mouse.keyed(genOf(mouse.pointerDown(0, true)), 10);
  mouse.pointerUp(100, false);
  mouse.keyed(genOf(mouse.pointerDown(200, true)), 210);
  assert.deepEqual(kinds(mouse.pointerUp(260, false)), ['clock', 'stopAudio', 'unkey']);
  assert.equal(mouse.latched, false);
});

test('taps too slow or too far apart do not latch (also in the first moments of the page)', () => {
  const m = new PttMachine();
  m.keyed(genOf(m.pointerDown(0, true)), 10);
  m.pointerUp(TAP_MS + 1, true); // a hold, not a tap
  m.keyed(genOf(m.pointerDown(TAP_MS + 50, true)), TAP_MS + 60);
  assert.deepEqual(kinds(m.pointerUp(TAP_MS + 100, true)), ['clock', 'stopAudio', 'unkey']);
  assert.equal(m.latched, false, 'the first press was not a tap');
  m.keyed(genOf(m.pointerDown(TAP_MS + 100 + DOUBLE_TAP_MS + 1, true)), TAP_MS + DOUBLE_TAP_MS + 120);
  assert.deepEqual(kinds(m.pointerUp(TAP_MS + DOUBLE_TAP_MS + 150, true)), ['clock', 'stopAudio', 'unkey']);
  assert.equal(m.latched, false, 'the taps were too far apart');
  // a first short tap a moment after the page opened is no double tap either
  const early = new PttMachine();
  early.keyed(genOf(early.pointerDown(10, true)), 20);
  assert.deepEqual(kinds(early.pointerUp(60, true)), ['clock', 'stopAudio', 'unkey']);
  assert.equal(early.latched, false);
});

test('a refused key goes back to idle and says why; a stale answer is ignored', () => {
  const m = new PttMachine();
  m.press('key', true);
  const refused = m.keyFailed(1, 'ptt_busy: another client transmits');
  assert.deepEqual(refused.at(-1), { do: 'toast', text: 'PTT refused: ptt_busy: another client transmits', kind: 'bad' });
  assert.equal(m.phase, 'idle');
  // the socket closes while a key travels: the key's answer finds its generation gone
  const gen = genOf(m.press('key', true));
  assert.deepEqual(kinds(m.connectionLost()), ['clock', 'stopAudio']);
  assert.deepEqual(m.keyed(gen, 100), []);
  assert.deepEqual(m.keyFailed(gen, 'disconnected'), []);
  assert.equal(m.phase, 'idle');
});

test('no key without a ready radio; no second key while one is active', () => {
  const m = new PttMachine();
  assert.deepEqual(m.press('key', false), [{ do: 'toast', text: 'Not connected to a ready radio.', kind: 'bad' }]);
  assert.equal(m.phase, 'idle');
  m.press('key', true);
  assert.deepEqual(m.press('button', true), []);
  assert.equal(m.source, 'key');
  // a button release does not release a key held with Space
  assert.deepEqual(m.pointerUp(10, false), []);
});

test('the server releasing PTT, TX audio lost', () => {
  const m = new PttMachine();
  const gen = genOf(m.press('key', true));
  assert.deepEqual(m.serverReleased('timeout'), [], 'only a live key is released by the server');
  m.keyed(gen, 0);
  const out = m.serverReleased("The server's transmit timeout released PTT after 180 s.");
  assert.deepEqual(kinds(out), ['clock', 'stopAudio', 'toast']);
  assert.ok(!kinds(out).includes('unkey'), 'the server unkeyed already');
  m.keyed(genOf(m.press('key', true)), 0);
  const lost = m.audioLost('the audio socket closed');
  assert.deepEqual(lost[0], { do: 'toast', text: 'PTT released: the audio socket closed.', kind: 'bad', ms: 8000 });
  assert.deepEqual(lost.at(-1), { do: 'unkey', quiet: true });
  assert.deepEqual(m.audioLost('again'), [], 'nothing on the air');
});

test('clock text', () => {
  assert.equal(clock(0), '0:00');
  assert.equal(clock(89.6), '1:30');
  assert.equal(clock(-5), '0:00');
});

test('a voice mode without a microphone asks first, keys after the confirmation, and asks again in another mode', () => {
  const m = new PttMachine();
  const silent = { mode: 'USB', why: 'The microphone needs HTTPS' };
  assert.equal(m.caption(0, 180, silent), 'no microphone · USB asks first');
  assert.deepEqual(m.pointerDown(0, true, silent), [{ do: 'confirmSilent', mode: 'USB', why: 'The microphone needs HTTPS' }]);
  assert.equal(m.phase, 'idle', 'nothing keyed before the confirmation');
  assert.deepEqual(m.pointerUp(100, false), []);
  assert.deepEqual(kinds(m.confirmSilent('USB')), ['toast']);
  assert.equal(m.caption(0, 180, silent), 'hold to talk');
  assert.deepEqual(kinds(m.press('key', true, silent)), ['key']);
  m.connectionLost();
  // FM was never agreed to
  assert.deepEqual(kinds(m.press('key', true, { mode: 'FM', why: 'x' })), ['confirmSilent']);
  // CW and data modes pass no `silent`: they key as before
  assert.deepEqual(kinds(m.press('key', true, null)), ['key']);
});

test('without a ready radio the silent question is not asked', () => {
  const m = new PttMachine();
  assert.deepEqual(kinds(m.press('button', false, { mode: 'USB', why: 'x' })), ['toast']);
});
