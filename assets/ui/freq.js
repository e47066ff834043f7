// Frequencies for people: display digits with their place values (digit-wise tuning),
// parsing what an operator types, tuning steps, band lookup and scope axis ticks.

/** Tuning steps offered, Hz. */
export const STEPS = [1, 10, 50, 100, 500, 1000, 2500, 5000, 9000, 10000, 12500, 25000, 100000];

/** A step as text: "10 Hz", "2.5 kHz". */
export function stepLabel(hz) {
  if (hz >= 1e6) return `${hz / 1e6} MHz`;
  if (hz >= 1000) return `${hz / 1000} kHz`;
  return `${hz} Hz`;
}

/** A sensible step for a mode. */
export function defaultStep(mode) {
  const m = String(mode || '').toUpperCase();
  if (m.startsWith('CW') || m.startsWith('RTTY') || m.startsWith('PSK')) return 10;
  if (m === 'AM') return 1000;
  if (m === 'FM' || m === 'WFM' || m === 'DV') return 5000;
  return 100;
}

/** "14.074.000" (MHz, kHz and Hz groups). */
export function formatHz(hz) {
  const h = Math.max(0, Math.round(hz));
  const mhz = Math.floor(h / 1e6);
  const khz = String(Math.floor(h / 1000) % 1000).padStart(3, '0');
  const rest = String(h % 1000).padStart(3, '0');
  return `${mhz}.${khz}.${rest}`;
}

/** A frequency as the display and screen readers give it: "14.074.000 MHz", or
 * "unknown" when the radio has not said (null). */
export function freqText(hz) {
  return Number.isFinite(hz) ? `${formatHz(hz)} MHz` : 'unknown';
}

/** "14.074 MHz", "7.0745 MHz", "475 kHz": short text for labels and toasts. */
export function formatShort(hz) {
  if (hz < 1e6) return `${+(hz / 1000).toFixed(3)} kHz`;
  return `${+(hz / 1e6).toFixed(6)} MHz`;
}

/** The digits of a display `count` digits wide: `{ch, place, lead}` from the most
 * significant, `place` the Hz value of one step of that digit, `lead` true for leading
 * zeros (shown dimmed). `sep` marks where a group separator follows. */
export function freqDigits(hz, count) {
  const h = Math.max(0, Math.round(hz));
  const s = String(h).padStart(count, '0').slice(-count);
  const firstSig = s.search(/[1-9]/);
  const out = [];
  for (let i = 0; i < count; i++) {
    const pow = count - 1 - i;
    out.push({
      ch: s[i],
      place: 10 ** pow,
      lead: firstSig === -1 ? i < count - 1 : i < firstSig && pow >= 6,
      sep: pow === 6 || pow === 3,
    });
  }
  return out;
}

/** Digits needed to show frequencies up to `maxHz` (at least 8: 99.999.999). */
export function digitCount(maxHz) {
  return Math.max(8, String(Math.round(maxHz)).length);
}

/** Parses an operator's frequency: "14.074" (MHz when below 1000), "7074" (kHz below a
 * million), "14074000" (Hz), units k/kHz, M/MHz, G/GHz, Hz; "14.074.000" as the display
 * shows it; "14,074" with a decimal comma; "+5k" / "-500" relative to `currentHz`.
 * Returns Hz (integer) or null. */
export function parseFreq(text, currentHz = 0) {
  let s = String(text || '').trim().toLowerCase().replace(/[\s_']/g, '');
  if (!s) return null;
  let rel = 0;
  if (s[0] === '+' || s[0] === '-') {
    rel = s[0] === '+' ? 1 : -1;
    s = s.slice(1);
  }
  const m = s.match(/^([0-9.,]+)(hz|khz|k|mhz|m|ghz|g)?$/);
  if (!m) return null;
  let num = m[1];
  const dots = (num.match(/\./g) || []).length;
  const commas = (num.match(/,/g) || []).length;
  if (dots > 1) {
    // "14.074.000": group separators
    if (commas) return null;
    num = num.replace(/\./g, '');
  } else if (dots === 1 && commas && num.lastIndexOf(',') > num.indexOf('.')) {
    return null;
  } else if (commas === 1 && dots === 0) {
    num = num.replace(',', '.');
  } else {
    num = num.replace(/,/g, '');
  }
  const v = Number(num);
  if (!Number.isFinite(v)) return null;
  const unit = m[2] || '';
  let hz;
  if (unit === 'hz') hz = v;
  else if (unit === 'k' || unit === 'khz') hz = v * 1e3;
  else if (unit === 'm' || unit === 'mhz') hz = v * 1e6;
  else if (unit === 'g' || unit === 'ghz') hz = v * 1e9;
  else if (dots > 1) hz = v;
  else if (rel) hz = v; // "+500": Hz
  else if (v < 1000) hz = v * 1e6;
  else if (v < 1e6) hz = v * 1e3;
  else hz = v;
  hz = Math.round(hz);
  if (rel) hz = currentHz + rel * hz;
  return hz > 0 ? hz : null;
}

/** `hz` moved by `n` steps, landing on the step grid. */
export function tuneBy(hz, n, step) {
  const onGrid = Math.round(hz / step) * step;
  if (onGrid !== hz && n !== 0) {
    // off the grid: the first step lands on the grid line in that direction
    const toward = n > 0 ? Math.ceil(hz / step) * step : Math.floor(hz / step) * step;
    return toward + (n - Math.sign(n)) * step;
  }
  return onGrid + n * step;
}

/** All bands of the capabilities, in frequency order. */
export function allBands(caps) {
  const bands = [];
  for (const r of (caps && caps.freqRanges) || []) for (const b of r.bands || []) bands.push(b);
  return bands.sort((a, b) => a.start - b.start);
}

/** The band holding `hz`, or null. */
export function bandOf(bands, hz) {
  return bands.find((b) => hz >= b.start && hz <= b.end) || null;
}

/** The next band up (`dir` 1) or down (−1) from `hz`, or null at the ends. */
export function nextBand(bands, hz, dir) {
  if (dir > 0) return bands.find((b) => b.start > hz) || null;
  const below = bands.filter((b) => b.end < hz);
  return below.length ? below[below.length - 1] : null;
}

/** Whether `hz` is inside one of the capabilities' ranges. */
export function inRanges(caps, hz) {
  return ((caps && caps.freqRanges) || []).some((r) => hz >= r.start && hz <= r.end);
}

/** A tick spacing (1, 2 or 5 × 10^k Hz) giving ticks at least `minPx` apart. */
export function tickSpacing(spanHz, widthPx, minPx = 90) {
  const want = (spanHz * minPx) / Math.max(1, widthPx);
  let p = 1;
  while (p * 10 <= want) p *= 10;
  for (const f of [1, 2, 5, 10]) if (p * f >= want) return p * f;
  return p * 10;
}

/** Ticks `{hz, label}` for a scope from `startHz` to `endHz` drawn `widthPx` wide. */
export function scopeTicks(startHz, endHz, widthPx, minPx = 90) {
  if (!(endHz > startHz)) return [];
  const sp = tickSpacing(endHz - startHz, widthPx, minPx);
  const decimals = Math.max(0, Math.min(6, 6 - Math.floor(Math.log10(sp) + 1e-9)));
  const ticks = [];
  for (let f = Math.ceil(startHz / sp) * sp; f <= endHz; f += sp) {
    ticks.push({ hz: f, label: (f / 1e6).toFixed(decimals) });
  }
  return ticks;
}
