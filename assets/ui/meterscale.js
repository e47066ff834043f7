// Meter scales: raw 0..255 readings of the meter frames to S-units, watts, SWR, volts
// and amps, after the calibration points of Icom's CI-V reference (IC-7610 / IC-705 /
// IC-9700 share them), plus a peak-hold helper for the bars.

/** Piecewise-linear interpolation through [[raw, value], ...] (raw ascending); clamps
 * below the first point and extends the last segment above the last. */
export function interpolate(table, raw) {
  if (raw <= table[0][0]) return table[0][1];
  for (let i = 1; i < table.length; i++) {
    const [x1, y1] = table[i];
    const [x0, y0] = table[i - 1];
    if (raw <= x1 || i === table.length - 1) return y0 + ((raw - x0) * (y1 - y0)) / (x1 - x0);
  }
  return table[table.length - 1][1];
}

/** S-meter: raw 0 = S0, 120 = S9, 241 = S9+60 dB; 6 dB per S-unit. */
export const S9_RAW = 120;
const S_TABLE = [[0, 0], [S9_RAW, 54], [241, 114]];
/** S0 in dBm (S9 = −73 dBm on HF). */
const S0_DBM = -127;

/** An S-meter reading: `{db}` above S0, `{s}` S-units (0..9), `{over}` dB over S9,
 * `{text}` like "S7" or "S9+20", `{dbm}`, `{fraction}` of the bar (S9+60 = 1). */
export function sMeter(raw) {
  const r = Math.max(0, Math.min(255, raw));
  const db = interpolate(S_TABLE, r);
  const over = Math.max(0, db - 54);
  const s = Math.min(9, Math.floor(db / 6 + 1e-9));
  const text = db >= 54 - 1e-9 ? (over >= 0.5 ? `S9+${Math.round(over)}` : 'S9') : `S${s}`;
  return { db, s, over, text, dbm: Math.round(S0_DBM + db), fraction: Math.min(1, r / 241) };
}

/** Where the S-meter scale's labels sit on the bar (fraction 0..1) — S1..S9, +20..+60. */
export function sMeterTicks() {
  const ticks = [];
  for (const s of [1, 3, 5, 7, 9]) ticks.push({ label: String(s), fraction: (s * 6 / 54) * (S9_RAW / 241) });
  for (const over of [20, 40, 60]) {
    ticks.push({ label: `+${over}`, fraction: (S9_RAW + (over / 60) * (241 - S9_RAW)) / 241 });
  }
  return ticks;
}

/** The calibration points of the TX meters, raw -> value, as the protocol reference
 * gives them (icom-lan-protocol.md, "Meters"). TEMP has none there (no CI-V reading on
 * the supported radios): it is shown as % of the raw scale. */
export const TABLES = {
  // Po: % of the rated power (0 W, 50 W, 100 W, 120 W on a 100 W radio)
  power: [[0, 0], [143, 50], [213, 100], [255, 120]],
  // SWR: 255 means 6.0 or worse
  swr: [[0, 1], [48, 1.5], [80, 2], [120, 3], [255, 6]],
  // ALC: 0..120 is the ALC zone (120 = its top = 100 %); the scale goes on to 255
  alc: [[0, 0], [120, 100]],
  comp: [[0, 0], [130, 15], [241, 30]],
  vd: [[0, 0], [151, 10], [185, 13.8], [211, 16]],
  id: [[0, 0], [77, 10], [165, 20], [241, 30]],
  temp: [[0, 0], [255, 100]],
};
/** Raw values from which a reading is shown in red: SWR 2.0, ALC past its zone, Id 25 A,
 * TEMP 80 %. */
const RED_RAW = { power: 256, swr: 80, alc: 121, comp: 256, vd: 256, id: 203, temp: 204 };
/** Full-scale raw value of each bar (Vd: 16 V). */
const FULL_RAW = { power: 255, swr: 255, alc: 160, comp: 241, vd: 211, id: 241, temp: 255, smeter: 241, smeter_sub: 241 };

/** A meter reading by meter name (`power`, `swr`, `alc`, `comp`, `id`, `vd`, `temp`,
 * `smeter`, `smeter_sub`): `{value, unit, text, fraction, red}`. `maxWatts` turns the
 * power meter into watts. */
export function meterReading(name, raw, maxWatts = 100) {
  if (name === 'smeter' || name === 'smeter_sub') {
    const s = sMeter(raw);
    return { value: s.db, unit: 'dB', text: s.text, fraction: s.fraction, red: raw > S9_RAW };
  }
  const table = TABLES[name];
  if (!table) return { value: raw, unit: '', text: String(raw), fraction: Math.min(1, raw / 255), red: false };
  const v = interpolate(table, raw);
  const fraction = Math.max(0, Math.min(1, raw / FULL_RAW[name]));
  const red = raw >= RED_RAW[name];
  switch (name) {
    case 'power': {
      const w = (v / 100) * maxWatts;
      return { value: w, unit: 'W', text: `${w < 10 ? w.toFixed(1) : Math.round(w)} W`, fraction, red };
    }
    case 'swr':
      return { value: v, unit: '', text: raw >= 255 ? '≥6.0:1' : `${v.toFixed(1)}:1`, fraction, red };
    case 'alc':
      return { value: v, unit: '%', text: `${Math.round(v)} %`, fraction, red };
    case 'comp':
      return { value: v, unit: 'dB', text: `${v.toFixed(0)} dB`, fraction, red };
    case 'vd':
      return { value: v, unit: 'V', text: `${v.toFixed(1)} V`, fraction, red };
    case 'id':
      return { value: v, unit: 'A', text: `${v.toFixed(1)} A`, fraction, red };
    default:
      return { value: v, unit: '%', text: `${Math.round(v)} %`, fraction, red };
  }
}

/** Holds the highest value for `holdMs`, then lets it fall by `fallPerS` (of full scale)
 * per second. */
export class PeakHold {
  constructor(holdMs = 1500, fallPerS = 0.5) {
    this.holdMs = holdMs;
    this.fallPerS = fallPerS;
    this.peak = 0;
    this.at = -Infinity;
    this.shownAt = -Infinity;
  }

  /** Feeds a value (0..1) at time `now` (ms); returns the peak to show. */
  update(v, now) {
    if (v >= this.peak) {
      this.peak = v;
      this.at = now;
    } else if (now - this.at > this.holdMs) {
      const dt = (now - Math.max(this.at + this.holdMs, this.shownAt)) / 1000;
      this.peak = Math.max(v, this.peak - this.fallPerS * Math.max(0, dt));
    }
    this.shownAt = now;
    return this.peak;
  }
}
