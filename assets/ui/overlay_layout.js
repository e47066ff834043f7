// Pure geometry and choices of the scope overlays (unit-tested with node --test): where
// labels go without overlapping, how a DX spot fades with age, which operating mode a
// band-plan segment or a spot implies, which part of the view is a broadcast band.

/** Spots are fully bright this long, ms. */
export const FRESH_MS = 2 * 60 * 1000;
/** Then fade until this age, ms. */
export const OLD_MS = 30 * 60 * 1000;

/** Opacity of a spot `ageMs` old: 1 while fresh, fading to 0.3 at half an hour. */
export function spotAlpha(ageMs) {
  if (!(ageMs > FRESH_MS)) return 1;
  if (ageMs >= OLD_MS) return 0.3;
  return 1 - 0.7 * ((ageMs - FRESH_MS) / (OLD_MS - FRESH_MS));
}

/** The profile mode a band-plan segment implies at `hz`, or null. */
export function segmentMode(seg, hz) {
  switch (seg.mode) {
    case 'cw':
    case 'beacon':
      return 'CW';
    case 'broadcast':
      return 'AM';
    case 'digital':
      return 'USB';
    case 'phone':
      return sideband(hz);
    default:
      return null;
  }
}

/** LSB below 10 MHz (but USB on 60 m), USB above. */
export function sideband(hz) {
  return hz < 10e6 && !(hz >= 5.25e6 && hz <= 5.45e6) ? 'LSB' : 'USB';
}

/** The mode a click on `spot` sets: what the server derived from its comment or the
 * band plan, else null (keep the current mode). */
export function spotMode(spot) {
  return typeof spot.mode === 'string' && spot.mode ? spot.mode : null;
}

/** True when `startHz..endHz` overlaps one of `bands` (`[{start, end}]`). */
export function overlapsAny(bands, startHz, endHz) {
  return (bands || []).some((b) => b.end >= startHz && b.start <= endHz);
}

/** The band of `bands` that holds `hz`, or null. */
export function bandAt(bands, hz) {
  return (bands || []).find((b) => hz >= b.start && hz <= b.end) || null;
}

/**
 * Places labels in rows so that none overlap. `items`: `[{x, w, ...}]` in the order of
 * priority (the first gets the top row where it fits); `rows` rows; `gap` px between
 * labels. Returns `{placed: [{...item, row, left}], hidden}`, `left` the label's left
 * edge (it is centred on `x` and kept inside `0..width`).
 */
export function layoutLabels(items, width, rows, gap = 4) {
  const taken = Array.from({ length: rows }, () => []);
  const placed = [];
  let hidden = 0;
  for (const it of items) {
    const left = Math.max(0, Math.min(width - it.w, it.x - it.w / 2));
    const right = left + it.w;
    const row = taken.findIndex((spans) => spans.every(([a, b]) => right + gap <= a || left >= b + gap));
    if (row === -1) {
      hidden++;
      continue;
    }
    taken[row].push([left, right]);
    placed.push({ ...it, row, left });
  }
  return { placed, hidden };
}

/** The placed label under `(x, y)` (CSS px in the label layer), or null. */
export function labelAt(placed, x, y, rowH, top) {
  for (let i = placed.length - 1; i >= 0; i--) {
    const p = placed[i];
    const y0 = top + p.row * rowH;
    if (x >= p.left && x <= p.left + p.w && y >= y0 && y <= y0 + rowH) return p;
  }
  return null;
}

/** Merges a live spot into a list (newest first): it replaces one of the same call on the
 * same band, and the list keeps at most `max`. */
export function mergeSpot(list, spot, max = 500) {
  const same = (s) => s.call === spot.call && (s.band || null) === (spot.band || null);
  return [spot, ...list.filter((s) => !same(s))].slice(0, max);
}
