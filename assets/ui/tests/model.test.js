import { test } from 'node:test';
import assert from 'node:assert/strict';
import { vfoEntries, badgesOf, radioStatus, txVfo, isVoiceMode } from '../model.js';

const TWO = {
  main: { freqHz: 14074000, mode: 'USB', filter: 2, dataMode: 1, att: 6, preamp: 0 },
  sub: { freqHz: 7074000, mode: 'LSB', filter: 1, dataMode: 0, att: 0, preamp: 1 },
  active: 'MAIN', ptt: false, split: false,
  connection: { radioReady: true }, radioDetail: { status: 'connected', model: 'IC-7610' },
};
const CAPS2 = { vfoScheme: 'main_sub', filterWidths: { USB: [3000, 2400, 1800] } };

test('two receivers: MAIN and SUB, addressed by receiver, each with its own S-meter', () => {
  const e = vfoEntries(TWO, CAPS2);
  assert.deepEqual(e.map((x) => [x.key, x.name, x.params, x.meter, x.isActive]), [
    ['main', 'MAIN', { receiver: 0 }, 'smeter', true],
    ['sub', 'SUB', { receiver: 1 }, 'smeter_sub', false],
  ]);
  assert.equal(vfoEntries({ ...TWO, active: 'SUB' }, CAPS2)[1].isActive, true);
  assert.deepEqual(vfoEntries({ main: TWO.main }, CAPS2).map((x) => x.key), ['main']);
  assert.deepEqual(vfoEntries(null, CAPS2), []);
});

test('A/B radios: the active VFO first, addressed by vfo', () => {
  const st = { main: { freqHz: 7100000, mode: 'CW', filter: 1, vfoA: { freqHz: 7100000, mode: 'CW', filter: 1 }, vfoB: { freqHz: 7200000, mode: 'LSB', filter: 2 } }, active: 'B' };
  const e = vfoEntries(st, { vfoScheme: 'ab' });
  assert.deepEqual(e.map((x) => [x.key, x.params, x.rx.freqHz]), [['B', { vfo: 'B' }, 7100000], ['A', { vfo: 'A' }, 7100000]]);
  assert.equal(e[1].meter, null);
});

test('badges: mode with DATA, filter width, ATT, preamp, TX on the transmitting VFO', () => {
  const [main, sub] = vfoEntries({ ...TWO, ptt: true }, CAPS2);
  assert.deepEqual(badgesOf(main, { ...TWO, ptt: true }, CAPS2).map((b) => b.text), ['USB-D1', 'FIL2 2.4k', 'ATT 6 dB', 'TX']);
  assert.deepEqual(badgesOf(sub, { ...TWO, ptt: true }, CAPS2).map((b) => b.text), ['LSB', 'FIL1', 'P.AMP 1']);
  const split = { ...TWO, ptt: true, split: true, rit: true, ritOffsetHz: -50 };
  const [m2, s2] = vfoEntries(split, CAPS2);
  assert.deepEqual(badgesOf(m2, split, CAPS2).map((b) => b.text).slice(-2), ['RIT -50', 'SPLIT']);
  assert.ok(badgesOf(s2, split, CAPS2).some((b) => b.text === 'TX'), 'split transmits on the other VFO');
});

test('radio status for the top bar', () => {
  assert.deepEqual(radioStatus(TWO), { text: 'IC-7610', level: 'ok', title: 'status: connected' });
  assert.equal(radioStatus({ ...TWO, powerOn: false }).text, 'radio off');
  assert.equal(radioStatus({ connection: {}, radioDetail: { status: 'failed', message: 'wrong password' } }).level, 'bad');
  assert.equal(radioStatus({ connection: {}, radioDetail: { status: 'reconnecting' } }).text, 'radio reconnecting');
  assert.equal(radioStatus(null).level, 'warn');
});

test('a receiver without an S-meter in the profile gets none (IC-9700 SUB)', () => {
  const list = vfoEntries(TWO, { ...CAPS2, meters: ['smeter', 'power'] });
  assert.equal(list[0].meter, 'smeter');
  assert.equal(list[1].meter, null);
  assert.equal(vfoEntries(TWO, { ...CAPS2, meters: ['smeter', 'smeter_sub'] })[1].meter, 'smeter_sub');
});

test('in split the VFO that transmits is marked, before and while transmitting', () => {
  const ab = {
    main: { freqHz: 14074000, mode: 'USB', filter: 1, vfoA: { freqHz: 14074000, mode: 'USB' }, vfoB: { freqHz: 14076000, mode: 'USB' } },
    active: 'A', split: true, ptt: false,
  };
  const caps = { vfoScheme: 'ab' };
  const [a, b] = vfoEntries(ab, caps);
  assert.equal(txVfo(a, ab), false);
  assert.equal(txVfo(b, ab), true);
  assert.ok(badgesOf(b, ab, caps).some((x) => x.text === 'TX VFO'));
  assert.ok(!badgesOf(a, ab, caps).some((x) => x.text.startsWith('TX')));
  const keyed = { ...ab, ptt: true };
  assert.ok(badgesOf(b, keyed, caps).some((x) => x.text === 'TX' && x.cls === 'tx'));
  assert.ok(!badgesOf(a, { ...ab, split: false }, caps).some((x) => x.text === 'TX VFO'));
});

test('without the server the radio pill is neither green nor red', () => {
  assert.equal(radioStatus(TWO, true).level, 'ok');
  assert.equal(radioStatus(TWO, false).level, 'stale');
  assert.equal(radioStatus(TWO, false).text, 'radio ?');
});

test('voice modes need a microphone; CW, data and DATA-on voice modes do not', () => {
  assert.equal(isVoiceMode('USB', 0), true);
  assert.equal(isVoiceMode('fm'), true);
  assert.equal(isVoiceMode('USB', 1), false);
  assert.equal(isVoiceMode('CW', 0), false);
  assert.equal(isVoiceMode('RTTY', 0), false);
  assert.equal(isVoiceMode(null), false);
});
