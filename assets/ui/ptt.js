// Push-to-talk on the page: the button (held; double-tap latches on touch screens, with a
// countdown to the server's transmit timeout) and Space held. The decisions are the
// state machine's (`pttmachine.js`); this shell feeds it the button, key, tab and socket
// events and carries out its effects: the `ptt` commands, the microphone and TX audio,
// messages, the on-air clock. Releases on button up, tab hidden, focus lost, the loss of
// either socket, and the server refusing TX audio.
import { byId, setText, toast } from './dom.js';
import { errorText } from './protocol.js';
import { PttMachine } from './pttmachine.js';

export class Ptt {
  /** `hooks`: `cmd(name, params)`, `audio` (AudioEngine), `txTimeoutS()`, `changed()`,
   * `canKey()`, `silentVoice()` (`{mode, why}` when a voice mode has no microphone). */
  constructor(button, sub, hooks) {
    this.button = button;
    this.sub = sub;
    this.hooks = hooks;
    this.machine = new PttMachine();
    this.timer = null;
    this.micReady = null;
    this.bind();
  }

  get phase() {
    return this.machine.phase;
  }

  get latched() {
    return this.machine.latched;
  }

  get source() {
    return this.machine.source;
  }

  get active() {
    return this.machine.active;
  }

  bind() {
    const b = this.button;
    b.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0) return;
      ev.preventDefault();
      b.setPointerCapture(ev.pointerId);
      this.run(this.machine.pointerDown(performance.now(), this.hooks.canKey(), this.hooks.silentVoice()));
    });
    b.addEventListener('pointerup', (ev) => this.run(this.machine.pointerUp(performance.now(), ev.pointerType !== 'mouse')));
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

  /** Keys the transmitter (from the button or Space). */
  press(source) {
    this.run(this.machine.press(source, this.hooks.canKey(), this.hooks.silentVoice()));
  }

  /** Unkeys (always allowed); `quiet` skips the message. */
  release(reason, quiet = false) {
    this.run(this.machine.release(reason, quiet));
  }

  /** TX audio ended on the way to the server: unkey. */
  audioLost(why) {
    this.run(this.machine.audioLost(why));
  }

  /** The server says PTT dropped (timeout, another client, link loss). */
  serverReleased(why) {
    this.run(this.machine.serverReleased(why));
  }

  /** The control socket closed: the server unkeys us; forget our side. */
  connectionLost() {
    this.run(this.machine.connectionLost());
  }

  /** Carries out the machine's effects, then shows its state. */
  run(effects) {
    for (const e of effects) {
      if (e.do === 'key') this.key(e.gen);
      else if (e.do === 'unkey') this.unkey(e.quiet);
      else if (e.do === 'startAudio') this.startAudio(e.gen);
      else if (e.do === 'stopAudio') this.hooks.audio.stopTx();
      else if (e.do === 'clock') this.clock(e.on);
      else if (e.do === 'toast') toast(e.text, e.kind, e.ms);
      else if (e.do === 'confirmSilent') this.askSilent(e.mode, e.why);
    }
    this.render();
    this.hooks.changed();
  }

  /** Asks whether to key a voice mode without a microphone (a silent carrier). */
  askSilent(mode, why) {
    const dlg = byId('silent-dlg');
    setText(byId('silent-mode'), mode);
    setText(byId('silent-why'), why);
    byId('silent-ok').onclick = () => this.run(this.machine.confirmSilent(mode));
    if (!dlg.open) dlg.showModal();
  }

  /** Sends the key; the microphone prompt (first time) runs while the key travels. */
  key(gen) {
    this.micReady = this.hooks.audio.prepareTx().then(() => null, (e) => e);
    this.hooks.cmd('ptt', { state: true }).then(
      () => this.run(this.machine.keyed(gen, performance.now())),
      (e) => this.run(this.machine.keyFailed(gen, errorText(e))),
    );
  }

  unkey(quiet) {
    this.hooks.cmd('ptt', { state: false }).catch((e) => {
      if (e.error !== 'disconnected' && !quiet) toast(`Unkeying failed: ${errorText(e)}`, 'bad');
    });
  }

  /** Starts TX audio once the microphone is ready, unless generation `gen` ended. */
  async startAudio(gen) {
    const audio = this.hooks.audio;
    if (audio.txAudioBlocker()) return;
    const micErr = await this.micReady;
    if (!this.machine.current(gen)) return;
    if (micErr instanceof Error) {
      toast(`Keyed without audio: ${micErr.message}`, 'bad');
      return;
    }
    try {
      await audio.startTx();
    } catch (e) {
      if (this.machine.current(gen)) toast(`Keyed without audio: ${e.message}`, 'bad');
    }
  }

  clock(on) {
    clearInterval(this.timer);
    this.timer = on ? setInterval(() => this.hooks.changed(), 250) : null;
  }

  /** The on-air time text: elapsed, and the countdown when latched. */
  airTime() {
    return this.machine.airTime(performance.now(), this.hooks.txTimeoutS());
  }

  render() {
    const b = this.button;
    const phase = this.machine.phase;
    b.classList.toggle('keying', phase === 'keying');
    b.classList.toggle('live', phase === 'live');
    b.setAttribute('aria-pressed', String(phase === 'live'));
    const silent = phase === 'idle' ? this.hooks.silentVoice() : null;
    b.classList.toggle('nomic', !!silent && this.machine.silentOk !== silent.mode);
    setText(this.sub, this.machine.caption(performance.now(), this.hooks.txTimeoutS(), silent));
  }
}
