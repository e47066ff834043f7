// Keyboard shortcuts (the table in keymap.js) and the `?` overlay that lists them.
import { byId, h, typingInField } from './dom.js';
import { SHORTCUTS, actionOf, keyLabel } from './keymap.js';

/** Installs the key handler; `handlers[action](ev)` runs the actions; `first(ev)` may
 * take a key before the shortcuts (digit tuning) by returning true. */
export function installKeyboard(handlers, first) {
  // whether the Space that is down keyed PTT
  let spaceKeyed = false;
  const table = byId('help-table');
  table.replaceChildren(...SHORTCUTS.map(([keys, , text]) => h('tr', {},
    h('td', {}, ...keys.flatMap((k, i) => [i ? ' ' : '', h('kbd', { text: keyLabel(k) })])),
    h('td', { text }))));
  document.addEventListener('keydown', (ev) => {
    if (typingInField(ev)) return;
    // a focused slider keeps its own keys
    if (ev.target && ev.target.type === 'range' && /^(Arrow|Page|Home|End)/.test(ev.key)) return;
    if (document.querySelector('dialog[open]')) {
      // a dialog has the keyboard (Escape closes it); `?` still toggles the help
      if (actionOf(ev) === 'help') {
        ev.preventDefault();
        toggleHelp();
      }
      return;
    }
    if (first(ev)) {
      ev.preventDefault();
      return;
    }
    const action = actionOf(ev);
    if (!action || !handlers[action] || action === 'escape') return;
    if (action === 'ptt') {
      ev.preventDefault();
      if (!ev.repeat) {
        spaceKeyed = true;
        handlers.ptt(true);
      }
      return;
    }
    if (ev.key === ' ' || ev.key.startsWith('Arrow') || ev.key === 'Enter') {
      // buttons keep Enter/Space for themselves
      if (ev.target && ev.target.tagName === 'BUTTON' && ev.key !== ' ' && !ev.key.startsWith('Arrow')) return;
    }
    ev.preventDefault();
    handlers[action](ev);
  });
  document.addEventListener('keyup', (ev) => {
    if (ev.key !== ' ') return;
    // the Space that keyed always unkeys, even when a text field took the focus since
    const keyed = spaceKeyed;
    spaceKeyed = false;
    if (!keyed && typingInField(ev)) return;
    // Space is PTT: a focused button must not be pressed by its release
    ev.preventDefault();
    if (handlers.ptt) handlers.ptt(false);
  });
}

/** Shows or hides the shortcut overlay. */
export function toggleHelp() {
  const dlg = byId('help-dlg');
  if (dlg.open) dlg.close();
  else dlg.showModal();
}
