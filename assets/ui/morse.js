// Morse timing for the browser's CW sidetone: text to key-down/key-up intervals at a
// speed in words per minute (PARIS: a dot lasts 1200 / wpm ms; a dash three dots; one
// dot between elements, three between letters, seven between words).

/** International Morse for the characters the radio's keyer sends. */
const CODE = {
  A: '.-', B: '-...', C: '-.-.', D: '-..', E: '.', F: '..-.', G: '--.', H: '....', I: '..', J: '.---',
  K: '-.-', L: '.-..', M: '--', N: '-.', O: '---', P: '.--.', Q: '--.-', R: '.-.', S: '...', T: '-',
  U: '..-', V: '...-', W: '.--', X: '-..-', Y: '-.--', Z: '--..',
  0: '-----', 1: '.----', 2: '..---', 3: '...--', 4: '....-', 5: '.....', 6: '-....', 7: '--...', 8: '---..', 9: '----.',
  '/': '-..-.', '?': '..--..', '.': '.-.-.-', ',': '--..--', '=': '-...-', '+': '.-.-.', '-': '-....-', '@': '.--.-.',
};

/** The speed used when the radio's keyer speed is unknown, wpm. */
export const DEFAULT_WPM = 20;

/** The length of one dot at `wpm`, ms. */
export function dotMs(wpm) {
  const w = Number.isFinite(wpm) && wpm > 0 ? wpm : DEFAULT_WPM;
  return 1200 / w;
}

/** Key-down intervals `[{at, ms}]` (ms from the start) for `text` at `wpm`, and the
 * total length `{tones, totalMs}`. Characters without a code are skipped. */
export function morseTiming(text, wpm) {
  const dot = dotMs(wpm);
  const tones = [];
  let t = 0;
  let pendingGap = 0;
  for (const word of String(text || '').toUpperCase().split(/\s+/).filter(Boolean)) {
    if (tones.length) pendingGap = 7 * dot;
    for (const ch of word) {
      const code = CODE[ch];
      if (!code) continue;
      for (const el of code) {
        t += pendingGap;
        const ms = el === '-' ? 3 * dot : dot;
        tones.push({ at: t, ms });
        t += ms;
        pendingGap = dot;
      }
      pendingGap = 3 * dot;
    }
  }
  return { tones, totalMs: t };
}
