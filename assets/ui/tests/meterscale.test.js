import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sMeter, sMeterTicks, meterReading, interpolate, PeakHold } from '../meterscale.js';

test('S-meter calibration points: S0, S9, S9+60', () => {
  assert.equal(sMeter(0).text, 'S0');
  assert.equal(sMeter(120).text, 'S9');
  assert.equal(sMeter(241).text, 'S9+60');
  assert.equal(sMeter(120).dbm, -73);
  assert.equal(sMeter(241).fraction, 1);
});

test('S-units in between, 6 dB each, and dB over S9', () => {
  assert.equal(sMeter(Math.round((120 * 5) / 9)).text, 'S5');
  assert.equal(sMeter(119).text, 'S8');
  assert.equal(sMeter(120 + 40).text, 'S9+20');
  assert.equal(sMeter(181).text, 'S9+30');
  assert.equal(sMeter(-5).text, 'S0');
  assert.equal(sMeter(300).text, 'S9+67');
});

test('S-meter bar ticks rise and put S9 at the calibration point', () => {
  const t = sMeterTicks();
  for (let i = 1; i < t.length; i++) assert.ok(t[i].fraction > t[i - 1].fraction);
  assert.ok(Math.abs(t.find((x) => x.label === '9').fraction - 120 / 241) < 1e-9);
  assert.equal(t[t.length - 1].fraction, 1);
});

// every calibration point of icom-lan-protocol.md's meter table (cmd 0x15)
const SPEC_POINTS = {
  power: [[0, 0], [143, 50], [213, 100], [255, 120]],
  swr: [[0, 1], [48, 1.5], [80, 2], [120, 3], [255, 6]],
  alc: [[0, 0], [120, 100]],
  comp: [[0, 0], [130, 15], [241, 30]],
  vd: [[0, 0], [151, 10], [185, 13.8], [211, 16]],
  id: [[0, 0], [77, 10], [165, 20], [241, 30]],
};

test('every TX meter passes through every calibration point of the protocol reference', () => {
  for (const [name, points] of Object.entries(SPEC_POINTS)) {
    for (const [raw, value] of points) {
      const v = meterReading(name, raw, 100).value;
      assert.ok(Math.abs(v - value) < 1e-9, `${name} raw ${raw}: ${v}, expected ${value}`);
    }
  }
});

test('TX meter texts: watts of the rated power, SWR, ALC zone, volts, amps', () => {
  assert.equal(meterReading('power', 213, 100).text, '100 W');
  assert.equal(meterReading('power', 143, 10).text, '5.0 W');
  assert.equal(meterReading('swr', 0).text, '1.0:1');
  assert.equal(meterReading('swr', 80).text, '2.0:1');
  assert.equal(meterReading('swr', 120).text, '3.0:1');
  assert.equal(meterReading('swr', 80).red, true);
  assert.equal(meterReading('swr', 48).red, false);
  assert.equal(meterReading('swr', 255).text, '≥6.0:1');
  assert.equal(meterReading('alc', 120).text, '100 %');
  assert.equal(meterReading('alc', 120).red, false);
  assert.equal(meterReading('alc', 121).red, true);
  assert.equal(meterReading('vd', 151).text, '10.0 V');
  assert.equal(meterReading('vd', 185).text, '13.8 V');
  assert.equal(meterReading('vd', 211).text, '16.0 V');
  assert.equal(meterReading('vd', 211).fraction, 1);
  assert.equal(meterReading('id', 77).text, '10.0 A');
  assert.equal(meterReading('id', 165).text, '20.0 A');
  assert.equal(meterReading('id', 241).text, '30.0 A');
  assert.equal(meterReading('id', 202).red, false);
  assert.equal(meterReading('id', 203).red, true, '25 A and more in red');
  assert.equal(meterReading('comp', 130).text, '15 dB');
  assert.equal(meterReading('temp', 255).text, '100 %');
  assert.equal(meterReading('smeter_sub', 120).text, 'S9');
});

test('interpolation clamps below and extends above the table', () => {
  const t = [[10, 0], [20, 100]];
  assert.equal(interpolate(t, 0), 0);
  assert.equal(interpolate(t, 15), 50);
  assert.equal(interpolate(t, 30), 200);
});

test('peak hold holds, then falls at the set rate, never below the value', () => {
  const p = new PeakHold(1000, 0.5);
  assert.equal(p.update(0.8, 0), 0.8);
  assert.equal(p.update(0.2, 500), 0.8);
  assert.equal(p.update(0.2, 1000), 0.8);
  assert.ok(Math.abs(p.update(0.2, 1400) - 0.6) < 1e-9);
  assert.ok(Math.abs(p.update(0.2, 1600) - 0.5) < 1e-9);
  assert.equal(p.update(0.2, 5000), 0.2);
  assert.equal(p.update(0.9, 5001), 0.9);
});
