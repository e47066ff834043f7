// Small DOM helpers: element building (text only, never HTML strings), toasts, storage
// that survives private mode, and a throttle for slider and wheel traffic.

/** An element: `props` may hold `class`, `text`, `title`, `attrs` (attributes),
 * `dataset`, `on` (event handlers), `style`; children are nodes or strings. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'on') for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    else if (k === 'attrs') for (const [a, av] of Object.entries(v)) el.setAttribute(a, av);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style') Object.assign(el.style, v);
    else el[k] = v;
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** The element with `id`. */
export function byId(id) {
  return document.getElementById(id);
}

/** Sets text only when it changed (no layout work otherwise). */
export function setText(el, text) {
  const t = String(text);
  if (el.textContent !== t) el.textContent = t;
}

/** Shows a short message in the corner; `kind` is info, ok or bad. */
export function toast(msg, kind = 'info', ms = 4500) {
  const box = byId('toasts');
  if (!box) return;
  const t = h('div', { class: `toast ${kind}`, text: msg, attrs: { role: kind === 'bad' ? 'alert' : 'status' } });
  box.append(t);
  while (box.children.length > 4) box.firstElementChild.remove();
  setTimeout(() => t.remove(), ms);
}

/** localStorage value, or `fallback` (storage may be unavailable). */
export function loadSetting(key, fallback) {
  try {
    const v = localStorage.getItem(`rigweb.${key}`);
    return v === null ? fallback : JSON.parse(v);
  } catch {
    return fallback;
  }
}

/** Stores a setting in localStorage when possible. */
export function saveSetting(key, value) {
  try {
    localStorage.setItem(`rigweb.${key}`, JSON.stringify(value));
  } catch {
    // private mode or full storage: the setting lasts for this page only
  }
}

/** Calls `fn` at most every `ms`, always with the latest arguments, last call kept. */
export function throttle(fn, ms) {
  let last = 0;
  let timer = null;
  let pending = null;
  return (...args) => {
    pending = args;
    const wait = last + ms - performance.now();
    if (wait <= 0 && !timer) {
      last = performance.now();
      fn(...pending);
      pending = null;
    } else if (!timer) {
      timer = setTimeout(() => {
        timer = null;
        last = performance.now();
        if (pending) fn(...pending);
        pending = null;
      }, Math.max(0, wait));
    }
  };
}

/** Whether keyboard input is going to a text field (shortcuts stay out of its way). */
export function typingInField(ev) {
  const t = ev.target;
  if (!t || !t.tagName) return false;
  if (t.isContentEditable) return true;
  if (t.tagName === 'TEXTAREA' || t.tagName === 'SELECT') return true;
  return t.tagName === 'INPUT' && !['range', 'checkbox', 'radio', 'button'].includes(t.type);
}
