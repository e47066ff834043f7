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

test('TX meters: watts of the rated power, SWR, ALC zone, volts, amps', () => {
  assert.equal(meterReading('power', 213, 100).text, '100 W');
  assert.equal(meterReading('power', 143, 10).text, '5.0 W');
  assert.equal(meterReading('swr', 0).text, '1.0:1');
  assert.equal(meterReading('swr', 80).text, '2.0:1');
  assert.equal(meterReading('swr', 80).red, true);
  assert.equal(meterReading('swr', 48).red, false);
  assert.equal(meterReading('swr', 250).text, 'SWR ∞');
  assert.equal(meterReading('alc', 120).text, '100 %');
  assert.equal(meterReading('vd', 241).text, '16.0 V');
  assert.equal(meterReading('id', 97).text, '10.0 A');
  assert.equal(meterReading('comp', 130).text, '15 dB');
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
