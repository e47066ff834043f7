// The push-to-talk state machine, without the page: fed inputs with the time they happen
// (`now`, ms), it answers with the effects the page carries out (send the key or the
// unkey, start or stop TX audio, a message, the on-air clock). The button is held, or
// latched by a double tap on touch screens until the next tap; Space is held. A key that
// is still on its way when released is unkeyed as soon as it lands. Every release,
// server release and connection loss starts a new generation: a key or TX audio start
// that finds its generation gone stops there, so nothing it started outlives the release.

/** A tap shorter than this counts towards a double-tap, ms. */
export const TAP_MS = 300;
/** Two taps within this make a latch, ms. */
export const DOUBLE_TAP_MS = 400;

/** Seconds as m:ss. */
export function clock(s) {
  const t = Math.max(0, Math.round(s));
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
}

/** The effects: `{do: 'key', gen}` (send `ptt true`, then report `keyed` or `keyFailed`),
 * `{do: 'unkey', quiet}` (send `ptt false`), `{do: 'startAudio', gen}`, `{do: 'stopAudio'}`,
 * `{do: 'clock', on}` (the on-air clock ticks or stops), `{do: 'toast', text, kind, ms}`. */
export class PttMachine {
  constructor() {
    this.phase = 'idle'; // idle | keying | live
    this.latched = false;
    this.wantRelease = false;
    this.source = null; // 'button' | 'key' while not idle
    this.keyedAt = 0;
    this.pressAt = 0;
    this.lastTapEnd = null; // when the last short tap ended, if there was one
    this.gen = 0;
    this.silentOk = null; // the voice mode the operator agreed to key without a microphone
  }

  get active() {
    return this.phase !== 'idle';
  }

  /** True while the key or audio start of generation `gen` still counts. */
  current(gen) {
    return gen === this.gen;
  }

  /** The button went down (`canKey`: connected to a ready radio; `silent`: see `press`). */
  pointerDown(now, canKey, silent = null) {
    if (this.latched) {
      this.latched = false;
      return this.release('tap');
    }
    this.pressAt = now;
    if (this.phase === 'keying' && this.wantRelease) {
      // the second tap of a double-tap lands while the first key is on its way
      this.wantRelease = false;
      return [];
    }
    return this.press('button', canKey, silent);
  }

  /** The button came up; `touch`: not a mouse (only touch and pen taps latch). */
  pointerUp(now, touch) {
    if (this.source !== 'button' || this.latched) return [];
    const short = now - this.pressAt < TAP_MS;
    if (touch && short && this.lastTapEnd !== null && now - this.lastTapEnd < DOUBLE_TAP_MS) {
      // double-tap: stay on the air until the next tap
      this.latched = true;
      this.lastTapEnd = null;
      return [{ do: 'toast', text: 'Transmit latched: tap PTT again to release.', kind: 'info', ms: 3000 }];
    }
    this.lastTapEnd = short ? now : null;
    return this.release('button up');
  }

  /** Keys the transmitter from `source` ('button' or 'key'). `silent` (`{mode, why}`):
   * a voice mode without a microphone, which keys only once the operator has agreed to
   * a silent carrier in that mode (`confirmSilent`); until then the press asks. */
  press(source, canKey, silent = null) {
    if (this.active) return [];
    if (!canKey) return [{ do: 'toast', text: 'Not connected to a ready radio.', kind: 'bad' }];
    if (silent && this.silentOk !== silent.mode) return [{ do: 'confirmSilent', mode: silent.mode, why: silent.why }];
    this.gen++;
    this.source = source;
    this.phase = 'keying';
    this.wantRelease = false;
    return [{ do: 'key', gen: this.gen }];
  }

  /** The operator agreed to key `mode` without a microphone (until the page reloads). */
  confirmSilent(mode) {
    this.silentOk = mode;
    return [{ do: 'toast', text: `${mode} without a microphone: press PTT again to transmit a silent carrier.`, kind: 'info', ms: 6000 }];
  }

  /** The radio confirmed the key of generation `gen`. */
  keyed(gen, now) {
    if (!this.current(gen)) return [];
    this.phase = 'live';
    this.keyedAt = now;
    if (this.wantRelease) return this.release('released while keying');
    return [{ do: 'clock', on: true }, { do: 'startAudio', gen }];
  }

  /** The key of generation `gen` was refused (`why`: the error in words). */
  keyFailed(gen, why) {
    if (!this.current(gen)) return [];
    return [...this.toIdle(), { do: 'toast', text: `PTT refused: ${why}`, kind: 'bad' }];
  }

  /** Unkeys (always allowed); `quiet` sends no message about it. A release while the
   * key is on its way unkeys as soon as it lands. */
  release(reason, quiet = false) {
    if (this.phase === 'idle') return [];
    if (this.phase === 'keying') {
      this.wantRelease = true;
      return [];
    }
    const out = [...this.toIdle(), { do: 'unkey', quiet }];
    if (reason && reason.startsWith('server')) out.push({ do: 'toast', text: reason, kind: 'info' });
    return out;
  }

  /** TX audio ended on the way to the server (its socket dropped, or the server refused
   * the frames): unkey rather than stay on the air without audio. */
  audioLost(why) {
    if (this.phase === 'idle') return [];
    return [{ do: 'toast', text: `PTT released: ${why}.`, kind: 'bad', ms: 8000 }, ...this.release('audio lost', true)];
  }

  /** The server says PTT dropped (timeout, another client, link loss). */
  serverReleased(why) {
    if (this.phase !== 'live') return [];
    const out = this.toIdle();
    if (why) out.push({ do: 'toast', text: why, kind: 'info' });
    return out;
  }

  /** The control socket closed: the server unkeys a client it lost; forget our side. */
  connectionLost() {
    if (this.phase === 'idle') return [];
    return this.toIdle();
  }

  /** Back to idle in a new generation: TX audio stops, the clock stops. */
  toIdle() {
    this.gen++;
    this.phase = 'idle';
    this.latched = false;
    this.wantRelease = false;
    this.source = null;
    return [{ do: 'clock', on: false }, { do: 'stopAudio' }];
  }

  /** The on-air time at `now`: elapsed, and what is left of `timeoutS` when latched. */
  airTime(now, timeoutS) {
    if (this.phase !== 'live') return '';
    const el = (now - this.keyedAt) / 1000;
    if (this.latched) return `${clock(el)} · ${clock(timeoutS - el)} left`;
    return clock(el);
  }

  /** The line under the button; `silent` as for `press` (said before any keying). */
  caption(now, timeoutS, silent = null) {
    if (this.phase === 'keying') return 'keying…';
    if (this.phase === 'live') return `${this.latched ? 'latched' : 'on air'} · ${this.airTime(now, timeoutS)}`;
    if (silent && this.silentOk !== silent.mode) return `no microphone · ${silent.mode} asks first`;
    return 'hold to talk';
  }
}
