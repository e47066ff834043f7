import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WheelSteps } from '../wheel.js';

const PIXELS = 0;
const LINES = 1;
const PAGES = 2;

test('a mouse notch is one step, whatever the browser measures it in', () => {
  const w = new WheelSteps();
  assert.equal(w.add(100, PIXELS, 0), 1);
  assert.equal(w.add(120, PIXELS, 1000), 1, 'a 120 px notch');
  assert.equal(w.add(-100, PIXELS, 2000), -1);
  assert.equal(w.add(53, PIXELS, 3000), 1, 'a small notch still steps');
  assert.equal(w.add(3, LINES, 4000), 1, "Firefox's three lines");
  assert.equal(w.add(-3, LINES, 5000), -1);
  assert.equal(w.add(300, PIXELS, 6000), 3, 'a fast spin: several notches at once');
  assert.equal(w.add(1, PAGES, 7000), 8);
});

test('a trackpad adds up its small deltas: a step per notch of travel, not per event', () => {
  const w = new WheelSteps();
  let steps = 0;
  // 60 events of 5 px, 16 ms apart (one second of a slow swipe): 300 px
  for (let i = 0; i < 60; i++) steps += w.add(5, PIXELS, i * 16);
  assert.equal(steps, 3);
  // 10 events of 2 px: not a step yet
  const w2 = new WheelSteps();
  let few = 0;
  for (let i = 0; i < 10; i++) few += w2.add(2, PIXELS, i * 16);
  assert.equal(few, 0);
});

test('a turn the other way or a pause drops the partial step', () => {
  const w = new WheelSteps();
  assert.equal(w.add(40, PIXELS, 0), 0);
  assert.equal(w.add(40, PIXELS, 10), 0);
  assert.equal(w.add(-30, PIXELS, 20), 0, 'reversed: 80 px up are forgotten');
  assert.equal(w.add(30, PIXELS, 30), 0);
  assert.equal(w.add(40, PIXELS, 1000), 0, 'after a pause the 30 px are forgotten');
  assert.equal(w.add(40, PIXELS, 1010), 0);
  assert.equal(w.add(40, PIXELS, 1020), 1);
  assert.equal(w.add(0, PIXELS, 1030), 0);
});
