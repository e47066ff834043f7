import { test } from 'node:test';
import assert from 'node:assert/strict';
import { actionOf, keyLabel, SHORTCUTS } from '../keymap.js';

const k = (key, mods = {}) => ({ key, shiftKey: false, ctrlKey: false, altKey: false, metaKey: false, ...mods });

test('keys map to actions; shift and case matter where the table says', () => {
  assert.equal(actionOf(k('ArrowRight')), 'tune_up');
  assert.equal(actionOf(k('ArrowLeft', { shiftKey: true })), 'tune_down_10');
  assert.equal(actionOf(k('m')), 'mode_next');
  assert.equal(actionOf(k('M', { shiftKey: true })), 'mode_prev');
  assert.equal(actionOf(k('M')), 'mode_next', 'caps lock is not shift');
  assert.equal(actionOf(k(' ')), 'ptt');
  assert.equal(actionOf(k('?', { shiftKey: true })), 'help');
  assert.equal(actionOf(k(']')), 'step_up');
  assert.equal(actionOf(k('ArrowUp')), 'band_up');
});

test('browser shortcuts with ctrl/alt/meta are left alone; unknown keys do nothing', () => {
  assert.equal(actionOf(k('ArrowRight', { ctrlKey: true })), null);
  assert.equal(actionOf(k('t', { metaKey: true })), null);
  assert.equal(actionOf(k('q')), null);
});

test('every shortcut has one action per key and a description; labels read well', () => {
  for (const [keys, actions, text] of SHORTCUTS) {
    assert.equal(keys.length, actions.length);
    assert.ok(text.length > 5);
  }
  assert.equal(keyLabel('Shift+ArrowRight'), 'Shift+→');
  assert.equal(keyLabel(' '), 'Space');
});
