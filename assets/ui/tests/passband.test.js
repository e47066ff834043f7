import { test } from 'node:test';
import assert from 'node:assert/strict';
import { passband, filterWidth, dialHz, hzToX, xToHz, clickTuneHz } from '../passband.js';

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
  assert.equal(dialHz({ freqHz: D }, { rit: true, ritOffsetHz: -120 }), D - 120);
  assert.equal(dialHz({ freqHz: D }, { rit: false, ritOffsetHz: -120 }), D);
  assert.equal(dialHz({ freqHz: D }, {}), D);
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
