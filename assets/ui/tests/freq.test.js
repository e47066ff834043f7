import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatHz, freqText, freqDigits, digitCount, parseFreq, tuneBy, allBands, bandOf, nextBand, tickSpacing,
  scopeTicks, stepLabel, defaultStep, formatShort,
} from '../freq.js';

test('display format: MHz.kHz.Hz', () => {
  assert.equal(formatHz(14074000), '14.074.000');
  assert.equal(formatHz(7000050), '7.000.050');
  assert.equal(formatHz(475000), '0.475.000');
  assert.equal(formatShort(14074000), '14.074 MHz');
  assert.equal(formatShort(475000), '475 kHz');
});

test('digits carry their place values; leading zeros are marked', () => {
  const d = freqDigits(7074000, 8);
  assert.equal(d.map((x) => x.ch).join(''), '07074000');
  assert.equal(d[0].lead, true);
  assert.equal(d[1].lead, false);
  assert.equal(d[1].place, 1e6);
  assert.equal(d[7].place, 1);
  assert.equal(d[4].place, 1000);
  assert.deepEqual(d.filter((x) => x.sep).map((x) => x.place), [1e6, 1e3]);
  assert.equal(digitCount(60000000), 8);
  assert.equal(digitCount(450000000), 9);
});

test('typed frequencies: units, implied units, separators, relative', () => {
  assert.equal(parseFreq('14.074'), 14074000);
  assert.equal(parseFreq('14.074 MHz'), 14074000);
  assert.equal(parseFreq('7074'), 7074000);
  assert.equal(parseFreq('7074.5'), 7074500);
  assert.equal(parseFreq('14074000'), 14074000);
  assert.equal(parseFreq('14.074.000'), 14074000);
  assert.equal(parseFreq('14,074'), 14074000);
  assert.equal(parseFreq('475k'), 475000);
  assert.equal(parseFreq('1.2G'), 1200000000);
  assert.equal(parseFreq('600 Hz'), 600);
  assert.equal(parseFreq('+5k', 14074000), 14079000);
  assert.equal(parseFreq('-500', 14074000), 14073500);
  assert.equal(parseFreq('abc'), null);
  assert.equal(parseFreq(''), null);
  assert.equal(parseFreq('14.074,5'), null);
  assert.equal(parseFreq('1,234.5 kHz'), 1234500);
  assert.equal(parseFreq('0'), null);
});

test('tuning by steps lands on the grid', () => {
  assert.equal(tuneBy(14074000, 1, 100), 14074100);
  assert.equal(tuneBy(14074000, -3, 1000), 14071000);
  assert.equal(tuneBy(14074050, 1, 100), 14074100);
  assert.equal(tuneBy(14074050, -1, 100), 14074000);
  assert.equal(tuneBy(14074050, 2, 100), 14074200);
});

test('steps have labels and mode defaults', () => {
  assert.equal(stepLabel(2500), '2.5 kHz');
  assert.equal(stepLabel(10), '10 Hz');
  assert.equal(defaultStep('CW-R'), 10);
  assert.equal(defaultStep('USB'), 100);
  assert.equal(defaultStep('AM'), 1000);
});

test('bands: lookup and up/down in frequency order', () => {
  const caps = { freqRanges: [
    { bands: [{ name: '40m', start: 7000000, end: 7300000 }, { name: '160m', start: 1800000, end: 2000000 }] },
    { bands: [{ name: '6m', start: 50000000, end: 54000000 }] },
  ] };
  const bands = allBands(caps);
  assert.deepEqual(bands.map((b) => b.name), ['160m', '40m', '6m']);
  assert.equal(bandOf(bands, 7074000).name, '40m');
  assert.equal(bandOf(bands, 10000000), null);
  assert.equal(nextBand(bands, 7074000, 1).name, '6m');
  assert.equal(nextBand(bands, 7074000, -1).name, '160m');
  assert.equal(nextBand(bands, 1900000, -1), null);
});

test('scope ticks: round spacing, labels with the decimals they need', () => {
  assert.equal(tickSpacing(50000, 1000, 90), 5000);
  assert.equal(tickSpacing(50000, 300, 90), 20000);
  const t = scopeTicks(14049000, 14099000, 1000);
  assert.equal(t[0].hz, 14050000);
  assert.equal(t[0].label, '14.050');
  assert.ok(t.every((x) => x.hz >= 14049000 && x.hz <= 14099000));
  assert.equal(scopeTicks(14074000, 14074500, 1000)[0].label, '14.07400');
  assert.deepEqual(scopeTicks(5, 5, 100), []);
});

test('a frequency as text: one piece, and "unknown" for null, never a zero', () => {
  assert.equal(freqText(14074000), '14.074.000 MHz');
  assert.equal(freqText(145500000), '145.500.000 MHz');
  assert.equal(freqText(null), 'unknown');
  assert.equal(freqText(undefined), 'unknown');
  assert.equal(freqText(NaN), 'unknown');
});
