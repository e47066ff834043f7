// Pure helpers of the web protocol (docs/API.md): applying `state_update` deltas,
// reading dotted state paths, WebSocket URLs with the token, reconnect backoff.

/** The protocol version this page speaks. */
export const PROTO = 1;

/** Applies a delta (`changed`: nested partial object of changed leaves; `removed`:
 * dotted paths of removed keys) to `state` in place; returns it. */
export function applyDelta(state, changed, removed) {
  for (const path of removed || []) {
    const keys = path.split('.');
    let o = state;
    for (let i = 0; i < keys.length - 1 && o; i++) o = o[keys[i]];
    if (o && typeof o === 'object') delete o[keys[keys.length - 1]];
  }
  merge(state, changed || {});
  return state;
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function merge(dst, src) {
  for (const [k, v] of Object.entries(src)) {
    if (isObject(v) && isObject(dst[k])) merge(dst[k], v);
    else dst[k] = isObject(v) ? structuredCloneSafe(v) : v;
  }
}

function structuredCloneSafe(v) {
  return JSON.parse(JSON.stringify(v));
}

/** The value at a dotted path ("scope.spanHz"), or undefined. */
export function getPath(obj, path) {
  let o = obj;
  for (const k of String(path).split('.')) {
    if (o === null || o === undefined) return undefined;
    o = o[k];
  }
  return o;
}

/** Whether a delta's revision follows `have` directly (a gap means: subscribe again). */
export function revisionFollows(have, next) {
  return Number.isFinite(have) && next === have + 1;
}

/** Reconnect delay for the n-th attempt (0-based): 0.5 s growing ×1.7 up to 10 s, with
 * ±20 % jitter from `rand` (0..1). */
export function backoffMs(attempt, rand = 0.5) {
  const base = Math.min(10000, 500 * 1.7 ** Math.max(0, attempt));
  return Math.round(base * (0.8 + 0.4 * rand));
}

/** The WebSocket URL of `path` for a page at `loc` (ws: or wss: like the page), with
 * query `params` and the token as `?token=`. */
export function wsUrl(loc, path, token, params = {}) {
  const proto = loc.protocol === 'https:' ? 'wss:' : 'ws:';
  const q = [];
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null) q.push(`${k}=${encodeURIComponent(v)}`);
  }
  if (token) q.push(`token=${encodeURIComponent(token)}`);
  return `${proto}//${loc.host}${path}${q.length ? `?${q.join('&')}` : ''}`;
}

/** What the page can do in this browser: `secure` (https or localhost), `webcodecs`
 * (AudioDecoder / AudioEncoder), `worklet` (AudioWorklet), `mic` (getUserMedia). */
export function audioSupport(g) {
  const secure = !!g.isSecureContext;
  return {
    secure,
    webcodecs: secure && typeof g.AudioDecoder === 'function' && typeof g.EncodedAudioChunk === 'function',
    encoder: secure && typeof g.AudioEncoder === 'function' && typeof g.AudioData === 'function',
    worklet: secure && typeof g.AudioWorkletNode === 'function',
    mic: secure && !!(g.navigator && g.navigator.mediaDevices && g.navigator.mediaDevices.getUserMedia),
  };
}

/** The RX codec to ask for: Opus when it can be decoded and played through a worklet. */
export function rxCodec(support) {
  return support.webcodecs && support.worklet ? 'opus' : 'pcm16';
}

/** Human text for a failed command response or fetch. */
export function errorText(e) {
  if (!e) return 'unknown error';
  if (typeof e === 'string') return e;
  if (e.message && e.error) return `${e.message} (${e.error})`;
  return e.message || e.error || String(e);
}
