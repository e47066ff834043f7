// Where a receiver really listens: the RF passband of a mode and filter width around the
// dial (the same geometry as the radio's demodulators and the simulator's: USB above the
// dial from 200 Hz, LSB below, CW centred on the dial, RTTY around mark−85 Hz, PSK around
// 1500 Hz, AM/FM centred), and the frequency <-> pixel mapping of the scope.

/** Audio offset of the SSB passband's low edge, Hz. */
export const SSB_LOW_HZ = 200;

/** The passband `{lo, hi}` in Hz of `mode` on `dialHz` with a filter `widthHz` wide. */
export function passband(mode, dialHz, widthHz) {
  const w = Math.max(50, widthHz || 0);
  const base = String(mode || '').toUpperCase().replace(/-D$/, '');
  switch (base) {
    case 'LSB':
      return { lo: dialHz - SSB_LOW_HZ - w, hi: dialHz - SSB_LOW_HZ };
    case 'CW':
    case 'CW-R':
    case 'AM':
    case 'FM':
    case 'WFM':
    case 'DV':
    case 'DD':
      return { lo: dialHz - w / 2, hi: dialHz + w / 2 };
    case 'RTTY':
      // mark on the dial, heard at 2125 Hz; the filter centred on 2040 Hz (LSB-like)
      return { lo: dialHz + 85 - w / 2, hi: dialHz + 85 + w / 2 };
    case 'RTTY-R':
      return { lo: dialHz - 85 - w / 2, hi: dialHz - 85 + w / 2 };
    case 'PSK':
      return { lo: dialHz + 1500 - w / 2, hi: dialHz + 1500 + w / 2 };
    case 'PSK-R':
      return { lo: dialHz - 1500 - w / 2, hi: dialHz - 1500 + w / 2 };
    default:
      // USB and the USB-like data modes
      return { lo: dialHz + SSB_LOW_HZ, hi: dialHz + SSB_LOW_HZ + w };
  }
}

/** The filter width of a receiver: its reported width, else the profile's width of its
 * mode and filter number, else 2400 Hz. */
export function filterWidth(rx, caps) {
  if (rx && Number.isFinite(rx.filterWidth)) return rx.filterWidth;
  const widths = caps && caps.filterWidths && rx ? caps.filterWidths[rx.mode] : null;
  const i = rx && Number.isFinite(rx.filter) ? rx.filter - 1 : 0;
  if (widths && widths[i] !== undefined) return widths[i];
  return 2400;
}

/** The dial a VFO entry (model.js `vfoEntries`) tuned to `freqHz` listens at: plus the
 * RIT offset while RIT is on, but only on the receiver / VFO the radio operates (the
 * active one) — never on MAIN while SUB is selected, nor on the unselected VFO of an A/B
 * radio. */
export function dialHz(entry, freqHz, state) {
  const on = !!entry && entry.isActive && !!state && state.rit === true && Number.isFinite(state.ritOffsetHz);
  return freqHz + (on ? state.ritOffsetHz : 0);
}

/** The passband `{lo, hi}` of a VFO entry tuned to `freqHz`: its mode and filter width
 * around its dial. */
export function entryPassband(entry, freqHz, state, caps) {
  return passband(entry.rx.mode, dialHz(entry, freqHz, state), filterWidth(entry.rx, caps));
}

/** x (0..width) of `hz` on a scope showing `startHz`..`endHz`. */
export function hzToX(hz, startHz, endHz, width) {
  return ((hz - startHz) / (endHz - startHz)) * width;
}

/** The frequency at x (0..width) on a scope showing `startHz`..`endHz`. */
export function xToHz(x, startHz, endHz, width) {
  return startHz + (x / width) * (endHz - startHz);
}

/** The frequency a click at `clickHz` tunes to: the dial (the carrier for SSB) there,
 * rounded to the tuning step (at most 1 kHz in the narrow modes). */
export function clickTuneHz(clickHz, mode, stepHz) {
  const base = String(mode || '').toUpperCase();
  const wide = base === 'AM' || base === 'FM' || base === 'WFM';
  const snap = Math.max(1, wide ? stepHz : Math.min(stepHz, 1000));
  return Math.round(clickHz / snap) * snap;
}
