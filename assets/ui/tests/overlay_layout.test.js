import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spotAlpha, segmentMode, sideband, spotMode, overlapsAny, bandAt, layoutLabels, labelAt, mergeSpot, FRESH_MS, OLD_MS } from '../overlay_layout.js';

test('spots are bright while fresh and fade to 0.3 at half an hour', () => {
  assert.equal(spotAlpha(0), 1);
  assert.equal(spotAlpha(FRESH_MS), 1);
  assert.ok(spotAlpha((FRESH_MS + OLD_MS) / 2) < 1 && spotAlpha((FRESH_MS + OLD_MS) / 2) > 0.3);
  assert.equal(spotAlpha(OLD_MS), 0.3);
  assert.equal(spotAlpha(10 * OLD_MS), 0.3);
  assert.equal(spotAlpha(NaN), 1, 'an unknown age is shown bright');
});

test('segments and spots imply modes', () => {
  assert.equal(segmentMode({ mode: 'cw' }, 14e6), 'CW');
  assert.equal(segmentMode({ mode: 'beacon' }, 14.1e6), 'CW');
  assert.equal(segmentMode({ mode: 'broadcast' }, 6e6), 'AM');
  assert.equal(segmentMode({ mode: 'digital' }, 7.074e6), 'USB');
  assert.equal(segmentMode({ mode: 'phone' }, 7.1e6), 'LSB');
  assert.equal(segmentMode({ mode: 'phone' }, 14.2e6), 'USB');
  assert.equal(segmentMode({ mode: 'mixed' }, 14.2e6), null);
  assert.equal(sideband(5.357e6), 'USB', '60 m is USB');
  assert.equal(spotMode({ mode: 'CW' }), 'CW');
  assert.equal(spotMode({ mode: null }), null);
  assert.equal(spotMode({}), null);
});

test('broadcast bands are found by range and frequency', () => {
  const bands = [{ name: '49m', start: 5.8e6, end: 6.3e6 }, { name: '31m', start: 9.3e6, end: 10e6 }];
  assert.ok(overlapsAny(bands, 6.2e6, 6.4e6));
  assert.ok(!overlapsAny(bands, 7e6, 7.3e6));
  assert.ok(!overlapsAny(null, 0, 1e9));
  assert.equal(bandAt(bands, 9.5e6).name, '31m');
  assert.equal(bandAt(bands, 7e6), null);
});

test('labels fill rows without overlapping, the first items on top, the rest hidden', () => {
  const items = [
    { x: 100, w: 40, id: 'a' },
    { x: 110, w: 40, id: 'b' },
    { x: 120, w: 40, id: 'c' },
    { x: 300, w: 40, id: 'd' },
    { x: 0, w: 40, id: 'edge' },
  ];
  const { placed, hidden } = layoutLabels(items, 320, 2);
  const row = (id) => placed.find((p) => p.id === id);
  assert.equal(row('a').row, 0);
  assert.equal(row('b').row, 1);
  assert.equal(row('c'), undefined, 'no room left for c');
  assert.equal(hidden, 1);
  assert.equal(row('d').left, 280, 'kept inside the width');
  assert.equal(row('edge').left, 0);
  for (const r of [0, 1]) {
    const spans = placed.filter((p) => p.row === r).map((p) => [p.left, p.left + p.w]).sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < spans.length; i++) assert.ok(spans[i][0] >= spans[i - 1][1], `row ${r} overlaps`);
  }
  assert.equal(labelAt(placed, 100, 5, 16, 0).id, 'a');
  assert.equal(labelAt(placed, 100, 20, 16, 0).id, 'b');
  assert.equal(labelAt(placed, 200, 5, 16, 0), null);
});

test('a live spot replaces the one of its call on its band, newest first', () => {
  let list = [{ call: 'A', band: '20m', freq: 1 }, { call: 'B', band: '20m', freq: 2 }];
  list = mergeSpot(list, { call: 'A', band: '20m', freq: 3 });
  assert.deepEqual(list.map((s) => s.freq), [3, 2]);
  list = mergeSpot(list, { call: 'A', band: '40m', freq: 4 });
  assert.equal(list.length, 3);
  assert.equal(mergeSpot(list, { call: 'Z', band: '2m' }, 2).length, 2);
});
