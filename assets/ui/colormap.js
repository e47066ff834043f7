// Waterfall colour maps (256-entry lookup tables of packed RGBA for ImageData rows) and
// the level mapping of scope amplitudes (0..160) onto them, with an automatic noise
// floor / peak estimate for contrast.

const STOPS = {
  // dark blue through cyan, yellow and red to white, as classic SDR waterfalls
  classic: ['#000000', '#000a3c', '#001e96', '#0064dc', '#00c8c8', '#64e632', '#f0e614', '#ff8200', '#ff1e1e', '#ffffff'],
  turbo: ['#30123b', '#4662d7', '#36aaf9', '#1ae4b6', '#72fe5e', '#c8ef34', '#faba39', '#f66b19', '#ca2a04', '#7a0403'],
  viridis: ['#440154', '#482878', '#3e4989', '#31688e', '#26828e', '#1f9e89', '#35b779', '#6ece58', '#b5de2b', '#fde725'],
  inferno: ['#000004', '#1b0c41', '#4a0c6b', '#781c6d', '#a52c60', '#cf4446', '#ed6925', '#fb9b06', '#f7d13d', '#fcffa4'],
  grey: ['#000000', '#ffffff'],
};

/** Names of the colour maps, default first. */
export const COLORMAPS = Object.keys(STOPS);

function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** The colour `[r, g, b]` of map `name` at t (0..1). */
export function colorAt(name, t) {
  const stops = STOPS[name] || STOPS.classic;
  const x = Math.max(0, Math.min(1, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const a = rgb(stops[i]);
  const b = rgb(stops[i + 1]);
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * f));
}

/** Packs r, g, b and full alpha as a little-endian ImageData pixel. */
export function packRgba(r, g, b) {
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/** The 256-colour lookup table of map `name`. */
export function buildLut(name) {
  const lut = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    const [r, g, b] = colorAt(name, i / 255);
    lut[i] = packRgba(r, g, b);
  }
  return lut;
}

/** A table from raw amplitude (0..255) to colour: `lo` and below the darkest colour,
 * `hi` and above the brightest. */
export function levelTable(lut, lo, hi) {
  const t = new Uint32Array(256);
  const range = Math.max(1, hi - lo);
  for (let v = 0; v < 256; v++) {
    const i = Math.max(0, Math.min(255, Math.round(((v - lo) / range) * 255)));
    t[v] = lut[i];
  }
  return t;
}

/** The value below which fraction `p` of `pixels` lie (a histogram; values 0..255). */
export function percentile(pixels, p) {
  const hist = new Uint32Array(256);
  for (let i = 0; i < pixels.length; i++) hist[pixels[i]]++;
  const want = Math.max(1, Math.ceil(pixels.length * p));
  let seen = 0;
  for (let v = 0; v < 256; v++) {
    seen += hist[v];
    if (seen >= want) return v;
  }
  return 255;
}

/** Noise floor (20th percentile) and peak (99.5th) of one sweep. */
export function measureLevels(pixels) {
  return { floor: percentile(pixels, 0.2), peak: percentile(pixels, 0.995) };
}

/** Smooths level estimates over sweeps (`alpha` of the new one). */
export function smoothLevels(prev, next, alpha = 0.08) {
  if (!prev) return { ...next };
  return {
    floor: prev.floor + (next.floor - prev.floor) * alpha,
    peak: prev.peak + (next.peak - prev.peak) * alpha,
  };
}

/** The colour range `{lo, hi}` for measured levels: the noise floor just above black,
 * strong signals near the top, never less than `minRange` wide. */
export function autoRange(levels, minRange = 30) {
  const lo = levels.floor - 4;
  const hi = Math.max(lo + minRange, levels.peak + 4);
  return { lo, hi };
}
