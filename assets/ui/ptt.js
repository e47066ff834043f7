// Push-to-talk: the button (held; double-tap latches on touch screens, with a countdown
// to the server's transmit timeout) and Space held. Keys `ptt`, waits for the ok, then
// sends microphone audio; releases on button up, tab hidden, focus lost, the loss of
// either socket, and the server refusing TX audio. A key that is still on its way when
// released is unkeyed as soon as it lands; a release at any other point stops TX audio.
import { setText, toast } from './dom.js';
import { errorText } from './protocol.js';

/** A tap shorter than this counts towards a double-tap, ms. */
const TAP_MS = 300;
/** Two taps within this make a latch, ms. */
const DOUBLE_TAP_MS = 400;

function clock(s) {
  const t = Math.max(0, Math.round(s));
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
}

export class Ptt {
  /** `hooks`: `cmd(name, params)`, `audio` (AudioEngine), `txTimeoutS()`, `changed()`,
   * `canKey()`. */
  constructor(button, sub, hooks) {
    this.button = button;
    this.sub = sub;
    this.hooks = hooks;
    this.phase = 'idle'; // idle | keying | live
    this.latched = false;
    this.wantRelease = false;
    this.keyedAt = 0;
    this.lastTapEnd = 0;
    this.pressAt = 0;
    this.source = null;
    this.timer = null;
    this.gen = 0;
    this.bind();
  }

  get active() {
    return this.phase !== 'idle';
  }

  bind() {
    const b = this.button;
    b.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0) return;
      ev.preventDefault();
      b.setPointerCapture(ev.pointerId);
      if (this.latched) {
        this.latched = false;
        this.release('tap');
        return;
      }
      this.pressAt = performance.now();
      if (this.phase === 'keying' && this.wantRelease) {
        // the second tap of a double-tap lands while the first key is on its way
        this.wantRelease = false;
        return;
      }
      this.press('button');
    });
    const up = (ev) => {
      if (this.source !== 'button' || this.latched) return;
      const now = performance.now();
      const short = now - this.pressAt < TAP_MS;
      if (ev.pointerType !== 'mouse' && short && now - this.lastTapEnd < DOUBLE_TAP_MS) {
        // double-tap: stay on the air until the next tap
        this.latched = true;
        this.lastTapEnd = 0;
        toast('Transmit latched: tap PTT again to release.', 'info', 3000);
        this.render();
        return;
      }
      this.lastTapEnd = short ? now : 0;
      this.release('button up');
    };
    b.addEventListener('pointerup', up);
    b.addEventListener('pointercancel', () => this.release('cancelled'));
    b.addEventListener('contextmenu', (ev) => ev.preventDefault());
    document.addEventListener('visibilitychange', () => {
      if (document.hidden) this.release('tab hidden', true);
    });
    window.addEventListener('blur', () => {
      if (this.source === 'key') this.release('window lost focus');
    });
    window.addEventListener('pagehide', () => this.release('page closed', true));
  }

  /** Keys the transmitter (from the button or Space). Every release, server release
   * and connection loss starts a new generation: a press that finds its generation gone
   * after any wait (the key, the microphone prompt, TX audio starting) stops there, so
   * nothing it started outlives the release. */
  async press(source) {
    if (this.active) return;
    if (!this.hooks.canKey()) {
      toast('Not connected to a ready radio.', 'bad');
      return;
    }
    const gen = ++this.gen;
    const stale = () => gen !== this.gen;
    this.source = source;
    this.phase = 'keying';
    this.wantRelease = false;
    this.render();
    const audio = this.hooks.audio;
    // the microphone prompt (first time) runs while the key travels
    const micReady = audio.prepareTx().then(() => null, (e) => e);
    try {
      await this.hooks.cmd('ptt', { state: true });
    } catch (e) {
      if (stale()) return;
      this.toIdle();
      toast(`PTT refused: ${errorText(e)}`, 'bad');
      return;
    }
    // the socket closed meanwhile: the server unkeys a client it lost
    if (stale()) return;
    this.phase = 'live';
    this.keyedAt = performance.now();
    this.render();
    if (this.wantRelease) {
      this.release('released while keying');
      return;
    }
    this.startTimer();
    if (audio.txAudioBlocker()) return;
    const micErr = await micReady;
    if (stale()) return;
    if (micErr instanceof Error) {
      toast(`Keyed without audio: ${micErr.message}`, 'bad');
      return;
    }
    try {
      await audio.startTx();
    } catch (e) {
      if (!stale()) toast(`Keyed without audio: ${e.message}`, 'bad');
    }
  }

  /** Back to idle: a new generation, TX audio stopped (the microphone closes after its
   * idle time). */
  toIdle() {
    this.gen++;
    this.phase = 'idle';
    this.latched = false;
    this.wantRelease = false;
    this.source = null;
    clearInterval(this.timer);
    this.hooks.audio.stopTx();
    this.render();
  }

  /** Unkeys (always allowed); `quiet` skips the toast. A release while the key is on
   * its way unkeys as soon as it lands. */
  release(reason, quiet = false) {
    if (this.phase === 'idle') return;
    if (this.phase === 'keying') {
      this.wantRelease = true;
      return;
    }
    this.toIdle();
    this.hooks.cmd('ptt', { state: false }).catch((e) => {
      if (e.error !== 'disconnected' && !quiet) toast(`Unkeying failed: ${errorText(e)}`, 'bad');
    });
    if (reason && reason.startsWith('server')) toast(reason, 'info');
  }

  /** TX audio ended on the way to the server (its socket dropped, or the server refused
   * the frames with `ptt_required`): unkey rather than stay on the air without audio. */
  audioLost(why) {
    if (this.phase === 'idle') return;
    toast(`PTT released: ${why}.`, 'bad', 8000);
    this.release('audio lost', true);
  }

  /** The server says PTT dropped (timeout, another client, link loss). */
  serverReleased(why) {
    if (this.phase !== 'live') return;
    this.toIdle();
    if (why) toast(why, 'info');
  }

  /** The control socket closed: the server unkeys us; forget our side. */
  connectionLost() {
    if (this.phase === 'idle') return;
    this.toIdle();
  }

  startTimer() {
    clearInterval(this.timer);
    this.timer = setInterval(() => this.render(), 250);
  }

  /** The on-air time text: elapsed, and the countdown when latched. */
  airTime() {
    if (this.phase !== 'live') return '';
    const el = (performance.now() - this.keyedAt) / 1000;
    if (this.latched) return `${clock(el)} · ${clock(this.hooks.txTimeoutS() - el)} left`;
    return clock(el);
  }

  render() {
    const b = this.button;
    b.classList.toggle('keying', this.phase === 'keying');
    b.classList.toggle('live', this.phase === 'live');
    b.setAttribute('aria-pressed', String(this.phase === 'live'));
    let sub = 'hold to talk';
    if (this.phase === 'keying') sub = 'keying…';
    else if (this.phase === 'live') sub = this.latched ? `latched · ${this.airTime()}` : `on air · ${this.airTime()}`;
    setText(this.sub, sub);
    this.hooks.changed();
  }
}
