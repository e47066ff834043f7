import { test } from 'node:test';
import assert from 'node:assert/strict';
import { passband, filterWidth, dialHz, entryPassband, hzToX, xToHz, clickTuneHz } from '../passband.js';
import { vfoEntries } from '../model.js';

const D = 14074000;

test('USB listens above the dial, LSB below, from 200 Hz', () => {
  assert.deepEqual(passband('USB', D, 3000), { lo: D + 200, hi: D + 3200 });
  assert.deepEqual(passband('LSB', D, 2400), { lo: D - 2600, hi: D - 200 });
  assert.deepEqual(passband('USB-D', D, 3000), passband('USB', D, 3000));
});

test('CW, CW-R, AM and FM are centred on the dial', () => {
  for (const m of ['CW', 'CW-R', 'AM', 'FM']) assert.deepEqual(passband(m, D, 500), { lo: D - 250, hi: D + 250 });
});

test('RTTY sits around mark+85 Hz (mark on the dial), RTTY-R mirrored; PSK around 1500 Hz', () => {
  assert.deepEqual(passband('RTTY', D, 500), { lo: D + 85 - 250, hi: D + 85 + 250 });
  assert.deepEqual(passband('RTTY-R', D, 500), { lo: D - 85 - 250, hi: D - 85 + 250 });
  assert.deepEqual(passband('PSK', D, 500), { lo: D + 1250, hi: D + 1750 });
  assert.deepEqual(passband('PSK-R', D, 500), { lo: D - 1750, hi: D - 1250 });
});

test('width: the reported one, else the profile table by filter number, else 2400', () => {
  const caps = { filterWidths: { USB: [3000, 2400, 1800] } };
  assert.equal(filterWidth({ mode: 'USB', filter: 3 }, caps), 1800);
  assert.equal(filterWidth({ mode: 'USB', filter: 1, filterWidth: 2700 }, caps), 2700);
  assert.equal(filterWidth({ mode: 'AM', filter: 1 }, caps), 2400);
  assert.equal(passband('CW', D, 0).hi - passband('CW', D, 0).lo, 50, 'never narrower than 50 Hz');
});

test('RIT moves the dial only while on', () => {
  const e = { isActive: true, rx: { mode: 'USB' } };
  assert.equal(dialHz(e, D, { rit: true, ritOffsetHz: -120 }), D - 120);
  assert.equal(dialHz(e, D, { rit: false, ritOffsetHz: -120 }), D);
  assert.equal(dialHz(e, D, {}), D);
});

const FIL = { filterWidths: { USB: [3000, 2400, 1800], LSB: [3000, 2400, 1800] } };

test('RIT shifts only the passband of the receiver the radio operates (MAIN/SUB)', () => {
  const caps = { ...FIL, vfoScheme: 'main_sub', receivers: 2 };
  const st = (active) => ({
    active, rit: true, ritOffsetHz: 500,
    main: { freqHz: D, mode: 'USB', filter: 1 }, sub: { freqHz: 7074000, mode: 'LSB', filter: 1 },
  });
  const bands = (state) => vfoEntries(state, caps).map((e) => entryPassband(e, e.rx.freqHz, state, caps));
  const [mainOn, subOff] = bands(st('MAIN'));
  assert.deepEqual(mainOn, { lo: D + 700, hi: D + 3700 }, 'MAIN selected: RIT applies to MAIN');
  assert.deepEqual(subOff, { lo: 7074000 - 3200, hi: 7074000 - 200 }, 'not to SUB');
  const [mainOff, subOn] = bands(st('SUB'));
  assert.deepEqual(mainOff, { lo: D + 200, hi: D + 3200 }, 'SUB selected: MAIN without RIT');
  assert.deepEqual(subOn, { lo: 7074000 + 500 - 3200, hi: 7074000 + 500 - 200 }, 'SUB with RIT');
});

test('RIT shifts only the selected VFO of an A/B radio, not the other one', () => {
  const caps = { ...FIL, vfoScheme: 'ab', receivers: 1 };
  const state = {
    active: 'B', rit: true, ritOffsetHz: -300,
    main: { freqHz: 7100000, mode: 'LSB', filter: 1, vfoA: { freqHz: D, mode: 'USB', filter: 2 }, vfoB: { freqHz: 7100000, mode: 'LSB', filter: 1 } },
  };
  const list = vfoEntries(state, caps);
  assert.deepEqual(list.map((e) => [e.key, e.stateKey, e.isActive]), [['B', 'main', true], ['A', 'main', false]]);
  const [b, a] = list.map((e) => entryPassband(e, e.rx.freqHz, state, caps));
  assert.deepEqual(b, { lo: 7100000 - 300 - 3200, hi: 7100000 - 300 - 200 });
  assert.deepEqual(a, { lo: D + 200, hi: D + 2600 }, 'VFO A (not selected) without RIT');
  // RIT off: nobody moves
  const off = { ...state, rit: false };
  assert.deepEqual(entryPassband(list[0], 7100000, off, caps), { lo: 7100000 - 3200, hi: 7100000 - 200 });
});

test('pixels and hertz map both ways', () => {
  assert.equal(hzToX(14050000, 14000000, 14100000, 1000), 500);
  assert.equal(xToHz(250, 14000000, 14100000, 1000), 14025000);
});

test('a click tunes to the step grid (at most 1 kHz snap in narrow modes)', () => {
  assert.equal(clickTuneHz(14074049, 'USB', 100), 14074000);
  assert.equal(clickTuneHz(14074051, 'USB', 100), 14074100);
  assert.equal(clickTuneHz(7123456, 'CW', 10), 7123460);
  assert.equal(clickTuneHz(7123456, 'USB', 5000), 7123000);
  assert.equal(clickTuneHz(9412600, 'AM', 5000), 9415000);
});
