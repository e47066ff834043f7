// Keyboard shortcuts: one table drives both the key handler and the `?` overlay.

/** `[keys shown, action, description]`; `keys` are matched against KeyboardEvent.key
 * (with "Shift+" when shift is held). */
export const SHORTCUTS = [
  [['ArrowRight', 'ArrowLeft'], ['tune_up', 'tune_down'], 'Tune up / down by the step'],
  [['Shift+ArrowRight', 'Shift+ArrowLeft'], ['tune_up_10', 'tune_down_10'], 'Tune by ten steps'],
  [[']', '['], ['step_up', 'step_down'], 'Larger / smaller tuning step'],
  [['ArrowUp', 'ArrowDown'], ['band_up', 'band_down'], 'Next band up / down'],
  [['m', 'Shift+M'], ['mode_next', 'mode_prev'], 'Next / previous mode'],
  [['f', 'Enter'], ['freq_entry', 'freq_entry'], 'Type a frequency'],
  [['s'], ['rx_toggle'], 'Tune the other VFO (MAIN/SUB or A/B)'],
  [['v'], ['announce'], 'Say the frequency, mode and S-meter (screen readers)'],
  [[' '], ['ptt'], 'Hold to transmit (push-to-talk)'],
  [['a'], ['audio'], 'Start / stop listening'],
  [['u'], ['mute'], 'Mute / unmute'],
  [['c'], ['colormap'], 'Next waterfall colour map'],
  [['t'], ['theme'], 'Dark / light theme'],
  [['?'], ['help'], 'Show / hide this help'],
  [['Escape'], ['escape'], 'Close dialogs, leave frequency entry'],
];

/** The action of a key event (`{key, shiftKey, ctrlKey, altKey, metaKey}`), or null. */
export function actionOf(ev) {
  if (ev.ctrlKey || ev.altKey || ev.metaKey) return null;
  let key = ev.key;
  if (key && key.length === 1 && key !== ' ') {
    // letters match case-insensitively; shifted letters are "Shift+X"
    if (/[a-z]/i.test(key)) key = ev.shiftKey ? `Shift+${key.toUpperCase()}` : key.toLowerCase();
  } else if (ev.shiftKey && key !== ' ') {
    key = `Shift+${key}`;
  }
  for (const [keys, actions] of SHORTCUTS) {
    const i = keys.indexOf(key);
    if (i >= 0) return actions[i];
  }
  return null;
}

/** A key name for the overlay ("→", "Space", "Shift+→"). */
export function keyLabel(key) {
  const names = { ArrowRight: '→', ArrowLeft: '←', ArrowUp: '↑', ArrowDown: '↓', ' ': 'Space', Escape: 'Esc' };
  return key.split('+').map((k) => names[k] || k).join('+');
}
