// Dark and light themes: the operator's choice (or the system's), and the colours the
// canvases need from the stylesheet.
import { loadSetting, saveSetting } from './dom.js';

const THEMES = ['auto', 'dark', 'light'];

function resolved(choice) {
  if (choice === 'dark' || choice === 'light') return choice;
  return window.matchMedia && window.matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
}

/** Applies the stored theme; `onChange` runs after every change. */
export function initTheme(onChange) {
  const apply = () => {
    const t = resolved(loadSetting('theme', 'auto'));
    document.documentElement.dataset.theme = t;
    const meta = document.querySelector('meta[name="theme-color"]');
    if (meta) meta.setAttribute('content', t === 'light' ? '#e9edf2' : '#0b0f14');
    onChange();
  };
  if (window.matchMedia) window.matchMedia('(prefers-color-scheme: light)').addEventListener('change', apply);
  apply();
  return {
    /** Auto -> dark -> light -> auto. */
    cycle() {
      const cur = loadSetting('theme', 'auto');
      const next = THEMES[(THEMES.indexOf(cur) + 1) % THEMES.length];
      saveSetting('theme', next);
      apply();
      return next;
    },
  };
}

/** The stylesheet's colours for canvas drawing. */
export function themeColors() {
  const cs = getComputedStyle(document.documentElement);
  const v = (n) => cs.getPropertyValue(n).trim();
  return {
    grid: v('--grid'), label: v('--label'), accent: v('--accent'), sub: v('--sub'), text: v('--text'),
    tx: v('--tx'), light: document.documentElement.dataset.theme === 'light',
  };
}
