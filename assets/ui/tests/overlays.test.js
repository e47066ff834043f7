import { test } from 'node:test';
import assert from 'node:assert/strict';
import { advertisedOverlays } from '../overlays.js';

test('only the overlays whose services GET /api/v1/info advertises are asked for', () => {
  assert.deepEqual(advertisedOverlays({ dxSpots: false, bandPlan: false, eibi: false, bridge: false }), []);
  assert.deepEqual(advertisedOverlays(null), [], 'an older server without `services`: none');
  assert.deepEqual(advertisedOverlays({ dxSpots: true, bridge: true }), ['dx']);
  assert.deepEqual(advertisedOverlays({ bandPlan: true, eibi: true, dxSpots: true }), ['bandplan', 'eibi', 'dx']);
  assert.deepEqual(advertisedOverlays({ eibi: 'yes' }), [], 'only true counts');
});
