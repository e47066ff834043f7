import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  COLORMAPS, buildLut, colorAt, levelTable, percentile, measureLevels, autoRange, smoothLevels, packRgba,
} from '../colormap.js';

const lum = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;

test('at least a classic, a perceptual and a greyscale map', () => {
  for (const m of ['classic', 'turbo', 'viridis', 'grey']) assert.ok(COLORMAPS.includes(m), m);
  assert.equal(COLORMAPS[0], 'classic');
});

test('every map has 256 opaque entries from dark to bright', () => {
  for (const m of COLORMAPS) {
    const lut = buildLut(m);
    assert.equal(lut.length, 256);
    assert.ok(lut.every((c) => c >>> 24 === 255), `${m} opaque`);
    assert.ok(lum(colorAt(m, 0)) < lum(colorAt(m, 0.6)), `${m} rises`);
  }
});

test('greyscale and viridis rise monotonically in lightness', () => {
  for (const m of ['grey', 'viridis', 'inferno']) {
    let prev = -1;
    for (let i = 0; i <= 50; i++) {
      const l = lum(colorAt(m, i / 50));
      assert.ok(l >= prev - 0.5, `${m} at ${i / 50}`);
      prev = l;
    }
  }
  assert.deepEqual(colorAt('grey', 0), [0, 0, 0]);
  assert.deepEqual(colorAt('grey', 1), [255, 255, 255]);
  assert.equal(buildLut('grey')[255], packRgba(255, 255, 255));
});

test('the level table puts lo and below at the darkest colour, hi and above at the brightest', () => {
  const lut = buildLut('viridis');
  const t = levelTable(lut, 40, 100);
  assert.equal(t[0], lut[0]);
  assert.equal(t[40], lut[0]);
  assert.equal(t[100], lut[255]);
  assert.equal(t[160], lut[255]);
  assert.equal(t[70], lut[128]);
});

test('percentiles of a sweep: noise floor and peak', () => {
  const px = new Uint8Array(1000).fill(30);
  px.fill(120, 0, 3);
  assert.equal(percentile(px, 0.2), 30);
  assert.equal(percentile(px, 0.999), 120);
  const lv = measureLevels(px);
  assert.equal(lv.floor, 30);
});

test('the automatic range sits just under the noise and spans at least 30', () => {
  const r = autoRange({ floor: 40, peak: 45 });
  assert.ok(r.lo < 40 && r.lo > 30);
  assert.ok(r.hi - r.lo >= 30);
  const strong = autoRange({ floor: 40, peak: 140 });
  assert.ok(strong.hi >= 140);
  const s = smoothLevels({ floor: 40, peak: 100 }, { floor: 60, peak: 100 }, 0.5);
  assert.equal(s.floor, 50);
  assert.deepEqual(smoothLevels(null, { floor: 1, peak: 2 }), { floor: 1, peak: 2 });
});
